// The MCP Registry API (src/worker/discovery/registry-api.ts) through the Worker: every /v0 and /v0.1 answer's
// `server` validates against the official server.json schema (test/fixtures/discovery/server.schema.json);
// listing, paging, search, version=latest, updated_since, include_deleted; delisted, lapsed, switched-off and
// republished-without-cloud sites as deleted entries; bad input answered as the official Go server does.
//
// No official registry client runs here (its CLI is Go; npm has none), so the last describe sends requests
// shaped exactly as VS Code's MCP gallery does, from microsoft/vscode:
// - src/vs/platform/mcp/common/mcpGalleryManifestService.ts @ 79c1f169: the base URL's trailing "/" stripped,
//   then `GET {url}/v0.1/servers?limit=1` (then v0) to pick the API version; the first 2xx wins.
// - src/vs/platform/mcp/common/mcpGalleryService.ts @ e24a16c3: `GET {url}/v0.1/servers?limit=50&version=latest`,
//   next pages with `&cursor=<metadata.nextCursor as is, not URL-encoded>` while nextCursor is truthy; a
//   server's details with `GET {url}/v0.1/servers/${encodeURIComponent(name)}/versions/latest`. No headers.
// Then an MCP SDK client connects to the chosen server's `remotes[0].url`, as VS Code does once installed.
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { Validator, type Schema } from "@cfworker/json-schema";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import serverSchema from "../fixtures/discovery/server.schema.json";
import { createApp } from "../../src/worker/app.js";
import { serverNameOf } from "../../src/worker/discovery/names.js";
import { api, BASE, publish, verifiedSite, lookupCloudTool, plainReadOnlyTool } from "./helpers.js";

const OFFICIAL = "io.modelcontextprotocol.registry/official";
const HUB_META = "webmcp-hub/server";
const HUB_NAME = "test.hub/registry";

interface Entry {
  server: {
    $schema: string;
    name: string;
    title?: string;
    description: string;
    version: string;
    websiteUrl?: string;
    remotes?: Array<{ type: string; url: string }>;
  };
  _meta: {
    [OFFICIAL]: {
      status: "active" | "deprecated" | "deleted";
      statusMessage?: string;
      statusChangedAt: string;
      publishedAt: string;
      updatedAt: string;
      isLatest: boolean;
    };
    [HUB_META]: Record<string, unknown> & { cloudTools?: string[] };
  };
}
interface List {
  servers: Entry[];
  metadata: { nextCursor?: string; count: number };
}

const validator = new Validator(serverSchema as unknown as Schema, "7", false);
// The fixture's draft-07 works with @cfworker/json-schema: it accepts what it should and refuses what it should.
expect(validator.validate({ name: "com.example/x", description: "d", version: "1" }).valid).toBe(true);
expect(
  validator.validate({ name: "x", description: "d".repeat(101), version: "1" }).errors.length,
).toBeGreaterThan(1);
const OFFICIAL_META_KEYS = [
  "status",
  "statusMessage",
  "statusChangedAt",
  "publishedAt",
  "updatedAt",
  "isLatest",
];

/** One entry as the official OpenAPI's ServerResponse: server.json valid, the official _meta exactly its fields. */
function checkEntry(e: Entry): void {
  const result = validator.validate(e.server);
  expect(result.errors, JSON.stringify(e.server)).toEqual([]);
  expect(result.valid).toBe(true);
  const official = e._meta[OFFICIAL];
  expect(Object.keys(official).every((k) => OFFICIAL_META_KEYS.includes(k))).toBe(true);
  expect(["active", "deprecated", "deleted"]).toContain(official.status);
  for (const k of ["statusChangedAt", "publishedAt", "updatedAt"] as const)
    expect(new Date(official[k]).toISOString()).toBe(official[k]);
  if (official.status === "active") expect(official.statusMessage).toBeUndefined();
  else expect(official.statusMessage!.length).toBeLessThanOrEqual(500);
  expect(new TextEncoder().encode(JSON.stringify(e._meta[HUB_META])).length).toBeLessThanOrEqual(4096);
}

async function get<T>(path: string, status = 200): Promise<T> {
  const res = await api(path);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(status);
  if (status === 200) {
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
  }
  const body = (await res.json()) as T;
  if (status === 200) {
    const b = body as unknown as Partial<List> & Partial<Entry>;
    if (!path.endsWith("/server.json")) for (const e of b.servers ?? [b as Entry]) checkEntry(e);
  }
  return body;
}

async function problem(path: string, status: number, detail: string) {
  const res = await api(path);
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = (await res.json()) as { title: string; status: number; detail: string; errors?: unknown };
  expect(body).toMatchObject({ status, detail });
  return body;
}

const lookup = lookupCloudTool;
const plain = plainReadOnlyTool;

type Site = Awaited<ReturnType<typeof verifiedSite>>;
let shop: Site; // active: v1 without cloud tools, v2 with
let gone: Site; // delisted
let lapsed: Site; // verification lapsed
let switched: Site; // owner turned cloud runs off
let dropped: Site; // republished without cloud tools
let never: Site; // never had a cloud tool
let startedAt: string;

const name = (s: Site) => serverNameOf(s.host);
const port = (s: Site) => new URL(s.origin).port;
const versionsPath = (s: Site | string, v = "") =>
  `/v0.1/servers/${encodeURIComponent(typeof s === "string" ? s : name(s))}/versions${v}`;
const owner = (s: Site) => ({ headers: { authorization: `Bearer ${s.key}` } });

beforeAll(async () => {
  startedAt = new Date(Date.now() - 1).toISOString();
  [shop, gone, lapsed, switched, dropped, never] = await Promise.all([
    verifiedSite(),
    verifiedSite(),
    verifiedSite(),
    verifiedSite(),
    verifiedSite(),
    verifiedSite(),
  ]);
  expect((await publish(shop.host, shop.key, { name: "Plain shop", tools: [plain] })).status).toBe(201);
  expect(
    (
      await publish(shop.host, shop.key, {
        name: "Cloud shop",
        description: "Looks words up in the shop's dictionary.",
        tools: [lookup, plain],
      })
    ).status,
  ).toBe(201);
  for (const s of [gone, lapsed, switched, dropped])
    expect((await publish(s.host, s.key, { name: `Site ${port(s)}`, tools: [lookup] })).status).toBe(201);
  expect((await publish(never.host, never.key, { tools: [plain] })).status).toBe(201);
  expect((await api(`/api/sites/${gone.host}/delist`, { method: "POST", ...owner(gone) })).status).toBe(200);
  expect(
    (
      await api(`/api/sites/${switched.host}/cloud`, {
        method: "PUT",
        json: { enabled: false },
        ...owner(switched),
      })
    ).status,
  ).toBe(200);
  expect((await publish(dropped.host, dropped.key, { tools: [plain] })).status).toBe(201);
  // What the hourly re-verification writes on a third failure in a row (registry/reverify.ts).
  await env.DB.prepare(
    "UPDATE sites SET status = 'unverified', verify_failures = 3, verify_error = ?, updated_at = ? WHERE host = ?",
  )
    .bind("The file /.well-known/webmcp-hub-verify answered 404.", Date.now(), lapsed.host)
    .run();
});

describe("GET /v0.1/servers", () => {
  it("lists the hub's registry server and each active site's versions, deleted ones left out", async () => {
    const { servers, metadata } = await get<List>("/v0.1/servers?limit=100");
    expect(metadata).toEqual({ count: servers.length });
    expect(servers[0]!.server).toEqual({
      $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
      name: HUB_NAME,
      title: "webmcp-hub marketplace",
      description: expect.any(String),
      version: "0.1.0",
      websiteUrl: `${BASE}/`,
      remotes: [{ type: "streamable-http", url: `${BASE}/mcp/registry` }],
    });
    const names = servers.map((e) => `${e.server.name}@${e.server.version}`);
    expect(names).toContain(`${name(shop)}@2`);
    expect(names).toContain(`${name(shop)}@1`);
    for (const s of [gone, lapsed, switched, dropped, never])
      expect(names.some((n) => n.startsWith(name(s) + "@"))).toBe(false);
    expect(servers.every((e) => e._meta[OFFICIAL].status === "active")).toBe(true);
  });

  it("describes a site as a remote server: reverse-DNS name, manifest texts, its /mcp/sites endpoint, the hub's facts", async () => {
    const { servers } = await get<List>("/v0/servers?limit=100");
    const [latest, first] = servers.filter((e) => e.server.name === name(shop));
    expect(name(shop)).toBe(`1.0.0.127/webmcp-${port(shop)}`);
    expect(latest!.server).toEqual({
      $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
      name: name(shop),
      title: "Cloud shop",
      description: "Looks words up in the shop's dictionary.",
      version: "2",
      websiteUrl: shop.origin,
      remotes: [{ type: "streamable-http", url: `${BASE}/mcp/sites/${encodeURIComponent(shop.host)}` }],
    });
    expect(first!.server).toMatchObject({
      title: "Plain shop",
      description: `WebMCP tools of ${shop.host}, run by webmcp-hub in its browser`,
      version: "1",
    });
    const official = latest!._meta[OFFICIAL];
    expect(official).toMatchObject({ status: "active", isLatest: true });
    expect(official.statusChangedAt).toBe(official.publishedAt);
    expect(first!._meta[OFFICIAL].isLatest).toBe(false);
    expect(Date.parse(first!._meta[OFFICIAL].publishedAt)).toBeLessThanOrEqual(
      Date.parse(official.publishedAt),
    );
    expect(latest!._meta[HUB_META]).toMatchObject({
      host: shop.host,
      origin: shop.origin,
      verification: { status: "verified", method: "http", verifiedAt: expect.any(String) },
      toolCount: 2,
      cloudTools: ["lookup"],
      manifest: {
        version: 2,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        url: `${BASE}/api/sites/${encodeURIComponent(shop.host)}/manifest?version=2`,
      },
      site: `${BASE}/sites/${encodeURIComponent(shop.host)}`,
    });
    expect(first!._meta[HUB_META].cloudTools).toEqual([]);
  });

  it("pages with an opaque cursor, limit by limit, through the same entries as one page", async () => {
    const all = (await get<List>("/v0.1/servers?limit=100&include_deleted=true")).servers;
    const seen: Entry[] = [];
    let cursor: string | undefined;
    do {
      const page = await get<List>(
        `/v0.1/servers?limit=2&include_deleted=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.metadata.count).toBe(page.servers.length);
      expect(page.servers.length).toBeLessThanOrEqual(2);
      seen.push(...page.servers);
      cursor = page.metadata.nextCursor;
      if (cursor === undefined) expect("nextCursor" in page.metadata).toBe(false);
    } while (cursor);
    expect(seen.map((e) => `${e.server.name}@${e.server.version}`)).toEqual(
      all.map((e) => `${e.server.name}@${e.server.version}`),
    );
  });

  it("searches names, titles and descriptions, case-insensitively", async () => {
    const byTitle = await get<List>("/v0.1/servers?search=CLOUD%20SHOP");
    expect(byTitle.servers.map((e) => `${e.server.name}@${e.server.version}`)).toEqual([`${name(shop)}@2`]);
    const byDescription = await get<List>("/v0.1/servers?search=dictionary");
    expect(byDescription.servers.map((e) => e.server.version)).toEqual(["2"]);
    const byName = await get<List>(`/v0.1/servers?search=${encodeURIComponent(`WEBMCP-${port(shop)}`)}`);
    expect(byName.servers.map((e) => e.server.version)).toEqual(["2", "1"]);
    const hub = await get<List>("/v0.1/servers?search=test.hub/");
    expect(hub.servers.map((e) => e.server.name)).toEqual([HUB_NAME]);
    expect((await get<List>("/v0.1/servers?search=no-such-thing-anywhere")).servers).toEqual([]);
  });

  it("version=latest lists only latest versions; an exact version only that one", async () => {
    const latest = await get<List>("/v0.1/servers?version=latest&limit=100");
    expect(latest.servers.every((e) => e._meta[OFFICIAL].isLatest)).toBe(true);
    expect(latest.servers.filter((e) => e.server.name === name(shop)).map((e) => e.server.version)).toEqual([
      "2",
    ]);
    const exact = await get<List>("/v0.1/servers?version=1&limit=100");
    expect(exact.servers.filter((e) => e.server.name === name(shop)).map((e) => e.server.version)).toEqual([
      "1",
    ]);
    expect(exact.servers.some((e) => e.server.name === HUB_NAME)).toBe(false);
    expect((await get<List>("/v0.1/servers?version=0.1.0")).servers.map((e) => e.server.name)).toEqual([
      HUB_NAME,
    ]);
  });

  it("include_deleted shows delisted, lapsed, switched-off and republished-without-cloud sites as deleted, saying why; never-cloud sites never", async () => {
    const { servers } = await get<List>("/v0.1/servers?include_deleted=true&version=latest&limit=100");
    const of = (s: Site) => servers.find((e) => e.server.name === name(s));
    const why = {
      gone: "The publisher delisted",
      lapsed: "domain verification lapsed: The file /.well-known/webmcp-hub-verify answered 404.",
      switched: "turned cloud runs off",
      dropped: "current manifest (version 2) has no tool the hub may run in the cloud",
    };
    for (const [s, text] of [
      [gone, why.gone],
      [lapsed, why.lapsed],
      [switched, why.switched],
      [dropped, why.dropped],
    ] as const) {
      const official = of(s)!._meta[OFFICIAL];
      expect(official.status).toBe("deleted");
      expect(official.statusMessage).toContain(text);
      expect(Date.parse(official.statusChangedAt)).toBeGreaterThanOrEqual(Date.parse(official.publishedAt));
    }
    expect(of(shop)!._meta[OFFICIAL].status).toBe("active");
    expect(of(never)).toBeUndefined();
  });

  it("updated_since lists what changed since then, deleted entries included", async () => {
    const since = await get<List>(`/v0.1/servers?updated_since=${startedAt}&limit=100`);
    const names = since.servers.map((e) => e.server.name);
    for (const s of [shop, gone, lapsed, dropped]) expect(names).toContain(name(s));
    expect(names).not.toContain(name(never));
    expect(since.servers.some((e) => e._meta[OFFICIAL].status === "deleted")).toBe(true);
    expect(since.servers.every((e) => Date.parse(e._meta[OFFICIAL].updatedAt) >= Date.parse(startedAt))).toBe(
      true,
    );
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await get<List>(`/v0.1/servers?updated_since=${later}`)).servers).toEqual([]);
    expect(
      (await get<List>(`/v0.1/servers?updated_since=${startedAt}&include_deleted=true&limit=100`)).servers
        .length,
    ).toBe(since.servers.length);
  });

  it("an owner's cloud switch shows to updated_since: on again is active, off again is deleted", async () => {
    const entryOf = async (since: string) =>
      (await get<List>(`/v0.1/servers?updated_since=${since}&version=latest&limit=100`)).servers.find(
        (e) => e.server.name === name(switched),
      );
    const cloud = (enabled: boolean) =>
      api(`/api/sites/${switched.host}/cloud`, { method: "PUT", json: { enabled }, ...owner(switched) });
    let before = new Date().toISOString();
    expect((await cloud(true)).status).toBe(200);
    expect((await entryOf(before))?._meta[OFFICIAL].status).toBe("active");
    before = new Date().toISOString();
    expect((await cloud(false)).status).toBe(200);
    const off = (await entryOf(before))!._meta[OFFICIAL];
    expect(off).toMatchObject({
      status: "deleted",
      statusMessage: expect.stringContaining("turned cloud runs off"),
    });
    expect(Date.parse(off.statusChangedAt)).toBeGreaterThanOrEqual(Date.parse(before));
  });

  it("answers bad parameters as the official API does", async () => {
    await problem("/v0.1/servers?cursor=not-a-cursor", 400, "Invalid cursor parameter");
    expect(await problem("/v0/servers?cursor=eyJ2IjoxfQ", 400, "Invalid cursor parameter")).toEqual({
      title: "Bad Request",
      status: 400,
      detail: "Invalid cursor parameter",
    });
    const detail =
      "Invalid updated_since format: expected RFC3339 timestamp (e.g., 2025-08-07T13:15:04.280Z)";
    await problem("/v0.1/servers?updated_since=yesterday", 400, detail);
    await problem("/v0.1/servers?updated_since=2025-08-07", 400, detail);
    await problem(
      `/v0.1/servers?updated_since=${startedAt}&include_deleted=false`,
      400,
      "Cannot set include_deleted=false when using updated_since (incremental sync requires deleted servers)",
    );
    expect(await problem("/v0.1/servers?limit=101", 422, "validation failed")).toEqual({
      title: "Unprocessable Entity",
      status: 422,
      detail: "validation failed",
      errors: [{ message: "expected number <= 100", location: "query.limit", value: 101 }],
    });
    expect((await problem("/v0.1/servers?limit=0", 422, "validation failed")).errors).toEqual([
      { message: "expected number >= 1", location: "query.limit", value: 0 },
    ]);
    expect((await problem("/v0.1/servers?limit=ten", 422, "validation failed")).errors).toEqual([
      { message: "invalid integer", location: "query.limit", value: "ten" },
    ]);
    expect((await problem("/v0.1/servers?include_deleted=maybe", 422, "validation failed")).errors).toEqual([
      { message: "invalid boolean", location: "query.include_deleted", value: "maybe" },
    ]);
  });

  it("answers a preflight from any origin", async () => {
    const res = await SELF.fetch(`${BASE}/v0.1/servers`, {
      method: "OPTIONS",
      headers: { origin: "https://gallery.example", "access-control-request-method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("CLOUD_RUNS=off", () => {
  it("lists only the hub's registry server; with include_deleted every site as deleted, saying cloud runs are off", async () => {
    const off = { ...env, CLOUD_RUNS: "off" } as unknown as Env;
    const app = createApp();
    const getOff = async (path: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(BASE + path), off, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(200);
      const list = (await res.json()) as List;
      list.servers.forEach(checkEntry);
      return list.servers;
    };
    expect((await getOff("/v0.1/servers?limit=100")).map((e) => e.server.name)).toEqual([HUB_NAME]);
    const all = await getOff("/v0.1/servers?limit=100&include_deleted=true&version=latest");
    const shopEntry = all.find((e) => e.server.name === name(shop))!;
    expect(shopEntry._meta[OFFICIAL]).toMatchObject({
      status: "deleted",
      statusMessage: "Cloud runs are turned off on this hub.",
    });
    expect(all.filter((e) => e._meta[OFFICIAL].status === "active").map((e) => e.server.name)).toEqual([
      HUB_NAME,
    ]);
  });
});

describe("GET /v0.1/servers/{serverName}/versions[/{version}]", () => {
  it("routes a name with %2F inside one path segment and lists its versions newest first, metadata count only", async () => {
    expect(versionsPath(shop)).toContain("%2F");
    for (const v of ["/v0", "/v0.1"]) {
      const list = await get<List>(versionsPath(shop).replace("/v0.1", v));
      expect(list.servers.map((e) => e.server.version)).toEqual(["2", "1"]);
      expect(list.metadata).toEqual({ count: 2 });
    }
  });

  it("answers a version, latest, and the hub's registry server", async () => {
    const latest = await get<Entry>(versionsPath(shop, "/latest"));
    expect(latest.server.version).toBe("2");
    expect(latest._meta[OFFICIAL].isLatest).toBe(true);
    const one = await get<Entry>(versionsPath(shop, "/1"));
    expect(one.server).toMatchObject({ version: "1", title: "Plain shop" });
    expect(one._meta[OFFICIAL].isLatest).toBe(false);
    const upper = await get<Entry>(versionsPath(name(shop).toUpperCase(), "/latest"));
    expect(upper.server.name).toBe(name(shop));
    const hub = await get<Entry>(versionsPath(HUB_NAME, "/latest"));
    expect(hub.server.name).toBe(HUB_NAME);
    expect((await get<List>(versionsPath(HUB_NAME))).servers.map((e) => e.server.version)).toEqual(["0.1.0"]);
    expect((await get<Entry>(versionsPath(HUB_NAME, "/0.1.0"))).server.version).toBe("0.1.0");
  });

  it("shows a deleted site's versions only with include_deleted", async () => {
    await problem(versionsPath(gone), 404, "Server not found");
    await problem(versionsPath(gone, "/latest"), 404, "Server not found");
    const list = await get<List>(versionsPath(gone) + "?include_deleted=true");
    expect(list.servers.map((e) => e._meta[OFFICIAL].status)).toEqual(["deleted"]);
    const latest = await get<Entry>(versionsPath(lapsed, "/latest?include_deleted=true"));
    expect(latest._meta[OFFICIAL].statusMessage).toContain("verification lapsed");
  });

  it("answers unknown servers and versions with 404 and bad encoding with 400", async () => {
    const notFound = { title: "Not Found", status: 404, detail: "Server not found" };
    expect(await problem(versionsPath("com.example/webmcp"), 404, "Server not found")).toEqual(notFound);
    await problem(versionsPath(never), 404, "Server not found");
    await problem(versionsPath("not a name"), 404, "Server not found");
    await problem(versionsPath(serverNameOf(shop.host, "registry")), 404, "Server not found");
    await problem(versionsPath(shop, "/3"), 404, "Server not found");
    await problem(versionsPath(shop, "/1.0.0"), 404, "Server not found");
    await problem(versionsPath(HUB_NAME, "/1"), 404, "Server not found");
    await problem("/v0.1/servers/com.example%E0%A4%2Fwebmcp/versions", 400, "Invalid server name encoding");
    await problem("/v0.1/servers/com.example%ZZwebmcp/versions/latest", 400, "Invalid server name encoding");
    await problem(`${versionsPath(shop)}/1%E0%A4`, 400, "Invalid version encoding");
  });
});

describe("GET /server.json", () => {
  it("is the hub's /mcp/registry server.json, valid, with absolute URLs of the request's origin, its version the server's own", async () => {
    const body = await get<Entry["server"]>("/server.json");
    expect(validator.validate(body).errors).toEqual([]);
    expect(body).toEqual((await get<Entry>(versionsPath(HUB_NAME, "/latest"))).server);
    const client = new Client({ name: "registry-api-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(body.remotes![0]!.url), {
        fetch: (u, i) => SELF.fetch(u, i),
      }),
    );
    expect(client.getServerVersion()?.version).toBe(body.version);
    await client.close();
  });
});

describe("the hub's _meta stays within the official 4 KiB", () => {
  it("a site with many long cloud tool names lists as many as fit and says the list was cut", async () => {
    const big = await verifiedSite();
    const tools = Array.from({ length: 60 }, (_, i) => ({
      ...lookup,
      name: `lookup_${String(i).padStart(2, "0")}_${"x".repeat(100)}`,
    }));
    expect((await publish(big.host, big.key, { tools })).status).toBe(201);
    const entry = await get<Entry>(versionsPath(big, "/latest"));
    const meta = entry._meta[HUB_META];
    expect(meta.cloudToolsTruncated).toBe(true);
    expect(meta.cloudTools!.length).toBeGreaterThan(10);
    expect(meta.cloudTools!.length).toBeLessThan(60);
    expect(new TextEncoder().encode(JSON.stringify(meta)).length).toBeLessThanOrEqual(4096);
  });
});

describe("a VS Code-shaped gallery session", () => {
  const gallery = `${BASE}/`; // chat.mcp.gallery.serviceUrl, as a user would type it

  beforeAll(async () => {
    // Enough active servers for a second page of 50: copies of the shop's rows under other hosts.
    for (let i = 0; i < 55; i++) {
      const host = `clone-${String(i).padStart(2, "0")}.gallery.example`;
      await env.DB.batch([
        env.DB.prepare(
          `INSERT INTO sites (host, origin, status, verification_method, verified_at, name, description,
             current_version, tool_count, created_at, updated_at, cloud_enabled)
           SELECT ?, ?, status, verification_method, verified_at, name, description, current_version, tool_count,
             created_at, updated_at, cloud_enabled FROM sites WHERE host = ?`,
        ).bind(host, `https://${host}`, shop.host),
        env.DB.prepare(
          `INSERT INTO manifest_versions (host, version, manifest, sha256, size_bytes, tool_count, source, created_at)
           SELECT ?, version, manifest, sha256, size_bytes, tool_count, source, created_at
           FROM manifest_versions WHERE host = ?`,
        ).bind(host, shop.host),
        env.DB.prepare(
          `INSERT INTO tools (host, version, name, title, description, input_schema, output_schema, annotations,
             read_only, updated_at, digest, cloud)
           SELECT ?, version, name, title, description, input_schema, output_schema, annotations, read_only,
             updated_at, digest, cloud FROM tools WHERE host = ?`,
        ).bind(host, shop.host),
      ]);
    }
  });

  it("probes, lists every page, reads a server's details and connects to its remote, listing its cloud tools", async () => {
    const url = gallery.replace(/\/$/, "");
    // mcpGalleryManifestService: the version probe.
    const probe = await SELF.fetch(`${url}/v0.1/servers?limit=1`);
    expect(probe.status).toBe(200);
    const probed = (await probe.json()) as List;
    expect(probed.servers).toHaveLength(1);
    expect(probed.metadata.nextCursor).toBeTruthy();
    // mcpGalleryService: pages of 50 latest versions, the cursor appended raw.
    const listed: Entry[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await SELF.fetch(
        `${url}/v0.1/servers?limit=50&version=latest${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(res.status).toBe(200);
      const page = (await res.json()) as List;
      page.servers.forEach(checkEntry);
      listed.push(...page.servers);
      cursor = page.metadata.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    const names = listed.map((e) => e.server.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain(name(shop));
    expect(names).toContain("example.gallery.clone-54/webmcp");
    expect(listed.every((e) => e._meta[OFFICIAL].isLatest && e._meta[OFFICIAL].status === "active")).toBe(
      true,
    );
    // The details of one server, then its remote.
    const chosen = listed.find((e) => e.server.name === name(shop))!;
    const res = await SELF.fetch(
      `${url}/v0.1/servers/${encodeURIComponent(chosen.server.name)}/versions/latest`,
    );
    expect(res.status).toBe(200);
    const detail = (await res.json()) as Entry;
    checkEntry(detail);
    expect(detail).toEqual(chosen);
    const remote = detail.server.remotes![0]!;
    expect(remote.type).toBe("streamable-http");
    const client = new Client({ name: "vscode-gallery-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(remote.url), { fetch: (u, i) => SELF.fetch(u, i) }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["lookup"]);
    await client.close();
  });
});
