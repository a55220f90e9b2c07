/// <reference types="chrome" />
// The extension relays a tab's frames, as /bridge.js does (frames.ts): real Chromium with the unpacked
// extension, paired with a channel on the real hub, and an MCP SDK client (the agent) on the channel's MCP URL.
// The pages carry no script of ours: a top page on http://127.0.0.1:PORT with a same-origin iframe, an
// about:srcdoc iframe, a cross-origin iframe on http://localhost:PORT (both loopback, both secure contexts)
// with allow="tools" whose tools are exposedTo the top's origin (one is not, and stays out), and a
// cross-origin iframe without allow="tools" (it takes no part, as on native). Each test runs on the
// extension's polyfill and on Chromium's own WebMCP (--enable-blink-features=WebMCP), where install.ts mirrors
// the frames' tools natively. What it proves: every frame gets WebMCP from the extension (all_frames,
// match_origin_as_fallback for about:srcdoc); the agent lists the top's and the frames' tools, frame tools
// with their frame's origin in _meta, the tab labelled with the top's origin; it calls the cross-origin
// tools, the one that is not read-only after approval in the extension's window, which names the frame;
// removing an iframe withdraws its tools; /bridge.js in the page and its frames stands aside (one provider).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Frame, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from "vitest";
import { launchWithExtension, type ExtensionBrowser } from "./browser.js";
import { api, createChannel, type Channel } from "./hub-api.js";

const hubUrl = inject("hubUrl");

let server: Server;
/** The top page's origin, and the cross-origin frames'. */
let SELF = "";
let OTHER = "";

/** /bridge.js from the hub, in every page of a "?bridge" URL (the frames' URLs carry the query on). */
const bridgeTag = (url: URL) =>
  url.searchParams.has("bridge") ? `<script src="${hubUrl}/bridge.js"></script>` : "";

/** Every page logs its uncaught errors where the test can read them (frames included). */
const HEAD = `<!doctype html><meta charset="utf-8"><script>
window.errors = [];
addEventListener("error", (e) => errors.push(e.message));
addEventListener("unhandledrejection", (e) => errors.push(String(e.reason)));
</script>`;

function pageFor(url: URL): string | undefined {
  const query = url.search;
  const tag = bridgeTag(url);
  switch (url.pathname) {
    case "/top.html":
      return `${HEAD}<title>top</title>${tag}<script>
document.modelContext.registerTool({
  name: "top-lookup",
  description: "Looks a word up in the top page",
  inputSchema: { type: "object", properties: { word: { type: "string" } } },
  annotations: { readOnlyHint: true },
  execute: ({ word }) => "top knows " + word,
});
</script>
<iframe id="same" src="/same.html${query}"></iframe>
<iframe id="srcdoc" srcdoc="<script>document.modelContext.registerTool({ name: 'srcdoc-note', description: 'A note of the srcdoc frame', annotations: { readOnlyHint: true }, execute: () => 'srcdoc in ' + origin })</script>"></iframe>
<iframe id="cross" allow="tools" src="${OTHER}/cross.html${query}"></iframe>
<iframe id="denied" src="${OTHER}/denied.html${query}"></iframe>`;
    case "/same.html":
      return `${HEAD}<title>same</title>${tag}<script>
document.modelContext.registerTool({
  name: "same-echo",
  description: "Echoes in the same-origin frame",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  annotations: { readOnlyHint: true },
  execute: ({ text }) => "same echoes " + text,
});
</script>`;
    case "/cross.html":
      return `${HEAD}<title>cross</title>${tag}<script>
window.orders = [];
const topOrigin = ${JSON.stringify(SELF)};
document.modelContext.registerTool({
  name: "cross-quote",
  description: "Quotes a price in the cross-origin frame",
  inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
  annotations: { readOnlyHint: true },
  execute: ({ item }) => ({ item, price: 3, ranIn: origin }),
}, { exposedTo: [topOrigin] });
document.modelContext.registerTool({
  name: "cross-order",
  description: "Orders an item in the cross-origin frame",
  inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
  execute: ({ item }) => { orders.push(item); return "ordered " + item + " in " + origin; },
}, { exposedTo: [topOrigin] });
document.modelContext.registerTool({
  name: "cross-private",
  description: "Not exposed to the top's origin",
  annotations: { readOnlyHint: true },
  execute: () => "private",
});
</script>`;
    case "/denied.html":
      // No allow="tools" on its iframe: native refuses the registration (NotAllowedError); the polyfill's
      // frame layer leaves the frame out. Either way the tool is never relayed.
      return `${HEAD}<title>denied</title>${tag}<script>
window.refused = null;
Promise.resolve(document.modelContext?.registerTool({
  name: "denied-tool",
  description: "Its frame is not allowed the tools feature",
  annotations: { readOnlyHint: true },
  execute: () => "denied",
}, { exposedTo: [${JSON.stringify(SELF)}] })).catch((e) => { window.refused = e.name; });
</script>`;
  }
  return undefined;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const page = pageFor(new URL(req.url ?? "/", "http://x"));
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((r) => server.listen(0, r)); // every interface: 127.0.0.1 and localhost
  const { port } = server.address() as AddressInfo;
  SELF = `http://127.0.0.1:${port}`;
  OTHER = `http://localhost:${port}`;
});
// The browser (closed after this) keeps connections alive: end them, or close() waits for their timeout.
afterAll(() => new Promise((r) => (server.close(r), server.closeAllConnections())));

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("");

/** What the agent sees of a tool's provider (`_meta["webmcp-hub/provider"]`). */
interface Provider {
  origin?: string;
  frameOrigin?: string;
}

const ALL = ["cross-order", "cross-quote", "same-echo", "srcdoc-note", "top-lookup"];

// On Chromium's own WebMCP only the first test runs: with --enable-blink-features=WebMCP, Chromium 156 with the
// extension and cross-origin frames sometimes closes the whole browser in the middle of the later tests (the
// context closes; the polyfill never does, and the same pages without the extension never do). Frames' tools
// on native are also relayed and withdrawn through /bridge.js in e2e bridge-native. README "Known issues".
describe.each([
  { mode: "the extension's polyfill", args: [] as string[] },
  { mode: "Chromium's own WebMCP", args: ["--enable-blink-features=WebMCP"] },
])("a tab with frames, on $mode", ({ args }) => {
  const allTests = args.length === 0;
  let browser: ExtensionBrowser;
  let ext: Page;
  let channel: Channel;
  let agent: Client;

  const names = async () => (await agent.listTools()).tools.map((t) => t.name).sort();
  const providers = async () =>
    Object.fromEntries(
      (await agent.listTools()).tools.map((t) => [t.name, t._meta?.["webmcp-hub/provider"] as Provider]),
    );
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await agent.callTool({ name, arguments: args })) as ToolResult;

  async function open(path: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`${SELF}${path}`);
    return page;
  }

  const frame = (page: Page, id: string): Promise<Frame> =>
    page
      .$(`#${id}`)
      .then((el) => el!.contentFrame())
      .then((f) => f!);

  /** Errors every document of the page caught (window.errors), by frame URL. */
  const pageErrors = async (page: Page) => {
    const out: Record<string, string[]> = {};
    for (const f of page.frames()) {
      const errors = await f.evaluate(() => (window as unknown as { errors?: string[] }).errors ?? []);
      if (errors.length) out[f.url()] = errors;
    }
    return out;
  };

  beforeAll(async () => {
    browser = await launchWithExtension(args);
    ext = await browser.context.newPage();
    await ext.goto(`chrome-extension://${browser.extensionId}/popup.html`);
    const ask = (r: Record<string, unknown>) => ext.evaluate((r) => chrome.runtime.sendMessage(r), r);
    expect(await ask({ type: "ui:set-hub", url: hubUrl })).toEqual({ ok: true });
    channel = await createChannel("extension frames e2e");
    expect(await ask({ type: "ui:pair", code: channel.pairingCode })).toMatchObject({ ok: true });
    expect(await ask({ type: "ui:site", origin: SELF, decision: "always" })).toEqual({ ok: true });
    agent = new Client({ name: "extension-frames-agent", version: "1.0.0" });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(channel.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${channel.agentToken}` } },
      }),
    );
  });

  afterEach(async () => {
    for (const page of browser.context.pages()) if (page !== ext) await page.close();
    await expect.poll(names).toEqual([]);
  });

  afterAll(async () => {
    await agent?.close();
    await browser?.close();
  });

  test("the agent lists the top's and its frames' tools (frame tools with their frame's origin) and calls the cross-origin ones, approving the one that is not read-only in the extension's window", async () => {
    const page = await open("/top.html");
    await expect.poll(names).toEqual(ALL);

    // WebMCP in every frame came from the extension: no /bridge.js anywhere.
    for (const f of page.frames())
      expect(
        await f.evaluate(() => [
          typeof (document as unknown as { modelContext?: object }).modelContext,
          typeof (window as unknown as { webmcpHub?: object }).webmcpHub,
        ]),
      ).toEqual(["object", "undefined"]);
    const native = await page.evaluate(() => {
      const getter = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get;
      return !!getter && /\[native code\]/.test(Function.prototype.toString.call(getter));
    });
    expect(native).toBe(args.length > 0);

    // One provider, labelled with the tab's origin; frameOrigin on the frames' tools only.
    const seen = await providers();
    for (const name of ALL) expect(seen[name]?.origin).toBe(SELF);
    expect(seen["top-lookup"]?.frameOrigin).toBeUndefined();
    expect(seen["same-echo"]?.frameOrigin).toBe(SELF);
    expect(seen["srcdoc-note"]?.frameOrigin).toBe(SELF);
    expect(seen["cross-quote"]?.frameOrigin).toBe(OTHER);
    expect(seen["cross-order"]?.frameOrigin).toBe(OTHER);
    // Not exposed to the top's origin, or in a frame not allowed the tools feature: never relayed.
    if (args.length > 0)
      await expect
        .poll(() =>
          frame(page, "denied").then((f) =>
            f.evaluate(() => (window as unknown as { refused: string | null }).refused),
          ),
        )
        .toBe("NotAllowedError");

    // Read-only: runs at once, in the cross-origin frame.
    const quote = await call("cross-quote", { item: "tea" });
    expect(quote.isError).toBeFalsy();
    expect(quote.structuredContent).toEqual({ item: "tea", price: 3, ranIn: OTHER });
    expect(text(await call("same-echo", { text: "hi" }))).toBe("same echoes hi");
    expect(text(await call("srcdoc-note"))).toBe(`srcdoc in ${SELF}`);
    expect(text(await call("top-lookup", { word: "frame" }))).toBe("top knows frame");

    // Not read-only: the extension's approval window names the site and the frame, then it runs there.
    const opened = browser.context.waitForEvent("page", (p) => p.url().includes("/approval.html"));
    const ordered = call("cross-order", { item: "cups" });
    const approval = await opened;
    await expect.poll(() => approval.locator("#frame").textContent()).toBe(OTHER);
    expect(await approval.locator("#site").textContent()).toBe(SELF);
    expect(await approval.locator("#frame").isVisible()).toBe(true);
    const closed = approval.waitForEvent("close");
    await approval.bringToFront();
    await approval
      .getByRole("button", { name: "Approve" })
      .click()
      .catch((e: unknown) => {
        if (!approval.isClosed()) throw e; // the window closes itself once the service worker has the answer
      });
    await closed;
    const result = await ordered;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(`ordered cups in ${OTHER}`);
    const cross = await frame(page, "cross");
    expect(await cross.evaluate(() => (window as unknown as { orders: string[] }).orders)).toEqual(["cups"]);

    expect(await pageErrors(page)).toEqual({});
  });

  if (allTests)
    test("removing an iframe withdraws its tools from the agent", async () => {
      const page = await open("/top.html");
      await expect.poll(names).toEqual(ALL);
      await page.evaluate(() => document.getElementById("cross")!.remove());
      await expect.poll(names).toEqual(["same-echo", "srcdoc-note", "top-lookup"]);
      await page.evaluate(() => document.getElementById("same")!.remove());
      await expect.poll(names).toEqual(["srcdoc-note", "top-lookup"]);
      // The hub no longer knows a tool whose frame went.
      await expect(call("cross-quote", { item: "tea" })).rejects.toThrow(/Unknown tool: cross-quote/);
    });

  if (allTests)
    test("/bridge.js in the page and in its frames stands aside: one provider, each tool once, calls still work", async () => {
      const page = await open("/top.html?bridge");
      await expect.poll(names).toEqual(ALL);
      for (const id of ["same", "cross"]) {
        const f = await frame(page, id);
        await expect
          .poll(() =>
            f.evaluate(() => (window as unknown as { webmcpHub?: { status: string } }).webmcpHub?.status),
          )
          .toBe("extension");
      }
      await expect
        .poll(() =>
          page.evaluate(() => (window as unknown as { webmcpHub?: { status: string } }).webmcpHub?.status),
        )
        .toBe("extension");
      const { body } = await api(`/api/channels/${channel.id}`, { token: channel.ownerKey });
      expect((body.providers as { origin: string }[]).map((p) => p.origin)).toEqual([SELF]);
      expect((await call("cross-quote", { item: "jam" })).structuredContent).toEqual({
        item: "jam",
        price: 3,
        ranIn: OTHER,
      });
      expect(await pageErrors(page)).toEqual({});
    });
});
