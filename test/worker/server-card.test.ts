// MCP Server Cards (src/worker/discovery/server-card.ts) as the Worker serves them: every card validates against
// the draft's schema (test/fixtures/discovery/server-card.schema.json, experimental-ext-server-card @8924e086);
// the registry's, a cloud site's (and a real MCP client connects through its remote) and a channel's, which
// needs OAuth, names its authorization server and carries no secret; 404/410; the draft's HTTP rules (media
// type, CORS, Cache-Control, ETag and 304, HEAD).
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Validator } from "@cfworker/json-schema";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/worker/app.js";
import cardSchema from "../fixtures/discovery/server-card.schema.json";
import { api, BASE, expectError, publish, tool, verifiedSite } from "./helpers.js";
import { createChannel, HUB } from "./relay-helpers.js";

const CARD_TYPE = "application/mcp-server-card+json";
const validator = new Validator({ ...cardSchema, $ref: "#/$defs/ServerCard" } as object, "2020-12", false);

type Card = {
  name: string;
  version: string;
  title: string;
  description: string;
  websiteUrl: string;
  remotes: Array<{
    type: string;
    url: string;
    headers?: Array<Record<string, unknown>>;
    supportedProtocolVersions: string[];
  }>;
  _meta: Record<string, Record<string, unknown>>;
};

/** GETs a card, checks the draft's headers and its schema, returns it. */
async function getCard(url: string, init: RequestInit = {}): Promise<{ card: Card; res: Response }> {
  const res = await SELF.fetch(url, { ...init, headers: { accept: CARD_TYPE, ...init.headers } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe(CARD_TYPE);
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("access-control-expose-headers")).toBe("ETag");
  expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
  expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
  const card = (await res.json()) as Card;
  const result = validator.validate(card);
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
  return { card, res };
}

const cloudTool = tool("lookup", {
  description: "Looks a word up.",
  annotations: { readOnlyHint: true },
  pages: ["/lookup.html"],
  cloud: true,
});
let site: Awaited<ReturnType<typeof verifiedSite>>;
const cardUrl = (host: string) => `${BASE}/mcp/sites/${encodeURIComponent(host)}/server-card`;

beforeAll(async () => {
  site = await verifiedSite();
  const res = await publish(site.host, site.key, {
    name: "Card shop",
    description: "Words, looked up. ".repeat(10),
    tools: [cloudTool],
  });
  expect(res.status).toBe(201);
});

describe("the registry server's card", () => {
  it("names /mcp/registry, both protocol eras and the hub's catalog", async () => {
    const { card } = await getCard(`${BASE}/mcp/registry/server-card`);
    expect(card).toMatchObject({
      $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
      name: "test.hub/registry",
      version: "0.1.0",
      title: "webmcp-hub marketplace",
      websiteUrl: `${BASE}/`,
      remotes: [{ type: "streamable-http", url: `${BASE}/mcp/registry` }],
    });
    expect(card.remotes[0]!.supportedProtocolVersions).toEqual(
      expect.arrayContaining(["2025-11-25", "2026-07-28"]),
    );
    expect(card._meta["webmcp-hub/server"]).toMatchObject({
      kind: "registry",
      catalog: `${BASE}/.well-known/ai-catalog.json`,
    });
    const client = new Client({ name: "card-reader", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(card.remotes[0]!.url), { fetch: (u, i) => SELF.fetch(u, i) }),
    );
    expect(client.getServerVersion()).toMatchObject({
      name: card.name,
      version: card.version,
      title: card.title,
    });
    await client.close();
  });

  it("answers If-None-Match with 304 (strong or weak), and HEAD with the headers and no body", async () => {
    const { res } = await getCard(`${BASE}/mcp/registry/server-card`);
    const etag = res.headers.get("etag")!;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await SELF.fetch(`${BASE}/mcp/registry/server-card`, {
        headers: { "if-none-match": inm },
      });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(await again.text()).toBe("");
    }
    const changed = await SELF.fetch(`${BASE}/mcp/registry/server-card`, {
      headers: { "if-none-match": '"x"' },
    });
    expect(changed.status).toBe(200);
    const head = await SELF.fetch(`${BASE}/mcp/registry/server-card`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe(CARD_TYPE);
    expect(head.headers.get("etag")).toBe(etag);
    expect(await head.text()).toBe("");
  });

  it("answers a CORS preflight with the draft's methods and headers; other methods are not served", async () => {
    const pre = await SELF.fetch(`${BASE}/mcp/registry/server-card`, {
      method: "OPTIONS",
      headers: {
        origin: "https://client.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET");
    expect(pre.headers.get("access-control-allow-headers")).toBe("Content-Type,If-None-Match");
    await expectError(await api("/mcp/registry/server-card", { method: "POST", json: {} }), 404, "not_found");
  });
});

describe("a site's card", () => {
  it("describes its /mcp/sites/<host> server, and a client connects through its remote", async () => {
    const { card } = await getCard(cardUrl(site.host));
    const [hostname, port] = site.host.split(":");
    expect(card).toMatchObject({
      name: `${hostname!.split(".").reverse().join(".")}/webmcp-${port}`,
      version: "1",
      title: "Card shop",
      websiteUrl: site.origin,
      remotes: [{ type: "streamable-http", url: `${BASE}/mcp/sites/${encodeURIComponent(site.host)}` }],
    });
    expect([...card.description].length).toBeLessThanOrEqual(100);
    expect(card.description.startsWith("Words, looked up. Words")).toBe(true);
    expect(card.description.endsWith("…")).toBe(true);
    expect(card._meta["webmcp-hub/server"]).toMatchObject({
      kind: "site",
      site: site.host,
      origin: site.origin,
      manifestVersion: 1,
      cloudTools: 1,
    });

    const client = new Client({ name: "card-reader", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(card.remotes[0]!.url), { fetch: (u, i) => SELF.fetch(u, i) }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["lookup"]);
    // The server says what its card says (the draft: a card SHOULD match the connected server's serverInfo).
    expect(client.getServerVersion()).toMatchObject({ name: card.name, version: card.version });
    await client.close();
  });

  it("follows a republish: a new version, a new ETag", async () => {
    const before = await getCard(cardUrl(site.host));
    const other = await verifiedSite();
    await publish(other.host, other.key, { name: "Versions", tools: [cloudTool] });
    const first = await getCard(cardUrl(other.host));
    expect(first.card.version).toBe("1");
    await publish(other.host, other.key, { name: "Versions", tools: [cloudTool, tool("more")] });
    const second = await getCard(cardUrl(other.host));
    expect(second.card.version).toBe("2");
    expect(second.res.headers.get("etag")).not.toBe(first.res.headers.get("etag"));
    expect(before.res.headers.get("etag")).not.toBe(first.res.headers.get("etag"));
  });

  it("is 404 for an unknown host and for a site none of whose tools runs in the cloud, 410 when delisted", async () => {
    await expectError(await SELF.fetch(cardUrl("nowhere.example")), 404, "site_not_found");

    const plain = await verifiedSite();
    await publish(plain.host, plain.key, { tools: [tool("plain", { annotations: { readOnlyHint: true } })] });
    const notCloud = await SELF.fetch(cardUrl(plain.host));
    expect(notCloud.headers.get("access-control-allow-origin")).toBe("*");
    await expectError(notCloud, 404, "site_not_found");

    const gone = await verifiedSite();
    await publish(gone.host, gone.key, { tools: [cloudTool] });
    await getCard(cardUrl(gone.host));
    const delist = await api(`/api/sites/${gone.host}/delist`, {
      method: "POST",
      headers: { authorization: `Bearer ${gone.key}` },
    });
    expect(delist.status).toBe(200);
    await expectError(await SELF.fetch(cardUrl(gone.host)), 410, "site_delisted");
  });

  it("is 404 while the hub's cloud runs are off", async () => {
    const ctx = createExecutionContext();
    const res = await createApp().fetch(new Request(cardUrl(site.host)), { ...env, CLOUD_RUNS: "off" }, ctx);
    await waitOnExecutionContext(ctx);
    await expectError(res, 404, "site_not_found");
  });
});

describe("a channel's card", () => {
  it("needs OAuth, names its authorization server and metadata, and carries no secret or name", async () => {
    const secretName = "Zebra launch plans";
    const ch = await createChannel({ name: secretName });
    const { card, res } = await getCard(`${HUB}/mcp/${ch.id}/server-card`);
    const text = JSON.stringify(card);
    // Neither a secret nor the capability URL (`/mcp/<id>/k/<agent token>`) nor the channel's private name.
    for (const secret of [ch.agentToken, ch.ownerKey, ch.pairingCode, secretName, "/k/"])
      expect(text).not.toContain(secret);
    expect(card).toMatchObject({ name: "1.0.0.127/channel-8787", title: "webmcp-hub channel" });
    expect(card.remotes).toEqual([
      {
        type: "streamable-http",
        url: `${HUB}/mcp/${ch.id}`,
        headers: [
          expect.objectContaining({
            name: "Authorization",
            isRequired: true,
            isSecret: true,
            value: "Bearer {token}",
            variables: { token: expect.objectContaining({ isRequired: true, isSecret: true }) },
          }),
        ],
        supportedProtocolVersions: expect.arrayContaining(["2025-11-25", "2026-07-28"]),
      },
    ]);
    const meta = card._meta["webmcp-hub/server"]!;
    expect(meta).toEqual({
      kind: "channel",
      auth: "oauth",
      authorizationServer: HUB,
      protectedResourceMetadata: `${HUB}/.well-known/oauth-protected-resource/mcp/${ch.id}`,
    });
    // The metadata it names is served, for the card's remote.
    const prm = (await (await SELF.fetch(meta.protectedResourceMetadata as string)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(prm).toMatchObject({ resource: card.remotes[0]!.url, authorization_servers: [HUB] });
    // The endpoint it names does want a bearer token.
    const unauth = await SELF.fetch(card.remotes[0]!.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("www-authenticate")).toContain(meta.protectedResourceMetadata as string);
    expect(res.headers.get("etag")).toBeTruthy();
  });

  it("is the same card for an id no channel has, so it tells no one which ids exist", async () => {
    const ch = await createChannel({ name: "real" });
    const real = await getCard(`${HUB}/mcp/${ch.id}/server-card`);
    const unknownId = "A".repeat(ch.id.length);
    const unknown = await getCard(`${HUB}/mcp/${unknownId}/server-card`);
    expect(JSON.stringify(unknown.card).replaceAll(unknownId, ch.id)).toBe(JSON.stringify(real.card));
  });

  it("is 404 for a path that cannot be a channel id", async () => {
    await expectError(await SELF.fetch(`${HUB}/mcp/bad.id/server-card`), 404, "not_found");
  });
});
