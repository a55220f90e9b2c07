// Cloud runs end to end: the hub and its runner Worker under `wrangler dev`, the runner driving Debian's
// Chromium through the local Browser Rendering binding. An MCP client with no browser of its own lists and calls
// the demo site's cloud tool through /mcp/sites/<host> and through a channel with no tab open, and gets the
// page's real result; "Try it" does the same signed out in Chromium; and each refusal (not a cloud tool, a
// delisted site, a definition republished while the page stays the same, a page that never registers its tool
// or navigates away) shows the caller what happened. A site of the test's own (a local HTTP server, verified
// and published through the API like the demo site) carries the pages that misbehave.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { api, createChannel } from "./hub-api.js";

const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");
const demoOrigin = inject("demoOrigin");

type Content = Array<{ type: string; text?: string }>;
const textOf = (r: { content?: unknown }) => ((r.content as Content)[0]?.text ?? "") as string;

async function siteClient(host: string, era: "legacy" | "modern" = "legacy"): Promise<Client> {
  const client = new Client(
    { name: "cloud-e2e", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hubUrl}/mcp/sites/${encodeURIComponent(host)}`)),
  );
  return client;
}

// ---------------------------------------------------------------------------------------------------------
// The test's own site: pages that behave and pages that do not.

const echoWord = {
  name: "echo_word",
  title: "Echo a word",
  description: "Answers with the word it is given.",
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  annotations: { readOnlyHint: true },
};
const silent = { ...echoWord, name: "silent_tool", description: "Its page never registers it." };
const wanderer = { ...echoWord, name: "wanderer", description: "Its page navigates to another site." };

/** A page that registers `tool` (current WebMCP draft: document.modelContext). */
function toolPage(tool: typeof echoWord): string {
  return `<!doctype html><title>${tool.name}</title><script>
const tool = ${JSON.stringify(tool)};
document.modelContext.registerTool({ ...tool, execute: async ({ word }) => ({
  content: [{ type: "text", text: "echo " + word + " from " + location.pathname }],
  structuredContent: { word, page: location.pathname },
}) });
</script>`;
}

interface OwnSite {
  origin: string;
  host: string;
  key: string;
  server: Server;
  publish(tools: unknown[]): Promise<void>;
}

async function ownSite(): Promise<OwnSite> {
  let token = "";
  const pages: Record<string, string> = {
    "/echo.html": toolPage(echoWord),
    "/silent.html": "<!doctype html><title>silent</title><p>No tools here.</p>",
    "/away.html": `<!doctype html><title>away</title><script>location.href = "http://example.invalid/";</script>`,
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/.well-known/webmcp-hub-verify") {
      res.writeHead(200, { "content-type": "text/plain" }).end(token);
      return;
    }
    const page = pages[path];
    if (page === undefined) res.writeHead(404).end("not found");
    else res.writeHead(200, { "content-type": "text/html" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const registered = await api("/api/sites", { method: "POST", json: { origin } });
  expect(registered.status).toBe(201);
  token = registered.body.challenge.token;
  const host: string = registered.body.site.host;
  const verified = await fetch(`${hubUrl}/api/sites/${encodeURIComponent(host)}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${registered.body.claimSecret}` },
    body: JSON.stringify({ method: "http" }),
  });
  expect(verified.status).toBe(200);
  const key: string = ((await verified.json()) as { publisherKey: string }).publisherKey;
  return {
    origin,
    host,
    key,
    server,
    async publish(tools) {
      const res = await api(`/api/sites/${encodeURIComponent(host)}/manifest`, {
        method: "PUT",
        token: key,
        json: { name: "Cloud e2e site", tools },
      });
      expect(res.status).toBe(201);
    },
  };
}

const published = [
  { ...echoWord, pages: ["/echo.html"], cloud: true },
  { ...silent, pages: ["/silent.html"], cloud: true },
  { ...wanderer, pages: ["/away.html"], cloud: true },
  { ...echoWord, name: "tab_only", pages: ["/echo.html"] },
];

let site: OwnSite;

beforeAll(async () => {
  site = await ownSite();
  await site.publish(published);
});

afterAll(async () => {
  await new Promise((resolve) => site?.server.close(resolve));
});

// ---------------------------------------------------------------------------------------------------------

describe("/mcp/sites/<host> with the demo site", () => {
  for (const era of ["legacy", "modern"] as const) {
    it(`lists the demo site's read-only cloud tools and runs get-dresses on its real page (${era})`, async () => {
      const client = await siteClient(demoHost, era);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["get-dresses", "list-books"]);
      expect(tools[0]!._meta?.["webmcp-hub/provider"]).toMatchObject({ kind: "cloud", origin: demoOrigin });
      const result = await client.callTool({ name: "get-dresses", arguments: { size: 8 } });
      expect(result.isError).toBeFalsy();
      const products = (result.structuredContent as { products: Array<{ product_id: string }> }).products;
      expect(products.map((p) => p.product_id)).toEqual(["dress-001", "dress-004"]);
      await client.close();
    });
  }

  it("refuses a tool the site does not mark cloud with an isError that says so", async () => {
    const client = await siteClient(demoHost);
    const result = await client.callTool({ name: "buyProduct", arguments: { product_id: "dress-001" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('its manifest does not say "cloud": true');
    await client.close();
  });
});

describe("a channel with no tab open", () => {
  it("runs an added cloud tool in the cloud, shows its provider as cloud, and audits it so", async () => {
    const channel = await createChannel("cloud e2e");
    const added = await api(`/api/channels/${channel.id}/tools`, {
      method: "POST",
      token: channel.ownerKey,
      json: { host: demoHost, tools: ["get-dresses", "buyProduct"] },
    });
    expect(added.status).toBe(201);
    const agent = new Client({ name: "cloud-channel-e2e", version: "1.0.0" });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(channel.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${channel.agentToken}` } },
      }),
    );
    const { tools } = await agent.listTools();
    const dresses = tools.find((t) => t.name === "get-dresses")!;
    expect(dresses._meta?.["webmcp-hub/provider"]).toMatchObject({ kind: "cloud", site: demoHost });
    const buy = tools.find((t) => t.name === "buyProduct")!;
    expect(buy._meta?.["webmcp-hub/provider"]).toMatchObject({ kind: "registry" });

    const result = await agent.callTool({ name: "get-dresses", arguments: { color: "blue" } });
    expect(result.isError).toBeFalsy();
    const products = (result.structuredContent as { products: Array<{ product_id: string }> }).products;
    expect(products.map((p) => p.product_id)).toEqual(["dress-004", "dress-006"]);
    await agent.close();

    const audit = await api(`/api/channels/${channel.id}/audit?tool=get-dresses`, {
      token: channel.ownerKey,
    });
    expect(audit.status).toBe(200);
    expect(audit.body.entries[0]).toMatchObject({
      tool: "get-dresses",
      status: "ok",
      provider: { id: "cloud", label: "cloud", origin: demoOrigin },
    });
  });
});

describe("Try it, signed out, in Chromium", () => {
  let browser: E2EBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("runs get-dresses in the hub's browser and shows the page's result", async () => {
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/sites/${encodeURIComponent(demoHost)}/tools/get-dresses`);
    await expect.poll(() => page.locator("#try-run").isEnabled()).toBe(true);
    await page.locator('#try [data-arg="size"]').fill("10");
    await page.locator("#try-run").click();
    const result = page.locator("#try-result");
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toContain("Done");
    expect(await result.textContent()).toContain("Wrap dress");
  });

  it("shows why a run failed when the tool's page never registers it", async () => {
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/sites/${encodeURIComponent(site.host)}/tools/silent_tool`);
    await expect.poll(() => page.locator("#try-run").isEnabled()).toBe(true);
    expect(await page.locator("#try-channel").count()).toBe(0); // no channel to choose: it runs in the cloud
    await page.locator('#try [data-arg="word"]').fill("hello");
    await page.locator("#try-run").click();
    const result = page.locator("#try-result");
    await expect.poll(() => result.textContent(), { timeout: 45_000 }).toContain("Status: denied");
    expect(await result.textContent()).toContain(
      `silent_tool of ${site.host} did not run in the hub's cloud browser (unregistered)`,
    );
  });
});

describe("refusals, as the caller sees them", () => {
  it("a page that never registers its tool, and one that navigates away, end in an isError that says so", async () => {
    const client = await siteClient(site.host);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "echo_word",
      "silent_tool",
      "wanderer",
    ]);
    const ok = await client.callTool({ name: "echo_word", arguments: { word: "hello" } });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toEqual({ word: "hello", page: "/echo.html" });

    const never = await client.callTool({ name: "silent_tool", arguments: { word: "x" } });
    expect(never.isError).toBe(true);
    expect(textOf(never)).toContain("(unregistered)");
    const away = await client.callTool({ name: "wanderer", arguments: { word: "x" } });
    expect(away.isError).toBe(true);
    expect(textOf(away)).toMatch(/\((navigation|load)\)/);
    const tabOnly = await client.callTool({ name: "tab_only", arguments: { word: "x" } });
    expect(textOf(tabOnly)).toContain('its manifest does not say "cloud": true');
    await client.close();
  });

  it("a definition republished while the page stays the same is refused as changed", async () => {
    await site.publish(
      published.map((t) =>
        t.name === "echo_word" ? { ...t, description: "Answers with the word, now differently." } : t,
      ),
    );
    try {
      const client = await siteClient(site.host, "modern");
      const result = await client.callTool({ name: "echo_word", arguments: { word: "hello" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("(changed)");
      expect(textOf(result)).toContain("Do not retry until the site republishes");
      await client.close();
    } finally {
      await site.publish(published);
    }
  });

  it("a delisted site's endpoint answers 410, and relisting brings its tools back", async () => {
    const path = `/api/sites/${encodeURIComponent(site.host)}`;
    expect((await api(`${path}/delist`, { method: "POST", token: site.key })).status).toBe(200);
    try {
      const res = await fetch(`${hubUrl}/mcp/sites/${encodeURIComponent(site.host)}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(410);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("site_delisted");
      const tried = await api(`${path}/tools/echo_word/try`, {
        method: "POST",
        json: { arguments: { word: "a" } },
      });
      expect(tried.status).toBe(410);
    } finally {
      expect((await api(`${path}/relist`, { method: "POST", token: site.key })).status).toBe(200);
    }
    const client = await siteClient(site.host);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo_word");
    await client.close();
  });
});
