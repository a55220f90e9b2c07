// /api/sites: registration, verification, publisher keys, manifests and their versions; delisting; the
// sites feed for mirrors (`?updated_since=`).
import { Hono } from "../http/hono.js";
import {
  LIMITS,
  ManifestVersionParamsSchema,
  RegisterSiteBodySchema,
  SiteCloudBodySchema,
  SiteManifestSourceBodySchema,
  SiteListParamsSchema,
  VerifySiteBodySchema,
  ExportParamsSchema,
} from "../../protocol/index.js";
import type { SiteCloudView } from "../../protocol/views.js";
import { readBodyText, readJson } from "../http/body.js";
import { query, type AppContext, type AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { rateLimit } from "../http/rate-limit.js";
import { bearerToken } from "../secrets.js";
import { parseSiteOrigin } from "../registry/origins.js";
import {
  authenticatePublisher,
  delistSite,
  getVerifiedSite,
  listSites,
  ownedPublishedSite,
  relistSite,
  restoreListing,
  registerSite,
  rotatePublisherKey,
  setSiteCloud,
  siteView,
  verifySite,
} from "../registry/sites.js";
import {
  getManifestVersion,
  listManifestVersions,
  parseManifestText,
  publishManifest,
} from "../registry/manifests.js";
import { refreshManifest } from "../registry/refresh.js";
import { readSiteCatalog, setManifestSource } from "../registry/site-catalog.js";
import { siteTools } from "../registry/search.js";
import { cloudContextOf, cloudEndpoint } from "../registry/cloud.js";
import { exportTools } from "../registry/export.js";
import { analyticsCsv, analyticsRange, siteAnalytics } from "../registry/usage.js";
import { parseUpdatedSince, sitesFeed } from "../registry/feeds.js";
import { currentAccount, requireHubOrigin } from "../accounts/session.js";
import { pushSiteChange } from "../channels/site-push.js";

export const siteRoutes = new Hono<AppEnv>();

// Registering and verifying take the signed-in account as the owner: such writes must come from the hub's pages.
siteRoutes.use("*", requireHubOrigin());

siteRoutes.get("/", async (c) => {
  const params = query(c, SiteListParamsSchema);
  if (params.updated_since !== undefined) {
    // The feed for mirrors (registry/feeds.ts): every change since, tombstones included; `sort` does not apply.
    const updatedSince = parseUpdatedSince(params.updated_since, c.var.now);
    return c.json(await sitesFeed(c.var.db, { updatedSince, cursor: params.cursor, limit: params.limit }));
  }
  return c.json(await listSites(c.var.db, params));
});

siteRoutes.post(
  "/",
  rateLimit({ limiter: "ANON_WRITES", action: "site", what: "site registrations from your address" }),
);
siteRoutes.post("/", async (c) => {
  const body = await readJson(c, RegisterSiteBodySchema);
  const origin = parseSiteOrigin(body.origin, c.var.settings.ALLOW_PRIVATE_ORIGINS);
  const account = await currentAccount(c);
  const result = await registerSite(c.var.db, origin, c.var.now, account?.id ?? null);
  return c.json(
    {
      site: result.site,
      challenge: result.challenge,
      claimSecret: result.claimSecret,
      next: `Publish the token by either method, then POST /api/sites/${result.site.host}/verify with {"method":"http"|"dns"} and "Authorization: Bearer <claimSecret>".`,
    },
    result.created ? 201 : 200,
  );
});

siteRoutes.get("/:host", async (c) => {
  const site = await getVerifiedSite(c.var.db, c.req.param("host"));
  const cloud = cloudContextOf(c.var.hub, c.env);
  const tools = await siteTools(c.var.db, site.host, cloud);
  return c.json({
    site: siteView(site),
    /** Where agents call the site's cloud tools; null when none may run now. */
    cloudEndpoint: tools.some((t) => t.cloud) ? cloudEndpoint(cloud.hub, site.host) : null,
    manifest:
      site.currentVersion === null
        ? null
        : {
            version: site.currentVersion,
            toolCount: site.toolCount,
            tools: tools.map((t) => ({
              name: t.name,
              title: t.title,
              description: t.description,
              readOnly: t.readOnly,
              digest: t.digest,
              cloud: t.cloud,
              cloudEndpoint: t.cloudEndpoint,
            })),
          },
  });
});

siteRoutes.post(
  "/:host/verify",
  rateLimit({ limiter: "ANON_WRITES", action: "verify", what: "verification attempts from your address" }),
);
siteRoutes.post("/:host/verify", async (c) => {
  const body = await readJson(c, VerifySiteBodySchema);
  const claim = bearerToken(c.req.header("authorization")) ?? body.claimSecret;
  const { ALLOW_PRIVATE_ORIGINS, DOH_URL } = c.var.settings;
  const result = await verifySite(
    c.var.db,
    c.req.param("host"),
    claim,
    body.method,
    { allowPrivate: ALLOW_PRIVATE_ORIGINS, dohUrl: DOH_URL },
    c.var.now,
    (await currentAccount(c))?.id ?? null,
  );
  pushLater(c, result.site.host);
  // What the site's ai-catalog.json offers as manifest sources, read after the answer (site-catalog.ts).
  c.executionCtx.waitUntil(
    readSiteCatalog(c.var.db, result.site, c.var.now, { allowPrivate: ALLOW_PRIVATE_ORIGINS }).catch((e) =>
      console.warn(`catalog of ${result.site.host}: ${String(e)}`),
    ),
  );
  return c.json({
    site: result.site,
    publisherKey: result.publisherKey,
    note: "The publisher key is shown once. Store it now.",
  });
});

/**
 * Tells the channels that added the site's tools that it changed (channels/site-push.ts), after the answer:
 * the publisher does not wait for every channel.
 */
function pushLater(c: AppContext, host: string): void {
  c.executionCtx.waitUntil(pushSiteChange(c.env, host));
}

/** The publisher key (`Authorization: Bearer whp_…`) or, without one, the signed-in account that owns the site. */
async function publisherOrOwner(c: AppContext) {
  const authorization = c.req.header("authorization");
  if (authorization !== undefined)
    return authenticatePublisher(c.var.db, c.req.param("host") ?? "", authorization);
  const account = await currentAccount(c);
  if (!account)
    throw new HubError(
      "unauthorized",
      "Send your publisher key as `Authorization: Bearer whp_…`, or sign in with the account that owns the site.",
    );
  return ownedPublishedSite(c.var.db, c.req.param("host") ?? "", account.id);
}

// Delisting: the site leaves search, listings and /mcp/registry, its pages answer 410, and the sites feed
// carries a tombstone. Relisting (or any successful publish) lists it again. Both are idempotent.
siteRoutes.post("/:host/delist", async (c) => {
  const site = await delistSite(c.var.db, await publisherOrOwner(c), c.var.now);
  pushLater(c, site.host);
  return c.json({ site: siteView(site) });
});

siteRoutes.post("/:host/relist", async (c) => {
  const site = await relistSite(c.var.db, await publisherOrOwner(c), c.var.now);
  pushLater(c, site.host);
  return c.json({ site: siteView(site) });
});

// The owner's switch for cloud runs of the whole site: its tools' `"cloud": true` stays published, and the
// hub runs none of them while it is off (registry/cloud.ts reads it on every call).
siteRoutes.put("/:host/cloud", async (c) => {
  const owned = await publisherOrOwner(c);
  const { enabled } = await readJson(c, SiteCloudBodySchema);
  const site = await setSiteCloud(c.var.db, owned, enabled);
  if (site !== owned) pushLater(c, site.host);
  return c.json({ site: siteView(site) } satisfies SiteCloudView);
});

// A site's tool usage (registry/usage.ts): the owner's figures per day and tool, as JSON or CSV.
siteRoutes.get("/:host/analytics", async (c) => {
  const site = await publisherOrOwner(c);
  const q = c.req.query();
  const format = q.format ?? "json";
  if (format !== "json" && format !== "csv")
    throw new HubError("validation_failed", 'format: "json" or "csv".', {
      issues: [{ path: "format", message: 'Expected "json" or "csv".' }],
    });
  const range = analyticsRange(q, c.var.now);
  const { results } = await c.env.DB.prepare(`SELECT DISTINCT name FROM tools WHERE host = ?`)
    .bind(site.host)
    .all<{ name: string }>();
  const a = await siteAnalytics(
    c.env.DB,
    site.host,
    range,
    results.map((r) => r.name),
  );
  if (format === "json") return c.json(a);
  return c.body(analyticsCsv(a), 200, {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="${site.host.replace(/[^\w.-]/g, "_")}-usage-${a.from}-${a.to}.csv"`,
  });
});

// Where a manifest refresh pulls from: a WebMCP manifest the site's ai-catalog.json lists, or null for
// /.well-known/webmcp.json; and reading that catalog again on demand.
siteRoutes.put("/:host/manifest-source", async (c) => {
  const owned = await publisherOrOwner(c);
  const { url } = await readJson(c, SiteManifestSourceBodySchema);
  return c.json(await setManifestSource(c.var.db, owned, url));
});

siteRoutes.post("/:host/catalog/refresh", async (c) => {
  const site = await publisherOrOwner(c);
  const { ALLOW_PRIVATE_ORIGINS: allowPrivate } = c.var.settings;
  return c.json(await readSiteCatalog(c.var.db, site, c.var.now, { allowPrivate }));
});

siteRoutes.post("/:host/keys", async (c) => {
  const site = await authenticatePublisher(c.var.db, c.req.param("host"), c.req.header("authorization"));
  const publisherKey = await rotatePublisherKey(c.var.db, site, c.var.now);
  return c.json(
    { publisherKey, note: "The publisher key is shown once; the previous key no longer works." },
    201,
  );
});

siteRoutes.put("/:host/manifest", async (c) => {
  const site = await authenticatePublisher(c.var.db, c.req.param("host"), c.req.header("authorization"));
  const manifest = parseManifestText(await readBodyText(c, LIMITS.manifestBytes));
  const result = await publishManifest(c.var.db, site, manifest, "api", c.var.now);
  await restoreListing(c.var.db, site, c.var.now);
  pushLater(c, site.host);
  return c.json(result, result.unchanged ? 200 : 201);
});

siteRoutes.post("/:host/manifest/refresh", async (c) => {
  const site = await publisherOrOwner(c);
  const result = await refreshManifest(c.var.db, site, c.var.settings.ALLOW_PRIVATE_ORIGINS, c.var.now);
  await restoreListing(c.var.db, site, c.var.now);
  pushLater(c, site.host);
  return c.json(result, result.unchanged ? 200 : 201);
});

siteRoutes.get("/:host/manifest", async (c) => {
  const { version } = query(c, ManifestVersionParamsSchema);
  const site = await getVerifiedSite(c.var.db, c.req.param("host"));
  return c.json(await getManifestVersion(c.var.db, site, version));
});

siteRoutes.get("/:host/manifest/versions", async (c) => {
  const site = await getVerifiedSite(c.var.db, c.req.param("host"));
  return c.json({ host: site.host, versions: await listManifestVersions(c.var.db, site) });
});

siteRoutes.get("/:host/tools", async (c) => {
  const { format } = query(c, ExportParamsSchema);
  const site = await getVerifiedSite(c.var.db, c.req.param("host"));
  const tools = await siteTools(c.var.db, site.host, cloudContextOf(c.var.hub, c.env));
  if (tools.length === 0) throw new HubError("not_found", `${site.host} has not published any tools yet.`);
  return c.json(exportTools(format, site, tools));
});
