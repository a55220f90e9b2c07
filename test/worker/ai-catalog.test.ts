// The AI Catalog (src/worker/discovery/ai-catalog.ts) as the Worker serves it: /.well-known/ai-catalog.json lists
// the registry's card and each cloud site's card by url, a site's own catalog page, and past CATALOG_PAGE_SIZE
// sites the partition into nested catalogs. Every catalog validates against test/fixtures/discovery/
// ai-catalog.schema.json (derived from the spec's CDDL with the newest field names), every card it names
// against the Server Card schema.
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { Validator } from "@cfworker/json-schema";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/worker/app.js";
import { CATALOG_PAGE_SIZE } from "../../src/worker/discovery/ai-catalog.js";
import catalogSchema from "../fixtures/discovery/ai-catalog.schema.json";
import cardSchema from "../fixtures/discovery/server-card.schema.json";
import { api, BASE, expectError, publish, tool, verifiedSite } from "./helpers.js";

const CATALOG_TYPE = "application/ai-catalog+json";
const CARD_TYPE = "application/mcp-server-card+json";
const catalogValidator = new Validator(catalogSchema as object, "2020-12", false);
const cardValidator = new Validator(
  { ...cardSchema, $ref: "#/$defs/ServerCard" } as object,
  "2020-12",
  false,
);

interface Entry {
  identifier: string;
  type: string;
  url: string;
  version?: string;
  updatedAt?: string;
  description?: string;
  publisher?: { identifier: string; displayName: string };
}
interface Catalog {
  specVersion: string;
  host?: Record<string, string>;
  entries: Entry[];
}

/** GETs a catalog, checks its headers and the schema, returns it. */
async function getCatalog(url: string): Promise<{ catalog: Catalog; res: Response }> {
  const res = await SELF.fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe(CATALOG_TYPE);
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
  const catalog = (await res.json()) as Catalog;
  expect(catalogValidator.validate(catalog).errors).toEqual([]);
  return { catalog, res };
}

async function expectCard(url: string) {
  const res = await SELF.fetch(url, { headers: { accept: CARD_TYPE } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe(CARD_TYPE);
  expect(cardValidator.validate(await res.json()).errors).toEqual([]);
}

const cloudTool = tool("lookup", {
  annotations: { readOnlyHint: true },
  pages: ["/lookup.html"],
  cloud: true,
});
const urnOf = (host: string) => {
  const [hostname, port] = host.split(":");
  return `urn:air:${hostname}:mcp:webmcp${port ? `-${port}` : ""}`;
};
const siteCardUrl = (host: string) => `${BASE}/mcp/sites/${encodeURIComponent(host)}/server-card`;
const siteCatalogUrl = (host: string) => `${BASE}/sites/${encodeURIComponent(host)}/ai-catalog.json`;

let cloudSite: Awaited<ReturnType<typeof verifiedSite>>;
let plainSite: Awaited<ReturnType<typeof verifiedSite>>;
let delistedSite: Awaited<ReturnType<typeof verifiedSite>>;

beforeAll(async () => {
  [cloudSite, plainSite, delistedSite] = await Promise.all([verifiedSite(), verifiedSite(), verifiedSite()]);
  expect(
    (await publish(cloudSite.host, cloudSite.key, { name: "Catalog shop", tools: [cloudTool] })).status,
  ).toBe(201);
  expect((await publish(plainSite.host, plainSite.key, { tools: [tool("plain")] })).status).toBe(201);
  expect((await publish(delistedSite.host, delistedSite.key, { tools: [cloudTool] })).status).toBe(201);
  const delist = await api(`/api/sites/${delistedSite.host}/delist`, {
    method: "POST",
    headers: { authorization: `Bearer ${delistedSite.key}` },
  });
  expect(delist.status).toBe(200);
});

describe("/.well-known/ai-catalog.json", () => {
  it("lists the registry's card and each cloud site's card by url, and every card it names is served", async () => {
    const { catalog } = await getCatalog(`${BASE}/.well-known/ai-catalog.json`);
    expect(catalog.specVersion).toBe("1.0");
    expect(catalog.host).toEqual({
      displayName: "webmcp-hub",
      identifier: BASE,
      documentationUrl: `${BASE}/docs`,
    });
    expect(catalog.entries[0]).toEqual({
      identifier: "urn:air:hub.test:mcp:registry",
      type: CARD_TYPE,
      url: `${BASE}/mcp/registry/server-card`,
      publisher: { identifier: BASE, displayName: "webmcp-hub" },
    });
    const entry = catalog.entries.find((e) => e.identifier === urnOf(cloudSite.host));
    expect(entry).toEqual({
      identifier: urnOf(cloudSite.host),
      type: CARD_TYPE,
      url: siteCardUrl(cloudSite.host),
      version: "1",
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      publisher: { identifier: cloudSite.origin, displayName: "Catalog shop" },
    });
    const urls = catalog.entries.map((e) => e.url);
    expect(urls).not.toContain(siteCardUrl(plainSite.host));
    expect(urls).not.toContain(siteCardUrl(delistedSite.host));
    for (const e of catalog.entries) await expectCard(e.url);
  });

  it("answers If-None-Match with 304 and a CORS preflight", async () => {
    const { res } = await getCatalog(`${BASE}/.well-known/ai-catalog.json`);
    const again = await SELF.fetch(`${BASE}/.well-known/ai-catalog.json`, {
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    const pre = await SELF.fetch(`${BASE}/.well-known/ai-catalog.json`, {
      method: "OPTIONS",
      headers: { origin: "https://crawler.example", "access-control-request-method": "GET" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("lists only the registry while the hub's cloud runs are off", async () => {
    const ctx = createExecutionContext();
    const res = await createApp().fetch(
      new Request(`${BASE}/.well-known/ai-catalog.json`),
      { ...env, CLOUD_RUNS: "off" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const catalog = (await res.json()) as Catalog;
    expect(catalog.entries.map((e) => e.identifier)).toEqual(["urn:air:hub.test:mcp:registry"]);
  });
});

describe("a site's catalog page, /sites/<host>/ai-catalog.json", () => {
  it("holds the site's entry, as the hub's catalog lists it; the site's page is still its page", async () => {
    const { catalog } = await getCatalog(siteCatalogUrl(cloudSite.host));
    const top = (await getCatalog(`${BASE}/.well-known/ai-catalog.json`)).catalog;
    expect(catalog).toEqual({
      specVersion: "1.0",
      entries: [top.entries.find((e) => e.identifier === urnOf(cloudSite.host))],
    });
    const page = await SELF.fetch(`${BASE}/sites/${encodeURIComponent(cloudSite.host)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });

  it("is 404 for an unknown site or one without cloud tools, 410 for a delisted one", async () => {
    await expectError(await SELF.fetch(siteCatalogUrl("nowhere.example")), 404, "site_not_found");
    await expectError(await SELF.fetch(siteCatalogUrl(plainSite.host)), 404, "site_not_found");
    await expectError(await SELF.fetch(siteCatalogUrl(delistedSite.host)), 410, "site_delisted");
  });
});

describe("more sites than one catalog holds", () => {
  it(`are partitioned into nested catalogs of ${CATALOG_PAGE_SIZE}, each listing its sites' cards`, async () => {
    const before = (await getCatalog(`${BASE}/.well-known/ai-catalog.json`)).catalog.entries.length - 1;
    // Enough cloud-capable sites for two pages, written as publishing leaves them (a site and its cloud tool).
    const now = Date.now();
    const added = Array.from({ length: CATALOG_PAGE_SIZE + 20 - before }, (_, i) => `bulk-${i}.example`);
    await env.DB.batch(
      added.flatMap((host) => [
        env.DB.prepare(
          "INSERT INTO sites (host, origin, status, current_version, created_at, updated_at) VALUES (?, ?, 'verified', 1, ?, ?)",
        ).bind(host, `https://${host}`, now, now),
        env.DB.prepare(
          "INSERT INTO tools (host, version, name, description, input_schema, updated_at, cloud) VALUES (?, 1, 'lookup', 'Looks up.', '{}', ?, 1)",
        ).bind(host, now),
      ]),
    );
    const total = before + added.length;

    const { catalog } = await getCatalog(`${BASE}/.well-known/ai-catalog.json`);
    expect(catalog.entries.map((e) => [e.type, e.url])).toEqual([
      [CARD_TYPE, `${BASE}/mcp/registry/server-card`],
      [CATALOG_TYPE, `${BASE}/ai-catalog/sites/1.json`],
      [CATALOG_TYPE, `${BASE}/ai-catalog/sites/2.json`],
    ]);
    expect(catalog.entries[2]).toMatchObject({
      identifier: "urn:air:hub.test:catalog:sites2",
      description: `Sites ${CATALOG_PAGE_SIZE + 1}–${total} of ${total} whose tools run in the cloud, by host.`,
    });

    const seen: string[] = [];
    for (const nested of catalog.entries.slice(1)) {
      const page = (await getCatalog(nested.url)).catalog;
      expect(page.entries.length).toBeLessThanOrEqual(CATALOG_PAGE_SIZE);
      // Depth 2: a page lists cards, never another catalog.
      expect(page.entries.every((e) => e.type === CARD_TYPE)).toBe(true);
      seen.push(...page.entries.map((e) => e.identifier));
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen).toContain(urnOf(cloudSite.host));
    expect(seen).toContain("urn:air:bulk-0.example:mcp:webmcp");
    await expectCard(siteCardUrl("bulk-7.example"));

    await expectError(await SELF.fetch(`${BASE}/ai-catalog/sites/3.json`), 404, "not_found");
    await expectError(await SELF.fetch(`${BASE}/ai-catalog/sites/0.json`), 404, "not_found");
    await expectError(await SELF.fetch(`${BASE}/ai-catalog/sites/one.json`), 404, "not_found");
  });
});
