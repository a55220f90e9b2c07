// The hub's AI Catalog (Agentic Resource Discovery): where agents and registries crawl a domain's AI
// resources. Follows the newest AI Catalog text (Agent-Card/ai-catalog docs/guides/creating-a-catalog.md
// @99d8bfd9 and the server-card extension's docs/discovery.md @8924e086): `specVersion` "1.0", entries with
// `type` (not the snapshot CDDL's `mediaType`) and exactly one of `url`/`data`, `application/ai-catalog+json`.
//   /.well-known/ai-catalog.json       the hub's registry server card and each cloud-capable site's card, by url
//   /ai-catalog/sites/<page>.json      a page of site entries (see below)
//   /sites/<host>/ai-catalog.json      one site's entry, for the site to link or copy into its own
//                                      /.well-known/ai-catalog.json (404/410 as its card; no clash with the
//                                      page /sites/:host, which is one path segment)
// The format has no paging, so a long list is partitioned into nested catalogs: with more than
// CATALOG_PAGE_SIZE sites, the top catalog lists the registry card and one `application/ai-catalog+json`
// entry per page of sites (by host; a page's members shift as sites come and go). Depth 2 only: a page
// never nests further. Identifiers are `urn:air:<host>:mcp:<part>`, the port (local hubs and sites only)
// in the last part as in server names (names.ts): `urn:air:127.0.0.1:mcp:webmcp-8788`.
// Catalogs are cached 5 minutes (the list changes as sites publish), with an ETag as the cards.
import { Hono } from "../http/hono.js";
import type { Db } from "../db/client.js";
import type { AppContext, AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { cloudEndpoint } from "../registry/cloud.js";
import { iso } from "../registry/sites.js";
import { REGISTRY_SERVER_PART, SITE_SERVER_PART, serverNameOf } from "./names.js";
import {
  SERVER_CARD_TYPE,
  cloudSite,
  cloudSites,
  countCloudSites,
  discoveryCors,
  discoveryJson,
  siteServerVersion,
  type CloudSiteRow,
} from "./server-card.js";

export const AI_CATALOG_TYPE = "application/ai-catalog+json";
/** Site entries in one catalog document; more are partitioned into nested catalogs. */
export const CATALOG_PAGE_SIZE = 100;
const MAX_AGE = 300;

/** `urn:air:<host name>:<namespace>:<part>[-<port>]`. */
function airId(host: string, part: string, namespace = "mcp"): string {
  const [reversed, name] = serverNameOf(host, part).split("/") as [string, string];
  return `urn:air:${reversed.split(".").reverse().join(".")}:${namespace}:${name}`;
}

/** A site's entry: its server card by url; the site (its verified origin) is the publisher. */
export function siteEntry(hub: string, row: CloudSiteRow) {
  return {
    identifier: airId(row.host, SITE_SERVER_PART),
    type: SERVER_CARD_TYPE,
    url: `${cloudEndpoint(hub, row.host)}/server-card`,
    version: siteServerVersion(row),
    updatedAt: iso(row.updated_at)!,
    publisher: { identifier: row.origin, displayName: row.name ?? row.host },
  };
}

const catalog = (entries: unknown[], hub?: string) => ({
  specVersion: "1.0",
  ...(hub && { host: { displayName: "webmcp-hub", identifier: hub, documentationUrl: `${hub}/docs` } }),
  entries,
});

/** The hub's catalog, its sites inline or, past `pageSize`, in nested catalogs of `pageSize` each. */
export async function hubCatalog(db: Db, env: object, hub: string, pageSize = CATALOG_PAGE_SIZE) {
  const hubHost = new URL(hub).host;
  const registry = {
    identifier: airId(hubHost, REGISTRY_SERVER_PART),
    type: SERVER_CARD_TYPE,
    url: `${hub}/mcp/registry/server-card`,
    publisher: { identifier: hub, displayName: "webmcp-hub" },
  };
  const first = await cloudSites(db, env, 0, pageSize + 1);
  if (first.length <= pageSize) return catalog([registry, ...first.map((r) => siteEntry(hub, r))], hub);
  const total = await countCloudSites(db, env);
  const pages = Array.from({ length: Math.ceil(total / pageSize) }, (_, i) => ({
    identifier: airId(hubHost, `sites${i + 1}`, "catalog"),
    type: AI_CATALOG_TYPE,
    url: `${hub}/ai-catalog/sites/${i + 1}.json`,
    description: `Sites ${i * pageSize + 1}–${Math.min(total, (i + 1) * pageSize)} of ${total} whose tools run in the cloud, by host.`,
  }));
  return catalog([registry, ...pages], hub);
}

/** Page `page` (from 1) of the hub's sites; 404 past the last. */
export async function sitesCatalogPage(
  db: Db,
  env: object,
  hub: string,
  page: number,
  pageSize = CATALOG_PAGE_SIZE,
) {
  const rows = await cloudSites(db, env, (page - 1) * pageSize, pageSize);
  if (!rows.length) throw new HubError("not_found", `The hub's catalog has no page ${page} of sites.`);
  return catalog(rows.map((r) => siteEntry(hub, r)));
}

const catalogJson = (c: AppContext, body: unknown) => discoveryJson(c, body, AI_CATALOG_TYPE, MAX_AGE);

export const aiCatalogRoutes = new Hono<AppEnv>();
for (const path of [
  "/.well-known/ai-catalog.json",
  "/ai-catalog/sites/:page",
  "/sites/:host/ai-catalog.json",
])
  aiCatalogRoutes.use(path, discoveryCors);
aiCatalogRoutes.get("/.well-known/ai-catalog.json", async (c) =>
  catalogJson(c, await hubCatalog(c.var.db, c.env, c.var.hub)),
);
aiCatalogRoutes.get("/ai-catalog/sites/:page", async (c) => {
  const page = /^([1-9]\d{0,5})\.json$/.exec(c.req.param("page"))?.[1];
  if (!page) throw new HubError("not_found", "Catalog pages are /ai-catalog/sites/<n>.json, n from 1.");
  return catalogJson(c, await sitesCatalogPage(c.var.db, c.env, c.var.hub, Number(page)));
});
aiCatalogRoutes.get("/sites/:host/ai-catalog.json", async (c) =>
  catalogJson(c, catalog([siteEntry(c.var.hub, await cloudSite(c.var.db, c.env, c.req.param("host")))])),
);
