// Public usage signals (registry/public-usage.ts) from rollup rows written straight into D1 (the tables are the
// contract): shown on /api/tools, search_tools and the tool and site pages only past PUBLIC_USAGE_MIN_CHANNELS
// distinct channels over the last 30 days, and used by search as one signal beside relevance.
import { env, SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { api, BASE, publish, tool, verifiedSite } from "./helpers.js";

const DAY = 86_400_000;
const day = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);
const hash = (n: number) => n.toString(16).padStart(4, "0").repeat(16);

/** Calls of host/tool on the day `ago` days back, by `channels` distinct channels (numbered from `first`). */
async function rollup(host: string, name: string, ago: number, calls: number, channels: number, first = 0) {
  await env.DB.prepare(
    "INSERT INTO tool_usage_daily (host, tool, day, calls, ok) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET calls = calls + excluded.calls, ok = ok + excluded.ok",
  )
    .bind(host, name, day(ago), calls, calls)
    .run();
  for (let i = 0; i < channels; i++)
    await env.DB.prepare("INSERT OR IGNORE INTO tool_usage_channels VALUES (?, ?, ?, ?)")
      .bind(host, name, day(ago), hash(first + i))
      .run();
}

type Usage = { calls30d: number; channels30d: number } | null;
type Page = { tools: Array<{ site: string; name: string; usage: Usage }> };
const search = async (q: string) => (await (await api(`/api/tools?q=${q}`)).json()) as Page;
const html = async (path: string) => (await SELF.fetch(`${BASE}${path}`)).text();

let few: string; // 4 channels
let many: string; // 5 channels

beforeAll(async () => {
  const a = await verifiedSite();
  few = a.host;
  await publish(few, a.key, {
    tools: [tool("quokka-few", { description: "Counts the marsupials in a quokkaland photo." })],
  });
  // Two channels on each of two days, the same two twice: 2 distinct, then 2 more on another tool's day.
  await rollup(few, "quokka-few", 1, 30, 2);
  await rollup(few, "quokka-few", 2, 10, 4);

  const b = await verifiedSite();
  many = b.host;
  // Equally relevant for "wombatland": the used one is published second (a later id, so last among equals).
  await publish(many, b.key, {
    tools: [
      tool("wombat-alpha", { description: "Finds wombats in a wombatland photo." }),
      tool("wombat-bravo", { description: "Finds wombats in a wombatland photo." }),
    ],
  });
  await rollup(many, "wombat-bravo", 0, 40, 3);
  await rollup(many, "wombat-bravo", 5, 60, 3, 2); // channels 2..4: 5 distinct over the window
  await rollup(many, "wombat-bravo", 31, 1000, 9, 100); // older than 30 days: not counted
});

describe("public usage", () => {
  it("shows nothing below the channel threshold (4 channels), on the API, the tool page and the site page", async () => {
    const page = await search("quokkaland");
    expect(page.tools).toEqual([expect.objectContaining({ name: "quokka-few", usage: null })]);
    expect(await html(`/sites/${few}/tools/quokka-few`)).not.toContain("calls from");
    expect(await html(`/sites/${few}`)).not.toContain("calls from");
  });

  it("shows the 30 days' calls and distinct channels at 5 channels", async () => {
    const page = await search("wombatland");
    const bravo = page.tools.find((t) => t.name === "wombat-bravo");
    expect(bravo?.usage).toEqual({ calls30d: 100, channels30d: 5 });
    expect(await html(`/sites/${many}/tools/wombat-bravo`)).toContain(
      "100 calls from 5 channels in the last 30 days",
    );
    expect(await html(`/sites/${many}`)).toContain("100 calls from 5 channels in the last 30 days");
  });

  it("ranks the used one of two equally relevant tools first, and still finds the unused one by its words", async () => {
    const page = await search("wombatland");
    expect(page.tools.map((t) => t.name)).toEqual(["wombat-bravo", "wombat-alpha"]);
    expect(page.tools[1]!.usage).toBeNull();
    const several = (await (await api(`/api/tools?q=wombats%20wombatland`)).json()) as Page;
    expect(several.tools.map((t) => t.name)).toEqual(["wombat-bravo", "wombat-alpha"]);
    const alone = await search("wombat-alpha");
    expect(alone.tools[0]).toMatchObject({ name: "wombat-alpha", usage: null });
  });

  it("search_tools carries the same usage, in its structured result and its text", async () => {
    const client = new Client({ name: "usage-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
        fetch: (input, init) => SELF.fetch(new Request(input as RequestInfo, init)),
      }),
    );
    const result = await client.callTool({ name: "search_tools", arguments: { query: "wombatland" } });
    const tools = (result.structuredContent as Page).tools;
    expect(tools.map((t) => [t.name, t.usage])).toEqual([
      ["wombat-bravo", { calls30d: 100, channels30d: 5 }],
      ["wombat-alpha", null],
    ]);
    expect(JSON.stringify(result.content)).toContain("100 calls from 5 channels in 30 days");
    await client.close();
  });
});
