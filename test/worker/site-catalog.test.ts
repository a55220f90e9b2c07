// A site's own /.well-known/ai-catalog.json (src/worker/registry/site-catalog.ts), served by a local fake
// origin: read when the site is verified, on the hourly re-check and on the owner's demand; its WebMCP
// manifests offered as the manifest source (PUT /api/sites/:host/manifest-source), its MCP servers listed,
// everything else ignored with a reason; a manifest refresh pulls from the chosen source; only the site's
// publisher key or owning account may choose or re-read.
import { createScheduledController, env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/worker/index.js";
import { CATALOG_MAX_BYTES } from "../../src/worker/registry/site-catalog.js";
import { REVERIFY_CRON, REVERIFY_INTERVAL_MS } from "../../src/worker/registry/reverify.js";
import { signedInAccount } from "./account-helpers.js";
import { withOwnerSections } from "./owner-sections.js";
import {
  api,
  BASE,
  expectError,
  fakeOrigin,
  publish,
  register,
  tool,
  verifiedSite,
  verify,
} from "./helpers.js";

const CATALOG = "/.well-known/ai-catalog.json";
const catalogType = { "content-type": "application/ai-catalog+json" };

interface Stored {
  catalog_entries: string | null;
  catalog_error: string | null;
  catalog_checked_at: number | null;
  manifest_source: string | null;
}

const stored = (host: string) =>
  env.DB.prepare(
    "SELECT catalog_entries, catalog_error, catalog_checked_at, manifest_source FROM sites WHERE host = ?",
  )
    .bind(host)
    .first<Stored>() as Promise<Stored>;

/** A catalog with one entry of each kind the hub tells apart. */
function catalogOf(origin: string) {
  return JSON.stringify({
    specVersion: "1.0",
    host: { displayName: "Example" },
    entries: [
      {
        identifier: "urn:air:example:webmcp:shop",
        type: "application/webmcp+json",
        url: `${origin}/shop/manifest.json`,
        displayName: "Shop tools",
        version: "2.1.0",
      },
      // Older catalogs name the type `mediaType`; a relative url is read against the catalog's URL.
      { identifier: "urn:air:example:webmcp:docs", mediaType: "application/json", url: "/docs/webmcp.json" },
      {
        identifier: "urn:air:example:mcp:search",
        type: "application/mcp-server-card+json",
        url: `${origin}/mcp/server-card`,
      },
      { identifier: "urn:air:example:more", type: "application/ai-catalog+json", url: `${origin}/more.json` },
      {
        identifier: "urn:air:elsewhere:webmcp",
        type: "application/webmcp+json",
        url: "https://elsewhere.example/webmcp.json",
      },
      { identifier: "urn:air:example:inline", type: "application/webmcp+json", data: { tools: [] } },
      {
        identifier: "urn:air:example:agent",
        type: "application/a2a-agent-card+json",
        url: `${origin}/agent.json`,
      },
      { type: "application/webmcp+json", url: `${origin}/anonymous/webmcp.json` },
    ],
  });
}

const expectedEntries = (origin: string) => [
  {
    identifier: "urn:air:example:webmcp:shop",
    type: "application/webmcp+json",
    url: `${origin}/shop/manifest.json`,
    kind: "webmcp",
    displayName: "Shop tools",
    version: "2.1.0",
  },
  {
    identifier: "urn:air:example:webmcp:docs",
    type: "application/json",
    url: `${origin}/docs/webmcp.json`,
    kind: "webmcp",
  },
  {
    identifier: "urn:air:example:mcp:search",
    type: "application/mcp-server-card+json",
    url: `${origin}/mcp/server-card`,
    kind: "mcp",
  },
];

/** A verified site serving `catalog` (set before verification), with its publisher key. */
async function siteWithCatalog(catalog?: (origin: string) => string) {
  const o = await fakeOrigin();
  const reg = await register(o.origin);
  await o.setRoutes({
    "/.well-known/webmcp-hub-verify": { body: reg.challenge.token },
    ...(catalog ? { [CATALOG]: { body: catalog(o.origin), headers: catalogType } } : {}),
  });
  const res = await verify(reg.site.host, reg.claimSecret);
  expect(res.status).toBe(200);
  const { publisherKey } = (await res.json()) as { publisherKey: string };
  // Verification reads the catalog after its answer: wait for that read.
  await vi.waitFor(async () => expect((await stored(reg.site.host)).catalog_checked_at).not.toBeNull(), {
    timeout: 10_000,
    interval: 50,
  });
  return {
    host: reg.site.host,
    origin: o.origin,
    key: publisherKey,
    o,
    auth: { authorization: `Bearer ${publisherKey}` },
  };
}

const readCatalog = (host: string, headers: Record<string, string>) =>
  api(`/api/sites/${encodeURIComponent(host)}/catalog/refresh`, { method: "POST", headers });

const chooseSource = (host: string, body: unknown, headers: Record<string, string>) =>
  api(`/api/sites/${encodeURIComponent(host)}/manifest-source`, {
    method: "PUT",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("reading a site's ai-catalog.json", () => {
  it("on verification keeps the WebMCP and MCP entries on the site's origin and ignores the rest with reasons", async () => {
    const site = await siteWithCatalog(catalogOf);
    const row = await stored(site.host);
    expect(row.catalog_error).toBeNull();
    const catalog = JSON.parse(row.catalog_entries!);
    expect(catalog.entries).toEqual(expectedEntries(site.origin));
    const reasons = Object.fromEntries(
      (catalog.ignored as Array<{ identifier: string; reason: string }>).map((i) => [i.identifier, i.reason]),
    );
    expect(Object.keys(reasons)).toEqual([
      "urn:air:example:more",
      "urn:air:elsewhere:webmcp",
      "urn:air:example:inline",
      "urn:air:example:agent",
      "entries[7]",
    ]);
    expect(reasons["urn:air:example:more"]).toContain("nested catalog");
    expect(reasons["urn:air:elsewhere:webmcp"]).toContain(`only from the site's origin, ${site.origin}`);
    expect(reasons["urn:air:example:inline"]).toContain("inline data only");
    expect(reasons["urn:air:example:agent"]).toContain("application/a2a-agent-card+json");
    expect(reasons["entries[7]"]).toContain("no identifier");
    const hits = await site.o.hits();
    expect(hits.some((h) => h.startsWith(`GET ${CATALOG} ua=webmcp-hub-verifier/`))).toBe(true);
    // Nested catalogs and listed manifests are not fetched while reading the catalog.
    expect(hits.filter((h) => !h.includes("/.well-known/"))).toEqual([]);
  });

  it("stores nothing and no error for a site that serves none (404)", async () => {
    const site = await siteWithCatalog();
    expect(await stored(site.host)).toMatchObject({ catalog_entries: null, catalog_error: null });
    const res = await readCatalog(site.host, site.auth);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).catalog).toMatchObject({ error: null, entries: [], ignored: [] });
  });

  it("stores a short reason for a broken catalog and drops the entries read before", async () => {
    const site = await siteWithCatalog(catalogOf);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ body: "{not json", headers: catalogType }, "not valid JSON"],
      [{ body: JSON.stringify({ specVersion: "1.0" }), headers: catalogType }, "needs an `entries` array"],
      [{ body: "<html></html>", headers: { "content-type": "text/html" } }, "served as text/html"],
      [
        { body: JSON.stringify({ entries: [], pad: "x".repeat(CATALOG_MAX_BYTES) }), headers: catalogType },
        `larger than ${CATALOG_MAX_BYTES} bytes`,
      ],
      [{ status: 500, body: "oops" }, "answered 500"],
      [{ status: 302, headers: { location: "/elsewhere.json" } }, "redirect"],
    ];
    for (const [route, reason] of cases) {
      await site.o.setRoutes({ [CATALOG]: route });
      const res = await readCatalog(site.host, site.auth);
      expect(res.status).toBe(200);
      const view = (await res.json()) as any;
      expect(view.catalog.error).toContain(reason);
      expect(view.catalog.entries).toEqual([]);
      expect((await stored(site.host)).catalog_error).toContain(reason);
    }
    // Served properly again: the entries are back and the reason gone.
    await site.o.setRoutes({ [CATALOG]: { body: catalogOf(site.origin), headers: catalogType } });
    const view = (await (await readCatalog(site.host, site.auth)).json()) as any;
    expect(view.catalog).toMatchObject({ error: null, entries: expectedEntries(site.origin) });
    // A site that cannot be reached keeps what was read before; only the reason is new.
    await site.o.setRoutes({ [CATALOG]: { hangUp: "before-headers" } });
    const down = (await (await readCatalog(site.host, site.auth)).json()) as any;
    expect(down.catalog.error).toContain("could not be reached");
    expect(down.catalog.entries).toEqual(expectedEntries(site.origin));
  });

  it("on the hourly re-check of a site that still proves ownership, and a broken catalog never fails the check", async () => {
    const site = await siteWithCatalog();
    await site.o.setRoutes({ [CATALOG]: { body: catalogOf(site.origin), headers: catalogType } });
    let at = Date.now() + REVERIFY_INTERVAL_MS + 1000;
    const cron = async () => {
      await env.DB.prepare("UPDATE sites SET verify_checked_at = ? WHERE host != ?")
        .bind(at, site.host)
        .run();
      await worker.scheduled(createScheduledController({ scheduledTime: at, cron: REVERIFY_CRON }), env);
    };
    await cron();
    let row = await stored(site.host);
    expect(row.catalog_checked_at).toBe(at);
    expect(JSON.parse(row.catalog_entries!).entries).toEqual(expectedEntries(site.origin));

    await site.o.setRoutes({ [CATALOG]: { body: "[", headers: catalogType } });
    at += REVERIFY_INTERVAL_MS + 1000;
    await cron();
    row = await stored(site.host);
    expect(row.catalog_error).toContain("not valid JSON");
    const check = await env.DB.prepare(
      "SELECT status, verify_failures, verify_checked_at FROM sites WHERE host = ?",
    )
      .bind(site.host)
      .first();
    expect(check).toEqual({ status: "verified", verify_failures: 0, verify_checked_at: at });
  });
});

describe("the manifest source", () => {
  it("accepts only a WebMCP manifest the catalog lists, or null, and refuses the rest with why, changing nothing", async () => {
    const site = await siteWithCatalog(catalogOf);
    const shop = `${site.origin}/shop/manifest.json`;
    const ok = await chooseSource(site.host, { url: shop }, site.auth);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).manifestSource).toBe(shop);

    const refusals: Array<[unknown, string]> = [
      [{ url: `${site.origin}/mcp/server-card` }, "is an MCP server in your ai-catalog.json"],
      [{ url: `${site.origin}/other/webmcp.json` }, "is not a WebMCP manifest your ai-catalog.json lists"],
      [{ url: "https://elsewhere.example/webmcp.json" }, "is not a WebMCP manifest"],
      [{ url: `${site.origin}/more.json` }, "is not a WebMCP manifest"],
      [{ url: 5 }, "url"],
      [{}, "url"],
      [{ url: shop, extra: true }, "extra"],
    ];
    for (const [body, message] of refusals) {
      const error = await expectError(
        await chooseSource(site.host, body, site.auth),
        400,
        "validation_failed",
      );
      expect(error.message).toContain(message);
      expect((await stored(site.host)).manifest_source).toBe(shop);
    }

    // The default file's own URL is the same as null.
    const reset = await chooseSource(site.host, { url: `${site.origin}/.well-known/webmcp.json` }, site.auth);
    expect(((await reset.json()) as any).manifestSource).toBeNull();
    expect((await stored(site.host)).manifest_source).toBeNull();
  });

  it("is where a manifest refresh pulls from, by publisher key or by the owner's session", async () => {
    const site = await siteWithCatalog(catalogOf);
    await site.o.setRoutes({
      "/.well-known/webmcp.json": { body: JSON.stringify({ tools: [tool("from_default")] }) },
      "/docs/webmcp.json": { body: JSON.stringify({ tools: [tool("from_catalog")] }) },
    });
    const refresh = (headers: Record<string, string>) =>
      api(`/api/sites/${encodeURIComponent(site.host)}/manifest/refresh`, { method: "POST", headers });
    const toolNames = async () =>
      (
        ((await (await api(`/api/sites/${encodeURIComponent(site.host)}`)).json()) as any).manifest
          .tools as any[]
      ).map((t) => t.name);

    expect((await refresh(site.auth)).status).toBe(201);
    expect(await toolNames()).toEqual(["from_default"]);

    expect(
      (await chooseSource(site.host, { url: `${site.origin}/docs/webmcp.json` }, site.auth)).status,
    ).toBe(200);
    const me = await signedInAccount();
    await api("/api/account/sites/claim", {
      method: "POST",
      headers: me.headers,
      json: { publisherKey: site.key },
    });
    const pulled = await refresh(me.headers);
    expect(pulled.status).toBe(201);
    expect(await toolNames()).toEqual(["from_catalog"]);
    expect((await site.o.hits()).some((h) => h.startsWith("GET /docs/webmcp.json "))).toBe(true);

    // A source that stops answering fails the refresh, naming it; the published version stays.
    await site.o.setRoutes({ "/docs/webmcp.json": { status: 404, body: "gone" } });
    const failed = await expectError(await refresh(site.auth), 502, "upstream_failed");
    expect(failed.message).toContain(`${site.origin}/docs/webmcp.json answered 404`);
    expect(await toolNames()).toEqual(["from_catalog"]);
  });

  it("answers only the site's publisher key and owning account", async () => {
    const site = await siteWithCatalog(catalogOf);
    const shop = `${site.origin}/shop/manifest.json`;
    const other = await signedInAccount("Other");
    const stranger = await verifiedSite();
    for (const call of [
      (h: Record<string, string>) => chooseSource(site.host, { url: shop }, h),
      (h: Record<string, string>) => readCatalog(site.host, h),
    ]) {
      await expectError(await call({}), 401, "unauthorized");
      await expectError(await call(other.headers), 403, "forbidden");
      await expectError(await call({ authorization: `Bearer ${stranger.key}` }), 403, "forbidden");
    }
    await expectError(
      await chooseSource("nowhere.example", { url: null }, other.headers),
      404,
      "site_not_found",
    );
    expect((await stored(site.host)).manifest_source).toBeNull();
  });
});

describe("the site page", () => {
  it("offers the owner the catalog's WebMCP manifests as sources and lists its MCP servers; others see only the hub's catalog link", async () => {
    const site = await siteWithCatalog(catalogOf);
    const me = await signedInAccount();
    await api("/api/account/sites/claim", {
      method: "POST",
      headers: me.headers,
      json: { publisherKey: site.key },
    });
    await chooseSource(site.host, { url: `${site.origin}/docs/webmcp.json` }, me.headers);
    const path = `/sites/${encodeURIComponent(site.host)}`;
    // As the browser shows it: the owner's sections built from the page's data (owner-sections.ts).
    const page = async (headers: Record<string, string> = {}) =>
      withOwnerSections(await (await SELF.fetch(BASE + path, { headers })).text());

    const mine = await page({ cookie: me.cookie });
    expect(mine).toContain('id="manifest-source"');
    expect(mine).toContain("<code>/.well-known/webmcp.json</code> (default)");
    expect(mine).toMatch(/value="[^"]*\/shop\/manifest\.json"/);
    expect(mine).toMatch(/value="[^"]*\/docs\/webmcp\.json" checked/);
    expect(mine).toContain("Shop tools (version 2.1.0)");
    expect(mine).toContain("MCP servers in your catalog");
    expect(mine).toContain("It describes a remote MCP server, not the WebMCP tools of your pages.");
    expect(mine).toContain("5 catalog entries not used");
    expect(mine).toContain("Read my ai-catalog.json now");
    expect(mine).toContain("/assets/site-owner.js");

    // The hub's catalog page for the site exists only while a tool of it runs in the cloud: linked then.
    const catalogLink = `href="${path}/ai-catalog.json"`;
    expect(mine).not.toContain(catalogLink);
    const cloudTool = tool("books", { annotations: { readOnlyHint: true }, pages: ["/"], cloud: true });
    expect((await publish(site.host, site.key, { tools: [cloudTool] })).status).toBe(201);
    for (const theirs of [await page(), await page({ cookie: (await signedInAccount("Other")).cookie })]) {
      expect(theirs).not.toContain('id="manifest-source"');
      expect(theirs).toContain(catalogLink);
      expect(theirs).toContain("as a nested catalog entry");
    }

    // A broken catalog: the owner reads why.
    await site.o.setRoutes({ [CATALOG]: { body: "{", headers: catalogType } });
    await readCatalog(site.host, site.auth);
    const broken = await page({ cookie: me.cookie });
    expect(broken).toContain("Your ai-catalog.json could not be used:");
    expect(broken).toContain("Your chosen source");
  });
});
