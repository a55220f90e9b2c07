// MCP Server Cards (SEP-2127): what a client reads about a hub MCP endpoint before connecting. Follows the
// newest draft, modelcontextprotocol/experimental-ext-server-card @8924e086 (2026-07-24): a card lives at
// `<streamable-http-url>/server-card` (no .well-known path; clients find it through the AI Catalog,
// ai-catalog.ts), as `application/mcp-server-card+json`, with CORS `*`, `Cache-Control: public, max-age=3600`
// and an ETag (304 on If-None-Match). GET and HEAD only; another method is 404 like any unknown endpoint.
//   /mcp/registry/server-card       the hub's registry server
//   /mcp/sites/<host>/server-card   a listed site with a cloud-capable tool; 404 otherwise (none, lapsed,
//                                   the owner's or the hub's switch off), 410 delisted
//   /mcp/<channelId>/server-card    a channel endpoint: needs OAuth (an `Authorization: Bearer {token}` header,
//                                   the draft's templated-remote form), its authorization server and RFC 9728
//                                   metadata under `_meta`; no tools, no token, no channel name
// Decisions where the draft is silent:
// - A channel's card is the same for every well-formed channel id and reads no database, as its
//   protected-resource metadata is: answering 404 for unknown ids would tell anyone which ids exist. The
//   channel's name is its owner's and private, so the card never carries it; its name is the hub's
//   `<hub reversed>/channel` (one kind of server; the endpoint URL tells channels apart).
// - supportedProtocolVersions: what the endpoints negotiate, 2026-07-28 and the SDK's 2025-era list.
// - A card says what the server's server.json says (server-json.ts: name, version = the manifest version,
//   title = the manifest's name, description, websiteUrl = the site's origin) plus the remote's protocol
//   versions and headers and the hub's facts under `_meta`.
import { Hono } from "../http/hono.js";
import { cors } from "hono/cors";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import type { AppContext, AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { oauthAvailable } from "../oauth/authorization-server.js";
import { resourceMetadataUrl } from "../oauth/bearer.js";
import { CLOUD_CAPABLE_SQL, cloudRunsOn } from "../registry/cloud.js";
import { normalizeHost } from "../registry/origins.js";
import { iso, listedSite } from "../registry/sites.js";
import { sha256Hex } from "../secrets.js";
import { HUB_META_KEY, serverNameOf } from "./names.js";
import { hubServerJson, REGISTRY_SERVER_VERSION, siteServerJson, type ServerJson } from "./server-json.js";

export const SERVER_CARD_TYPE = "application/mcp-server-card+json";
const SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
const PROTOCOL_VERSIONS = ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS];
/** The second part of a channel card's server name. */
export const CHANNEL_SERVER_PART = "channel";
const CHANNEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** CORS of the discovery documents (the draft's headers; hono answers the preflight). */
export const discoveryCors = cors({
  origin: "*",
  allowMethods: ["GET"],
  allowHeaders: ["Content-Type", "If-None-Match"],
  exposeHeaders: ["ETag"],
});

/** A public JSON document with `type`, cached `maxAge` seconds, its ETag a digest of the body (304 on a match). */
export async function discoveryJson(c: AppContext, body: unknown, type: string, maxAge: number) {
  const text = JSON.stringify(body);
  const etag = `"${(await sha256Hex(text)).slice(0, 32)}"`;
  const headers = { etag, "cache-control": `public, max-age=${maxAge}` };
  const match = c.req.header("if-none-match")?.split(",");
  if (match?.some((t) => t.trim() === "*" || t.trim().replace(/^W\//, "") === etag))
    return c.body(null, 304, headers);
  return c.body(text, 200, { ...headers, "content-type": type });
}

/** A listed site with at least one cloud-capable tool, as the cards and the catalog describe it. */
export interface CloudSiteRow {
  host: string;
  name: string | null;
  description: string | null;
  origin: string;
  version: number | null;
  updated_at: number;
  verified_at: number | null;
  delisted_at: number | null;
  cloud_tools: number;
}

const SITE_SELECT = `SELECT s.host, s.name, s.description, s.origin, s.current_version AS version, s.updated_at,
  s.verified_at, s.delisted_at, (SELECT count(*) FROM tools t WHERE t.host = s.host AND ${CLOUD_CAPABLE_SQL})
  AS cloud_tools FROM sites s WHERE `;
const LISTED = "s.status = 'verified' AND s.delisted_at IS NULL AND s.cloud_enabled = 1 AND cloud_tools > 0";

/** Cloud-capable sites by host, `limit` from `offset` (none while the hub's cloud runs are off). */
export async function cloudSites(
  db: Db,
  env: object,
  offset: number,
  limit: number,
): Promise<CloudSiteRow[]> {
  if (!cloudRunsOn(env)) return [];
  return db.all<CloudSiteRow>(
    sql`${sql.raw(SITE_SELECT + LISTED)} ORDER BY s.host LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** How many sites cloudSites lists. */
export async function countCloudSites(db: Db, env: object): Promise<number> {
  if (!cloudRunsOn(env)) return 0;
  const [row] = await db.all<{ n: number }>(sql.raw(`SELECT count(*) AS n FROM (${SITE_SELECT + LISTED})`));
  return row?.n ?? 0;
}

/** One site for its card: 404 site_not_found (also when no tool of it runs in the cloud), 410 site_delisted. */
export async function cloudSite(db: Db, env: object, hostParam: string): Promise<CloudSiteRow> {
  const host = normalizeHost(hostParam);
  const [row] = await db.all<CloudSiteRow>(
    sql`${sql.raw(SITE_SELECT)} s.host = ${host} AND s.status != 'pending'`,
  );
  listedSite(host, row && { delistedAt: row.delisted_at });
  if (!row!.cloud_tools || !cloudRunsOn(env))
    throw new HubError(
      "site_not_found",
      `No tool of ${host} runs in the cloud, so it has no MCP server here.`,
    );
  return row!;
}

/**
 * A card: the server's server.json (server-json.ts; a card says what it says) under the card's `$schema`, its
 * remote with the protocol versions it serves (and `remote`'s extra fields), and the hub's facts in `_meta`.
 */
function card(server: ServerJson, remote: Record<string, unknown>, meta: Record<string, unknown>) {
  const { $schema: _, remotes, ...rest } = server;
  return {
    $schema: SCHEMA,
    ...rest,
    remotes: [{ ...remotes[0], ...remote, supportedProtocolVersions: PROTOCOL_VERSIONS }],
    _meta: { [HUB_META_KEY]: meta },
  };
}

/** A site server's version: its manifest version, as its server.json says. */
export const siteServerVersion = (row: Pick<CloudSiteRow, "version">) => String(row.version ?? 0);

export function registryCard(hub: string) {
  return card(
    hubServerJson(hub),
    {},
    { kind: "registry", catalog: `${hub}/.well-known/ai-catalog.json`, registryApi: `${hub}/v0.1/servers` },
  );
}

export function siteCard(hub: string, row: CloudSiteRow) {
  const server = siteServerJson(hub, { ...row, version: row.version ?? 0, title: row.name });
  return card(
    server,
    {},
    {
      kind: "site",
      site: row.host,
      origin: row.origin,
      verifiedAt: iso(row.verified_at),
      manifestVersion: row.version,
      cloudTools: row.cloud_tools,
      page: `${hub}/sites/${encodeURIComponent(row.host)}`,
    },
  );
}

export function channelCard(hub: string, channelId: string) {
  const oauth = oauthAvailable(hub);
  const token = oauth
    ? "An OAuth access token for this channel from the hub's authorization server, or an agent token (wha_…) from the channel's owner."
    : "An agent token (wha_…) from the channel's owner.";
  return card(
    {
      $schema: "",
      name: serverNameOf(new URL(hub).host, CHANNEL_SERVER_PART),
      title: "webmcp-hub channel",
      description:
        "A private channel: its owner's live browser tabs and sidecar, called with the owner's approval.",
      version: REGISTRY_SERVER_VERSION,
      websiteUrl: hub,
      remotes: [{ type: "streamable-http", url: `${hub}/mcp/${channelId}` }],
    },
    {
      headers: [
        {
          name: "Authorization",
          description: "Bearer token for this channel.",
          isRequired: true,
          isSecret: true,
          value: "Bearer {token}",
          variables: { token: { description: token, isRequired: true, isSecret: true } },
        },
      ],
    },
    {
      kind: "channel",
      auth: oauth ? "oauth" : "agent-token",
      ...(oauth && {
        authorizationServer: hub,
        protectedResourceMetadata: resourceMetadataUrl(hub, channelId),
      }),
    },
  );
}

const cardJson = (c: AppContext, body: unknown) => discoveryJson(c, body, SERVER_CARD_TYPE, 3600);

export const serverCardRoutes = new Hono<AppEnv>();
serverCardRoutes.use("/mcp/:id/server-card", discoveryCors);
serverCardRoutes.use("/mcp/sites/:host/server-card", discoveryCors);
serverCardRoutes.get("/mcp/registry/server-card", (c) => cardJson(c, registryCard(c.var.hub)));
serverCardRoutes.get("/mcp/sites/:host/server-card", async (c) =>
  cardJson(c, siteCard(c.var.hub, await cloudSite(c.var.db, c.env, c.req.param("host")))),
);
serverCardRoutes.get("/mcp/:channelId/server-card", (c) => {
  const id = c.req.param("channelId");
  if (!CHANNEL_ID.test(id))
    throw new HubError("not_found", "No such MCP endpoint: channel ids are letters, digits, - and _.");
  return cardJson(c, channelCard(c.var.hub, id));
});
