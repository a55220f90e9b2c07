// /mcp/sites/<host> and Try it (POST /api/sites/:host/tools/:name/try) as the Worker serves them: both MCP
// eras list a site's cloud tools under their own names, unknown sites and tools, bad arguments, the rate
// limits per client and per site, and CLOUD_RUNS=off. The Worker pool runs no cloud runner (vitest.config.ts:
// the CLOUD binding answers that cloud runs are not available), so a call that passes the hub's checks ends
// in that refusal here; the runs themselves are covered end to end (test/e2e/cloud.test.ts).
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/worker/app.js";
import {
  api,
  BASE,
  expectError,
  publish,
  tool,
  verifiedSite,
  lookupCloudTool,
  plainReadOnlyTool,
} from "./helpers.js";

const MODERN = "2026-07-28";
const deployed = JSON.parse(env.DEPLOYED_RATE_LIMITS) as Record<string, { limit: number; period: 10 | 60 }>;

let site: { host: string; origin: string; key: string };
const path = () => `/mcp/sites/${encodeURIComponent(site.host)}`;

const lookup = lookupCloudTool;
const plain = plainReadOnlyTool;
const write = tool("write", { pages: ["/"] });

beforeAll(async () => {
  site = await verifiedSite();
  const res = await publish(site.host, site.key, { name: "Cloud shop", tools: [lookup, plain, write] });
  expect(res.status).toBe(201);
});

async function connect(era: "legacy" | "modern", url = `${BASE}${path()}`): Promise<Client> {
  const client = new Client(
    { name: "cloud-test", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { fetch: (u, i) => SELF.fetch(u, i) }),
  );
  return client;
}

let clients = 0;
/** A fresh client address, so tests (and reruns in one window) never share a counter. */
const freshIp = () => `198.51.${100 + Math.floor(Math.random() * 100)}.${clients++ % 250}`;

/** Runs `burst` inside one fixed window of `period` seconds (the binding's): again, with fresh keys, if not. */
async function inOneWindow<T>(period: number, burst: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = Math.floor(Date.now() / (period * 1000));
    const out = await burst();
    if (Math.floor(Date.now() / (period * 1000)) === before) return out;
  }
  throw new Error("three bursts in a row straddled a window boundary");
}

const textOf = (r: { content?: unknown }) =>
  ((r.content as Array<{ text?: string }>)[0]?.text ?? "") as string;

describe("/mcp/sites/<host>", () => {
  for (const era of ["legacy", "modern"] as const) {
    it(`lists only the site's cloud tools, under their own names, provider cloud (${era})`, async () => {
      const client = await connect(era);
      if (era === "modern") expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["lookup"]);
      expect(tools[0]).toMatchObject({
        title: "Look up",
        description: "Looks a word up.",
        inputSchema: lookup.inputSchema,
        annotations: { readOnlyHint: true },
      });
      expect(tools[0]!._meta?.["webmcp-hub/provider"]).toEqual({
        kind: "cloud",
        origin: site.origin,
        site: site.host,
      });
      expect(tools[0]!._meta?.["webmcp-hub/digest"]).toMatch(/^[0-9a-f]{64}$/);
      await client.close();
    });

    it(`answers an unknown tool with -32602, and a tool that is not cloud with an isError saying so (${era})`, async () => {
      const client = await connect(era);
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("Its tools that run in the cloud: lookup."),
      });
      const notCloud = await client.callTool({ name: "plain", arguments: { text: "x" } });
      expect(notCloud.isError).toBe(true);
      expect(textOf(notCloud)).toContain('its manifest does not say "cloud": true');
      await client.close();
    });

    it(`refuses bad arguments with an isError naming the field, before any run (${era})`, async () => {
      const client = await connect(era);
      const bad = await client.callTool({ name: "lookup", arguments: { word: 5 } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^Invalid arguments for lookup: \/word: .*nothing was run\.$/);
      await client.close();
    });

    it(`ends a valid call with an isError saying cloud runs are not available when no runner answers (${era})`, async () => {
      const client = await connect(era);
      const result = await client.callTool({ name: "lookup", arguments: { word: "hi" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(
        `lookup of ${site.host} did not run in the hub's cloud browser (disabled)`,
      );
      expect(textOf(result)).toContain("Cloud runs are not available");
      await client.close();
    });
  }

  // A tools/call reads the site with the tool (one D1 query), a tools/list the site alone: both answer alike.
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const call = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "lookup", arguments: { q: "x" } },
  };

  it("answers an unknown site with 404 and a delisted one with 410", async () => {
    for (const json of [list, call])
      await expectError(
        await api("/mcp/sites/nowhere.example", {
          method: "POST",
          headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
          json,
        }),
        404,
        "site_not_found",
      );
    const gone = await verifiedSite();
    await publish(gone.host, gone.key, { tools: [lookup] });
    const delisted = await api(`/api/sites/${gone.host}/delist`, {
      method: "POST",
      headers: { authorization: `Bearer ${gone.key}` },
    });
    expect(delisted.status).toBe(200);
    for (const json of [list, call])
      await expectError(
        await api(`/mcp/sites/${encodeURIComponent(gone.host)}`, {
          method: "POST",
          headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
          json,
        }),
        410,
        "site_delisted",
      );
  });

  it("stops listing a tool at once when the site republishes it without the flag", async () => {
    const s = await verifiedSite();
    await publish(s.host, s.key, { tools: [lookup] });
    const client = await connect("modern", `${BASE}/mcp/sites/${encodeURIComponent(s.host)}`);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["lookup"]);
    const { cloud: _cloud, ...withoutFlag } = lookup as typeof lookup & { cloud?: boolean };
    expect((await publish(s.host, s.key, { tools: [withoutFlag] })).status).toBe(201);
    // A new client: a 2026 client keeps a list for its cache hint (ttlMs), the call below is checked anew.
    const fresh = await connect("modern", `${BASE}/mcp/sites/${encodeURIComponent(s.host)}`);
    expect((await fresh.listTools()).tools).toEqual([]);
    await fresh.close();
    const call = await client.callTool({ name: "lookup", arguments: { word: "a" } });
    expect(textOf(call)).toContain('its manifest does not say "cloud": true');
    await client.close();
  });

  it("lists nothing once the site's owner turns cloud runs off, says why, and lists again once on", async () => {
    const s = await verifiedSite();
    await publish(s.host, s.key, { tools: [lookup] });
    const sw = (enabled: boolean) =>
      api(`/api/sites/${encodeURIComponent(s.host)}/cloud`, {
        method: "PUT",
        json: { enabled },
        headers: { authorization: `Bearer ${s.key}` },
      });
    expect((await sw(false)).status).toBe(200);
    const client = await connect("legacy", `${BASE}/mcp/sites/${encodeURIComponent(s.host)}`);
    expect(client.getInstructions()).toContain(
      `The owner of ${s.host} has turned cloud runs off for the site.`,
    );
    expect((await client.listTools()).tools).toEqual([]);
    const call = await client.callTool({ name: "lookup", arguments: { word: "a" } });
    expect(call.isError).toBe(true);
    expect(textOf(call)).toBe(
      `lookup did not run: The owner of ${s.host} has turned cloud runs off for the site.`,
    );
    await client.close();
    expect((await sw(true)).status).toBe(200);
    const again = await connect("legacy", `${BASE}/mcp/sites/${encodeURIComponent(s.host)}`);
    expect((await again.listTools()).tools.map((t) => t.name)).toEqual(["lookup"]);
    await again.close();
  });

  it("refuses a client past CLOUD_CALLS with 429 and Retry-After", async () => {
    const limit = deployed.CLOUD_CALLS!;
    const { statuses, last } = await inOneWindow(limit.period, async () => {
      const ip = freshIp();
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i <= limit.limit; i++) {
        last = await api(path(), {
          method: "POST",
          headers: {
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            "cf-connecting-ip": ip,
          },
          json: { jsonrpc: "2.0", id: i, method: "tools/list" },
        });
        statuses.push(last.status);
        if (i < limit.limit) await last.body?.cancel();
      }
      return { statuses, last: last! };
    });
    expect(statuses.slice(0, limit.limit).every((s) => s === 200)).toBe(true);
    const err = await expectError(last, 429, "rate_limited");
    expect(err.message).toContain("requests to sites' cloud MCP endpoints from your address");
    expect(last.headers.get("retry-after")).toBe(String(limit.period));
  });
});

describe("Try it", () => {
  const tryIt = (name: string, args: unknown, host = site.host) =>
    api(`/api/sites/${encodeURIComponent(host)}/tools/${encodeURIComponent(name)}/try`, {
      method: "POST",
      json: { arguments: args },
    });

  it("answers like a plain call: a refused run, invalid arguments, a tool that is not cloud", async () => {
    const ran = await tryIt("lookup", { word: "hi" });
    expect(ran.status).toBe(200);
    const body = (await ran.json()) as { name: string; status: string; result: { isError?: boolean } };
    expect(body).toMatchObject({ name: "lookup", status: "denied", result: { isError: true } });
    const invalid = (await (await tryIt("lookup", {})).json()) as { status: string };
    expect(invalid.status).toBe("invalid");
    const plainTry = (await (await tryIt("plain", { text: "x" })).json()) as {
      status: string;
      result: { content: Array<{ text: string }> };
    };
    expect(plainTry.status).toBe("denied");
    expect(plainTry.result.content[0]!.text).toContain('its manifest does not say "cloud": true');
  });

  it("refuses a client's Try it runs past CLOUD_CALLS with 429", async () => {
    const limit = deployed.CLOUD_CALLS!;
    const { statuses, last } = await inOneWindow(limit.period, async () => {
      const ip = freshIp();
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i <= limit.limit; i++) {
        // Invalid arguments: refused before a run, so the site's own limit is not what answers.
        last = await api(`/api/sites/${encodeURIComponent(site.host)}/tools/lookup/try`, {
          method: "POST",
          json: { arguments: {} },
          headers: { "cf-connecting-ip": ip },
        });
        statuses.push(last.status);
        if (i < limit.limit) await last.body?.cancel();
      }
      return { statuses, last: last! };
    });
    expect(statuses.slice(0, limit.limit).every((s) => s === 200)).toBe(true);
    const err = await expectError(last, 429, "rate_limited");
    expect(err.message).toContain("Try it runs from your address");
  });

  it("refuses runs of one site past CLOUD_SITE_CALLS, whoever asks, with a status saying so", async () => {
    const limit = deployed.CLOUD_SITE_CALLS!;
    const { host, answers } = await inOneWindow(limit.period, async () => {
      const busy = await verifiedSite();
      await publish(busy.host, busy.key, { tools: [lookup] });
      const answers: Array<{ status: string; result: { content: Array<{ text: string }> } }> = [];
      for (let i = 0; i <= limit.limit; i++)
        answers.push(
          (await (await tryIt("lookup", { word: `w${i}` }, busy.host)).json()) as (typeof answers)[0],
        );
      return { host: busy.host, answers };
    });
    const tooMany = (a: (typeof answers)[0]) => a.result.content[0]!.text.includes("Too many cloud runs");
    expect(answers.slice(0, limit.limit).some(tooMany)).toBe(false);
    const last = answers[limit.limit]!;
    expect(last.status).toBe("denied");
    expect(last.result.content[0]!.text).toBe(
      `lookup did not run: Too many cloud runs of ${host}'s tools from everyone. Wait ${limit.period} seconds and try again.`,
    );
  });

  it("answers 404 for a tool the site does not publish or a site that is not listed", async () => {
    await expectError(await tryIt("nope", {}), 404, "not_found");
    await expectError(await tryIt("lookup", {}, "nowhere.example"), 404, "site_not_found");
  });
});

describe("CLOUD_RUNS=off", () => {
  const off = { ...env, CLOUD_RUNS: "off" } as unknown as Env;
  const app = createApp();
  const fetchOff = async (url: string, init?: RequestInit) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(url, init), off, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };

  it("lists nothing, says why in the instructions, and answers a call with an isError", async () => {
    const client = new Client({ name: "off", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}${path()}`), {
        fetch: (u, i) => fetchOff(String(u), i),
      }),
    );
    expect(client.getInstructions()).toContain("switched off on this hub");
    expect((await client.listTools()).tools).toEqual([]);
    const call = await client.callTool({ name: "lookup", arguments: { word: "hi" } });
    expect(call.isError).toBe(true);
    expect(textOf(call)).toBe("lookup did not run: Cloud runs are switched off on this hub by its operator.");
    await client.close();
  });

  it("makes Try it say so", async () => {
    const res = await fetchOff(`${BASE}/api/sites/${encodeURIComponent(site.host)}/tools/lookup/try`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: { word: "hi" } }),
    });
    const body = (await res.json()) as { status: string; result: { content: Array<{ text: string }> } };
    expect(body.status).toBe("denied");
    expect(body.result.content[0]!.text).toContain("switched off on this hub");
  });
});
