// Security headers by kind of response: dashboard pages and their static files (strict CSP with a per-response
// nonce, no framing, nosniff, referrer policy), the API and MCP endpoints, and /bridge.js (embeddable anywhere).
import { describe, expect, it } from "vitest";
import { api, publish, tool, verifiedSite } from "./helpers.js";
import { connectProvider, createChannel } from "./relay-helpers.js";

/** The CSP as a map of directive → sources. */
function csp(res: Response): Map<string, string[]> {
  const header = res.headers.get("content-security-policy");
  expect(header, "Content-Security-Policy").toBeTruthy();
  return new Map(
    header!
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function expectCommon(res: Response): void {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
}

/** What every dashboard page must satisfy: the headers, and HTML that runs under them. */
async function expectStrictPage(path: string, status = 200): Promise<string> {
  const res = await api(path);
  expect(res.status, path).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  expectCommon(res);
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  const policy = csp(res);
  expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
  expect(policy.get("object-src")).toEqual(["'none'"]);
  expect(policy.get("base-uri")).toEqual(["'none'"]);
  const scripts = policy.get("script-src")!;
  const nonces = scripts.filter((s) => s.startsWith("'nonce-"));
  expect(nonces).toHaveLength(1);
  const nonce = nonces[0]!.slice("'nonce-".length, -1);
  expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  for (const directive of ["script-src", "style-src", "default-src"]) {
    expect(policy.get(directive), directive).not.toContain("'unsafe-inline'");
    expect(policy.get(directive), directive).not.toContain("'unsafe-eval'");
  }
  expect(policy.get("script-src-attr")).toEqual(["'none'"]);
  expect(policy.get("style-src")).toEqual(["'self'"]);

  const html = await res.text();
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length, `${path} loads its scripts`).toBeGreaterThan(0);
  for (const tag of tags) expect(tag, path).toContain(`nonce="${nonce}"`);
  // Nothing the CSP would block: inline event handlers, inline style attributes or elements.
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/<[a-z][^>]*\sstyle\s*=/i);
  expect(html).not.toMatch(/<style\b/i);
  return nonce;
}

describe("dashboard pages", () => {
  it("every page sends a strict CSP whose nonce is on each of its scripts, and refuses framing", async () => {
    const { host, key } = await verifiedSite();
    const nested = {
      type: "object",
      properties: {
        order: {
          type: "object",
          properties: {
            lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
          },
        },
      },
    };
    expect((await publish(host, key, { tools: [tool("add-order", { inputSchema: nested })] })).status).toBe(
      201,
    );
    const pages = [
      "/",
      "/?q=order",
      "/publish",
      "/channels",
      "/channels/abc123",
      "/docs",
      `/sites/${host}`,
      `/sites/${host}/tools/add-order`,
    ];
    for (const page of pages) await expectStrictPage(page);
    await expectStrictPage("/sites/nowhere.example", 404);
    await expectStrictPage(`/sites/${host}/tools/missing`, 404);
  });

  it("gives each response its own nonce", async () => {
    const a = await expectStrictPage("/docs");
    const b = await expectStrictPage("/docs");
    expect(a).not.toBe(b);
  });
});

describe("static files", () => {
  it("serves the dashboard's own files nosniff, same-origin only, not frameable", async () => {
    for (const [path, type] of [
      ["/assets/app.css", /^text\/css/],
      ["/assets/channels.js", /javascript/],
    ] as const) {
      const res = await api(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(type);
      expectCommon(res);
      expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
      expect(csp(res).get("frame-ancestors")).toEqual(["'none'"]);
      await res.body?.cancel();
    }
  });

  it("keeps /bridge.js loadable as a script by any site", async () => {
    const res = await api("/bridge.js", { headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expectCommon(res);
    // A no-cors <script> of another origin is refused under `same-origin`; `cross-origin` also satisfies
    // sites that set Cross-Origin-Embedder-Policy: require-corp.
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-frame-options")).toBeNull();
    expect(res.headers.get("content-security-policy")).toBeNull();
    await res.body?.cancel();
  });

  it.each([
    ["/bridge-ui.js", "the bridge's UI"],
    ["/bridge-relay.js", "the bridge's relay"],
  ])("lets any site's page import %s, %s, as a module (CORS)", async (path) => {
    const res = await api(path, { headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    // Module scripts are refused unless served as JavaScript.
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expectCommon(res);
    // import() fetches in CORS mode: without `*` the page's import fails.
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("x-frame-options")).toBeNull();
    expect(res.headers.get("content-security-policy")).toBeNull();
    expect(await res.text()).toMatch(/\bexport\s*\{/);
  });
});

describe("API and MCP endpoints", () => {
  it("answer nosniff with a CSP that allows nothing, and stay readable by other origins", async () => {
    const cases: Array<[string, RequestInit, number]> = [
      ["/api/tools", {}, 200],
      ["/api/nothing-here", {}, 404],
      ["/healthz", {}, 200],
      ["/schema/manifest.json", {}, 200],
      ["/mcp/registry", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }, 406],
      ["/mcp/abc123", { method: "POST" }, 403],
      // Discovery documents (discovery/): read by clients and crawlers, never rendered as pages.
      ["/v0.1/servers", {}, 200],
      ["/v0/servers/nope%2Fnope/versions/latest", {}, 404],
      ["/server.json", {}, 200],
      ["/.well-known/ai-catalog.json", {}, 200],
      ["/mcp/registry/server-card", {}, 200],
    ];
    for (const [path, init, status] of cases) {
      const res = await api(path, {
        ...init,
        headers: { origin: "https://app.example", ...(init.headers as object) },
      });
      expect(res.status, path).toBe(status);
      expectCommon(res);
      const policy = csp(res);
      expect(policy.get("default-src"), path).toEqual(["'none'"]);
      expect(policy.get("frame-ancestors"), path).toEqual(["'none'"]);
      // The bridge probes /healthz with a no-cors fetch from the site's page.
      expect(res.headers.get("cross-origin-resource-policy"), path).toBe("cross-origin");
      await res.body?.cancel();
    }
    const tools = await api("/api/tools", { headers: { origin: "https://app.example" } });
    expect(tools.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("leave provider WebSocket upgrades working", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { label: "laptop" });
    provider.close();
  });
});
