/// <reference types="chrome" />
// The extension end to end: Chromium with the unpacked extension, paired once with a channel on the real hub
// (`wrangler dev`), relays the tabs of the sites the user allowed, and an MCP SDK client (the agent) lists and
// calls their tools on the channel's MCP URL. Pages carry no script of ours: one written from shared/seeds/000,
// one on document.modelContext with an AbortSignal, a declarative form, and (in a second Chromium) the
// browser's own WebMCP. Approvals happen in the extension's window; the page cannot approve for itself.
// Faults: a site not allowed, revoking it, a tab closed mid-call, the service worker restarted, the pairing
// revoked, 1,000 tools, a tool that throws, two sites with the same tool name.
import { createServer, type Server } from "node:http";
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, test } from "vitest";
import { SCREENSHOT_DIR, launchWithExtension, type ExtensionBrowser } from "./browser.js";
import { api, createChannel, type Channel } from "./hub-api.js";

const hubUrl = inject("hubUrl");

/** shared/seeds/000's examples, as a site writes them: navigator.modelContext, no script of ours. */
const SEED_PAGE = `<!doctype html><title>stamps</title><script>
navigator.modelContext.provideContext({
  tools: [{
    name: "greet",
    description: "Greets the user",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    execute: ({ name }) => ({ content: [{ type: "text", text: "Hello, " + name + "!" }] }),
  }],
});
window.bought = [];
navigator.modelContext.registerTool({
  name: "buyProduct",
  description: "Use this tool to purchase a product given its unique product_id.",
  inputSchema: { type: "object", properties: { product_id: { type: "string" } }, required: ["product_id"] },
  execute: async ({ product_id }, agent) => {
    const confirmed = await agent.requestUserInteraction(async () => true);
    if (!confirmed) throw new Error("Purchase cancelled by user.");
    window.bought.push(product_id);
    return "Product " + product_id + " purchased.";
  },
});
navigator.modelContext.registerTool({
  name: "get-dresses",
  description: "Returns an array of product listings",
  inputSchema: { type: "object", properties: { size: { type: "number" } } },
  annotations: { readOnlyHint: true },
  execute: async ({ size }) => ({ products: [{ name: "summer dress", size: size ?? 38 }] }),
});
navigator.modelContext.registerTool({
  name: "temporary",
  description: "Unregistered by the page",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  execute: () => "here",
});
window.dropTemporary = () => navigator.modelContext.unregisterTool("temporary");
</script>`;

/** The current draft: document.modelContext.registerTool(tool, {signal}), plus tools that fail in each way. */
const DOCUMENT_PAGE = `<!doctype html><title>search</title><script>
const registration = new AbortController();
document.modelContext.registerTool({
  name: "search",
  title: "Search the catalogue",
  description: "Finds products by keyword",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  annotations: { readOnlyHint: true },
  execute: async ({ q }) => ({ results: [q, location.origin] }),
}, { signal: registration.signal });
window.stopSearch = () => registration.abort();
document.modelContext.registerTool({
  name: "broken",
  description: "Always throws",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  execute: () => { throw new Error("the catalogue is down"); },
});
window.hangingSignal = null;
document.modelContext.registerTool({
  name: "hang",
  description: "Never answers",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  execute: (_input, client) => { window.hangingSignal = client?.signal ?? null; return new Promise(() => {}); },
});
</script>`;

/** Declarative WebMCP: a form is a tool; the page answers the agent's submit with respondWith. */
const FORM_PAGE = `<!doctype html><title>newsletter</title>
<form toolname="subscribe" tooldescription="Subscribes an address to the newsletter" toolautosubmit>
  <input name="email" type="email" required toolparamdescription="The address to subscribe">
  <button>Subscribe</button>
</form><script>
document.querySelector("form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (e.agentInvoked) e.respondWith(Promise.resolve("subscribed " + new FormData(e.target).get("email")));
});
</script>`;

/** A page that registers 1,000 tools. */
const MANY_PAGE = `<!doctype html><title>many</title><script>
for (let i = 0; i < 1000; i++)
  document.modelContext.registerTool({
    name: "tool-" + i,
    description: "Tool number " + i,
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    execute: () => String(i),
  });
</script>`;

/** A tool whose schema alone is over the hub's 1 MiB frame limit, beside an ordinary one. */
const HUGE_PAGE = `<!doctype html><title>huge</title><script>
const properties = {};
for (let i = 0; i < 1200; i++) properties["p" + i] = { type: "string", description: "x".repeat(1000) };
document.modelContext.registerTool({
  name: "huge",
  description: "A schema of more than a megabyte",
  inputSchema: { type: "object", properties },
  annotations: { readOnlyHint: true },
  execute: () => "huge",
});
document.modelContext.registerTool({
  name: "small",
  description: "An ordinary tool",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  execute: () => "small",
});
</script>`;

/** Chromium's own document.modelContext (--enable-blink-features=WebMCP). */
const NATIVE_PAGE = `<!doctype html><title>native</title><script>
const getter = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get;
window.isNative = !!getter && /\\[native code\\]/.test(Function.prototype.toString.call(getter));
document.modelContext.registerTool({
  name: "native-tool",
  description: "Registered with the browser's own WebMCP",
  inputSchema: { type: "object", properties: { word: { type: "string" } } },
  annotations: { readOnlyHint: true },
  execute: ({ word }) => "native says " + word,
});
</script>`;

const PAGES: Record<string, string> = {
  "/seed.html": SEED_PAGE,
  "/document.html": DOCUMENT_PAGE,
  "/form.html": FORM_PAGE,
  "/many.html": MANY_PAGE,
  "/huge.html": HUGE_PAGE,
  "/native.html": NATIVE_PAGE,
};

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The agent: an MCP SDK client on the channel's MCP URL, counting `notifications/tools/list_changed`. */
class Agent {
  listChanged = 0;
  private constructor(readonly client: Client) {}

  static async connect(ch: Channel): Promise<Agent> {
    const client = new Client({ name: "extension-e2e-agent", version: "1.0.0" });
    const agent = new Agent(client);
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      agent.listChanged++;
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(ch.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${ch.agentToken}` } },
      }),
    );
    return agent;
  }

  async names(): Promise<string[]> {
    return (await this.client.listTools()).tools.map((t) => t.name).sort();
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    return (await this.client.callTool({ name, arguments: args })) as ToolResult;
  }
}

const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("");

let server: Server;
let port: number;
/** The same pages on two origins (both secure contexts): 127.0.0.1 and localhost. */
let siteA: string;
let siteB: string;
let browser: ExtensionBrowser;
/** An extension page kept open: asks the service worker through the messages the popup uses. */
let ext: Page;
let channel: Channel;
let agent: Agent;

/** The service worker's state (through an extension page, so it works after the worker restarts). */
const extState = (tabId?: number) =>
  ext.evaluate(
    (tabId) =>
      chrome.runtime.sendMessage(tabId === undefined ? { type: "ui:state" } : { type: "ui:state", tabId }),
    tabId,
  ) as Promise<any>;

const ui = (request: Record<string, unknown>) =>
  ext.evaluate((r) => chrome.runtime.sendMessage(r), request) as Promise<any>;

async function tabIdOf(page: Page): Promise<number> {
  const url = page.url();
  let id: number | undefined;
  await expect
    .poll(async () => {
      id = await ext.evaluate(async (url) => (await chrome.tabs.query({ url }))[0]?.id, url);
      return id;
    })
    .toBeDefined();
  return id!;
}

async function openSite(origin: string, path: string, on = browser): Promise<{ page: Page; tabId: number }> {
  const page = await on.context.newPage();
  await page.goto(`${origin}${path}`);
  return { page, tabId: await tabIdOf(page) };
}

/**
 * The popup as it is over a tab: opened as a background tab of that tab's window (so chrome.tabs still names
 * the site's tab as the active one when the popup asks), then brought to the front.
 */
async function popupOver(tabId: number): Promise<Page> {
  const opened = browser.context.waitForEvent("page", (p) => p.url().endsWith("/popup.html"));
  await ext.evaluate(async (tabId) => {
    const tab = await chrome.tabs.get(tabId);
    await chrome.tabs.update(tabId, { active: true });
    await chrome.tabs.create({
      url: chrome.runtime.getURL("popup.html"),
      active: false,
      windowId: tab.windowId,
    });
  }, tabId);
  const popup = await opened;
  await popup.setViewportSize({ width: 380, height: 900 });
  await expect.poll(() => popup.getByRole("heading", { name: "This site" }).isVisible()).toBe(true);
  await popup.bringToFront();
  return popup;
}

type ApprovalButton = "Approve" | "Deny" | "Always allow on this channel";

/**
 * Presses a button of an approval window, which closes itself once the service worker took the answer. The
 * buttons are armed a moment after the window is shown or focused; the click may finish after the window is
 * gone, which is the point.
 */
async function press(window: Page, button: ApprovalButton): Promise<void> {
  const closed = window.waitForEvent("close");
  await window.bringToFront();
  await window
    .getByRole("button", { name: button })
    .click()
    .catch((e: unknown) => {
      if (!window.isClosed()) throw e;
    });
  await closed;
}

/** Waits for the approval window of the next call and answers it with `button`. */
async function answerApproval(button: ApprovalButton): Promise<Page> {
  const window = await browser.context.waitForEvent("page", (p) => p.url().includes("/approval.html"));
  await press(window, button);
  return window;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const page = PAGES[new URL(req.url ?? "/", "http://x").pathname];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  siteA = `http://127.0.0.1:${port}`;
  siteB = `http://localhost:${port}`;

  browser = await launchWithExtension();
  ext = await browser.context.newPage();
  await ext.goto(`chrome-extension://${browser.extensionId}/popup.html`);
  expect(await ui({ type: "ui:set-hub", url: hubUrl })).toEqual({ ok: true });

  channel = await createChannel("extension e2e");
  expect(await ui({ type: "ui:pair", code: channel.pairingCode })).toEqual({
    ok: true,
    channelId: channel.id,
  });
  agent = await Agent.connect(channel);
});

// A test that fails midway leaves no tab behind to share tools with the next one.
afterEach(async () => {
  for (const page of browser.context.pages()) if (page !== ext) await page.close();
});

afterAll(async () => {
  await agent?.client.close();
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe("a paired extension relays the sites the user allowed", () => {
  // Each test starts with site A allowed (the first one shows what happens before it is).
  beforeEach(async () => {
    expect(await ui({ type: "ui:site", origin: siteA, decision: "always" })).toEqual({ ok: true });
  });

  test("the popup names the channel the browser is paired with", async () => {
    const state = await extState();
    expect(state.pairing).toMatchObject({ channelId: channel.id, channelName: channel.name });
    expect(state.problem).toBe("");
  });

  test("a site not yet allowed shares nothing; allowing it shares its tools, which the agent lists and calls", async () => {
    expect(await ui({ type: "ui:site", origin: siteB, decision: "ask" })).toEqual({ ok: true });
    const seed = await openSite(siteB, "/seed.html");
    await expect
      .poll(async () => (await extState(seed.tabId)).current)
      .toMatchObject({ sharing: "ask", toolCount: 4 });
    expect(await agent.names()).toEqual([]);

    expect(await ui({ type: "ui:site", origin: siteB, decision: "always" })).toEqual({ ok: true });
    await expect.poll(() => agent.names()).toEqual(["buyProduct", "get-dresses", "greet", "temporary"]);
    const listed = (await agent.client.listTools()).tools.find((t) => t.name === "get-dresses");
    expect(listed?._meta?.["webmcp-hub/provider"]).toMatchObject({ origin: siteB });

    // The popup over that tab says so (and is the README's picture: test-results/screenshots/).
    const popup = await popupOver(seed.tabId);
    await expect
      .poll(() => popup.getByText(/^Shared with the channel \(connected\)/).count())
      .toBeGreaterThan(0);
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await popup.locator("body").screenshot({ path: join(SCREENSHOT_DIR, "extension-popup.png") });
    await popup.close();

    // Read-only: runs without asking.
    const dresses = await agent.call("get-dresses", { size: 40 });
    expect(dresses.isError).toBeFalsy();
    expect(dresses.structuredContent).toEqual({ products: [{ name: "summer dress", size: 40 }] });

    // unregisterTool withdraws the tool from the agent's list.
    await seed.page.evaluate(() => (window as unknown as { dropTemporary(): void }).dropTemporary());
    await expect.poll(() => agent.names()).toEqual(["buyProduct", "get-dresses", "greet"]);

    // Not read-only: approved in the extension's window, then run in the page.
    const approval = answerApproval("Approve");
    const greeting = agent.call("greet", { name: "Ada" });
    await approval;
    expect(text(await greeting)).toBe("Hello, Ada!");
    await seed.page.close();
    await expect.poll(() => agent.names()).toEqual([]);
    expect(await ui({ type: "ui:site", origin: siteB, decision: "ask" })).toEqual({ ok: true });
  });

  test("a document.modelContext tool with a signal and a declarative form are listed and called; aborting the signal withdraws the tool", async () => {
    const doc = await openSite(siteA, "/document.html");
    const form = await openSite(siteA, "/form.html");
    await expect.poll(() => agent.names()).toEqual(["broken", "hang", "search", "subscribe"]);

    const found = await agent.call("search", { q: "stamps" });
    expect(found.structuredContent).toEqual({ results: ["stamps", siteA] });

    const approval = answerApproval("Approve");
    const subscribed = agent.call("subscribe", { email: "ada@example.com" });
    await approval;
    const result = await subscribed;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("subscribed ada@example.com");

    // A tool that throws: isError with its message, and the tab stays shared.
    const broken = await agent.call("broken");
    expect(broken.isError).toBe(true);
    expect(text(broken)).toContain("the catalogue is down");

    await doc.page.evaluate(() => (window as unknown as { stopSearch(): void }).stopSearch());
    await expect.poll(() => agent.names()).toEqual(["broken", "hang", "subscribe"]);
    await doc.page.close();
    await form.page.close();
  });

  test("denial and approval happen in the extension's window; the page's forged approvals reach nobody", async () => {
    const seed = await openSite(siteA, "/seed.html");
    await expect.poll(() => agent.names()).toContain("buyProduct");

    const pending = agent.call("buyProduct", { product_id: "stamp-1" });
    const window = await browser.context.waitForEvent("page", (p) => p.url().includes("/approval.html"));
    await expect.poll(async () => (await extState()).approvals.length).toBe(1);
    // The toolbar badge counts the calls waiting for approval, on every tab.
    await expect.poll(() => ext.evaluate(() => chrome.action.getBadgeText({}))).toBe("1");
    expect(await ext.evaluate((tabId) => chrome.action.getBadgeText({ tabId }), seed.tabId)).toBe("1");
    // Everything a page can try: window messages in our shapes, chrome.runtime (absent for pages), buttons
    // of its own that look like ours. None of it settles the request.
    const attempts = await seed.page.evaluate(async () => {
      const id = "any";
      for (const message of [
        { type: "ui:approval", id, decision: "approve" },
        { source: "webmcp-hub-extension", type: "ui:approval", id, decision: "approve" },
        { source: "webmcp-hub-connect", type: "pairing-code", code: "AAAAAAAA" },
      ])
        postMessage(message, "*");
      const runtime = (globalThis as unknown as { chrome?: { runtime?: { sendMessage?: unknown } } }).chrome
        ?.runtime;
      const button = document.createElement("button");
      button.textContent = "Approve";
      document.body.append(button);
      button.click();
      await new Promise((r) => setTimeout(r, 300));
      return { runtime: typeof runtime?.sendMessage };
    });
    expect(attempts.runtime).toBe("undefined");
    expect((await extState()).approvals).toHaveLength(1);
    expect(await seed.page.evaluate(() => (window as unknown as { bought: string[] }).bought)).toEqual([]);

    await press(window, "Deny");
    const denied = await pending;
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("declined");
    expect(await seed.page.evaluate(() => (window as unknown as { bought: string[] }).bought)).toEqual([]);

    // "Always allow on this channel": this call and the next run without another window.
    const approval = answerApproval("Always allow on this channel");
    expect(text(await agent.call("buyProduct", { product_id: "stamp-2" }))).toBe(
      "Product stamp-2 purchased.",
    );
    await approval;
    expect(text(await agent.call("buyProduct", { product_id: "stamp-3" }))).toBe(
      "Product stamp-3 purchased.",
    );
    expect(await seed.page.evaluate(() => (window as unknown as { bought: string[] }).bought)).toEqual([
      "stamp-2",
      "stamp-3",
    ]);
    expect((await extState()).approvals).toHaveLength(0);
    // Nothing waiting: the shared tab's badge says it is shared.
    await expect
      .poll(() => ext.evaluate((tabId) => chrome.action.getBadgeText({ tabId }), seed.tabId))
      .toBe("on");

    const audit = await api(`/api/channels/${channel.id}/audit?tool=buyProduct`, { token: channel.ownerKey });
    const statuses = audit.body.entries as { status: string }[];
    expect(statuses.map((r) => r.status).sort()).toEqual(["denied", "ok", "ok"]);
    await seed.page.close();
  });

  test("revoking a site's permission withdraws its tools at once, and 'never' keeps them withdrawn", async () => {
    const seed = await openSite(siteA, "/seed.html");
    await expect.poll(() => agent.names()).toEqual(["buyProduct", "get-dresses", "greet", "temporary"]);
    const before = agent.listChanged;
    expect(await ui({ type: "ui:site", origin: siteA, decision: "never" })).toEqual({ ok: true });
    await expect.poll(() => agent.names()).toEqual([]);
    await expect.poll(() => agent.listChanged).toBeGreaterThan(before);
    expect((await extState(seed.tabId)).current).toMatchObject({ sharing: "never", connection: null });

    // Allow once: this tab only.
    expect(await ui({ type: "ui:site", origin: siteA, decision: "once", tabId: seed.tabId })).toEqual({
      ok: true,
    });
    await expect.poll(() => agent.names()).toEqual(["buyProduct", "get-dresses", "greet", "temporary"]);
    const other = await openSite(siteA, "/document.html");
    await expect.poll(async () => (await extState(other.tabId)).current?.sharing).toBe("ask");
    expect(await agent.names()).not.toContain("search");
    await other.page.close();
    await seed.page.close();
    expect(await ui({ type: "ui:site", origin: siteA, decision: "always" })).toEqual({ ok: true });
  });

  test("two sites offering the same tool name are both listed, each under its site's label, and each call reaches its own tab", async () => {
    const a = await openSite(siteA, "/document.html");
    const b = await openSite(siteB, "/document.html");
    expect(await ui({ type: "ui:site", origin: siteB, decision: "always" })).toEqual({ ok: true });
    // Both tabs offer "search": each is listed under its site's label (host, ":" made "_").
    const label = (origin: string) => new URL(origin).host.replace(/[^A-Za-z0-9_.-]/g, "_");
    await expect
      .poll(async () => (await agent.names()).filter((n) => n.endsWith("search")))
      .toEqual([`${label(siteA)}__search`, `${label(siteB)}__search`].sort());
    for (const origin of [siteA, siteB]) {
      const result = await agent.call(`${label(origin)}__search`, { q: "x" });
      expect(result.structuredContent).toEqual({ results: ["x", origin] });
    }
    await a.page.close();
    await b.page.close();
    await expect.poll(() => agent.names()).toEqual([]);
  });

  test("a tab closed mid-call gives the agent isError at once (disconnected, not the 60 s timeout)", async () => {
    const doc = await openSite(siteA, "/document.html");
    await expect.poll(() => agent.names()).toContain("hang");
    const pending = agent.call("hang");
    await doc.page.waitForFunction(
      () => (window as unknown as { hangingSignal: unknown }).hangingSignal !== null,
    );
    await doc.page.close();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("disconnected");
  });

  test("a page with 1,000 tools shares the hub's 256 per tab, and its calls work", async () => {
    const many = await openSite(siteA, "/many.html");
    await expect.poll(async () => (await agent.names()).length).toBe(256);
    expect(text(await agent.call("tool-0"))).toBe("0");
    expect((await extState(many.tabId)).current.toolCount).toBe(1000);
    await many.page.close();
    await expect.poll(() => agent.names()).toEqual([]);
  });

  test("a tool whose schema is over the frame limit is left out, and the page's other tools are shared", async () => {
    const huge = await openSite(siteA, "/huge.html");
    await expect.poll(() => agent.names()).toEqual(["small"]);
    expect(text(await agent.call("small"))).toBe("small");
    expect((await extState(huge.tabId)).current.toolCount).toBe(2);
  });

  test("restarting the service worker withdraws the tabs' tools, then they come back with no second pairing", async () => {
    const seed = await openSite(siteA, "/seed.html");
    await expect.poll(() => agent.names()).toEqual(["buyProduct", "get-dresses", "greet", "temporary"]);
    const pairedAt = (await extState()).pairing.pairedAt;
    const providers = async () =>
      (await api(`/api/channels/${channel.id}`, { token: channel.ownerKey })).body.providers as {
        id: string;
        origin: string;
      }[];
    await expect.poll(providers).toEqual([expect.objectContaining({ origin: siteA })]);
    const before = (await providers())[0]!.id;

    // Stop the worker the way Chrome does when it is idle (CDP closes its target).
    const cdp = await browser.context.newCDPSession(seed.page);
    const { targetInfos } = await cdp.send("Target.getTargets");
    const target = targetInfos.find(
      (t) => t.type === "service_worker" && t.url.includes(browser.extensionId),
    );
    await cdp.send("Target.closeTarget", { targetId: target!.targetId });

    // The shared tab reconnects, which starts the worker again; it reconnects to the hub with the stored
    // pairing. A new provider: the old one's socket closed with the worker (its tools withdrawn).
    await expect
      .poll(async () => (await providers()).map((p) => (p.id === before ? "the old socket" : p.origin)))
      .toEqual([siteA]);
    expect(await agent.names()).toEqual(["buyProduct", "get-dresses", "greet", "temporary"]);
    expect((await extState()).pairing.pairedAt).toBe(pairedAt);
    expect(text(await agent.call("get-dresses"))).toContain("summer dress");
    await seed.page.close();
  });
});

describe("a revoked pairing", () => {
  test("revoking the extension's token withdraws every tab and the popup says to pair again", async () => {
    const seed = await openSite(siteA, "/seed.html");
    await expect.poll(() => agent.names()).toHaveLength(4);
    const { body } = await api(`/api/channels/${channel.id}`, { token: channel.ownerKey });
    const provider = (body.providers as { tokenId: string; via: string | null }[])[0]!;
    expect(provider.via).toBe("extension");
    const revoked = await api(`/api/channels/${channel.id}/providers/${provider.tokenId}`, {
      method: "DELETE",
      token: channel.ownerKey,
    });
    expect(revoked.status).toBe(200);
    await expect.poll(() => agent.names()).toEqual([]);
    await expect.poll(async () => (await extState()).pairing).toBeNull();
    expect((await extState()).problem).toMatch(/revoked|no longer accepts/);
    await ext.reload();
    await expect.poll(() => ext.getByRole("alert").first().textContent()).toMatch(/Pair again/);
    await seed.page.close();
  });
});

/**
 * A TCP proxy in front of the hub that can be cut (every connection dropped, new ones refused) and restored:
 * to the extension, the hub going away and coming back.
 */
async function cuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createTcpServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a);
      a.on("close", () => sockets.delete(a));
      a.on("error", () => b.destroy());
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("a browser restart", () => {
  test("the extension is still paired after the browser restarts, and shares the allowed site again", async () => {
    const first = await launchWithExtension([], { keepProfile: true });
    const ch = await createChannel("restart e2e");
    let restarted: ExtensionBrowser | undefined;
    try {
      const page = await first.context.newPage();
      await page.goto(`chrome-extension://${first.extensionId}/popup.html`);
      const ask = (r: Record<string, unknown>) => page.evaluate((r) => chrome.runtime.sendMessage(r), r);
      expect(await ask({ type: "ui:set-hub", url: hubUrl })).toEqual({ ok: true });
      expect(await ask({ type: "ui:pair", code: ch.pairingCode })).toMatchObject({ ok: true });
      expect(await ask({ type: "ui:site", origin: siteA, decision: "always" })).toEqual({ ok: true });
      await first.close();

      restarted = await launchWithExtension([], { userDataDir: first.userDataDir });
      const restartedAgent = await Agent.connect(ch);
      try {
        const doc = await restarted.context.newPage();
        await doc.goto(`${siteA}/document.html`);
        await expect.poll(() => restartedAgent.names()).toEqual(["broken", "hang", "search"]);
        expect((await restartedAgent.call("search", { q: "restart" })).structuredContent).toEqual({
          results: ["restart", siteA],
        });
      } finally {
        await restartedAgent.client.close();
      }
    } finally {
      await restarted?.close();
    }
  });
});

describe("the hub going away", () => {
  let other: ExtensionBrowser;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  afterAll(async () => {
    await other?.close();
    await proxy?.close();
  });

  test("mid-call: the agent gets isError at once, and the extension reconnects with backoff and relays the tab again", async () => {
    proxy = await cuttableProxy(new URL(hubUrl));
    other = await launchWithExtension();
    const page = await other.context.newPage();
    await page.goto(`chrome-extension://${other.extensionId}/popup.html`);
    const ask = (r: Record<string, unknown>) => page.evaluate((r) => chrome.runtime.sendMessage(r), r);
    const ch = await createChannel("hub away e2e");
    expect(await ask({ type: "ui:set-hub", url: proxy.url })).toEqual({ ok: true });
    expect(await ask({ type: "ui:pair", code: ch.pairingCode })).toMatchObject({ ok: true });
    expect(await ask({ type: "ui:site", origin: siteA, decision: "always" })).toEqual({ ok: true });
    const direct = await Agent.connect(ch); // the agent reaches the hub itself, not through the proxy
    try {
      const doc = await other.context.newPage();
      await doc.goto(`${siteA}/document.html`);
      await expect.poll(() => direct.names()).toContain("hang");

      const pending = direct.call("hang");
      await doc.waitForFunction(
        () => (window as unknown as { hangingSignal: unknown }).hangingSignal !== null,
      );
      proxy.cut();
      const result = await pending;
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("disconnected");
      // The page's call was stopped too: its signal aborted when the extension lost the hub.
      await doc.waitForFunction(
        () => (window as unknown as { hangingSignal: AbortSignal }).hangingSignal.aborted,
      );
      await expect.poll(() => direct.names()).toEqual([]);

      proxy.restore();
      await expect.poll(() => direct.names(), { timeout: 20_000 }).toEqual(["broken", "hang", "search"]);
      expect((await direct.call("search", { q: "back" })).structuredContent).toEqual({
        results: ["back", siteA],
      });
    } finally {
      await direct.client.close();
    }
  });
});

describe("in a Chromium with its own WebMCP (--enable-blink-features=WebMCP)", () => {
  let native: ExtensionBrowser;
  let nativeChannel: Channel;
  let nativeAgent: Agent;
  beforeAll(async () => {
    native = await launchWithExtension(["--enable-blink-features=WebMCP"]);
    const page = await native.context.newPage();
    await page.goto(`chrome-extension://${native.extensionId}/popup.html`);
    await page.evaluate((url) => chrome.runtime.sendMessage({ type: "ui:set-hub", url }), hubUrl);
    nativeChannel = await createChannel("native e2e");
    await page.evaluate(
      (code) => chrome.runtime.sendMessage({ type: "ui:pair", code }),
      nativeChannel.pairingCode,
    );
    await page.evaluate(
      (origin) => chrome.runtime.sendMessage({ type: "ui:site", origin, decision: "always" }),
      siteA,
    );
    nativeAgent = await Agent.connect(nativeChannel);
  });
  afterAll(async () => {
    await nativeAgent?.client.close();
    await native?.close();
  });

  test("a tool registered with the browser's own document.modelContext is listed and called by the agent", async () => {
    const page = await native.context.newPage();
    await page.goto(`${siteA}/native.html`);
    expect(await page.evaluate(() => (window as unknown as { isNative: boolean }).isNative)).toBe(true);
    await expect.poll(() => nativeAgent.names()).toEqual(["native-tool"]);
    const result = await nativeAgent.call("native-tool", { word: "hi" });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("native says hi");
  });
});
