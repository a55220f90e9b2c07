// Manifest publishing: validate, then store an immutable version and re-index the current tools in one
// D1 batch (one transaction), so a failed publish stores nothing and leaves the previous version current.
// Every tool row is written with its definition digest, computed from the manifest as stored (digests.ts says
// why and how a version's digests are derived from its stored JSON).
import { and, desc, eq, max, sql } from "drizzle-orm";
import {
  LIMITS,
  ManifestSchema,
  type Manifest,
  type ManifestTool,
  fieldIssues,
} from "../../protocol/index.js";
import { atomically, type Db } from "../db/client.js";
import { manifestVersions, sites, tools } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { parseJsonText } from "../http/body.js";
import { checkTools, type DefinitionFinding } from "../../protocol/tool-checks.js";
import type { ManifestSource, ManifestVersionView, PublishResultView } from "../../protocol/views.js";
import { sha256Hex } from "../secrets.js";
import { manifestDigests, storedManifestDigests } from "./digests.js";
import { iso, type SiteRow } from "./sites.js";
import { nameWords, toolTerms } from "./terms.js";

/** Parses manifest JSON text into a normalized manifest (hints as booleans), or throws with field issues. */
export function parseManifestText(text: string): Manifest {
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > LIMITS.manifestBytes) {
    throw new HubError(
      "payload_too_large",
      `The manifest is ${Math.ceil(bytes / 1024)} KiB; the limit is ${LIMITS.manifestBytes / 1024} KiB.`,
    );
  }
  return parseManifest(parseJsonText(text));
}

export function parseManifest(value: unknown): Manifest {
  const parsed = ManifestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = fieldIssues(parsed.error);
  const duplicate = parsed.error.issues.find(
    (i) => i.code === "custom" && (i as { params?: { duplicate?: boolean } }).params?.duplicate,
  );
  const first = issues[0]!;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : "";
  if (duplicate)
    throw new HubError("duplicate_tool_name", `Invalid manifest: ${duplicate.message}.`, { issues });
  throw new HubError("invalid_manifest", `Invalid manifest: ${first.path}: ${first.message}${more}.`, {
    issues,
  });
}

/** The definition checks' findings; a refused one (hidden bidi or control characters) refuses the manifest. */
function checkDefinitions(manifest: Manifest): DefinitionFinding[] {
  const { refused, warnings } = checkTools(manifest.tools);
  const first = refused[0];
  if (!first) return warnings;
  const more =
    refused.length > 1 ? ` (and ${refused.length - 1} more problem${refused.length > 2 ? "s" : ""})` : "";
  throw new HubError("invalid_manifest", `Invalid manifest: ${first.path}: ${first.message}${more}`, {
    issues: refused.map(({ path, message }) => ({ path, message })),
  });
}

export async function publishManifest(
  db: Db,
  site: SiteRow,
  manifest: Manifest,
  source: ManifestSource,
  now: number,
): Promise<PublishResultView> {
  const warnings = checkDefinitions(manifest);
  const canonical = JSON.stringify(manifest);
  const digest = await sha256Hex(canonical);
  if (site.currentVersion !== null) {
    const current = await db.query.manifestVersions.findFirst({
      where: and(eq(manifestVersions.host, site.host), eq(manifestVersions.version, site.currentVersion)),
    });
    if (current && current.sha256 === digest) {
      return {
        host: site.host,
        version: current.version,
        sha256: digest,
        toolCount: current.toolCount,
        publishedAt: iso(current.createdAt)!,
        unchanged: true,
        warnings,
      };
    }
  }
  const [{ latest } = { latest: null }] = await db
    .select({ latest: max(manifestVersions.version) })
    .from(manifestVersions)
    .where(eq(manifestVersions.host, site.host));
  const version = (latest ?? 0) + 1;
  const host = site.host;

  // Digest what is stored (the JSON round trip), so a digest recomputed from the stored version agrees.
  const digests = await manifestDigests(JSON.parse(canonical) as Manifest);
  const toolRows = manifest.tools.map((tool) => toolRow(host, version, tool, now, digests[tool.name]!));
  try {
    await atomically(db, [
      db.insert(manifestVersions).values({
        host,
        version,
        manifest: canonical,
        sha256: digest,
        sizeBytes: new TextEncoder().encode(canonical).byteLength,
        toolCount: manifest.tools.length,
        source,
        createdAt: now,
      }),
      sql`DELETE FROM tools_fts WHERE rowid IN (SELECT id FROM tools WHERE host = ${host})`,
      sql`DELETE FROM tool_terms WHERE tool_id IN (SELECT id FROM tools WHERE host = ${host})`,
      db.delete(tools).where(eq(tools.host, host)),
      // D1 binds at most 100 parameters per statement: insert tools in chunks of 8 rows (12 columns each).
      ...chunk(toolRows, 8).map((rows) => db.insert(tools).values(rows)),
      ...manifest.tools.map(
        (tool) =>
          sql`INSERT INTO tools_fts (rowid, name, words, title, description, host)
          SELECT id, name, ${nameWords(tool.name)}, coalesce(title, ''), description, host
          FROM tools WHERE host = ${host} AND name = ${tool.name}`,
      ),
      // Every tool's terms in one statement: [name, term, impact] rows joined to the new tools by name.
      // CROSS JOIN keeps the JSON rows outside (one index lookup each), not re-read for every tool.
      sql`INSERT INTO tool_terms (tool_id, term, impact)
        SELECT t.id, j.value ->> 1, j.value ->> 2 FROM json_each(${JSON.stringify(termRows(host, manifest))}) j
        CROSS JOIN tools t ON t.host = ${host} AND t.name = j.value ->> 0`,
      db
        .update(sites)
        .set({
          currentVersion: version,
          toolCount: manifest.tools.length,
          name: manifest.name ?? null,
          description: manifest.description ?? null,
          updatedAt: now,
        })
        .where(eq(sites.host, host)),
    ]);
  } catch (e) {
    if (String(e).includes("UNIQUE constraint failed: manifest_versions")) {
      throw new HubError(
        "conflict",
        "Another publish of this site happened at the same moment; send yours again.",
      );
    }
    throw e;
  }
  return {
    host,
    version,
    sha256: digest,
    toolCount: manifest.tools.length,
    publishedAt: iso(now)!,
    unchanged: false,
    warnings,
  };
}

function termRows(host: string, manifest: Manifest): Array<[string, string, number]> {
  return manifest.tools.flatMap((tool) =>
    toolTerms({ name: tool.name, title: toolTitle(tool), description: tool.description, host }).map(
      ([term, impact]): [string, string, number] => [tool.name, term, impact],
    ),
  );
}

function toolTitle(tool: ManifestTool): string | null {
  return tool.title ?? tool.annotations?.title ?? null;
}

function toolRow(
  host: string,
  version: number,
  tool: ManifestTool,
  now: number,
  digest: string,
): typeof tools.$inferInsert {
  return {
    host,
    version,
    name: tool.name,
    title: toolTitle(tool),
    description: tool.description,
    inputSchema: JSON.stringify(tool.inputSchema),
    outputSchema: tool.outputSchema ? JSON.stringify(tool.outputSchema) : null,
    annotations: JSON.stringify(tool.annotations ?? {}),
    readOnly: tool.annotations?.readOnlyHint === true,
    updatedAt: now,
    digest,
    cloud: tool.cloud === true,
  };
}

export async function getManifestVersion(
  db: Db,
  site: SiteRow,
  version?: number,
): Promise<ManifestVersionView> {
  const wanted = version ?? site.currentVersion;
  if (wanted === null || wanted === undefined) {
    throw new HubError("not_found", `${site.host} has not published a manifest yet.`);
  }
  const row = await db.query.manifestVersions.findFirst({
    where: and(eq(manifestVersions.host, site.host), eq(manifestVersions.version, wanted)),
  });
  if (!row) throw new HubError("not_found", `${site.host} has no manifest version ${wanted}.`);
  return {
    host: row.host,
    version: row.version,
    publishedAt: iso(row.createdAt)!,
    sha256: row.sha256,
    source: row.source,
    toolCount: row.toolCount,
    current: row.version === site.currentVersion,
    manifest: JSON.parse(row.manifest) as Manifest,
    digests: await storedManifestDigests(row.manifest),
  };
}

export async function listManifestVersions(db: Db, site: SiteRow) {
  const rows = await db
    .select({
      version: manifestVersions.version,
      createdAt: manifestVersions.createdAt,
      sha256: manifestVersions.sha256,
      toolCount: manifestVersions.toolCount,
      sizeBytes: manifestVersions.sizeBytes,
      source: manifestVersions.source,
    })
    .from(manifestVersions)
    .where(eq(manifestVersions.host, site.host))
    .orderBy(desc(manifestVersions.version));
  return rows.map(({ createdAt, ...r }) => ({
    ...r,
    publishedAt: iso(createdAt)!,
    current: r.version === site.currentVersion,
  }));
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
