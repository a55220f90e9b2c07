// Definition digests in the registry (registry/digests.ts): a published tool's digest is definitionDigest of the
// tool as stored (defaults applied, string hints as booleans), and the REST views, the tool and site pages, the
// exports and /mcp/registry all show that same digest; versions keep their own; older rows are backfilled.
import { SELF, env } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { definitionDigest } from "../../src/protocol/digest.js";
import { database } from "../../src/worker/db/client.js";
import { settingsOf } from "../../src/worker/env.js";
import { closeChannelRelay, runMaintenance } from "../../src/worker/maintenance.js";
import { backfillDigests } from "../../src/worker/registry/digests.js";
import { api, BASE, expectError, publish, tool, verifiedSite } from "./helpers.js";

const HEX = /^[0-9a-f]{64}$/;

/** A tool whose stored form differs from what was sent: no inputSchema, string hints, a title only in annotations. */
const plain = {
  name: "list-stamps",
  description: "Lists the stamps in stock.",
  annotations: { readOnlyHint: "true", title: "Stamps" },
  pages: ["/stamps"],
};
/** The same tool as stored: what the digest covers. */
const plainStored = {
  name: "list-stamps",
  description: "Lists the stamps in stock.",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true, title: "Stamps" },
};
const buy = tool("buy-stamp", {
  title: "Buy a stamp",
  outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  annotations: { destructiveHint: false },
});

async function json(path: string): Promise<any> {
  const res = await api(path);
  expect(res.status, path).toBe(200);
  return res.json();
}

/** name → digest in the current tools rows. */
async function rowDigests(host: string): Promise<Record<string, string | null>> {
  const { results } = await env.DB.prepare("SELECT name, digest FROM tools WHERE host = ? ORDER BY name")
    .bind(host)
    .all<{ name: string; digest: string | null }>();
  return Object.fromEntries(results.map((r) => [r.name, r.digest]));
}

async function registryClient(): Promise<Client> {
  const client = new Client({ name: "digests-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
      fetch: (url, init) => SELF.fetch(url, init),
    }),
  );
  return client;
}

describe("definition digests", () => {
  it("are stored at publish and shown the same by the API, the pages, the exports and /mcp/registry", async () => {
    const { host, key } = await verifiedSite();
    expect((await publish(host, key, { name: "Stamps", tools: [plain, buy] })).status).toBe(201);
    const expected = {
      "list-stamps": await definitionDigest(plainStored),
      "buy-stamp": await definitionDigest({ ...buy, annotations: { destructiveHint: false } }),
    };
    expect(expected["list-stamps"]).toMatch(HEX);
    expect(await rowDigests(host)).toEqual(expected);

    // The version answers its digests, and they are the stored manifest's tools' digests.
    const version = await json(`/api/sites/${host}/manifest`);
    expect(version.digests).toEqual(expected);
    for (const t of version.manifest.tools)
      expect(await definitionDigest(t)).toBe(expected[t.name as "buy-stamp"]);

    // REST views.
    const search = await json(`/api/tools?site=${host}&limit=10`);
    expect(Object.fromEntries(search.tools.map((t: any) => [t.name, t.digest]))).toEqual(expected);
    const found = await json(`/api/tools?q=stamps&site=${host}&limit=10`);
    expect(found.tools.find((t: any) => t.name === "list-stamps").digest).toBe(expected["list-stamps"]);
    const site = await json(`/api/sites/${host}`);
    expect(Object.fromEntries(site.manifest.tools.map((t: any) => [t.name, t.digest]))).toEqual(expected);

    // Exports: MCP carries _meta on each tool; every format has the digests envelope and keeps its shape.
    const mcp = await json(`/api/sites/${host}/tools?format=mcp`);
    expect(mcp.digests).toEqual(expected);
    for (const t of mcp.tools)
      expect(t._meta).toEqual({ "webmcp-hub/digest": expected[t.name as "buy-stamp"] });
    const openai = await json(`/api/sites/${host}/tools?format=openai`);
    expect(openai.digests).toEqual(expected);
    for (const t of openai.tools)
      expect(Object.keys(t).sort()).toEqual(["description", "name", "parameters", "strict", "type"]);
    const anthropic = await json(`/api/sites/${host}/tools?format=anthropic`);
    expect(anthropic.digests).toEqual(expected);
    for (const t of anthropic.tools)
      expect(Object.keys(t).sort()).toEqual(["description", "input_schema", "name"]);
    const gemini = await json(`/api/sites/${host}/tools?format=gemini`);
    expect(gemini.digests).toEqual(expected);
    for (const d of gemini.tools[0].functionDeclarations)
      expect(Object.keys(d).sort()).toEqual(["description", "name", "parameters"]);

    // Pages: the tool page shows its digest as a copyable value; the site page lists every tool's.
    const toolPage = await (await api(`/sites/${host}/tools/list-stamps`)).text();
    expect(toolPage).toContain("Definition digest");
    expect(toolPage).toMatch(
      new RegExp(`<code id="definition-digest"[^>]*>${expected["list-stamps"]}</code>`),
    );
    expect(toolPage).toContain(`&quot;webmcp-hub/digest&quot;: &quot;${expected["list-stamps"]}&quot;`);
    const sitePage = await (await api(`/sites/${host}`)).text();
    expect(sitePage).toContain("Definition digests");
    expect(sitePage).toContain(expected["list-stamps"]);
    expect(sitePage).toContain(expected["buy-stamp"]);

    // /mcp/registry: search_tools entries and get_site's definitions carry _meta["webmcp-hub/digest"].
    const client = await registryClient();
    const searched = (await client.callTool({ name: "search_tools", arguments: { site: host } }))
      .structuredContent as any;
    for (const t of searched.tools)
      expect(t._meta["webmcp-hub/digest"]).toBe(expected[t.name as "buy-stamp"]);
    const got = (await client.callTool({ name: "get_site", arguments: { host } })).structuredContent as any;
    expect(got.digests).toEqual(expected);
    for (const t of got.tools) expect(t._meta["webmcp-hub/digest"]).toBe(expected[t.name as "buy-stamp"]);
    const gotOpenai = (await client.callTool({ name: "get_site", arguments: { host, format: "openai" } }))
      .structuredContent as any;
    expect(gotOpenai.digests).toEqual(expected);
    await client.close();
  });

  it("keep an unchanged tool's digest, change with every covered member, and stay with their version", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [plain, buy] });
    const v1 = await rowDigests(host);

    // Only buy-stamp changes: list-stamps keeps its digest in version 2; version 1 keeps both of its own.
    const buy2 = { ...buy, description: "Buys one stamp." };
    expect((await publish(host, key, { tools: [plain, buy2] })).status).toBe(201);
    const v2 = await rowDigests(host);
    expect(v2["list-stamps"]).toBe(v1["list-stamps"]);
    expect(v2["buy-stamp"]).not.toBe(v1["buy-stamp"]);
    expect(v2["buy-stamp"]).toBe(
      await definitionDigest({ ...buy2, annotations: { destructiveHint: false } }),
    );
    expect((await json(`/api/sites/${host}/manifest?version=1`)).digests).toEqual(v1);
    expect((await json(`/api/sites/${host}/manifest?version=2`)).digests).toEqual(v2);

    // Each covered member changes the digest; `pages` (not covered) does not.
    const variants: Array<[string, Record<string, unknown>]> = [
      ["title", { ...plain, title: "All stamps" }],
      ["description", { ...plain, description: "Lists every stamp in stock." }],
      ["inputSchema", { ...plain, inputSchema: { type: "object", properties: { q: { type: "string" } } } }],
      ["outputSchema", { ...plain, outputSchema: { type: "object" } }],
      ["annotations", { ...plain, annotations: { readOnlyHint: "false", title: "Stamps" } }],
    ];
    const seen = new Set([v1["list-stamps"]]);
    for (const [member, variant] of variants) {
      expect((await publish(host, key, { tools: [variant, buy2] })).status, member).toBe(201);
      const digest = (await rowDigests(host))["list-stamps"];
      expect(seen.has(digest ?? null), member).toBe(false);
      seen.add(digest ?? null);
    }
    await publish(host, key, { tools: [{ ...plain, pages: ["/elsewhere"] }, buy2] });
    expect((await rowDigests(host))["list-stamps"]).toBe(v1["list-stamps"]);

    // A renamed tool is a new row with its own digest; the old name is gone from the current tools.
    await publish(host, key, { tools: [{ ...plain, name: "stamp-list" }, buy2] });
    const renamed = await rowDigests(host);
    expect(Object.keys(renamed).sort()).toEqual(["buy-stamp", "stamp-list"]);
    expect(renamed["stamp-list"]).toBe(await definitionDigest({ ...plainStored, name: "stamp-list" }));
    expect(renamed["stamp-list"]).not.toBe(v1["list-stamps"]);

    // Every version still answers its own digests, recomputed from what it stored.
    const { versions } = await json(`/api/sites/${host}/manifest/versions`);
    for (const v of versions) {
      const got = await json(`/api/sites/${host}/manifest?version=${v.version}`);
      for (const t of got.manifest.tools) expect(got.digests[t.name]).toBe(await definitionDigest(t));
    }
    expect((await json(`/api/sites/${host}/manifest?version=1`)).digests).toEqual(v1);
  });

  it("refuses two tools of one name in one manifest (a name cannot have two digests in a version)", async () => {
    const { host, key } = await verifiedSite();
    const res = await publish(host, key, {
      tools: [plain, { ...plain, description: "Another definition." }],
    });
    await expectError(res, 422, "duplicate_tool_name");
    expect(await rowDigests(host)).toEqual({});
  });

  it("backfills rows published before digests, a bounded number per run, from their own version", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [plain, buy, tool("third")] });
    const want = await rowDigests(host);
    await env.DB.prepare("UPDATE tools SET digest = NULL").run();

    const before = await json(`/api/tools?site=${host}&limit=10`);
    expect(before.tools.map((t: any) => t.digest)).toEqual([null, null, null]);
    const mcp = await json(`/api/sites/${host}/tools?format=mcp`);
    expect(mcp.digests).toEqual({});
    expect(mcp.tools.every((t: any) => t._meta === undefined)).toBe(true);

    const db = database(env.DB);
    let filled = 0;
    for (let run = 0; run < 10_000; run++) {
      const n = await backfillDigests(db, 2);
      expect(n).toBeLessThanOrEqual(2);
      if (n === 0) break;
      filled += n;
    }
    expect(filled).toBeGreaterThanOrEqual(3);
    expect(await rowDigests(host)).toEqual(want);
    expect(await backfillDigests(db, 2)).toBe(0);
    const after = await json(`/api/tools?site=${host}&limit=10`);
    expect(Object.fromEntries(after.tools.map((t: any) => [t.name, t.digest]))).toEqual(want);
  });

  it("are stored by a refresh from the site too, and backfilled by the daily maintenance", async () => {
    const { host, key, origin_ } = await verifiedSite();
    await origin_.setRoutes({
      "/.well-known/webmcp.json": {
        body: JSON.stringify({ tools: [plain, buy] }),
        headers: { "content-type": "application/json" },
      },
    });
    const refreshed = await api(`/api/sites/${host}/manifest/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refreshed.status).toBe(201);
    const want = await rowDigests(host);
    expect(want["list-stamps"]).toBe(await definitionDigest(plainStored));
    expect((await json(`/api/sites/${host}/manifest`)).digests).toEqual(want);
    await env.DB.prepare("UPDATE tools SET digest = NULL WHERE host = ?").bind(host).run();
    const report = await runMaintenance(
      database(env.DB),
      Date.now(),
      settingsOf(env),
      closeChannelRelay(env),
    );
    expect(report.digests).toBeGreaterThanOrEqual(2);
    expect(await rowDigests(host)).toEqual(want);
  });
});
