// /mcp/registry through a real MCP SDK Client over Streamable HTTP.
import { SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { api, BASE, publish, tool, verifiedSite } from "./helpers.js";

let host: string;

beforeAll(async () => {
  const s = await verifiedSite();
  host = s.host;
  await publish(s.host, s.key, {
    name: "Dress shop",
    tools: [
      tool("get-dresses", {
        description: "Returns dress listings by size and color.",
        annotations: { readOnlyHint: true },
      }),
      tool("buyProduct"),
    ],
  });
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "registry-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
    fetch: (url, init) => SELF.fetch(url, init),
  });
  await client.connect(transport);
  return client;
}

describe("the registry MCP server", () => {
  it("lists search_tools, get_site and propose_tools with schemas and read-only hints", async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "get_site", "propose_tools"]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    await client.close();
  });

  it("finds a published tool with search_tools, with structured content matching its output schema", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "search_tools", arguments: { query: "dress", limit: 5 } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      tools: Array<{ site: string; name: string; readOnly: boolean }>;
    };
    expect(structured.tools[0]).toMatchObject({ site: host, name: "get-dresses", readOnly: true });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain("get-dresses");
    await client.close();
  });

  it("returns a site's tools with get_site, in the format asked for", async () => {
    const client = await connect();
    const result = await client.callTool({
      name: "get_site",
      arguments: { site: host, format: "anthropic" },
    });
    const structured = result.structuredContent as {
      site: { host: string; name: string };
      tools: Array<{ name: string; input_schema: unknown }>;
    };
    expect(structured.site).toMatchObject({ host, name: "Dress shop" });
    expect(structured.tools.map((t) => t.name).sort()).toEqual(["buyProduct", "get-dresses"]);
    expect(structured.tools[0]!.input_schema).toBeDefined();
    await client.close();
  });

  it("names a site `site` in every tool, and still accepts get_site's older `host`, documented in its schema", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const t of tools) expect(Object.keys(t.inputSchema.properties ?? {})).toContain("site");
    const getSite = tools.find((t) => t.name === "get_site")!;
    const props = getSite.inputSchema.properties as Record<string, { description?: string }>;
    expect(props.host!.description).toMatch(/older name of `site`/i);

    const byHost = await client.callTool({ name: "get_site", arguments: { host } });
    expect(byHost.isError).toBeFalsy();
    expect((byHost.structuredContent as { site: { host: string } }).site.host).toBe(host);
    const same = await client.callTool({ name: "get_site", arguments: { site: host, host } });
    expect(same.isError).toBeFalsy();
    const clash = await client.callTool({
      name: "get_site",
      arguments: { site: host, host: "other.example" },
    });
    expect(clash.isError).toBe(true);
    expect((clash.content as Array<{ text: string }>)[0]!.text).toContain("host: names a different site");
    await client.close();
  });

  it("reports bad arguments and unknown sites as tool errors, an unknown tool as a protocol error", async () => {
    const client = await connect();
    const bad = await client.callTool({ name: "search_tools", arguments: { limit: 500 } });
    expect(bad.isError).toBe(true);
    expect((bad.content as Array<{ text: string }>)[0]!.text).toContain("limit");
    const missing = await client.callTool({ name: "get_site", arguments: { site: "nowhere.example" } });
    expect(missing.isError).toBe(true);
    const none = await client.callTool({ name: "get_site", arguments: {} });
    expect(none.isError).toBe(true);
    expect((none.content as Array<{ text: string }>)[0]!.text).toContain("site: required");
    await expect(client.callTool({ name: "delete_everything", arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await client.close();
  });

  it("answers a plain JSON-RPC POST without a session", async () => {
    const res = await api("/mcp/registry", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBe(3);
  });
});

describe("the registry MCP server in the 2026-07-28 era", () => {
  const modern = (method: string, params: Record<string, unknown>, name?: string) =>
    api("/mcp/registry", {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(name ? { "mcp-name": name } : {}),
      },
      json: {
        jsonrpc: "2.0",
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
    });

  it("lists its tools with a long public cache lifetime (the list never changes while the Worker runs)", async () => {
    const res = await modern("tools/list", {});
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as {
      result: Record<string, unknown> & { tools: Array<{ name: string }> };
    };
    expect(result.tools.map((t) => t.name)).toEqual(["search_tools", "get_site", "propose_tools"]);
    expect(result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "public" });
  });

  it("answers a call with one JSON body and prints no warning (npm start showed one per request)", async () => {
    const warn = vi.spyOn(console, "warn");
    try {
      const res = await modern("tools/call", { name: "get_site", arguments: { site: host } }, "get_site");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      const { result } = (await res.json()) as { result: { structuredContent: { site: { host: string } } } };
      expect(result.structuredContent.site.host).toBe(host);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("answers an unknown tool with -32602 and a 2026 client pinned to the revision can call search_tools", async () => {
    const res = await modern("tools/call", { name: "nope", arguments: {} }, "nope");
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32602);
    const client = new Client(
      { name: "modern", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
        fetch: (u, i) => SELF.fetch(u, i),
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const found = await client.callTool({
      name: "search_tools",
      arguments: { query: "nothing-matches-this" },
    });
    expect(found.structuredContent).toEqual({ tools: [], nextCursor: null });
    await client.close();
  });
});
