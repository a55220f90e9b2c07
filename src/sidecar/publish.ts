// `webmcp-hub publish manifest.json`: checks the manifest locally with the hub's own schema (so a mistake
// is reported without a round trip), then `PUT {hub}/api/sites/:host/manifest` with the publisher key.
// Every problem is reported with its path (`tools[2].inputSchema.type: …`), from either side.
import { readFileSync } from "node:fs";
import { ErrorBodySchema, fieldIssues, LIMITS, ManifestSchema, type FieldIssue } from "../protocol/index.js";

export class PublishError extends Error {
  override readonly name = "PublishError";
  constructor(
    message: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
  }
}

export interface PublishRequest {
  file: string;
  hub: string;
  site: string;
  key: string;
}

export interface PublishOutcome {
  host: string;
  version: number | undefined;
  toolCount: number | undefined;
  unchanged: boolean;
}

/** Reads and checks the manifest; the parsed JSON is sent as written (the hub normalizes it itself). */
export function readManifest(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new PublishError(`Cannot read ${file}: ${e instanceof Error ? e.message : e}`);
  }
  if (Buffer.byteLength(text) > LIMITS.manifestBytes) {
    throw new PublishError(`${file} is larger than the hub's limit of ${LIMITS.manifestBytes / 1024} KiB.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PublishError(`${file} is not valid JSON: ${e instanceof Error ? e.message : e}`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new PublishError(
      `${file} is not a valid manifest; nothing was sent to the hub.`,
      fieldIssues(parsed.error),
    );
  }
  return json;
}

export async function publishManifest(req: PublishRequest): Promise<PublishOutcome> {
  const manifest = readManifest(req.file);
  const url = new URL(`/api/sites/${encodeURIComponent(req.site)}/manifest`, req.hub);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${req.key}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify(manifest),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new PublishError(`The hub at ${req.hub} did not answer (${e instanceof Error ? e.message : e}).`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported below with the status
  }
  if (!res.ok) {
    const error = ErrorBodySchema.safeParse(body);
    if (error.success) {
      const { code, message, issues } = error.data.error;
      throw new PublishError(
        `The hub refused the manifest (HTTP ${res.status} ${code}): ${message}`,
        issues ?? [],
      );
    }
    throw new PublishError(`The hub answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  }
  const ok = (body ?? {}) as Record<string, unknown>;
  return {
    host: req.site,
    version: typeof ok.version === "number" ? ok.version : undefined,
    toolCount: typeof ok.toolCount === "number" ? ok.toolCount : undefined,
    unchanged: ok.unchanged === true,
  };
}

/** The lines the CLI prints for a refused manifest: the message, then one line per issue. */
export function formatPublishError(error: PublishError): string[] {
  return [error.message, ...error.issues.map((issue) => `  - ${issue.path}: ${issue.message}`)];
}
