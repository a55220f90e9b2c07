// Feeds for mirrors: `GET /api/sites?updated_since=` and `GET /api/tools?updated_since=`, so a
// mirror syncs incrementally, as the official MCP Registry's `updated_since` and status fields allow.
//
// Decisions:
// - `updated_since` is an RFC 3339 date-time with a time zone (`2026-11-24T03:00:00Z`, fractions and offsets
//   allowed), as the MCP Registry's parameter. Anything else is 400 bad_request; a time after the hub's clock is
//   400 bad_request too (nothing can have changed then: a mirror with a wrong clock should hear it).
// - Inclusive: entries with updatedAt >= updated_since. A mirror resumes with the last updatedAt it stored and
//   may see that entry again (applying an entry is idempotent) but never misses one written in the same
//   millisecond. Within a sync it follows `nextCursor` (null on the last page).
// - Order: (updatedAt, host) for sites and (updatedAt, row id) for tools, ascending; the cursor is the keyset
//   position (cursor.ts), so an entry updated while a mirror pages moves to the end and is seen again later.
// - Like the MCP Registry (which includes deleted servers whenever updated_since is given), the sites feed
//   includes tombstones: a delisted site is {host, status: "delisted", delistedAt, updatedAt} and nothing else;
//   the mirror drops it and its tools. Listed sites are `verified` or `unverified` (a lapsed verification,
//   with the reason); pending sites never appear.
// - The tools feed holds the current tools of listed sites (not of delisted ones). A publish rewrites every
//   tool of the site with the new version, so when a site's entry shows a new currentVersion, the mirror drops
//   that site's tools of older versions. `digest` is the tool's definition digest (null for rows stored
//   before digests existed).
// - In feed mode /api/sites ignores `sort`, and /api/tools refuses q, site and readOnly (400): a feed is
//   everything changed, in change order.
import { and, asc, gte, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { sites } from "../db/schema.js";
import type { RegistryToolView } from "../../protocol/views.js";
import { TOOL_COLUMNS, toolView, type ToolRow } from "./search.js";
import type { SiteRow } from "./sites.js";
import { HubError } from "../http/errors.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses `updated_since` (milliseconds since the epoch), or throws 400 saying what is wrong. */
export function parseUpdatedSince(value: string, now: number): number {
  const ms = RFC3339.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) {
    throw new HubError(
      "bad_request",
      `updated_since must be an RFC 3339 date-time with a time zone, like 2026-01-31T12:00:00Z (got ${JSON.stringify(value.slice(0, 64))}).`,
    );
  }
  if (ms > now) {
    throw new HubError(
      "bad_request",
      `updated_since ${value} is in the future (the hub's clock says ${new Date(now).toISOString()}); nothing can have changed after now. Check your clock, or pass the last updatedAt you stored.`,
    );
  }
  return ms;
}

/** The keyset position [updatedAt, key] of a feed cursor, or 400 invalid_cursor. */
function position<K extends "string" | "number">(
  cursor: string | undefined,
  fingerprint: string,
  keyType: K,
): [number, K extends "string" ? string : number] | undefined {
  if (!cursor) return undefined;
  const k = decodeCursor(cursor, fingerprint);
  const [at, key] = k;
  if (k.length !== 2 || typeof at !== "number" || !Number.isSafeInteger(at) || typeof key !== keyType) {
    throw new HubError("invalid_cursor", "The cursor is not one this API issued. Drop it to start again.");
  }
  if (typeof key === "number" && !Number.isSafeInteger(key))
    throw new HubError("invalid_cursor", "The cursor is not one this API issued. Drop it to start again.");
  return [at, key as K extends "string" ? string : number];
}

export interface FeedQuery {
  updatedSince: number;
  cursor?: string | undefined;
  limit: number;
}

export type SiteFeedEntry =
  | {
      host: string;
      status: "delisted";
      delistedAt: string;
      updatedAt: string;
    }
  | {
      host: string;
      status: "verified" | "unverified";
      origin: string;
      name: string | null;
      description: string | null;
      verificationMethod: "http" | "dns" | null;
      verifiedAt: string | null;
      /** Why the verification lapsed (status unverified), else null. */
      verifyError: string | null;
      currentVersion: number | null;
      toolCount: number;
      updatedAt: string;
    };

const SITES_FEED = "feed:sites";
const TOOLS_FEED = "feed:tools";

const iso = (ms: number) => new Date(ms).toISOString();

type FeedSiteRow = Pick<
  SiteRow,
  | "host"
  | "origin"
  | "status"
  | "verificationMethod"
  | "verifiedAt"
  | "name"
  | "description"
  | "currentVersion"
  | "toolCount"
  | "updatedAt"
  | "delistedAt"
  | "verifyError"
>;

export function siteFeedEntry(row: FeedSiteRow): SiteFeedEntry {
  if (row.delistedAt !== null) {
    return {
      host: row.host,
      status: "delisted",
      delistedAt: iso(row.delistedAt),
      updatedAt: iso(row.updatedAt),
    };
  }
  return {
    host: row.host,
    status: row.status === "unverified" ? "unverified" : "verified",
    origin: row.origin,
    name: row.name,
    description: row.description,
    verificationMethod: row.verificationMethod,
    verifiedAt: row.verifiedAt === null ? null : iso(row.verifiedAt),
    verifyError: row.status === "unverified" ? row.verifyError : null,
    currentVersion: row.currentVersion,
    toolCount: row.toolCount,
    updatedAt: iso(row.updatedAt),
  };
}

/** Sites changed since `updatedSince` (listed ones and tombstones), oldest change first. */
export async function sitesFeed(
  db: Db,
  q: FeedQuery,
): Promise<{ sites: SiteFeedEntry[]; nextCursor: string | null }> {
  const after = position(q.cursor, SITES_FEED, "string");
  const rows = await db
    .select()
    .from(sites)
    .where(
      and(
        ne(sites.status, "pending"),
        gte(sites.updatedAt, q.updatedSince),
        after ? sql`(${sites.updatedAt}, ${sites.host}) > (${after[0]}, ${after[1]})` : undefined,
      ),
    )
    .orderBy(asc(sites.updatedAt), asc(sites.host))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    sites: page.map(siteFeedEntry),
    nextCursor: rows.length > q.limit && last ? encodeCursor(SITES_FEED, [last.updatedAt, last.host]) : null,
  };
}

/** One tool of the tools feed: a tool as search shows it (toolView), its site by host only. */
export type ToolFeedEntry = Omit<RegistryToolView, "site" | "origin" | "cloud" | "cloudEndpoint"> & {
  host: string;
};

/** The feed carries definitions, not whether the hub runs a tool now (that changes with no new updated_at). */
const NO_CLOUD = { hub: "", runs: false };

/** Current tools of listed sites changed since `updatedSince`, oldest change first. */
export async function toolsFeed(
  db: Db,
  q: FeedQuery,
): Promise<{ tools: ToolFeedEntry[]; nextCursor: string | null }> {
  const after = position(q.cursor, TOOLS_FEED, "number");
  // tools_updated (updated_at, id) drives the walk; each row's site is looked up by its primary key.
  const rows = await db.all<ToolRow>(sql`SELECT ${TOOL_COLUMNS}
    FROM tools t CROSS JOIN sites s ON s.host = t.host
    WHERE t.updated_at >= ${q.updatedSince}
      ${after ? sql`AND (t.updated_at, t.id) > (${after[0]}, ${after[1]})` : sql``}
      AND s.status != 'pending' AND s.delisted_at IS NULL
    ORDER BY t.updated_at, t.id LIMIT ${q.limit + 1}`);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    tools: page.map((r) => {
      const { site, origin: _origin, cloud: _c, cloudEndpoint: _e, ...view } = toolView(r, NO_CLOUD);
      return { host: site, ...view };
    }),
    nextCursor: rows.length > q.limit && last ? encodeCursor(TOOLS_FEED, [last.updated_at, last.id]) : null,
  };
}
