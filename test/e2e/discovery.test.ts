// Discovery end to end, on the stack `npm start` runs (the hub, its cloud runner, the demo site): a client
// that knows only the hub's registry URL, asking as VS Code's MCP gallery asks (microsoft/vscode
// src/vs/platform/mcp/common/mcpGalleryManifestService.ts: probe `{url}/v0.1/servers?limit=1`;
// mcpGalleryService.ts: `{url}/v0.1/servers?limit=50&version=latest`, then
// `{url}/v0.1/servers/{encodeURIComponent(name)}/versions/latest`), finds the demo site as a remote MCP
// server, connects to its `remotes[0].url` with an MCP SDK client and gets the page's real result from the
// hub's browser. A crawler that knows only the hub's domain finds the same server through the AI Catalog and
// its Server Card.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, inject, it } from "vitest";

const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");

interface ServerResponse {
  server: { name: string; version: string; remotes: Array<{ type: string; url: string }> };
  _meta: Record<string, { status?: string; isLatest?: boolean }>;
}
const OFFICIAL = "io.modelcontextprotocol.registry/official";

async function getJson<T>(url: string, accept?: string): Promise<{ status: number; type: string; body: T }> {
  const res = await fetch(url, accept ? { headers: { accept } } : {});
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: (await res.json()) as T };
}

/** Lists the tools at `url` and calls get-dresses there; returns the product ids of its result. */
async function dressesAt(url: string): Promise<{ tools: string[]; products: string[] }> {
  const client = new Client({ name: "discovery-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: "get-dresses", arguments: { size: 8 } });
    expect(result.isError).toBeFalsy();
    const { products } = result.structuredContent as { products: Array<{ product_id: string }> };
    return { tools: tools.map((t) => t.name), products: products.map((p) => p.product_id) };
  } finally {
    await client.close();
  }
}

describe("a client configured with the hub's registry URL", () => {
  it("finds the demo site as a remote MCP server and runs its tool through its remotes URL", async () => {
    const probe = await getJson<{ servers: unknown[] }>(`${hubUrl}/v0.1/servers?limit=1`);
    expect(probe.status).toBe(200);
    expect(probe.body.servers).toHaveLength(1);

    const list = await getJson<{ servers: ServerResponse[]; metadata: { count: number } }>(
      `${hubUrl}/v0.1/servers?limit=50&version=latest`,
    );
    expect(list.status).toBe(200);
    const names = list.body.servers.map((s) => s.server.name);
    // The demo site's host (localhost:<port>) reversed, its port in the name's second part.
    const demoName = `${demoHost.split(":")[0]!.split(".").reverse().join(".")}/webmcp-${demoHost.split(":")[1]}`;
    expect(names).toContain(demoName);

    const detail = await getJson<ServerResponse>(
      `${hubUrl}/v0.1/servers/${encodeURIComponent(demoName)}/versions/latest`,
    );
    expect(detail.status).toBe(200);
    expect(detail.body._meta[OFFICIAL]).toMatchObject({ status: "active", isLatest: true });
    const remote = detail.body.server.remotes[0]!;
    expect(remote).toEqual({
      type: "streamable-http",
      url: `${hubUrl}/mcp/sites/${encodeURIComponent(demoHost)}`,
    });

    const { tools, products } = await dressesAt(remote.url);
    expect(tools).toEqual(["get-dresses", "list-books"]);
    expect(products).toEqual(["dress-001", "dress-004"]);
  });
});

describe("a crawler that knows only the hub's domain", () => {
  it("reads the AI Catalog, then the demo site's Server Card, and reaches the same server", async () => {
    const catalog = await getJson<{ specVersion: string; entries: Array<{ type: string; url: string }> }>(
      `${hubUrl}/.well-known/ai-catalog.json`,
    );
    expect(catalog.status).toBe(200);
    expect(catalog.type).toContain("application/ai-catalog+json");
    expect(catalog.body.specVersion).toBe("1.0");
    const cardUrl = `${hubUrl}/mcp/sites/${encodeURIComponent(demoHost)}/server-card`;
    expect(catalog.body.entries).toContainEqual(
      expect.objectContaining({ type: "application/mcp-server-card+json", url: cardUrl }),
    );

    const card = await getJson<{ name: string; version: string; remotes: Array<{ url: string }> }>(
      cardUrl,
      "application/mcp-server-card+json",
    );
    expect(card.status).toBe(200);
    expect(card.type).toContain("application/mcp-server-card+json");
    const client = new Client({ name: "discovery-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(card.body.remotes[0]!.url)));
    // The server says what its card says.
    expect(client.getServerVersion()).toMatchObject({ name: card.body.name, version: card.body.version });
    await client.close();
  });
});
