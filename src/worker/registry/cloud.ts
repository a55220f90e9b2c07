// Which published tools the hub may run itself, in Cloudflare's browser: a cloud-capable tool is one whose site
// is verified and listed, whose owner left cloud runs on (sites.cloud_enabled), whose current manifest says
// `"cloud": true` for it (tools.cloud), while the hub's CLOUD_RUNS is not "off". Read from D1 on every call,
// so delisting, a lapsed verification, the owner's switch or a republish without the flag stop runs at once.
import { sql } from "drizzle-orm";
import { definitionDigest } from "../../protocol/digest.js";
import type { ManifestTool } from "../../protocol/index.js";
import type { Db } from "../db/client.js";
import { normalizeHost } from "./origins.js";

/** The D1 half of "cloud-capable", over `tools t` joined to `sites s` (the hub-wide switch is not in D1). */
export const CLOUD_CAPABLE_SQL =
  "(t.cloud = 1 AND s.cloud_enabled = 1 AND s.status = 'verified' AND s.delisted_at IS NULL)";

/** What a view needs to say whether a tool runs in the cloud: the hub's origin and whether runs are on. */
export interface CloudContext {
  /** The hub's origin, as the request reached it (endpoints are absolute). */
  hub: string;
  /** False when the hub's CLOUD_RUNS var is "off". */
  runs: boolean;
}

/** The hub-wide switch: cloud runs are on unless the CLOUD_RUNS var says "off". */
export function cloudRunsOn(env: object): boolean {
  return (env as { CLOUD_RUNS?: unknown }).CLOUD_RUNS !== "off";
}

/** The cloud context of a request: the hub's origin it reached (c.var.hub) and the hub-wide switch. */
export function cloudContextOf(hub: string, env: object): CloudContext {
  return { hub, runs: cloudRunsOn(env) };
}

/** A site's public MCP endpoint for its cloud tools, `HUB/mcp/sites/<host>` (host encoded as in /sites/<host>). */
export function cloudEndpoint(hub: string, host: string): string {
  return `${hub}/mcp/sites/${encodeURIComponent(host)}`;
}

/** A tool the hub may run in the cloud: everything a CloudRunRequest takes from the registry. */
export interface CloudTool {
  /** The site's host as the registry keys it. */
  site: string;
  origin: string;
  /** The tool's first published page, absolute, on `origin`. */
  page: string;
  /** The tool as the current manifest publishes it (inputSchema, annotations, pages, …). */
  tool: ManifestTool;
  /** Its definition digest (protocol/digest.ts). */
  digest: string;
}

/** Why a tool is not cloud-capable; `disabled`: off hub-wide or by the site's owner. */
export type CloudRefusalReason =
  "disabled" | "site_not_found" | "site_unverified" | "site_delisted" | "unpublished" | "not_cloud";

export type CloudToolLookup =
  ({ ok: true } & CloudTool) | { ok: false; reason: CloudRefusalReason; message: string };

interface CloudRow {
  host: string;
  name: string | null;
  current_version: number | null;
  origin: string;
  status: "pending" | "verified" | "unverified";
  delisted_at: number | null;
  cloud_enabled: number;
  cloud: number | null;
  digest: string | null;
  definition: string | null;
}

/** What the public endpoint needs of a site (mcp/site-server.ts), as the tool's lookup reads it too. */
export interface CloudSite {
  host: string;
  name: string | null;
  currentVersion: number | null;
  origin: string;
  status: "pending" | "verified" | "unverified";
  cloudEnabled: boolean;
  delistedAt: number | null;
}

const HUB_OFF = "Cloud runs are turned off on this hub.";

/** One tool by site and name, if the hub may run it in the cloud now; else why not, in words for an agent. */
export async function cloudTool(
  db: Db,
  hostParam: string,
  name: string,
  cloudRuns: boolean,
): Promise<CloudToolLookup> {
  if (!cloudRuns) return { ok: false, reason: "disabled", message: HUB_OFF };
  return (await siteAndCloudTool(db, hostParam, name)).lookup;
}

/**
 * The site (null: no verified or lapsed site of that host, pending ones included) and one of its tools'
 * lookup, as cloudTool with runs on, in one D1 query: a call to /mcp/sites/<host> reads D1 once.
 */
export async function siteAndCloudTool(
  db: Db,
  hostParam: string,
  name: string,
): Promise<{ site: CloudSite | null; lookup: CloudToolLookup }> {
  const host = normalizeHost(hostParam);
  const [row] =
    await db.all<CloudRow>(sql`SELECT s.host, s.name, s.current_version, s.origin, s.status, s.delisted_at,
      s.cloud_enabled, t.cloud, t.digest,
      (SELECT j.value FROM manifest_versions mv, json_each(mv.manifest, '$.tools') j
        WHERE mv.host = s.host AND mv.version = s.current_version AND json_extract(j.value, '$.name') = ${name}
        LIMIT 1) AS definition
    FROM sites s LEFT JOIN tools t ON t.host = s.host AND t.name = ${name}
    WHERE s.host = ${host} AND s.status != 'pending'`);
  const site: CloudSite | null = row
    ? {
        host: row.host,
        name: row.name,
        currentVersion: row.current_version,
        origin: row.origin,
        status: row.status,
        cloudEnabled: row.cloud_enabled === 1,
        delistedAt: row.delisted_at,
      }
    : null;
  return { site, lookup: await lookupOf(host, name, row) };
}

async function lookupOf(host: string, name: string, row: CloudRow | undefined): Promise<CloudToolLookup> {
  const refuse = (reason: CloudRefusalReason, message: string): CloudToolLookup => ({
    ok: false,
    reason,
    message,
  });
  if (!row) return refuse("site_not_found", `No verified site ${host} is listed.`);
  if (row.delisted_at !== null)
    return refuse("site_delisted", `${host} was delisted by its publisher; its tools do not run.`);
  if (row.status !== "verified")
    return refuse(
      "site_unverified",
      `${host}'s verification lapsed; its tools do not run in the cloud until it is verified again.`,
    );
  if (row.cloud === null || row.definition === null)
    return refuse("unpublished", `${host} does not publish a tool named "${name}".`);
  if (row.cloud !== 1)
    return refuse(
      "not_cloud",
      `${host} does not let the hub run "${name}" in the cloud (its manifest does not say "cloud": true); it runs only in a browser tab of the site.`,
    );
  if (row.cloud_enabled !== 1)
    return refuse("disabled", `The owner of ${host} has turned cloud runs off for the site.`);
  const tool = await cloudToolOf(row);
  if (!tool)
    return refuse("not_cloud", `${host} publishes no page of its own origin for "${name}" to run on.`);
  return { ok: true, ...tool };
}

/** Every cloud-capable tool of a site, in name order (none when the site is not, or runs are off). */
export async function cloudTools(db: Db, hostParam: string, cloudRuns: boolean): Promise<CloudTool[]> {
  if (!cloudRuns) return [];
  const host = normalizeHost(hostParam);
  const rows = await db.all<CloudRow>(sql`SELECT s.host, s.origin, t.digest, j.value AS definition
    FROM sites s JOIN tools t ON t.host = s.host
      JOIN manifest_versions mv ON mv.host = s.host AND mv.version = s.current_version
      JOIN json_each(mv.manifest, '$.tools') j ON json_extract(j.value, '$.name') = t.name
    WHERE s.host = ${host} AND ${sql.raw(CLOUD_CAPABLE_SQL)}
    ORDER BY t.name`);
  const tools = await Promise.all(rows.map(cloudToolOf));
  return tools.filter((t): t is CloudTool => t !== null);
}

/** The names of the site's current tools whose manifest entry says `"cloud": true` (whatever the switches say). */
export async function flaggedCloudTools(db: Db, host: string): Promise<string[]> {
  const rows = await db.all<{ name: string }>(
    sql`SELECT name FROM tools WHERE host = ${host} AND cloud = 1 ORDER BY name`,
  );
  return rows.map((r) => r.name);
}

/** The run's facts from a row; null if the tool's first page is not on the site's origin (it cannot be, by
 * the manifest's rules; checked here because the runner navigates to it). */
async function cloudToolOf(row: Pick<CloudRow, "host" | "origin" | "digest" | "definition">) {
  const tool = JSON.parse(row.definition!) as ManifestTool;
  const path = tool.pages?.[0];
  if (path === undefined) return null;
  let page: URL;
  try {
    page = new URL(row.origin + path);
  } catch {
    return null;
  }
  if (page.origin !== row.origin) return null;
  return {
    site: row.host,
    origin: row.origin,
    page: page.href,
    tool,
    digest: row.digest ?? (await definitionDigest(tool)),
  };
}
