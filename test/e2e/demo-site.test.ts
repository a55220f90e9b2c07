// The demo site in Chromium: its pages register, through WebMCP, exactly the tools its manifest lists, and
// the tools run the pages' own code. Chromium has no WebMCP yet; each page embeds the hub's /bridge.js, which
// provides it, and these tests call the tools the way an in-page agent would: document.modelContext's
// getTools() and executeTool() (the relay to a remote agent is test/e2e/bridge-relay.test.ts).
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
  annotations?: Record<string, unknown>;
  pages?: string[];
  cloud?: boolean;
}

type CallOutcome = { ok: true; result: unknown } | { ok: false; error: string };

/** A tool as document.modelContext.getTools() gives it (WebMCP's RegisteredTool). */
interface PageTool {
  name: string;
  title: string;
  description: string;
  inputSchema?: unknown;
  annotations?: Record<string, boolean>;
}

declare global {
  interface Document {
    modelContext: {
      getTools(): Promise<PageTool[]>;
      executeTool(tool: PageTool, input: unknown): Promise<string | null>;
    };
  }
}

/** What the page registered, in the manifest's terms (no title → none; only the hints that are set). */
const registered = (page: Page) =>
  page.evaluate(async () =>
    (await document.modelContext.getTools()).map(({ name, title, description, inputSchema, annotations }) => {
      const hints = Object.entries(annotations ?? {}).filter(([, on]) => on);
      return {
        name,
        ...(title ? { title } : {}),
        description,
        // getTools() gives the schema as JSON text (as WPT reads it); the manifest holds it as JSON.
        inputSchema: typeof inputSchema === "string" ? (JSON.parse(inputSchema) as unknown) : inputSchema,
        ...(hints.length ? { annotations: Object.fromEntries(hints) } : {}),
      };
    }),
  );

/** Runs a tool with executeTool(); its result (JSON text, or the string the tool returned) is parsed. */
const call = (page: Page, name: string, input: unknown): Promise<CallOutcome> =>
  page.evaluate(
    async ([n, i]) => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === n);
      if (!tool) return { ok: false as const, error: `no tool ${n}` };
      try {
        const text = await document.modelContext.executeTool(tool, i);
        let result: unknown = text;
        try {
          result = JSON.parse(text ?? "null");
        } catch {
          // a string result
        }
        return { ok: true as const, result };
      } catch (e) {
        return { ok: false as const, error: e instanceof Error ? e.message : String(e) };
      }
    },
    [name, input] as const,
  );

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

  /** Opens a page; `bridge: false` blocks /bridge.js, as on a site that does not embed the hub. */
  async function open(path: string, { bridge = true } = {}): Promise<Page> {
    const page = await browser.newPage();
    page.on("pageerror", (e) => pageErrors.push(`${path}: ${e.message}`));
    if (!bridge) await page.route(`${hubUrl}/bridge.js`, (route) => route.abort());
    const res = await page.goto(demoOrigin + path);
    expect(res?.status()).toBe(200);
    return page;
  }

  it("each page registers the tools the manifest lists for it, with the manifest's schemas and hints", async () => {
    const seen = new Set<string>();
    for (const path of [
      "/",
      "/stamps.html",
      "/shop.html",
      "/templates.html",
      "/reading.html",
      "/booking.html",
    ]) {
      const page = await open(path);
      if (path === "/templates.html")
        await page.getByRole("button", { name: "Open in editor" }).first().click();
      const tools = await registered(page);
      // getTools() has no outputSchema (WebMCP's RegisteredTool has none); the relay test checks it.
      const expected = manifest
        .filter((t) => t.pages?.includes(path))
        .map(({ pages: _pages, outputSchema: _output, cloud: _cloud, ...tool }) => tool);
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

  it("the booking form is a declarative tool: executeTool fills it in and submits it, and the page answers", async () => {
    const page = await open("/booking.html");
    const outcome = await call(page, "book-table", {
      name: "Grace",
      date: "2026-12-24",
      time: "20:00",
      guests: 4,
    });
    expect(outcome).toEqual({
      ok: true,
      result: "Booked a table for 4 on 2026-12-24 at 20:00, under Grace.",
    });
    expect(await page.locator("#bookingList").textContent()).toContain("under Grace");
    const invalid = await call(page, "book-table", {
      name: "Grace",
      date: "2026-12-24",
      time: "20:00",
      guests: 40,
    });
    expect(invalid.ok).toBe(false);
    expect(await page.locator("#bookingList li").count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("without the bridge (no WebMCP) the pages work as ordinary pages and say WebMCP is missing", async () => {
    const page = await open("/stamps.html", { bridge: false });
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

  it("serves pages that embed the bridge of the hub the site is published on", async () => {
    for (const path of [
      "/",
      "/stamps.html",
      "/shop.html",
      "/templates.html",
      "/reading.html",
      "/booking.html",
    ]) {
      const html = await (await fetch(demoOrigin + path)).text();
      expect(html, path).toContain(`<script src="${hubUrl}/bridge.js"></script>`);
      expect(html, path).toContain("<webmcp-hub-widget>");
      expect(html, path).not.toContain("{{");
    }
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
