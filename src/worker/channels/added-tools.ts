// Marketplace tools added to a channel ("Add from the marketplace"): what the owner's REST routes
// store in `channel_tools`, and the one read of them that both the routes and the channel's object use.
//
// Decisions:
// - A row names a site's host and a tool's published name, never a definition: the definition listed is the
//   one the site's current manifest publishes, so a republish reaches agents and nothing goes stale in D1.
// - Only a verified, listed site's tools can be added (403 site_not_verified, 410 site_delisted, 404 unknown
//   host); names its current manifest does not publish are 422 unknown_tool, naming them, and nothing is
//   stored. Adding again is idempotent (the first added_at is kept).
// - A site that is later unverified or delisted, or stops publishing a tool, keeps its rows (re-verifying or
//   republishing brings them back); they are not listed to agents, and GET says why.
// - The channel's object reads the rows itself (relay/added-tool-listing.ts, cached like published manifests) rather
//   than having them sent with every request as the channel's settings are: the set can be hundreds of
//   definitions, and it changes on the site's side too (delisting, republishing), which no channel request
//   sees. The routes below tell the object at once after each change so agents hear list_changed.
import { ManifestSchema, type ManifestTool } from "../../protocol/index.js";
import type { AddedChannelToolView } from "../../protocol/views.js";
import { HubError } from "../http/errors.js";

export interface AddedToolRow {
  host: string;
  name: string;
  addedAt: number;
  origin: string;
  siteStatus: string;
  delistedAt: number | null;
  version: number | null;
  /** The current published definition; null when the current manifest does not publish it. */
  definition: ManifestTool | null;
}

/** Every tool added to the channel, with its site's state and current definition, by host then name. */
export async function readAddedTools(db: D1Database, channelId: string): Promise<AddedToolRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ct.host AS host, ct.tool_name AS name, ct.added_at AS addedAt, s.origin AS origin,
              s.status AS siteStatus, s.delisted_at AS delistedAt, s.current_version AS version,
              m.manifest AS manifest
       FROM channel_tools ct JOIN sites s ON s.host = ct.host
       LEFT JOIN manifest_versions m ON m.host = s.host AND m.version = s.current_version
       WHERE ct.channel_id = ? ORDER BY ct.host, ct.tool_name`,
    )
    .bind(channelId)
    .all<Omit<AddedToolRow, "definition"> & { manifest: string | null }>();
  const manifests = new Map<string, Map<string, ManifestTool>>();
  return results.map(({ manifest, ...row }) => {
    let tools = manifests.get(row.host);
    if (!tools) {
      tools = publishedTools(manifest);
      manifests.set(row.host, tools);
    }
    return { ...row, definition: tools.get(row.name) ?? null };
  });
}

function publishedTools(manifest: string | null): Map<string, ManifestTool> {
  if (!manifest) return new Map();
  const parsed = ManifestSchema.safeParse(JSON.parse(manifest));
  return new Map(parsed.success ? parsed.data.tools.map((t) => [t.name, t]) : []);
}

/** Why an added tool is not listed to agents (null: it is). */
export function unlistedReason(
  row: AddedToolRow,
): { status: AddedChannelToolView["status"]; reason: string } | null {
  if (row.delistedAt !== null)
    return { status: "site_delisted", reason: `${row.host} was delisted by its publisher.` };
  if (row.siteStatus !== "verified")
    return {
      status: "site_unverified",
      reason: `${row.host} is no longer verified (its re-verification failed); it is listed again once verified.`,
    };
  if (!row.definition)
    return {
      status: "unpublished",
      reason: `${row.host}'s current manifest (version ${row.version ?? "none"}) does not publish ${row.name}.`,
    };
  return null;
}

/** The absolute URL of the page that registers the tool (its manifest `pages`, first one). */
export function toolPage(origin: string, definition: ManifestTool | null): string | null {
  const path = definition?.pages?.[0];
  if (!path) return null;
  try {
    const url = new URL(path, origin);
    return url.origin === new URL(origin).origin ? url.href : null;
  } catch {
    return null;
  }
}

export function addedToolView(row: AddedToolRow): AddedChannelToolView {
  const unlisted = unlistedReason(row);
  return {
    host: row.host,
    name: row.name,
    addedAt: new Date(row.addedAt).toISOString(),
    status: unlisted?.status ?? "listed",
    reason: unlisted?.reason ?? null,
    site: { host: row.host, origin: row.origin, status: row.siteStatus, version: row.version },
    definition: row.definition,
    page: toolPage(row.origin, row.definition),
  };
}

/** What a verified, listed site publishes now, and which of it an add (or a proposal) names. */
export interface AddableTools {
  /** The names to add, deduplicated, in the order asked (all: the manifest's order). */
  wanted: string[];
  /** The site's current manifest tools, by name. */
  published: Map<string, ManifestTool>;
  /** The current manifest as stored (manifest_versions.manifest), for its digests. */
  manifest: string;
}

/**
 * The checks of an add, storing nothing (also /mcp/registry's propose_tools): a registered, listed, verified
 * site whose current manifest publishes every name asked for (all when `names` is absent). Throws the
 * HubError saying which check failed.
 */
export async function checkAddable(
  db: D1Database,
  host: string,
  names: string[] | undefined,
): Promise<AddableTools> {
  const site = await db
    .prepare(
      `SELECT s.status AS status, s.delisted_at AS delistedAt, m.manifest AS manifest FROM sites s
       LEFT JOIN manifest_versions m ON m.host = s.host AND m.version = s.current_version WHERE s.host = ?`,
    )
    .bind(host)
    .first<{ status: string; delistedAt: number | null; manifest: string | null }>();
  if (!site) throw new HubError("site_not_found", `No site ${host} is registered.`);
  if (site.delistedAt !== null)
    throw new HubError("site_delisted", `${host} was delisted by its publisher; its tools cannot be added.`);
  if (site.status !== "verified")
    throw new HubError(
      "site_not_verified",
      `${host} is not verified${site.status === "unverified" ? " (its re-verification failed)" : ""}; only a verified site's tools can be added.`,
    );
  const published = publishedTools(site.manifest);
  const wanted = names ? [...new Set(names)] : [...published.keys()];
  const unknown = wanted.filter((n) => !published.has(n));
  if (unknown.length)
    throw new HubError(
      "unknown_tool",
      `${host}'s current manifest does not publish ${unknown.join(", ")}; nothing was added. It publishes: ${[...published.keys()].join(", ") || "no tools"}.`,
      { issues: unknown.map((n) => ({ path: "tools", message: `unknown tool ${n}` })) },
    );
  if (!wanted.length || !site.manifest)
    throw new HubError("unknown_tool", `${host} publishes no tools; nothing was added.`);
  return { wanted, published, manifest: site.manifest };
}

/** Adds a verified, listed site's tools (all when `names` is absent) to the channel; returns the names added. */
export async function addTools(
  db: D1Database,
  channelId: string,
  host: string,
  names: string[] | undefined,
  now: number,
): Promise<string[]> {
  const { wanted } = await checkAddable(db, host, names);
  // One batch: all or nothing.
  await db.batch(
    wanted.map((name) =>
      db
        .prepare(
          `INSERT OR IGNORE INTO channel_tools (channel_id, host, tool_name, added_at) VALUES (?, ?, ?, ?)`,
        )
        .bind(channelId, host, name, now),
    ),
  );
  return wanted;
}

/** Removes a site's added tools (one, or all of the host's); 404 when none matched. */
export async function removeTools(
  db: D1Database,
  channelId: string,
  host: string,
  name: string | undefined,
): Promise<number> {
  const res = name
    ? await db
        .prepare(`DELETE FROM channel_tools WHERE channel_id = ? AND host = ? AND tool_name = ?`)
        .bind(channelId, host, name)
        .run()
    : await db
        .prepare(`DELETE FROM channel_tools WHERE channel_id = ? AND host = ?`)
        .bind(channelId, host)
        .run();
  const removed = res.meta.changes ?? 0;
  if (!removed)
    throw new HubError(
      "not_found",
      name
        ? `${name} of ${host} is not added to this channel.`
        : `No tool of ${host} is added to this channel.`,
    );
  return removed;
}
