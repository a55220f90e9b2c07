// The official MCP Registry's read API, so clients configured with a registry URL (VS Code's
// chat.mcp.gallery.serviceUrl, Zed, subregistries) list the hub's servers: GET /v0[.1]/servers,
// /v0[.1]/servers/{name}/versions[/{version}|/latest], and GET /server.json (the hub's own /mcp/registry).
// Follows OpenAPI 2025-12-01 (modelcontextprotocol/registry docs/reference/api/openapi.yaml @ 145c2ec7, paths
// under /v0.1, served identically under /v0 as the Go server does) and server.json 2025-12-11
// (modelcontextprotocol/static @ a9ba437d). Errors are Huma's problem+json, as the Go server answers.
//
// Which servers: a verified, listed site whose owner left cloud runs on and whose current manifest has a tool
// with "cloud": true (registry/cloud.ts), while the hub's CLOUD_RUNS is not "off", is `active`. A site that once
// published a cloud tool but no longer qualifies is `deleted` (shown with include_deleted or updated_since,
// with a statusMessage saying why); a site that never had one never appears. /mcp/registry is always listed.
// Decisions where the sources are silent or where we inferred:
// - Every stored manifest version is a version of the site's server (`version` = its number), all with the
//   site's status; the newest is isLatest. publishedAt = the version's creation; updatedAt = the later of it
//   and the site's updated_at (a new version flips the old ones' isLatest; a delist or lapse changes status);
//   statusChangedAt = publishedAt while active, else when the site was delisted or last changed (inferred).
// - List order: the hub's registry server first, then sites by host and versions newest first; the cursor
//   is that keyset position only (no filters in it: VS Code drops `search` on its next page).
// - Bad cursor: 400 "Invalid cursor parameter" (the older Go handler's answer; the current one does not check).
// - limit / include_deleted out of range or unparsable: 422 in Huma's words (inferred from Huma's messages).
// - 200s carry `Cache-Control: public, max-age=60`: a minute-old list is fine for a gallery, and delisting
//   still shows within a minute. CORS `*` on every route here.
import type { Context } from "hono";
import { Hono } from "../http/hono.js";
import { sql } from "drizzle-orm";
import type { AppEnv } from "../http/context.js";
import type { Db } from "../db/client.js";
import { CLOUD_CAPABLE_SQL, cloudContextOf, type CloudContext } from "../registry/cloud.js";
import { decodeCursor, encodeCursor } from "../registry/cursor.js";
import { parseUpdatedSince } from "../registry/feeds.js";
import { HUB_META_KEY, SITE_SERVER_PART, hostOfServerName } from "./names.js";
import { discoveryCors } from "./server-card.js";
import {
  REGISTRY_SERVER_VERSION,
  clip,
  hubServerJson,
  siteServerJson,
  type ServerJson,
} from "./server-json.js";

const OFFICIAL = "io.modelcontextprotocol.registry/official";
/** When the hub's registry server's server.json took its current form (its publishedAt and updatedAt). */
const HUB_PUBLISHED = "2026-11-26T00:00:00.000Z";
const FINGERPRINT = "registry-api:servers";
/** The official registry's size limit for a `_meta` object (official-registry-requirements.md). */
const META_MAX_BYTES = 4096;

export interface ServerResponse {
  server: ServerJson;
  _meta: Record<string, unknown>;
}

class Problem {
  constructor(
    readonly status: 400 | 404 | 422,
    readonly detail: string,
    readonly errors?: Array<{ message: string; location: string; value: unknown }>,
  ) {}
}
const TITLES = { 400: "Bad Request", 404: "Not Found", 422: "Unprocessable Entity" } as const;
const notFound = () => new Problem(404, "Server not found");
const invalid = (message: string, location: string, value: unknown) =>
  new Problem(422, "validation failed", [{ message, location, value }]);

interface SiteVersionRow {
  host: string;
  origin: string;
  status: "verified" | "unverified";
  delisted_at: number | null;
  cloud_enabled: number;
  verification_method: string | null;
  verified_at: number | null;
  verify_error: string | null;
  current_version: number | null;
  updated_at: number;
  version: number;
  created_at: number;
  sha256: string;
  tool_count: number;
  title: string | null;
  description: string | null;
  active: number;
  cloud_tools: string;
}

interface Filter {
  host?: string;
  /** "latest", an exact version, or undefined for all. */
  version?: string | undefined;
  includeDeleted: boolean;
  updatedSince?: number | undefined;
  after?: [string, number] | undefined;
}

/** Sites' server versions in (host, version desc) order after `f.after`: at most `limit` rows. */
async function siteVersions(db: Db, runs: boolean, f: Filter, limit: number): Promise<SiteVersionRow[]> {
  const active = runs
    ? sql.raw(`EXISTS (SELECT 1 FROM tools t WHERE t.host = s.host AND ${CLOUD_CAPABLE_SQL})`)
    : sql`0`;
  const version =
    f.version === undefined
      ? sql``
      : f.version === "latest"
        ? sql`AND mv.version = s.current_version`
        : sql`AND mv.version = ${/^[1-9]\d{0,15}$/.test(f.version) ? Number(f.version) : -1}`;
  return db.all<SiteVersionRow>(sql`SELECT s.host, s.origin, s.status, s.delisted_at, s.cloud_enabled,
      s.verification_method, s.verified_at, s.verify_error, s.current_version, s.updated_at, mv.version, mv.created_at,
      mv.sha256, mv.tool_count, json_extract(mv.manifest, '$.name') AS title,
      json_extract(mv.manifest, '$.description') AS description, ${active} AS active,
      (SELECT json_group_array(json_extract(j.value, '$.name')) FROM json_each(mv.manifest, '$.tools') j
        WHERE json_extract(j.value, '$.cloud') = 1) AS cloud_tools
    FROM sites s JOIN manifest_versions mv ON mv.host = s.host
    WHERE s.status != 'pending' ${f.host === undefined ? sql`` : sql`AND s.host = ${f.host}`} ${version}
      AND (${active} ${
        f.includeDeleted
          ? sql`OR EXISTS (SELECT 1 FROM manifest_versions m2, json_each(m2.manifest, '$.tools') j
              WHERE m2.host = s.host AND json_extract(j.value, '$.cloud') = 1)`
          : sql``
      })
      ${f.updatedSince === undefined ? sql`` : sql`AND max(s.updated_at, mv.created_at) >= ${f.updatedSince}`}
      ${f.after ? sql`AND (s.host > ${f.after[0]} OR (s.host = ${f.after[0]} AND mv.version < ${f.after[1]}))` : sql``}
    ORDER BY s.host, mv.version DESC LIMIT ${limit}`);
}

const iso = (ms: number) => new Date(ms).toISOString();
const enc = encodeURIComponent;

/** Why a site that once had cloud tools is not a server now (statusMessage of a deleted entry). */
function deletedBecause(r: SiteVersionRow, runs: boolean): string {
  if (!runs) return "Cloud runs are turned off on this hub.";
  if (r.delisted_at !== null) return `The publisher delisted ${r.host} from this hub.`;
  if (r.status !== "verified")
    return clip(
      `${r.host}'s domain verification lapsed: ${r.verify_error ?? "re-verification failed"}`,
      500,
    )!;
  if (r.cloud_enabled !== 1) return `The owner of ${r.host} turned cloud runs off for the site.`;
  return `${r.host}'s current manifest (version ${r.current_version}) has no tool the hub may run in the cloud.`;
}

/** One site version as the official API's ServerResponse, with the hub's own facts under HUB_META_KEY. */
function siteServerResponse(r: SiteVersionRow, cloud: CloudContext): ServerResponse {
  const active = r.active === 1;
  const publishedAt = iso(r.created_at);
  const hubMeta = {
    host: r.host,
    origin: r.origin,
    verification: {
      status: r.status,
      method: r.verification_method,
      verifiedAt: r.verified_at && iso(r.verified_at),
    },
    toolCount: r.tool_count,
    cloudTools: JSON.parse(r.cloud_tools) as string[],
    manifest: {
      version: r.version,
      sha256: r.sha256,
      url: `${cloud.hub}/api/sites/${enc(r.host)}/manifest?version=${r.version}`,
    },
    site: `${cloud.hub}/sites/${enc(r.host)}`,
  };
  // The official limit for a _meta object: a long list of cloud tools is cut, with cloudToolsTruncated.
  while (new TextEncoder().encode(JSON.stringify(hubMeta)).length > META_MAX_BYTES - 32) {
    hubMeta.cloudTools.pop();
    Object.assign(hubMeta, { cloudToolsTruncated: true });
  }
  return {
    server: siteServerJson(cloud.hub, {
      host: r.host,
      origin: r.origin,
      version: r.version,
      title: r.title,
      description: r.description,
    }),
    _meta: {
      [OFFICIAL]: {
        status: active ? "active" : "deleted",
        ...(active ? {} : { statusMessage: deletedBecause(r, cloud.runs) }),
        statusChangedAt: active ? publishedAt : iso(r.delisted_at ?? r.updated_at),
        publishedAt,
        updatedAt: iso(Math.max(r.updated_at, r.created_at)),
        isLatest: r.version === r.current_version,
      },
      [HUB_META_KEY]: hubMeta,
    },
  };
}

/** The hub's /mcp/registry as a ServerResponse: always one active version. */
function hubServerResponse(hub: string): ServerResponse {
  return {
    server: hubServerJson(hub),
    _meta: {
      [OFFICIAL]: {
        status: "active",
        statusChangedAt: HUB_PUBLISHED,
        publishedAt: HUB_PUBLISHED,
        updatedAt: HUB_PUBLISHED,
        isLatest: true,
      },
      [HUB_META_KEY]: { origin: hub, serverJson: `${hub}/server.json` },
    },
  };
}

/** A Huma-style boolean query parameter (Go's strconv.ParseBool), default false. */
function bool(c: Context<AppEnv>, name: string): boolean | undefined {
  const v = c.req.query(name);
  if (v === undefined || v === "") return undefined;
  if (/^(1|t|true)$/i.test(v)) return true;
  if (/^(0|f|false)$/i.test(v)) return false;
  throw invalid("invalid boolean", `query.${name}`, v);
}

/** The path segment `i` (0-based after the leading "/") decoded as Go's url.PathUnescape would. */
function segment(c: Context<AppEnv>, i: number, what: string): string {
  const raw = new URL(c.req.url).pathname.split("/")[i + 1] ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new Problem(400, `Invalid ${what} encoding`);
  }
}

/** The server a name stands for: the hub's registry server, a site's host, or 404. */
function serverOf(c: Context<AppEnv>, hub: string): { hub: true } | { host: string } {
  const name = segment(c, 2, "server name");
  if (name.toLowerCase() === hubServerJson(hub).name.toLowerCase()) return { hub: true };
  const parsed = hostOfServerName(name);
  if (!parsed || parsed.part !== SITE_SERVER_PART) throw notFound();
  return { host: parsed.host };
}

async function listServers(c: Context<AppEnv>) {
  const cloud = cloudContextOf(c.var.hub, c.env);
  const rawLimit = c.req.query("limit") || "30";
  if (!/^-?\d+$/.test(rawLimit)) throw invalid("invalid integer", "query.limit", rawLimit);
  const limit = Number(rawLimit);
  if (limit < 1) throw invalid("expected number >= 1", "query.limit", limit);
  if (limit > 100) throw invalid("expected number <= 100", "query.limit", limit);
  const since = c.req.query("updated_since");
  let updatedSince: number | undefined;
  if (since) {
    try {
      updatedSince = parseUpdatedSince(since, Infinity);
    } catch {
      throw new Problem(
        400,
        "Invalid updated_since format: expected RFC3339 timestamp (e.g., 2025-08-07T13:15:04.280Z)",
      );
    }
  }
  const includeDeleted = bool(c, "include_deleted");
  if (updatedSince !== undefined && includeDeleted === false)
    throw new Problem(
      400,
      "Cannot set include_deleted=false when using updated_since (incremental sync requires deleted servers)",
    );
  let after: [string, number] | undefined;
  const cursor = c.req.query("cursor");
  if (cursor) {
    try {
      const k = decodeCursor(cursor, FINGERPRINT);
      if (k.length !== 2 || typeof k[0] !== "string" || typeof k[1] !== "number") throw new Error();
      after = [k[0], k[1]];
    } catch {
      throw new Problem(400, "Invalid cursor parameter");
    }
  }
  const search = c.req.query("search")?.toLowerCase();
  const version = c.req.query("version") || undefined;
  const matches = (s: ServerJson) =>
    !search || [s.name, s.title ?? "", s.description].some((t) => t.toLowerCase().includes(search));

  const page: Array<{ entry: ServerResponse; key: [string, number] }> = [];
  const hubEntry = hubServerResponse(cloud.hub);
  if (
    !after &&
    matches(hubEntry.server) &&
    (version === undefined || version === "latest" || version === REGISTRY_SERVER_VERSION) &&
    (updatedSince === undefined || updatedSince <= Date.parse(HUB_PUBLISHED))
  )
    page.push({ entry: hubEntry, key: ["", 0] });
  const filter: Filter = {
    version,
    includeDeleted: includeDeleted || updatedSince !== undefined,
    updatedSince,
    after,
  };
  // A search matches server names, which SQL cannot derive from hosts: read in batches and filter here.
  const batch = search ? 200 : limit + 1;
  for (let done = false; !done && page.length <= limit;) {
    const rows = await siteVersions(c.var.db, cloud.runs, filter, search ? batch : limit + 1 - page.length);
    for (const r of rows) {
      const entry = siteServerResponse(r, cloud);
      if (matches(entry.server)) page.push({ entry, key: [r.host, r.version] });
    }
    const last = rows[rows.length - 1];
    done = !search || rows.length < batch || !last;
    if (last) filter.after = [last.host, last.version];
  }
  const shown = page.slice(0, limit);
  const last = shown[shown.length - 1];
  return ok(c, {
    servers: shown.map((p) => p.entry),
    metadata: {
      ...(page.length > limit && last ? { nextCursor: encodeCursor(FINGERPRINT, last.key) } : {}),
      count: shown.length,
    },
  });
}

/** Every version of one server, newest first (include_deleted shows a deleted site's). */
async function serverVersions(c: Context<AppEnv>, version?: string): Promise<ServerResponse[]> {
  const cloud = cloudContextOf(c.var.hub, c.env);
  const server = serverOf(c, cloud.hub);
  const includeDeleted = bool(c, "include_deleted") ?? false;
  if ("hub" in server)
    return version === undefined || version === "latest" || version === REGISTRY_SERVER_VERSION
      ? [hubServerResponse(cloud.hub)]
      : [];
  const rows = await siteVersions(
    c.var.db,
    cloud.runs,
    { host: server.host, version, includeDeleted },
    10_000,
  );
  return rows.map((r) => siteServerResponse(r, cloud));
}

function ok(c: Context<AppEnv>, body: unknown) {
  return c.json(body, 200, { "cache-control": "public, max-age=60" });
}

const route =
  (handler: (c: Context<AppEnv>) => Promise<Response>) =>
  async (c: Context<AppEnv>): Promise<Response> => {
    try {
      return await handler(c);
    } catch (e) {
      if (!(e instanceof Problem)) throw e;
      const { status, detail, errors } = e;
      return c.body(
        JSON.stringify({ title: TITLES[status], status, detail, ...(errors ? { errors } : {}) }),
        status,
        {
          "content-type": "application/problem+json",
        },
      );
    }
  };

export const registryApiRoutes = new Hono<AppEnv>();
registryApiRoutes.use("/server.json", discoveryCors);
registryApiRoutes.get("/server.json", (c) => ok(c, hubServerJson(c.var.hub)));
for (const v of ["/v0", "/v0.1"]) {
  registryApiRoutes.use(`${v}/servers`, discoveryCors);
  registryApiRoutes.use(`${v}/servers/*`, discoveryCors);
  registryApiRoutes.get(`${v}/servers`, route(listServers));
  registryApiRoutes.get(
    `${v}/servers/:name/versions`,
    route(async (c) => {
      const servers = await serverVersions(c);
      if (servers.length === 0) throw notFound();
      return ok(c, { servers, metadata: { count: servers.length } });
    }),
  );
  registryApiRoutes.get(
    `${v}/servers/:name/versions/:version`,
    route(async (c) => {
      const [server] = await serverVersions(c, segment(c, 4, "version"));
      if (!server) throw notFound();
      return ok(c, server);
    }),
  );
}
