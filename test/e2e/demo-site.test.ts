// The demo site in Chromium: its pages register, through the seed-era navigator.modelContext API, exactly
// the tools its manifest lists, and the tools run the pages' own code. Chromium has no WebMCP yet, so a
// small recorder with the seed API's semantics (provideContext replaces, registerTool throws on a
// duplicate name) is installed before the page's scripts; the hub's bridge will take its place.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { request } from "node:http";
import type { Page } from "playwright-core";
import { launchBrowser, type E2EBrowser } from "./browser.js";

const demoOrigin = inject("demoOrigin");
const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");

interface ManifestTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  pages?: string[];
}

type CallOutcome = { ok: true; result: unknown } | { ok: false; error: string };

declare global {
  interface Window {
    __webmcpRecorder: {
      tools(): Array<Omit<ManifestTool, "pages">>;
      call(name: string, input: unknown): Promise<CallOutcome>;
    };
  }
}

/** Runs in the page before its scripts: a navigator.modelContext that records what the page registers. */
function installRecorder() {
  type Tool = {
    name: string;
    title?: string;
    description: string;
    inputSchema?: unknown;
    outputSchema?: unknown;
    annotations?: unknown;
    execute: (input: unknown, client: unknown) => unknown;
  };
  const tools = new Map<string, Tool>();
  const modelContext = {
    provideContext({ tools: list = [] }: { tools?: Tool[] } = {}) {
      tools.clear();
      for (const tool of list) tools.set(tool.name, tool);
    },
    clearContext() {
      tools.clear();
    },
    registerTool(tool: Tool) {
      if (tools.has(tool.name))
        throw new DOMException(`A tool named ${tool.name} exists`, "InvalidStateError");
      tools.set(tool.name, tool);
    },
    unregisterTool(name: string) {
      tools.delete(name);
    },
  };
  Object.defineProperty(Navigator.prototype, "modelContext", { get: () => modelContext, configurable: true });
  window.__webmcpRecorder = {
    tools: () =>
      [...tools.values()].map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
        annotations,
      })),
    async call(name, input) {
      const tool = tools.get(name);
      if (!tool) return { ok: false, error: `no tool ${name}` };
      const client = {
        signal: new AbortController().signal,
        requestUserInteraction: (callback: () => Promise<unknown>) => callback(),
      };
      try {
        return { ok: true, result: await tool.execute(input, client) };
      } catch (e) {
        return { ok: false, error: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}

async function loadManifest(): Promise<ManifestTool[]> {
  const res = await fetch(`${demoOrigin}/.well-known/webmcp.json`);
  expect(res.headers.get("content-type")).toContain("application/json");
  return ((await res.json()) as { tools: ManifestTool[] }).tools;
}

/** GET with the path sent exactly as written (fetch would normalize the dot segments away). */
function rawGetStatus(origin: string, path: string): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    request({ hostname, port, path, method: "GET" }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on("error", reject)
      .end();
  });
}

const withoutPages = ({ pages: _pages, ...tool }: ManifestTool) => tool;
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

describe("the demo site in Chromium", () => {
  let browser: E2EBrowser;
  let manifest: ManifestTool[];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    manifest = await loadManifest();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(path: string, { webmcp = true } = {}): Promise<Page> {
    const page = await browser.newPage();
    page.on("pageerror", (e) => pageErrors.push(`${path}: ${e.message}`));
    if (webmcp) await page.addInitScript(installRecorder);
    const res = await page.goto(demoOrigin + path);
    expect(res?.status()).toBe(200);
    return page;
  }

  const registered = (page: Page) => page.evaluate(() => window.__webmcpRecorder.tools());
  const call = (page: Page, name: string, input: unknown) =>
    page.evaluate(([n, i]) => window.__webmcpRecorder.call(n, i), [name, input] as const);

  it("each page registers the tools the manifest lists for it, with the manifest's schemas and hints", async () => {
    const seen = new Set<string>();
    for (const path of ["/", "/stamps.html", "/shop.html", "/templates.html"]) {
      const page = await open(path);
      if (path === "/templates.html")
        await page.getByRole("button", { name: "Open in editor" }).first().click();
      const tools = await registered(page);
      const expected = manifest.filter((t) => t.pages?.includes(path)).map(withoutPages);
      expect(tools.sort(byName), path).toEqual(expected.sort(byName));
      for (const t of tools) seen.add(t.name);
      await page.close();
    }
    expect([...seen].sort()).toEqual(manifest.map((t) => t.name).sort());
    expect(pageErrors).toEqual([]);
  });

  it("the template editor registers edit-design only while a design is open", async () => {
    const page = await open("/templates.html");
    const names = async () => (await registered(page)).map((t) => t.name).sort();
    expect(await names()).toEqual(["filter-templates"]);
    await page.getByRole("button", { name: "Open in editor" }).first().click();
    expect(await names()).toEqual(["edit-design", "filter-templates"]);
    await page.getByRole("button", { name: "Open in editor" }).nth(1).click();
    expect(await names()).toEqual(["edit-design", "filter-templates"]);

    const edited = await call(page, "edit-design", {
      instructions: 'background to navy; title to "Hi there"',
    });
    expect(edited.ok).toBe(true);
    expect(await page.locator("#designTitle").textContent()).toBe("Hi there");
    const vague = await call(page, "edit-design", { instructions: "make it nicer" });
    expect(vague).toMatchObject({ ok: false, error: expect.stringContaining("background to navy") });

    await page.getByRole("button", { name: "Close editor" }).click();
    expect(await names()).toEqual(["filter-templates"]);
    const filtered = await call(page, "filter-templates", { description: "birthday" });
    expect(filtered).toMatchObject({ ok: true, result: { content: [{ text: "Showing Birthday card." }] } });
    expect(await page.locator("#templateList li").count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("add-stamp runs the page's own addStamp, so the stamp appears in the collection", async () => {
    const page = await open("/stamps.html");
    const outcome = await call(page, "add-stamp", {
      name: "Blue Mauritius",
      description: "One of the rarest stamps",
      year: 1847,
    });
    expect(outcome).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: 'Stamp "Blue Mauritius" added! Collection: 3 stamps.' }] },
    });
    expect(await page.locator("#stampList").textContent()).toContain("Blue Mauritius (1847)");
    expect(await page.locator("#confirmationMessage").textContent()).toBe(
      'Stamp "Blue Mauritius" added successfully!',
    );
    await page.close();
  });

  it("buyProduct buys only after the user confirms in the page", async () => {
    const page = await open("/shop.html");
    let answer = false;
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void (answer ? dialog.accept() : dialog.dismiss());
    });

    const declined = await call(page, "buyProduct", { product_id: "dress-002" });
    expect(declined).toEqual({ ok: false, error: "Purchase cancelled by user." });
    expect(await page.locator("#orderList li").count()).toBe(0);

    answer = true;
    const bought = await call(page, "buyProduct", { product_id: "dress-002" });
    expect(bought).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: "Product dress-002 purchased." }] },
    });
    expect(await page.locator("#orderList").textContent()).toContain("Wrap dress (dress-002)");
    expect(dialogs).toHaveLength(2);
    expect(dialogs[0]).toContain("Buy product dress-002");

    const unknown = await call(page, "buyProduct", { product_id: "nope" });
    expect(unknown).toMatchObject({ ok: false, error: expect.stringContaining("get-dresses") });
    expect(dialogs).toHaveLength(2);
    await page.close();
  });

  it("get-dresses returns the matching products and changes nothing on the page", async () => {
    const page = await open("/shop.html");
    const before = await page.locator("main").innerHTML();
    const outcome = await call(page, "get-dresses", { size: 8 });
    expect(outcome.ok).toBe(true);
    const result = (outcome as { result: { structuredContent: { products: Array<{ product_id: string }> } } })
      .result;
    expect(result.structuredContent.products.map((p) => p.product_id)).toEqual(["dress-001", "dress-004"]);
    expect(await page.locator("main").innerHTML()).toBe(before);
    await page.close();
  });

  it("without WebMCP the pages work as ordinary pages and say WebMCP is missing", async () => {
    const page = await open("/stamps.html", { webmcp: false });
    expect(await page.evaluate(() => "modelContext" in navigator)).toBe(false);
    expect(await page.locator("#webmcp-status").textContent()).toContain("no WebMCP");
    await page.getByLabel("Name").fill("Basel Dove");
    await page.getByLabel("Description").fill("A Swiss stamp with an embossed dove");
    await page.getByLabel("Year issued").fill("1845");
    await page.getByRole("button", { name: "Add stamp" }).click();
    expect(await page.locator("#stampList").textContent()).toContain("Basel Dove (1845)");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe("the demo site over HTTP", () => {
  it("serves its manifest at /.well-known/webmcp.json, and the hub publishes that manifest", async () => {
    const served = await loadManifest();
    const res = await fetch(`${hubUrl}/api/sites/${encodeURIComponent(demoHost)}/manifest`);
    expect(res.status).toBe(200);
    const published = (await res.json()) as { current: boolean; manifest: { tools: ManifestTool[] } };
    expect(published.current).toBe(true);
    expect(published.manifest.tools).toEqual(served);
  });

  it("answers the ownership check only while a verification is in progress", async () => {
    const res = await fetch(`${demoOrigin}/.well-known/webmcp-hub-verify`);
    expect(res.status).toBe(404);
  });

  it("refuses paths outside web/demo, however they are spelt", async () => {
    const paths = ["/../package.json", "/..%2fpackage.json", "/js/..%2F..%2F..%2Fpackage.json", "/%00"];
    for (const path of paths) expect(await rawGetStatus(demoOrigin, path), path).toBe(404);
    expect(await rawGetStatus(demoOrigin, "/js/common.js")).toBe(200);
  });
});
