// Read-only queries the pages need beyond the registry's own functions. Each takes the database handle
// and returns the same views the API returns (RegistryToolView), so pages and API never disagree about a tool.
import { sql } from "drizzle-orm";
import { atomically, type Db } from "../../src/worker/db/client.js";
import type { RegistryToolView } from "../../src/protocol/views.js";
import { registryCounts, TOOL_COLUMNS, toolView } from "../../src/worker/registry/search.js";
import type { SiteRow } from "../../src/worker/registry/sites.js";
import type { CloudContext } from "../../src/worker/registry/cloud.js";

type ToolRow = Parameters<typeof toolView>[0];

/** The verified sites' counts, recomputed only when a verified site changed (`key`) or after a minute. */
let countsCache: { key: string; at: number; counts: { sites: number; tools: number } } | undefined;

export async function cachedCounts(
  db: Db,
  key: string,
  now: number,
): Promise<{ sites: number; tools: number }> {
  if (countsCache && countsCache.key === key && now - countsCache.at < 60_000) return countsCache.counts;
  const counts = await registryCounts(db);
  countsCache = { key, at: now, counts };
  return counts;
}

/**
 * Everything the tool page needs in one D1 round trip: the verified site, the tool, and the pages of the
 * current manifest that register it (read from the stored manifest with SQLite's JSON functions).
 */
export async function toolPageData(
  db: Db,
  host: string,
  name: string,
  cloud: CloudContext,
): Promise<{ site: SiteRow | null; tool: RegistryToolView | null; pages: string[] }> {
  const [siteResult, toolResult, pageResult] = await atomically(db, [
    // A lapsed (unverified) site's pages still answer; a delisted one's say so (routes.tsx).
    sql`SELECT * FROM sites WHERE host = ${host} AND status != 'pending'`,
    sql`SELECT ${TOOL_COLUMNS} FROM tools t JOIN sites s ON s.host = t.host
      WHERE t.host = ${host} AND t.name = ${name} AND s.status != 'pending' AND s.delisted_at IS NULL`,
    sql`SELECT json_extract(j.value, '$.pages') AS pages
      FROM sites s JOIN manifest_versions mv ON mv.host = s.host AND mv.version = s.current_version,
        json_each(mv.manifest, '$.tools') j
      WHERE s.host = ${host} AND json_extract(j.value, '$.name') = ${name}`,
  ]);
  const siteRow = siteResult?.results[0] as RawSite | undefined;
  const tool = toolResult?.results[0] as ToolRow | undefined;
  const pageRows = (pageResult?.results ?? []) as Array<{ pages: string | null }>;
  const pages = pageRows[0]?.pages ? (JSON.parse(pageRows[0].pages) as unknown) : [];
  return {
    site: siteRow ? siteRowOf(siteRow) : null,
    tool: tool ? toolView(tool, cloud) : null,
    pages: Array.isArray(pages) ? pages.filter((p): p is string => typeof p === "string") : [],
  };
}

interface RawSite {
  host: string;
  origin: string;
  status: SiteRow["status"];
  verification_method: SiteRow["verificationMethod"];
  verified_at: number | null;
  name: string | null;
  description: string | null;
  current_version: number | null;
  tool_count: number;
  created_at: number;
  updated_at: number;
  account_id: string | null;
  delisted_at: number | null;
  verify_failures: number;
  verify_error: string | null;
  verify_checked_at: number | null;
  cloud_enabled: number;
  catalog_entries: string | null;
  catalog_error: string | null;
  catalog_checked_at: number | null;
  manifest_source: string | null;
}

function siteRowOf(r: RawSite): SiteRow {
  return {
    host: r.host,
    origin: r.origin,
    status: r.status,
    verificationMethod: r.verification_method,
    verifiedAt: r.verified_at,
    name: r.name,
    description: r.description,
    currentVersion: r.current_version,
    toolCount: r.tool_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    accountId: r.account_id,
    delistedAt: r.delisted_at,
    verifyFailures: r.verify_failures,
    verifyError: r.verify_error,
    verifyCheckedAt: r.verify_checked_at,
    cloudEnabled: r.cloud_enabled === 1,
    catalogEntries: r.catalog_entries,
    catalogError: r.catalog_error,
    catalogCheckedAt: r.catalog_checked_at,
    manifestSource: r.manifest_source,
  };
}
