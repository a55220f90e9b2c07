// /mcp/registry's propose_tools ("an agent may propose; the user confirms in the dashboard"): listed
// in both protocol eras with its schemas, it runs the REST add's checks and answers the dashboard link (chosen
// tools, all, a channel carried) with each tool's published digest; an unknown host, a site not verified (or
// no longer), a delisted one and names the manifest does not publish are tool errors naming the problem; and
// a proposal stores nothing.
import { env, SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { api, BASE, fakeOrigin, publish, register, tool, verifiedSite } from "./helpers.js";

interface Proposal {
  url: string;
  site: string;
  tools: Array<{ name: string; title: string | null; readOnly: boolean; digest: string }>;
}

let site: Awaited<ReturnType<typeof verifiedSite>>;
/** name → digest, as get_site answers them (the `tools.digest` column publishing wrote). */
let digests: Record<string, string>;

async function connect(pin?: "2026-07-28"): Promise<Client> {
  const client = new Client(
    { name: "propose-test", version: "1.0.0" },
    pin ? { versionNegotiation: { mode: { pin } } } : undefined,
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
      fetch: (url, init) => SELF.fetch(url, init),
    }),
  );
  return client;
}

async function propose(args: Record<string, unknown>, client?: Client) {
  const c = client ?? (await connect());
  const result = await c.callTool({ name: "propose_tools", arguments: args });
  if (!client) await c.close();
  return {
    isError: result.isError === true,
    text: (result.content as Array<{ text: string }>)[0]!.text,
    structured: result.structuredContent as Proposal | undefined,
  };
}

async function channelToolRows(): Promise<number> {
  return (await env.DB.prepare(`SELECT COUNT(*) AS n FROM channel_tools`).first<number>("n")) ?? 0;
}

beforeAll(async () => {
  site = await verifiedSite();
  const res = await publish(site.host, site.key, {
    tools: [
      tool("greet", { title: "Say hello", pages: ["/hello"] }),
      tool("sum", { annotations: { readOnlyHint: true } }),
      tool("shop.v2_list-all"),
    ],
  });
  expect(res.status).toBe(201);
  const client = await connect();
  const got = await client.callTool({ name: "get_site", arguments: { site: site.host } });
  digests = (got.structuredContent as { digests: Record<string, string> }).digests;
  expect(Object.keys(digests).sort()).toEqual(["greet", "shop.v2_list-all", "sum"]);
  await client.close();
});

describe("propose_tools on /mcp/registry", () => {
  it("is listed in the 2025 era with its input and output schemas, read-only and closed-world", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "get_site", "propose_tools"]);
    const propose = tools.find((t) => t.name === "propose_tools")!;
    expect(propose.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(propose.inputSchema).toMatchObject({
      type: "object",
      required: ["site"],
      properties: { site: { type: "string" }, tools: { type: "array" }, channel: { type: "string" } },
    });
    expect(propose.outputSchema).toMatchObject({
      type: "object",
      required: ["url", "site", "tools"],
      properties: { url: { type: "string" }, tools: { type: "array" } },
    });
    await client.close();
  });

  it("is listed in the 2026-07-28 era with the same definition", async () => {
    const res = await api("/mcp/registry", {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      json: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
    });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { tools: Array<Record<string, unknown>> } };
    const legacy = await connect();
    const listed = (await legacy.listTools()).tools.find((t) => t.name === "propose_tools");
    await legacy.close();
    expect(result.tools.find((t) => t.name === "propose_tools")).toEqual(listed);
  });

  it("proposes chosen tools: the exact confirm link and each tool's published definition digest", async () => {
    const before = await channelToolRows();
    const { isError, text, structured } = await propose({ site: site.host, tools: ["sum", "greet", "sum"] });
    expect(isError).toBe(false);
    const url = `${BASE}/sites/${encodeURIComponent(site.host)}/add?tool=sum&tool=greet`;
    expect(structured).toEqual({
      url,
      site: site.host,
      tools: [
        { name: "sum", title: null, readOnly: true, digest: digests.sum },
        { name: "greet", title: "Say hello", readOnly: false, digest: digests.greet },
      ],
    });
    expect(text).toContain(
      "Nothing was added yet: ask the user to open this link, sign in if needed, choose the channel and confirm.",
    );
    expect(text).toContain(url);
    expect(await channelToolRows()).toBe(before);
  });

  it("proposes every tool with no tool parameters, and carries the channel", async () => {
    const all = await propose({ site: site.host.toUpperCase() });
    expect(all.isError).toBe(false);
    expect(all.structured!.url).toBe(`${BASE}/sites/${encodeURIComponent(site.host)}/add`);
    expect(all.structured!.site).toBe(site.host);
    expect(all.structured!.tools.map((t) => [t.name, t.digest])).toEqual([
      ["greet", digests.greet],
      ["sum", digests.sum],
      ["shop.v2_list-all", digests["shop.v2_list-all"]],
    ]);

    const withChannel = await propose({ site: site.host, channel: "Ab3_x-9" });
    expect(withChannel.structured!.url).toBe(
      `${BASE}/sites/${encodeURIComponent(site.host)}/add?channel=Ab3_x-9`,
    );
    expect(withChannel.text).toContain("channel Ab3_x-9");

    const chosen = await propose({ site: site.host, tools: ["shop.v2_list-all"], channel: "c1" });
    expect(chosen.structured!.url).toBe(
      `${BASE}/sites/${encodeURIComponent(site.host)}/add?tool=shop.v2_list-all&channel=c1`,
    );
    // The page reads them back as they were sent.
    const back = new URL(chosen.structured!.url);
    expect(back.searchParams.getAll("tool")).toEqual(["shop.v2_list-all"]);
    expect(back.searchParams.get("channel")).toBe("c1");
  });

  it("answers in the 2026-07-28 era too", async () => {
    const client = await connect("2026-07-28");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const { isError, structured } = await propose({ site: site.host, tools: ["greet"] }, client);
    expect(isError).toBe(false);
    expect(structured!.url).toBe(`${BASE}/sites/${encodeURIComponent(site.host)}/add?tool=greet`);
    await client.close();
  });

  it("refuses names the current manifest does not publish, naming them", async () => {
    const res = await propose({ site: site.host, tools: ["greet", "nope", "gone"] });
    expect(res.isError).toBe(true);
    expect(res.structured).toBeUndefined();
    expect(res.text).toContain("does not publish nope, gone");
    expect(res.text).toContain("It publishes: greet, sum, shop.v2_list-all");
  });

  it("refuses an unknown host, a site never verified, one no longer verified and a delisted one", async () => {
    const before = await channelToolRows();
    const unknown = await propose({ site: "nobody.example" });
    expect(unknown).toMatchObject({ isError: true, text: "No site nobody.example is registered." });

    const o = await fakeOrigin();
    const pending = await register(o.origin);
    const never = await propose({ site: pending.site.host });
    expect(never.isError).toBe(true);
    expect(never.text).toContain(`${pending.site.host} is not verified`);

    const other = await verifiedSite();
    expect((await publish(other.host, other.key, { tools: [tool("greet")] })).status).toBe(201);
    await env.DB.prepare(`UPDATE sites SET status = 'unverified' WHERE host = ?`).bind(other.host).run();
    const lapsed = await propose({ site: other.host, tools: ["greet"] });
    expect(lapsed.isError).toBe(true);
    expect(lapsed.text).toContain(`${other.host} is not verified (its re-verification failed)`);

    await env.DB.prepare(`UPDATE sites SET status = 'verified' WHERE host = ?`).bind(other.host).run();
    expect((await propose({ site: other.host })).isError).toBe(false);
    const delist = await api(`/api/sites/${other.host}/delist`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.key}` },
    });
    expect(delist.status).toBe(200);
    const delisted = await propose({ site: other.host });
    expect(delisted.isError).toBe(true);
    expect(delisted.text).toContain(`${other.host} was delisted by its publisher`);
    expect(await channelToolRows()).toBe(before);
  });

  it("refuses bad arguments: a channel that is not an id (a URL or a token path), an empty list, extras", async () => {
    for (const args of [
      { site: site.host, channel: `${BASE}/mcp/abc` },
      { site: site.host, channel: "abc/k/secret-token" },
      { site: site.host, tools: [] },
      { site: site.host, extra: 1 },
      {},
    ]) {
      const res = await propose(args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(res.text).toMatch(/^Invalid arguments: /);
    }
  });
});
