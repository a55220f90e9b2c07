// Live tools checked against what their tab's origin published (ARCHITECTURE.md "Live tools checked against
// the registry"). A tab provider's origin is the one its pairing recorded (never what the page says); its
// tools are compared, by definition digest (src/protocol/digest.ts, the one function publishing uses too),
// with the current manifest of the verified, listed site of that origin in D1.
//
// Decisions:
// - A tool a frame of the tab registered (frameOrigin) is checked against the tab's origin only: the page the
//   user opened answers for what it embeds, and a frame cannot borrow another site's verified manifest.
// - Sidecar tools carry no verification.
// - Each origin's published set is cached in the object for PUBLISHED_TTL_MS (and loaded at most once at a
//   time); it is read when agents list or call tools or the owner's console reads the channel, never when a
//   tools frame arrives, so a tools frame never waits on D1. On demand it is read again: before the
//   `verified` policy refuses a call (the site may have just published), and after the owner changes the
//   policy.
// - D1 failing: the last set read for that origin is used while there is one; with none, the tool is left
//   unchecked (no verification key), which the policies treat like a tool that is not verified, and the next
//   read tries again after FAILURE_RETRY_MS.
// - The published definition is read from the current manifest version (exact: the tools rows fold the title
//   into annotations.title and store absent annotations as {}); a tools row's digest is used when present.
import canonicalize from "canonicalize";
import {
  DIGESTED_MEMBERS,
  ManifestSchema,
  META_VERIFICATION,
  type DigestedMember,
  type ToolVerification,
  type VerificationPolicy,
} from "../../protocol/index.js";
import { definitionDigest, digestInput, type DigestedDefinition } from "../../protocol/digest.js";
import { META_PROVIDER } from "../../protocol/index.js";
import type { ExposedTool } from "./naming.js";

export const PUBLISHED_TTL_MS = 60_000;
const FAILURE_RETRY_MS = 5_000;
/**
 * A check asked for `fresh` re-reads a set older than this: 0, so a call refused by the `verified` policy
 * always sees what the site publishes now (one small read, shared by the calls waiting on it).
 */
export const FRESH_MS = 0;
/** Live digests remembered (by canonical definition); cleared when it grows past this. */
const LIVE_DIGESTS_MAX = 2_000;

interface PublishedTool {
  digest: string;
  definition: DigestedDefinition;
}

/** What an origin publishes now: null when no verified, listed site of that origin has a manifest. */
type PublishedSet = { host: string; version: number; tools: Map<string, PublishedTool> } | null;

interface CacheEntry {
  at: number;
  /** undefined: never read successfully. */
  set: PublishedSet | undefined;
  failedAt?: number;
  loading?: Promise<void>;
}

export class ToolVerifier {
  private readonly origins = new Map<string, CacheEntry>();
  private readonly liveDigests = new Map<string, string>();
  /** Each exposed tool's live digest, by its descriptor object (see compare). */
  private readonly byDescriptor = new WeakMap<object, string>();

  constructor(
    private readonly db: D1Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Forgets every origin's published set (the next check reads D1 again). */
  forget(): void {
    this.origins.clear();
  }

  /** Each tab tool's verification, by exposed name (sidecar tools and unchecked tools are absent). */
  async check(
    tools: Iterable<ExposedTool>,
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<Map<string, ToolVerification>> {
    const tabTools = [...tools].filter((t) => providerKind(t) === "tab" && t.origin);
    const origins = [...new Set(tabTools.map((t) => t.origin!))];
    await Promise.all(origins.map((o) => this.load(o, fresh ? FRESH_MS : PUBLISHED_TTL_MS)));
    const out = new Map<string, ToolVerification>();
    for (const tool of tabTools) {
      const entry = this.origins.get(tool.origin!);
      if (!entry || entry.set === undefined) continue;
      out.set(tool.name, await this.compare(tool, entry.set));
    }
    return out;
  }

  private async compare(tool: ExposedTool, set: PublishedSet): Promise<ToolVerification> {
    const published = set?.tools.get(tool.originalName);
    if (!set || !published) {
      return set
        ? { status: "unpublished", site: set.host, version: set.version }
        : { status: "unpublished" };
    }
    const live = liveDefinition(tool);
    // The catalog keeps its ExposedTool objects until the channel's tools change: a tool's digest is worked
    // out once per change of the catalog, not canonicalized again on every call.
    let digest = this.byDescriptor.get(tool.descriptor);
    if (digest === undefined) {
      digest = await this.liveDigest(live);
      this.byDescriptor.set(tool.descriptor, digest);
    }
    if (digest === published.digest) return { status: "verified", site: set.host, version: set.version };
    return {
      status: "changed",
      site: set.host,
      version: set.version,
      differs: differences(live, published.definition),
    };
  }

  private async liveDigest(def: DigestedDefinition): Promise<string> {
    const key = canonicalize(def) ?? "";
    const known = this.liveDigests.get(key);
    if (known) return known;
    const digest = await definitionDigest(def);
    if (this.liveDigests.size >= LIVE_DIGESTS_MAX) this.liveDigests.clear();
    this.liveDigests.set(key, digest);
    return digest;
  }

  /** Makes sure the origin's set is fresh (one read at a time per origin); never throws. */
  private async load(origin: string, maxAgeMs: number): Promise<void> {
    const now = this.now();
    let entry = this.origins.get(origin);
    if (entry?.loading) return entry.loading;
    if (entry && entry.set !== undefined && now - entry.at < maxAgeMs) return;
    if (entry?.failedAt !== undefined && now - entry.failedAt < FAILURE_RETRY_MS) return;
    if (!entry) {
      entry = { at: 0, set: undefined };
      this.origins.set(origin, entry);
    }
    const current = entry;
    current.loading = readPublished(this.db, origin)
      .then((set) => {
        current.set = set;
        current.at = this.now();
        delete current.failedAt;
      })
      .catch((e: unknown) => {
        current.failedAt = this.now();
        console.warn(`verification: reading ${origin}'s published manifest failed (${String(e)})`);
      })
      .finally(() => {
        delete current.loading;
      });
    return current.loading;
  }
}

/** The current manifest of the verified, listed site of `origin`, with each tool's digest. */
async function readPublished(db: D1Database, origin: string): Promise<PublishedSet> {
  const site = await db
    .prepare(
      `SELECT s.host AS host, s.current_version AS version, m.manifest AS manifest
       FROM sites s JOIN manifest_versions m ON m.host = s.host AND m.version = s.current_version
       WHERE s.origin = ? AND s.status = 'verified' AND s.delisted_at IS NULL
       ORDER BY s.host LIMIT 1`,
    )
    .bind(origin)
    .first<{ host: string; version: number; manifest: string }>();
  if (!site) return null;
  const rows = await db
    .prepare(`SELECT name, digest FROM tools WHERE host = ?`)
    .bind(site.host)
    .all<{ name: string; digest: string | null }>();
  const stored = new Map(rows.results.map((r) => [r.name, r.digest]));
  const parsed = ManifestSchema.safeParse(JSON.parse(site.manifest));
  if (!parsed.success) return { host: site.host, version: site.version, tools: new Map() };
  const tools = new Map<string, PublishedTool>();
  for (const t of parsed.data.tools) {
    const definition: DigestedDefinition = {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    };
    tools.set(t.name, { definition, digest: stored.get(t.name) ?? (await definitionDigest(definition)) });
  }
  return { host: site.host, version: site.version, tools };
}

function providerKind(tool: ExposedTool): unknown {
  const meta = tool.descriptor._meta[META_PROVIDER];
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>).kind : undefined;
}

/** The live tool's definition as the provider registered it (its own name, not the exposed one). */
export function liveDefinition(tool: ExposedTool): DigestedDefinition {
  const d = tool.descriptor;
  return {
    name: tool.originalName,
    title: d.title,
    description: d.description,
    inputSchema: d.inputSchema,
    outputSchema: d.outputSchema,
    annotations: d.annotations,
  };
}

function differences(live: DigestedDefinition, published: DigestedDefinition): DigestedMember[] {
  const a = digestInput(live);
  const b = digestInput(published);
  return DIGESTED_MEMBERS.filter((m) => canonicalize(a[m]) !== canonicalize(b[m]));
}

/**
 * The tool as agents see it under the channel's policy: the verification in `_meta`, and for a tool that is
 * not verified, under `warn` a warning and under `verified` a note, prefixed to the description.
 */
export function presentTool(
  tool: ExposedTool,
  verification: ToolVerification | undefined,
  policy: VerificationPolicy,
): ExposedTool {
  const isTab = providerKind(tool) === "tab";
  if (!isTab) return tool;
  const _meta = verification
    ? { ...tool.descriptor._meta, [META_VERIFICATION]: verification }
    : tool.descriptor._meta;
  const prefix =
    verification?.status === "verified" || policy === "all" ? "" : warning(tool, verification, policy);
  return {
    ...tool,
    descriptor: {
      ...tool.descriptor,
      description: prefix ? `${prefix} ${tool.descriptor.description}` : tool.descriptor.description,
      _meta,
    },
  };
}

function warning(tool: ExposedTool, v: ToolVerification | undefined, policy: VerificationPolicy): string {
  const host = v?.site ?? tool.label;
  const what =
    v?.status === "changed"
      ? `[Unverified: this tool's definition differs from what ${host} published (${(v.differs ?? []).join(", ")})`
      : v?.status === "unpublished"
        ? `[Unpublished: ${tool.origin ?? host} has not published this tool`
        : `[Unchecked: the hub could not check this tool against ${tool.origin ?? host}'s published manifest`;
  return policy === "verified" ? `${what}; this channel refuses calls to it]` : `${what}]`;
}

/** The isError text for a call the `verified` policy refuses: why, and what the user can do. */
export function refusalText(tool: ExposedTool, v: ToolVerification | undefined): string {
  const origin = tool.origin ?? tool.label;
  const why =
    v?.status === "changed"
      ? `its live definition differs from what ${v.site ?? origin} published (${(v.differs ?? []).join(", ")})`
      : v?.status === "unpublished"
        ? `${origin} has not published it in a verified manifest`
        : `the hub could not check it against ${origin}'s published manifest right now`;
  return `${tool.name} was not called: this channel only allows verified tools, and ${why}. The channel's owner can allow unverified tools in the channel's settings (verification policy "all" or "warn"), or the site can publish this tool's current definition.`;
}
