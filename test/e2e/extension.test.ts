// The browser extension, unpacked in a real Chromium: pages with no script tag of ours register WebMCP tools
// (seed-era navigator.modelContext, current document.modelContext with an AbortSignal, a declarative form,
// Chromium's own document.modelContext behind --enable-blink-features=WebMCP) and the extension's
// service worker sees them per tab, labelled with the tab's real origin; withdrawing them (unregister, abort,
// navigation, closing the tab) reaches it, a page that also embeds /bridge.js still has one registry, and a
// page's forged messages reach nobody. dist/extension/ is built by the e2e global setup (scripts/lib/bundles.mjs).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { launchWithExtension, type ExtensionBrowser } from "./browser.js";

/** shared/seeds/000's examples 1, 3 and 5, as a site writes them: navigator.modelContext, no script of ours. */
const SEED_PAGE = `<!doctype html><title>stamps</title><script>
navigator.modelContext.provideContext({
  tools: [{
    name: "greet",
    description: "Greets the user",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    execute: ({ name }) => ({ content: [{ type: "text", text: "Hello, " + name + "!" }] }),
  }],
});
navigator.modelContext.registerTool({
  name: "buyProduct",
  description: "Use this tool to purchase a product given its unique product_id.",
  inputSchema: { type: "object", properties: { product_id: { type: "string" } }, required: ["product_id"] },
  execute: async ({ product_id }, agent) => {
    await agent.requestUserInteraction(async () => true);
    return "Product " + product_id + " purchased.";
  },
});
navigator.modelContext.registerTool({
  name: "get-dresses",
  description: "Returns an array of product listings",
  inputSchema: { type: "object", properties: { size: { type: "number" } } },
  annotations: { readOnlyHint: true },
  execute: async () => ({ products: [] }),
});
</script>`;

/** The current draft: document.modelContext.registerTool(tool, {signal}); window.stopSearch() aborts it. */
const DOCUMENT_PAGE = `<!doctype html><title>search</title><script>
const registration = new AbortController();
document.modelContext.registerTool({
  name: "search",
  title: "Search the catalogue",
  description: "Finds products by keyword",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  annotations: { readOnlyHint: true },
  execute: async ({ q }) => ({ results: [q] }),
}, { signal: registration.signal });
window.stopSearch = () => registration.abort();
</script>`;

/** A site that also embeds /bridge.js from the hub, then registers one tool through each API generation. */
/** Declarative WebMCP: a form is a tool, with no script at all. */
const FORM_PAGE = `<!doctype html><title>newsletter</title>
<form toolname="subscribe" tooldescription="Subscribes an address to the newsletter">
  <input name="email" type="email" required toolparamdescription="The address to subscribe">
  <button>Subscribe</button>
</form>`;

/** Chromium's own document.modelContext (--enable-blink-features=WebMCP); no polyfill may stand in for it. */
const NATIVE_PAGE = `<!doctype html><title>native</title><script>
const getter = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get;
window.isNative = !!getter && /\\[native code\\]/.test(Function.prototype.toString.call(getter));
const registration = new AbortController();
document.modelContext.registerTool({
  name: "native-tool",
  description: "Registered with the browser's own WebMCP",
  inputSchema: { type: "object", properties: {} },
  execute: () => "native",
}, { signal: registration.signal });
window.stopNative = () => registration.abort();
</script>`;

const bridgePage = (hubUrl: string) => `<!doctype html><title>both</title>
<script src="${hubUrl}/bridge.js"></script><script>
navigator.modelContext.registerTool({
  name: "seed-tool",
  description: "Registered through navigator.modelContext",
  execute: () => "seed",
});
document.modelContext.registerTool({
  name: "current-tool",
  description: "Registered through document.modelContext",
  execute: () => "current",
});
</script>`;

interface SeenTab {
  tabId: number;
  origin: string;
  revision: number;
  tools: {
    name: string;
    title?: string;
    description: string;
    inputSchema: Record<string, unknown>;
    annotations: Record<string, unknown>;
  }[];
}

let server: Server;
let origin: string;
let extension: ExtensionBrowser;
let context: BrowserContext;
let worker: Worker;

beforeAll(async () => {
  server = createServer((req, res) => {
    const pages: Record<string, string> = {
      "/seed.html": SEED_PAGE,
      "/document.html": DOCUMENT_PAGE,
      "/native.html": NATIVE_PAGE,
      "/form.html": FORM_PAGE,
      "/with-bridge.html": bridgePage(inject("hubUrl")),
    };
    const page = pages[req.url ?? ""] ?? null;
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  extension = await launchWithExtension();
  ({ context, worker } = extension);
});

afterAll(async () => {
  await extension?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** What the service worker holds, read in the service worker. */
const seenTabs = (w: Worker = worker) =>
  w.evaluate(() =>
    (globalThis as unknown as { webmcpHubExtension: { tabs(): SeenTab[] } }).webmcpHubExtension.tabs(),
  );

/** The browser's id for the tab showing `url`, asked of chrome.tabs in the service worker. */
const tabIdOf = (url: string, w: Worker = worker) =>
  w.evaluate(async (url) => {
    const tabs = await (
      globalThis as unknown as {
        chrome: { tabs: { query(q: object): Promise<{ id: number; url: string }[]> } };
      }
    ).chrome.tabs.query({});
    return tabs.find((t) => t.url === url)?.id;
  }, url);

/** The tool names the service worker holds for a tab (undefined: it knows no such tab). */
const namesFor = async (tabId: number, w: Worker = worker) =>
  (await seenTabs(w))
    .find((t) => t.tabId === tabId)
    ?.tools.map((t) => t.name)
    .sort();

async function open(path: string, on = { context, worker }): Promise<{ page: Page; tabId: number }> {
  const page = await on.context.newPage();
  await page.goto(`${origin}${path}`);
  const tabId = await tabIdOf(page.url(), on.worker);
  if (tabId === undefined) throw new Error(`chrome.tabs has no tab showing ${page.url()}`);
  return { page, tabId };
}

describe("the extension sees the tools of pages that carry no script of ours", () => {
  test("a seed-era page's provideContext and registerTool tools reach the service worker under the tab's real origin, and unregistering withdraws them", async () => {
    const { page, tabId } = await open("/seed.html");
    await expect.poll(() => namesFor(tabId)).toEqual(["buyProduct", "get-dresses", "greet"]);
    const tab = (await seenTabs()).find((t) => t.tabId === tabId)!;
    expect(tab.origin).toBe(origin);
    expect(tab.tools.find((t) => t.name === "get-dresses")?.annotations).toEqual({ readOnlyHint: true });

    await page.evaluate(() =>
      (
        navigator as unknown as { modelContext: { unregisterTool(n: string): void } }
      ).modelContext.unregisterTool("buyProduct"),
    );
    await expect.poll(() => namesFor(tabId)).toEqual(["get-dresses", "greet"]);

    await page.evaluate(() =>
      (navigator as unknown as { modelContext: { clearContext(): void } }).modelContext.clearContext(),
    );
    await expect.poll(() => namesFor(tabId)).toEqual([]);
    await page.close();
  });

  test("a document.modelContext tool registered with a signal is seen with its title, and aborting the signal withdraws it", async () => {
    const { page, tabId } = await open("/document.html");
    await expect.poll(() => namesFor(tabId)).toEqual(["search"]);
    const tab = (await seenTabs()).find((t) => t.tabId === tabId)!;
    expect(tab).toMatchObject({ origin, tools: [{ name: "search", title: "Search the catalogue" }] });

    await page.evaluate(() => (window as unknown as { stopSearch(): void }).stopSearch());
    await expect.poll(() => namesFor(tabId)).toEqual([]);
    await page.close();
  });

  test("a declarative form is seen as a tool with the schema of its controls, and removing the form withdraws it", async () => {
    const { page, tabId } = await open("/form.html");
    await expect.poll(() => namesFor(tabId)).toEqual(["subscribe"]);
    const tool = (await seenTabs()).find((t) => t.tabId === tabId)?.tools[0];
    expect(tool).toMatchObject({
      description: "Subscribes an address to the newsletter",
      inputSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
    });

    await page.evaluate(() => document.querySelector("form")?.remove());
    await expect.poll(() => namesFor(tabId)).toEqual([]);
    await page.close();
  });

  test("two tabs are kept apart, and closing a tab withdraws its tools", async () => {
    const seed = await open("/seed.html");
    const doc = await open("/document.html");
    await expect.poll(() => namesFor(seed.tabId)).toEqual(["buyProduct", "get-dresses", "greet"]);
    await expect.poll(() => namesFor(doc.tabId)).toEqual(["search"]);

    await doc.page.close();
    await expect.poll(() => namesFor(doc.tabId)).toBeUndefined();
    expect(await namesFor(seed.tabId)).toEqual(["buyProduct", "get-dresses", "greet"]);
    await seed.page.close();
  });

  test("navigating a tab withdraws the tools of the page it leaves, and the next page's tools take their place", async () => {
    const { page, tabId } = await open("/seed.html");
    await expect.poll(() => namesFor(tabId)).toEqual(["buyProduct", "get-dresses", "greet"]);

    await page.goto(`${origin}/document.html`);
    await expect.poll(() => namesFor(tabId)).toEqual(["search"]);

    await page.goto("about:blank"); // no content script here: the navigation alone withdraws them
    await expect.poll(() => namesFor(tabId)).toBeUndefined();
    await page.close();
  });

  test("a page that also embeds /bridge.js gets one registry: each tool is registered and seen once", async () => {
    const { page, tabId } = await open("/with-bridge.html");
    await page.waitForFunction(() => (window as unknown as { webmcpHub?: object }).webmcpHub !== undefined);
    await expect.poll(() => namesFor(tabId)).toEqual(["current-tool", "seed-tool"]);
    const pageSees = await page.evaluate(async () =>
      (
        await (
          document as unknown as { modelContext: { getTools(): Promise<{ name: string }[]> } }
        ).modelContext.getTools()
      ).map((t) => t.name),
    );
    expect(pageSees).toEqual(["current-tool", "seed-tool"]);
    await page.close();
  });

  test("a page that posts a forged handshake and forged tool lists does not change what the service worker sees", async () => {
    const { page, tabId } = await open("/document.html");
    await expect.poll(() => namesFor(tabId)).toEqual(["search"]);
    const before = (await seenTabs()).find((t) => t.tabId === tabId)!.revision;

    await page.evaluate(async () => {
      const forged = {
        type: "tools",
        origin: "https://bank.example",
        tools: [{ name: "steal", description: "forged", inputSchema: { type: "object" }, annotations: {} }],
      };
      const own = new MessageChannel();
      // Every window message the page posts is handled in order; the last one tells the page they all were.
      await new Promise<void>((resolve) => {
        addEventListener("message", function done(e) {
          if ((e.data as { forgeryDone?: boolean } | null)?.forgeryDone) {
            removeEventListener("message", done);
            resolve();
          }
        });
        postMessage({ source: "webmcp-hub-extension", type: "port" }, "*", [own.port2]);
        own.port1.postMessage(forged);
        postMessage(forged, "*");
        postMessage({ source: "webmcp-hub-extension", ...forged }, "*");
        postMessage({ forgeryDone: true }, "*");
      });
      // A real change after the forgeries: once the service worker shows it, the forgeries had their chance.
      await (
        document as unknown as { modelContext: { registerTool(t: object): Promise<unknown> } }
      ).modelContext.registerTool({
        name: "after-forgery",
        description: "Registered after the forged messages",
        execute: () => "ok",
      });
    });

    await expect.poll(() => namesFor(tabId)).toEqual(["after-forgery", "search"]);
    const tab = (await seenTabs()).find((t) => t.tabId === tabId)!;
    expect(tab.origin).toBe(origin);
    // Exactly one list arrived since: the page's real one. A forged list, even one replaced since, would count.
    expect(tab.revision).toBe(before + 1);
    expect((await seenTabs()).flatMap((t) => t.tools.map((tool) => tool.name))).not.toContain("steal");
    await page.close();
  });
});

describe("in a Chromium with its own WebMCP (--enable-blink-features=WebMCP)", () => {
  let native: ExtensionBrowser;
  beforeAll(async () => {
    native = await launchWithExtension(["--enable-blink-features=WebMCP"]);
  });
  afterAll(async () => {
    await native?.close();
  });

  test("the extension wraps the browser's own document.modelContext: a natively registered tool is seen, and aborting withdraws it", async () => {
    const { page, tabId } = await open("/native.html", native);
    expect(await page.evaluate(() => (window as unknown as { isNative: boolean }).isNative)).toBe(true);
    await expect.poll(() => namesFor(tabId, native.worker)).toEqual(["native-tool"]);
    expect((await seenTabs(native.worker)).find((t) => t.tabId === tabId)?.origin).toBe(origin);

    await page.evaluate(() => (window as unknown as { stopNative(): void }).stopNative());
    await expect.poll(() => namesFor(tabId, native.worker)).toEqual([]);
    await page.close();
  });
});
