// The dashboard in a real Chromium against `wrangler dev` (test/e2e/global-setup.ts): every page with real
// data, search and filters, the whole publish flow against a local origin, the channel console with the demo
// shop open in a second Chromium window (its /bridge.js paired with the console's code) connecting and its
// calls in the audit log, Try it end to end in that tab, keyboard-only search and publish, page weight,
// phone width, screenshots.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import type { ManifestTool } from "../../src/protocol/index.js";
import { startOrigin } from "./site-origin.js";
import { launchBrowser, PHONE, type E2EBrowser } from "./browser.js";
import { createChannelInUi } from "./hub-api.js";
import { setDemoCloud } from "./demo-cloud.js";

const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");
const demoOrigin = inject("demoOrigin");
const enc = encodeURIComponent;
/** expect.poll with room for a busy machine (the console refreshes every 3 s). */
const poll = <T>(fn: () => Promise<T> | T, options: { timeout?: number } = {}) =>
  expect.poll(fn, { timeout: 15_000, ...options });
const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();

async function getJson<T = any>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(hubUrl + path, init);
  return { status: res.status, body: (await res.json()) as T };
}

/**
 * The demo shop opened in the user's other browser window (its own profile) and paired through its
 * /bridge.js widget with `code`, as a user types it.
 */
async function openShopTab(code: string): Promise<E2EBrowser> {
  const tabBrowser = await launchBrowser();
  try {
    const tab = await tabBrowser.newPage();
    await tab.goto(`${demoOrigin}/shop.html`);
    await tab.waitForFunction(() => (window as { webmcpHub?: unknown }).webmcpHub !== undefined);
    const codeInput = tab.locator("webmcp-hub-widget").getByLabel("Pairing code");
    await codeInput.fill(code);
    await codeInput.press("Enter");
    await tab.waitForFunction(
      () => (window as { webmcpHub?: { status: string } }).webmcpHub?.status === "connected",
      undefined,
      { timeout: 15_000 },
    );
    return tabBrowser;
  } catch (e) {
    await tabBrowser.close();
    throw e;
  }
}

/** What the shop page's get-dresses finds for EU size 8 (web/demo/js/shop.js). */
const SIZE_8 = ["Linen summer dress", "Floral midi dress"];

let demoTools: ManifestTool[] = [];

/** Bytes of a page's HTML plus every stylesheet and script it loads (module imports included). */
async function pageWeight(path: string): Promise<{ total: number; parts: Record<string, number> }> {
  const parts: Record<string, number> = {};
  const html = await (await fetch(hubUrl + path)).text();
  parts[path] = Buffer.byteLength(html);
  const queue = [
    ...[...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]!),
    ...[...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!),
  ];
  while (queue.length) {
    const url = queue.shift()!;
    if (url in parts) continue;
    const res = await fetch(hubUrl + url);
    expect(res.status, `${url} loads`).toBe(200);
    const text = await res.text();
    parts[url] = Buffer.byteLength(text);
    if (url.endsWith(".js")) for (const m of text.matchAll(/from\s+"(\/assets\/[^"]+)"/g)) queue.push(m[1]!);
  }
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

/** Each row of a table as the squashed text of its cells. */
async function rowCells(table: ReturnType<Page["locator"]>): Promise<string[][]> {
  return table
    .locator("tbody tr")
    .evaluateAll((rows) =>
      rows.map((r) => Array.from(r.children, (c) => (c.textContent ?? "").replace(/\s+/g, " ").trim())),
    );
}

async function noSidewaysScroll(page: Page, what: string) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, `${what} scrolls sideways`).toBeLessThanOrEqual(0);
}

/** Presses Tab until the focused element matches `selector`; fails if it is not reachable. */
async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`${selector} cannot be reached with Tab`);
}

describe("the dashboard in Chromium", () => {
  let browser: E2EBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: hubUrl });
    const { body } = await getJson<{ manifest: { tools: ManifestTool[] } }>(
      `/api/sites/${enc(demoHost)}/manifest`,
    );
    demoTools = body.manifest.tools;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("the home page shows the registry's counts, its tools with badges, and the recently published sites", async () => {
    const { body: listing } = await getJson<{ sites: Array<{ name: string; toolCount: number }> }>(
      "/api/sites?limit=100",
    );
    const tools = listing.sites.reduce((n, s) => n + s.toolCount, 0);
    const page = await browser.newPage();
    expect((await page.goto(`${hubUrl}/`))?.status()).toBe(200);
    const sites = listing.sites.length;
    expect(squash(await page.locator(".counts").textContent())).toBe(
      `${sites} verified site${sites === 1 ? "" : "s"}, ${tools} tool${tools === 1 ? "" : "s"}.`,
    );
    const { body: first } = await getJson<{ tools: Array<{ name: string }> }>("/api/tools?limit=20");
    expect(await page.locator(".tool-card code").allTextContents()).toEqual(first.tools.map((t) => t.name));
    const dresses = page.locator(".tool-card", { has: page.locator("code", { hasText: /^get-dresses$/ }) });
    expect(await dresses.locator(".badge").allTextContents()).toEqual(["✓ verified", "read-only"]);
    const recent = squash(await page.getByRole("region", { name: "Recently published" }).textContent());
    expect(recent).toContain(`WebMCP demo site — ${demoTools.length} tools`);
    await page.close();
  });

  it("search shows the API's ranking, and the site and read-only filters narrow it", async () => {
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/`);
    await page.getByLabel("Search tools").fill("book");
    await Promise.all([page.waitForURL(/[?&]q=book\b/), page.getByLabel("Search tools").press("Enter")]);
    const { body: api } = await getJson<{ tools: Array<{ name: string }> }>("/api/tools?q=book");
    expect(api.tools.length).toBeGreaterThan(1);
    expect(await page.locator(".tool-card code").allTextContents()).toEqual(api.tools.map((t) => t.name));
    expect(await page.locator("#results-title").textContent()).toBe("Results for “book”");

    await page.getByLabel("What it may do").selectOption("true");
    await Promise.all([
      page.waitForURL(/readOnly=true/),
      page.getByRole("button", { name: "Search", exact: true }).click(),
    ]);
    const { body: ro } = await getJson<{ tools: Array<{ name: string }> }>("/api/tools?q=book&readOnly=true");
    expect(await page.locator(".tool-card code").allTextContents()).toEqual(ro.tools.map((t) => t.name));
    for (const card of await page.locator(".tool-card").all()) {
      expect(await card.locator(".badge.ro").textContent()).toBe("read-only");
    }

    await page.goto(`${hubUrl}/?site=${enc(demoHost)}&readOnly=false`);
    const names = await page.locator(".tool-card code").allTextContents();
    expect(names.sort()).toEqual(
      demoTools
        .filter((t) => t.annotations?.readOnlyHint !== true)
        .map((t) => t.name)
        .sort(),
    );
    expect(new Set(await page.locator(".tool-card .meta a").allTextContents())).toEqual(new Set([demoHost]));

    await page.goto(`${hubUrl}/?q=xylophonequartet`);
    expect(squash(await page.locator(".empty").textContent())).toContain("No tools match “xylophonequartet”");
    await browser.screenshot(page, "search-empty-desktop");
    await page.close();
  });

  it("pagination walks through every tool exactly once", async () => {
    const { body } = await getJson<{ tools: Array<{ site: string; name: string }> }>("/api/tools?limit=100");
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/?limit=3`);
    const seen: string[] = [];
    for (let i = 1; ; i++) {
      seen.push(...(await page.locator(".tool-card code").allTextContents()));
      const next = page.getByRole("link", { name: "Next page →" });
      if ((await next.count()) === 0) break;
      await Promise.all([page.waitForURL(new RegExp(`page=${i + 1}`)), next.click()]);
      expect(await page.locator(".pager .meta").textContent()).toBe(`Page ${i + 1}`);
    }
    expect(seen).toEqual(body.tools.map((t) => t.name));
    await page.close();
  });

  it("a site page shows the origin, how it was verified, its tools, manifest and version history", async () => {
    const page = await browser.newPage();
    expect((await page.goto(`${hubUrl}/sites/${enc(demoHost)}`))?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe("WebMCP demo site");
    expect(await page.locator(".page-head .meta a").first().getAttribute("href")).toBe(demoOrigin);
    expect(await page.locator(".page-head .badge.verified").textContent()).toBe("✓ verified by HTTP file");
    expect((await page.locator(".tool-card code").allTextContents()).sort()).toEqual(
      demoTools.map((t) => t.name).sort(),
    );
    expect(squash(await page.locator("table.data tbody tr").first().textContent())).toMatch(/^v1 current/);
    await page.getByText("Show the manifest JSON").click();
    const manifest = JSON.parse((await page.locator("#manifest-json").textContent())!) as {
      tools: ManifestTool[];
    };
    expect(manifest.tools.map((t) => t.name)).toEqual(demoTools.map((t) => t.name));
    expect((await page.goto(`${hubUrl}/sites/nothing.example`))?.status()).toBe(404);
    expect(await page.locator("h1").textContent()).toBe("No such site");
    await page.close();
  });

  it("a tool page explains the tool in plain words, with readable schemas, raw JSON and four export snippets", async () => {
    const page = await browser.newPage();
    expect((await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/get-dresses`))?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe("List dresses");
    expect(await page.locator(".page-head .badges .badge").allTextContents()).toEqual(["read-only"]);
    const input = page.getByRole("table", { name: "Arguments of get-dresses" });
    expect(await rowCells(input)).toEqual([
      ["size optional", "number", "EU dress size (2-14)", "—"],
      ["color optional", "string", "Filter by color", "—"],
    ]);
    const output = await rowCells(page.getByRole("table", { name: "Structured result of get-dresses" }));
    expect(output[0]).toEqual(["products required", "array of object", "—", "—"]);
    expect(output.at(-1)).toEqual(["products[].price required", "number", "Price in euros", "—"]);
    await page.getByText("Raw input schema (JSON)").click();
    expect(JSON.parse((await page.locator("#input-schema").textContent())!)).toEqual(
      demoTools.find((t) => t.name === "get-dresses")!.inputSchema,
    );
    // Try it's fields, built in the browser by tool.js from that schema: one labelled control per argument,
    // described by a hint in the table's words.
    expect(await page.locator("#try-fields label").allTextContents()).toEqual([
      "size optional",
      "color optional",
    ]);
    expect(
      await page
        .getByLabel("size")
        .evaluate((e: HTMLInputElement) => [e.id, e.name, e.type, e.dataset.kind, e.required]),
    ).toEqual(["arg-0", "arg:size", "number", "number", false]);
    expect(await page.getByLabel("size").getAttribute("aria-describedby")).toBe("arg-0-hint");
    expect(await page.locator("#arg-0-hint").textContent()).toBe("EU dress size (2-14) · number");

    // Export snippets: one tab per format, each with a working copy button.
    const tabs = page.getByRole("tablist", { name: "Export format" }).getByRole("tab");
    expect(await tabs.allTextContents()).toEqual(["MCP", "OpenAI", "Anthropic", "Gemini"]);
    await page.getByRole("tab", { name: "OpenAI" }).click();
    const openai = JSON.parse((await page.locator("#export-openai-code").textContent())!);
    expect(openai).toEqual([expect.objectContaining({ type: "function", name: "get-dresses" })]);
    await page.getByRole("tab", { name: "OpenAI" }).press("ArrowRight");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Anthropic");
    expect(JSON.parse((await page.locator("#export-anthropic-code").textContent())!)[0]).toHaveProperty(
      "input_schema",
    );
    await page.getByRole("tab", { name: "Gemini" }).click();
    await page.getByRole("button", { name: "Copy Gemini definition" }).click();
    await poll(() => page.getByRole("button", { name: "Copy Gemini definition" }).textContent()).toBe(
      "Copied",
    );
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)[0].functionDeclarations[0].name).toBe("get-dresses");

    // The other hints, in plain words.
    await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/list-books`);
    expect(await page.locator(".page-head .badges .badge").allTextContents()).toEqual([
      "read-only",
      "untrusted content",
    ]);
    await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/buyProduct`);
    expect(await page.locator(".page-head .badges .badge").allTextContents()).toEqual([
      "changes data — asks for approval",
    ]);
    expect(squash(await page.locator("#try > p").first().textContent())).toContain(
      "asks you to approve the call first",
    );

    // Without JavaScript the form has no fields (they need tool.js), only a note saying so.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setScriptExecutionDisabled", { value: true });
    await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/get-dresses`);
    expect(await page.locator("#try-fields [data-arg]").count()).toBe(0);
    expect(await page.locator("#try-fields p").textContent()).toBe(
      "The fields for the arguments appear when JavaScript runs.",
    );
    expect(await page.locator("#try-fields p").isVisible()).toBe(true);
    expect((await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/no-such-tool`))?.status()).toBe(404);
    await page.close();
  });

  it("publishes a site end to end: register, a failing then passing verification, field-level manifest errors, two versions, a diff, key rotation", async () => {
    const origin = await startOrigin();
    const page = await browser.newPage();
    try {
      await page.goto(`${hubUrl}/publish`);
      // A wrong origin is explained at the field.
      await page.getByLabel("Your site's origin").fill("ftp://files.example");
      await page.getByRole("button", { name: "Register" }).click();
      await poll(() => page.locator("#origin-error").textContent()).toMatch(/http/i);
      expect(await page.getByLabel("Your site's origin").getAttribute("aria-invalid")).toBe("true");

      await page.getByLabel("Your site's origin").fill(origin.origin);
      await page.getByRole("button", { name: "Register" }).click();
      await page.locator("#verify-body").waitFor();
      const token = (await page.locator("#v-http-body").textContent())!;
      expect(token.length).toBeGreaterThan(20);
      expect(await page.locator("#v-http-url").textContent()).toBe(
        `${origin.origin}/.well-known/webmcp-hub-verify`,
      );
      expect(await page.locator("#v-dns-name").textContent()).toBe("_webmcp-hub.127.0.0.1");
      expect(await page.locator("#v-dns-value").textContent()).toBe(`webmcp-hub-verify=${token}`);
      await browser.screenshot(page, "publish-challenge-desktop");

      // Not served yet: the reason is shown where the user acted.
      await page.getByRole("button", { name: "Verify with the file" }).click();
      await poll(async () => squash(await page.locator("#verify-error").textContent())).toMatch(
        /^The file check failed\. .*404/,
      );
      expect(await page.locator("#key-body").isHidden()).toBe(true);

      origin.setToken(token);
      await page.getByRole("button", { name: "Verify with the file" }).click();
      await poll(() => page.locator("#publisher-key").textContent()).toMatch(/^whp_/);
      const key = (await page.locator("#publisher-key").textContent())!;
      origin.setToken(null);

      // Problems point at the exact field in the text.
      const bad = {
        name: "E2E shop",
        tools: [
          { name: "find-shoes", description: "Finds shoes.", inputSchema: { type: "array" } },
          { name: "order-shoes", descripton: "typo", description: "Orders shoes." },
        ],
      };
      const badText = JSON.stringify(bad, null, 2);
      await page.getByLabel("Manifest JSON").fill(badText);
      await page.getByRole("button", { name: "Publish", exact: true }).click();
      await page.locator("#manifest-issues").waitFor();
      const issues = (await page.locator("#manifest-issue-list li").allTextContents()).map(squash);
      expect(issues).toContainEqual(expect.stringMatching(/^tools\[0\]\.inputSchema\.type: .*\(line 8\)$/));
      expect(issues).toContainEqual(expect.stringMatching(/^tools\[1\]: .*descripton.*\(line \d+\)$/));
      await browser.screenshot(page, "publish-issues-desktop");
      await page.getByRole("button", { name: /^Go to tools\[0\]\.inputSchema\.type/ }).click();
      const selected = await page.evaluate(() => {
        const area = document.getElementById("manifest") as HTMLTextAreaElement;
        return {
          focused: document.activeElement === area,
          text: area.value.slice(area.selectionStart, area.selectionEnd),
        };
      });
      expect(selected).toEqual({ focused: true, text: '"type": "array"' });
      await page.getByRole("button", { name: /^Go to tools\[1\]/ }).click();
      expect(
        await page.evaluate(() => {
          const area = document.getElementById("manifest") as HTMLTextAreaElement;
          return area.value.slice(area.selectionStart, area.selectionEnd);
        }),
      ).toBe('"descripton": "typo"');

      await page.getByLabel("Manifest JSON").fill('{"tools": [}');
      await page.getByRole("button", { name: "Publish", exact: true }).click();
      await poll(() => page.locator("#manifest-error-summary").textContent()).toBe("This is not valid JSON.");

      // Version 1, uploaded as a file.
      const v1 = {
        name: "E2E shoe shop",
        description: "Shoes for end-to-end tests.",
        tools: [
          {
            name: "find-shoes",
            title: "Find shoes",
            description: "Finds shoes by size and colour.",
            inputSchema: {
              type: "object",
              properties: {
                size: { type: "integer", minimum: 35, maximum: 48, description: "EU size" },
                colour: { type: "string", enum: ["black", "brown", "white"], default: "black" },
              },
              required: ["size"],
              additionalProperties: false,
            },
            annotations: { readOnlyHint: true },
            pages: ["/shoes"],
          },
        ],
      };
      await page.getByLabel("Upload webmcp.json").setInputFiles({
        name: "webmcp.json",
        mimeType: "application/json",
        buffer: Buffer.from(JSON.stringify(v1, null, 2)),
      });
      await poll(() => page.getByLabel("Manifest JSON").inputValue()).toContain("find-shoes");
      await page.getByRole("button", { name: "Publish", exact: true }).click();
      await poll(async () => squash(await page.locator("#done-body").textContent())).toContain(
        "Version 1 is published. 1 tool",
      );
      await browser.screenshot(page, "publish-done-desktop");

      // Version 2 adds a tool; the site page lists both versions and shows what changed.
      const v2 = {
        ...v1,
        tools: [
          ...v1.tools,
          {
            name: "order-shoes",
            description: "Orders a pair of shoes.",
            inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
          },
        ],
      };
      await page.getByLabel("Manifest JSON").fill(JSON.stringify(v2, null, 2));
      await page.getByRole("button", { name: "Publish", exact: true }).click();
      await poll(async () => squash(await page.locator("#done-body").textContent())).toContain(
        "Version 2 is published. 2 tools",
      );

      await page.goto(`${hubUrl}/sites/${enc(origin.host)}`);
      expect(await page.locator("h1").textContent()).toBe("E2E shoe shop");
      expect(await page.locator(".page-head .badge.verified").textContent()).toBe("✓ verified by HTTP file");
      const versions = await page.locator("table.data tbody tr th").allTextContents();
      expect(versions.map(squash)).toEqual(["v2 current", "v1"]);
      await page.getByRole("button", { name: "Show changes" }).click();
      await page.waitForURL(/from=1&to=2/);
      expect(squash(await page.locator(".changes").textContent())).toBe("added order-shoes");
      const added = await page.locator("pre.diff .add").allTextContents();
      expect(added.some((l) => l.includes('"name": "order-shoes"'))).toBe(true);
      await browser.screenshot(page, "site-diff-desktop");
      const phone = await browser.newPage(PHONE);
      await phone.goto(page.url());
      await noSidewaysScroll(phone, "the site page with a diff");
      await browser.screenshot(phone, "site-diff-phone");
      await phone.close();

      // The tool page renders the schema's rules.
      await page.goto(`${hubUrl}/sites/${enc(origin.host)}/tools/find-shoes`);
      expect(await rowCells(page.getByRole("table", { name: "Arguments of find-shoes" }))).toEqual([
        ["size required", "integer", "EU size", "from 35 to 48"],
        ["colour optional", "string", "—", 'one of "black", "brown", "white"default "black"'],
      ]);
      expect(await page.locator(".note").first().textContent()).toBe("No other fields are accepted.");

      // Rotation: the new key works, the old one does not.
      await page.goto(`${hubUrl}/publish`);
      await page.getByLabel("Site (host)").fill(origin.host);
      expect(await page.getByLabel("Current publisher key").inputValue()).toBe(key);
      await page.getByRole("button", { name: "Rotate the key" }).click();
      await poll(() => page.locator("#rotated-key").textContent()).toMatch(/^whp_/);
      const rotated = (await page.locator("#rotated-key").textContent())!;
      expect(rotated).not.toBe(key);
      const put = (k: string) =>
        fetch(`${hubUrl}/api/sites/${enc(origin.host)}/manifest`, {
          method: "PUT",
          headers: { "content-type": "application/json", authorization: `Bearer ${k}` },
          body: JSON.stringify(v2),
        });
      expect((await put(key)).status).toBe(401);
      expect((await put(rotated)).status).toBe(200);

      // Later visits: this browser keeps the site, and a new version starts from the current manifest.
      await page.goto(`${hubUrl}/publish`);
      await page
        .locator("#my-sites-list li", { hasText: origin.host })
        .getByRole("button", { name: "Publish a new version" })
        .click();
      await poll(() => page.getByLabel("Manifest JSON").inputValue()).toContain('"order-shoes"');
      expect(await page.locator("#m-host").textContent()).toBe(origin.host);
    } finally {
      await page.close();
      await origin.close();
    }
  });

  it("without the client scripts, search, filters, the version diff and the tool page still work", async () => {
    const page = await browser.newPage();
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.goto(`${hubUrl}/`);
    await page.getByLabel("Search tools").fill("dress");
    await page.getByLabel("Site", { exact: true }).fill(demoOrigin); // a pasted origin means its host
    await Promise.all([
      page.waitForURL(/[?&]q=dress\b/),
      page.getByRole("button", { name: "Search", exact: true }).click(),
    ]);
    expect(await page.locator(".tool-card code").allTextContents()).toEqual(["get-dresses"]);
    await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/get-dresses`);
    // Without scripts the four export formats simply stack, each with its heading.
    expect(await page.locator("[data-tabs] > section > h3").allTextContents()).toEqual([
      "MCP",
      "OpenAI",
      "Anthropic",
      "Gemini",
    ]);
    expect(
      await page
        .locator("[data-tabs] pre")
        .evaluateAll((pres) => pres.every((p) => (p as HTMLElement).offsetHeight > 0)),
    ).toBe(true);
    expect(await page.getByRole("button", { name: "Run get-dresses" }).isDisabled()).toBe(true);
    await page.close();
  });

  it("searching works with the keyboard alone", async () => {
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await tabTo(page, "#q");
    await page.keyboard.type("stamp");
    await Promise.all([page.waitForURL(/[?&]q=stamp\b/), page.keyboard.press("Enter")]);
    expect(await page.locator(".tool-card code").allTextContents()).toEqual(["add-stamp"]);
    // Filter with the keyboard: the select, then the Search button.
    await tabTo(page, "#readOnly");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("site");
    await Promise.all([page.waitForURL(/readOnly=true/), page.keyboard.press("Enter")]);
    expect(await page.locator(".tool-card").count()).toBe(0);
    expect(squash(await page.locator(".empty").textContent())).toContain("with these filters");
    await page.goto(`${hubUrl}/?q=stamp`);
    await tabTo(page, ".tool-card h3 a");
    await Promise.all([page.waitForURL(/\/tools\/add-stamp$/), page.keyboard.press("Enter")]);
    expect(await page.locator("h1").textContent()).toBe("Add a stamp");
    await page.close();
  });

  it("publishing works with the keyboard alone, and focus follows each step", async () => {
    const origin = await startOrigin();
    const page = await browser.newPage();
    try {
      await page.goto(`${hubUrl}/publish`);
      await tabTo(page, "#origin");
      await page.keyboard.type(origin.origin);
      await page.keyboard.press("Enter");
      await page.locator("#verify-body").waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("verify-title");
      origin.setToken((await page.locator("#v-http-body").textContent())!);
      await tabTo(page, "#verify-http");
      await page.keyboard.press("Enter");
      await poll(() => page.evaluate(() => document.activeElement?.id)).toBe("key-title");
      expect(await page.locator("#publisher-key").textContent()).toMatch(/^whp_/);
      await tabTo(page, "#manifest");
      await page.keyboard.insertText(
        JSON.stringify({
          tools: [{ name: "ping", description: "Answers pong.", annotations: { readOnlyHint: true } }],
        }),
      );
      await tabTo(page, "#manifest-form button[type=submit]");
      await page.keyboard.press("Enter");
      await poll(() => page.evaluate(() => document.activeElement?.id)).toBe("done-title");
      expect(squash(await page.locator("#done-body").textContent())).toContain(
        "Version 1 is published. 1 tool",
      );
    } finally {
      await page.close();
      await origin.close();
    }
  });

  it("the channel console shows a tab connecting live, its tools, its calls in the audit log, and revokes tokens", async () => {
    const page = await browser.newPage();
    const channel = await createChannelInUi(page, "E2E console");
    expect(await page.locator("#fresh").isVisible()).toBe(true);
    expect(await page.locator("#mcp-url").textContent()).toBe(`${hubUrl}/mcp/${channel.id}`);
    expect(await page.locator("#cap-url").textContent()).toBe(
      `${hubUrl}/mcp/${channel.id}/k/${channel.agentToken}`,
    );
    expect(channel.pairingCode).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(await page.locator("#pair-countdown").textContent()).toMatch(/^Valid for (10:00|9:[0-5]\d) more/);
    const snippetTabs = page.getByRole("tablist", { name: "MCP client" }).getByRole("tab");
    expect(await snippetTabs.allTextContents()).toContain("Claude Code");
    expect(await page.locator("#snippet-0").textContent()).toContain(
      `--header "Authorization: Bearer ${channel.agentToken}"`,
    );
    await poll(() => page.locator("#providers-summary").textContent()).toContain("Nothing is connected");

    // The demo shop opens in the user's other browser window and pairs through its /bridge.js widget with
    // the code the console shows: the console lists the tab without a reload.
    const tabBrowser = await openShopTab(channel.pairingCode);
    try {
      // The card is headed by the origin's host the hub saw; the page's own title and URL come after.
      await page.locator(".provider h3", { hasText: demoHost }).waitFor({ timeout: 10_000 });
      expect(squash(await page.locator("#providers-summary").textContent())).toBe(
        "1 connected: 1 tab, 0 sidecars.",
      );
      expect(squash(await page.locator(".provider").textContent())).toContain(demoOrigin);
      await poll(() => page.locator(".provider .page-title").textContent()).toBe(
        "Page: Dress shop · WebMCP demo",
      );
      expect(await page.locator(".provider a").getAttribute("href")).toBe(`${demoOrigin}/shop.html`);
      // Paired from the shop's page in a browser: no "paired by a script" mark.
      expect(await page.locator(".provider .paired-by-script").count()).toBe(0);
      await poll(() => page.locator("#tool-rows th code").allTextContents()).toEqual(
        expect.arrayContaining(["get-dresses", "buyProduct"]),
      );

      // An agent calls two tools over plain HTTP: get-dresses runs the shop page's own code; buyProduct with
      // a number for its id is refused by the hub before it reaches the tab. Both appear in the audit log.
      const call = (name: string, args: Record<string, unknown>) =>
        getJson<{ results: Array<{ status: string; result: { structuredContent?: unknown } }> }>(
          `/api/channels/${channel.id}/calls`,
          {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${channel.agentToken}` },
            body: JSON.stringify({ name, arguments: args }),
          },
        );
      const dresses = (await call("get-dresses", { size: 8 })).body.results[0]!;
      expect(dresses.status).toBe("ok");
      expect(JSON.stringify(dresses.result)).toContain("Linen summer dress");
      expect((await call("buyProduct", { product_id: 1 })).body.results[0]!.status).toBe("invalid");
      await poll(() => page.locator("#audit-rows tr").count(), { timeout: 15_000 }).toBe(2);
      const statuses = await page.locator("#audit-rows .status").allTextContents();
      expect(statuses).toEqual(["invalid", "ok"]);
      expect(await page.locator("#audit-rows th code").allTextContents()).toEqual([
        "buyProduct",
        "get-dresses",
      ]);
      expect(squash(await page.locator("#audit-rows tr").last().textContent())).toContain(
        "your agent (token created with the channel)",
      );
      expect(squash(await page.locator("#audit-rows tr").last().textContent())).toContain(demoOrigin);
      await browser.screenshot(page, "channel-console-live-desktop");

      await page.getByLabel("Status").selectOption("ok");
      await page.getByRole("button", { name: "Apply" }).click();
      await poll(() => page.locator("#audit-rows th code").allTextContents()).toEqual(["get-dresses"]);
      await page.getByLabel("Status").selectOption("denied");
      await page.getByRole("button", { name: "Apply" }).click();
      await poll(() => page.locator("#audit-empty").textContent()).toBe("No calls match these filters.");
      await page.getByLabel("Status").selectOption("");
      await page.getByLabel("Tool", { exact: true }).fill("buyProduct");
      await page.getByRole("button", { name: "Apply" }).click();
      await poll(() => page.locator("#audit-rows th code").allTextContents()).toEqual(["buyProduct"]);
      // The time filter is applied by the server: every call so far is within the last hour.
      await page.getByLabel("Time").selectOption("3600");
      await page.getByRole("button", { name: "Apply" }).click();
      await poll(() => page.locator("#audit-rows th code").allTextContents()).toEqual(["buyProduct"]);
      await page.getByLabel("Time").selectOption("");

      // Audit pages: 22 more calls make two pages of 20.
      for (let i = 0; i < 22; i++) await call("get-dresses", { size: 8 });
      await page.getByLabel("Tool", { exact: true }).fill("get-dresses");
      await page.getByRole("button", { name: "Apply" }).click();
      await poll(() => page.locator("#audit-rows tr").count()).toBe(20);
      await page.getByRole("button", { name: "Older →" }).click();
      await poll(() => page.locator("#audit-rows tr").count()).toBe(3);
      expect(await page.locator("#audit-page").textContent()).toBe("Page 2");
      await page.getByRole("button", { name: "← Newest" }).click();
      await poll(() => page.locator("#audit-rows tr").count()).toBe(20);

      // A second agent token: created, shown once, then revoked.
      page.on("dialog", (d) => void d.accept());
      await page.getByLabel("New token for").fill("e2e-agent");
      await page.getByRole("button", { name: "Create token" }).click();
      await poll(() => page.locator("#new-token").textContent()).toMatch(/^wha_/);
      const second = (await page.locator("#new-token").textContent())!;
      expect((await call("get-dresses", {})).status).toBe(200);
      await page.getByRole("button", { name: "Revoke token e2e-agent" }).click();
      await poll(async () =>
        squash(await page.locator("#token-rows tr", { hasText: "e2e-agent" }).textContent()),
      ).toContain("revoked");
      const revoked = await getJson(`/api/channels/${channel.id}/calls`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${second}` },
        body: JSON.stringify({ name: "get-dresses", arguments: {} }),
      });
      expect(revoked.status).toBe(401);

      const phone = await browser.newPage(PHONE);
      await phone.goto(page.url());
      await phone.locator(".provider").waitFor();
      await poll(() => phone.locator("#audit-rows tr").count()).toBeGreaterThan(0);
      await noSidewaysScroll(phone, "the channel console");
      await browser.screenshot(phone, "channel-console-live-phone");
      await phone.close();
    } finally {
      await tabBrowser.close();
    }
    // Closing the tab's window disconnects it.
    await poll(() => page.locator("#providers-summary").textContent(), { timeout: 10_000 }).toContain(
      "Nothing is connected",
    );
    await page.close();
  });

  it("Try it explains a missing tab, then runs the tool in a connected tab and shows the result", async () => {
    // get-dresses runs in the cloud; with the site's cloud runs off, Try it goes through a tab as before.
    await setDemoCloud(false);
    try {
      const page = await browser.newPage();
      const channel = await createChannelInUi(page, "E2E try it");
      await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/get-dresses`);
      await page.getByLabel("Channel").selectOption(channel.id);
      await poll(async () => squash(await page.locator("#try-status").textContent())).toContain(
        `No tab of ${demoOrigin} is connected.`,
      );
      expect(await page.locator("#try-status a").first().getAttribute("href")).toBe(
        `${demoOrigin}/shop.html`,
      );
      await browser.screenshot(page, "try-it-not-connected-desktop");

      const tabBrowser = await openShopTab(channel.pairingCode);
      try {
        await page.getByLabel("size").fill("8");
        expect(JSON.parse((await page.locator("#try-args").textContent())!)).toEqual({ size: 8 });
        await page.getByRole("button", { name: "Run get-dresses" }).click();
        await poll(() => page.locator("#try-result .alert").textContent(), { timeout: 15_000 }).toMatch(
          /^Done · \d+ ms/,
        );
        // The shop page's own code ran: its products of size 8, as text and as structured content.
        const text = JSON.parse((await page.locator("#try-result pre").first().textContent())!);
        expect(text.map((p: { name: string }) => p.name)).toEqual(SIZE_8);
        const structured = JSON.parse((await page.locator("#try-result details pre").textContent())!);
        expect(structured.products.map((p: { name: string; size: number }) => [p.name, p.size])).toEqual(
          SIZE_8.map((name) => [name, 8]),
        );
        await browser.screenshot(page, "try-it-result-desktop");

        const audit = await getJson<{ entries: unknown[] }>(`/api/channels/${channel.id}/audit`, {
          headers: { authorization: `Bearer ${(await ownerKey(page, channel.id))!}` },
        });
        expect(audit.body.entries).toHaveLength(1);

        const phone = await browser.newPage(PHONE);
        await phone.goto(page.url());
        await phone.getByLabel("Channel").selectOption(channel.id);
        await poll(() => phone.locator("#try-status").textContent()).toContain("Ready.");
        await noSidewaysScroll(phone, "the tool page");
        await browser.screenshot(phone, "try-it-ready-phone");
        await phone.close();
      } finally {
        await tabBrowser.close();
      }
      await page.close();
    } finally {
      await setDemoCloud(true);
    }
  });

  it("Try it shows a result without structured content as its content alone (no stray text)", async () => {
    const page = await browser.newPage();
    const channel = await createChannelInUi(page, "E2E try it, plain result");
    const tabBrowser = await launchBrowser();
    try {
      // The demo's greet tool answers with text content only, after the user approves the call in the tab.
      const tab = await tabBrowser.newPage();
      await tab.goto(`${demoOrigin}/`);
      await tab.waitForFunction(() => (window as { webmcpHub?: unknown }).webmcpHub !== undefined);
      const codeInput = tab.locator("webmcp-hub-widget").getByLabel("Pairing code");
      await codeInput.fill(channel.pairingCode);
      await codeInput.press("Enter");
      await tab.waitForFunction(
        () => (window as { webmcpHub?: { status: string } }).webmcpHub?.status === "connected",
        undefined,
        { timeout: 15_000 },
      );
      await page.goto(`${hubUrl}/sites/${enc(demoHost)}/tools/greet`);
      await page.getByLabel("Channel").selectOption(channel.id);
      await poll(async () => squash(await page.locator("#try-status").textContent())).toContain("Ready.");
      await page.getByLabel("name").fill("Ada");
      await page.getByRole("button", { name: "Run greet" }).click();
      await tab.locator('webmcp-hub-widget dialog [data-action="approve"]').click();
      await poll(() => page.locator("#try-result .alert").textContent(), { timeout: 15_000 }).toMatch(
        /^Done · \d+ ms/,
      );
      expect(await page.locator("#try-result pre").first().textContent()).toContain("Ada");
      expect(await page.locator("#try-result details").count()).toBe(0);
      // The part left out (no structured content) adds nothing: no text such as "null" beside the elements.
      const strayText = await page.locator("#try-result").evaluate((el) =>
        Array.from(el.childNodes)
          .filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.textContent),
      );
      expect(strayText).toEqual([]);
    } finally {
      await tabBrowser.close();
    }
    await page.close();
  });

  it("every page fits a phone, ships at most 100 KiB of HTML, CSS and JS, and is saved as screenshots", async () => {
    const pages: Array<[string, string]> = [
      ["home", "/"],
      ["search", "/?q=book"],
      ["site", `/sites/${enc(demoHost)}`],
      ["tool", `/sites/${enc(demoHost)}/tools/get-dresses`],
      ["publish", "/publish"],
      ["channels", "/channels"],
      ["docs", "/docs"],
      ["not-found", "/sites/nothing.example"],
    ];
    const weights: Record<string, number> = {};
    for (const [name, path] of pages) {
      const { total, parts } = await pageWeight(path);
      weights[name] = total;
      expect(total, `${name}: ${JSON.stringify(parts)}`).toBeLessThanOrEqual(100 * 1024);
    }
    const setup = await browser.newPage();
    const channel = await createChannelInUi(setup, "Screenshots");
    await setup.close();
    pages.push(["channel-console", `/channels/${channel.id}`]);
    for (const [width, viewport] of [
      ["desktop", undefined],
      ["phone", PHONE],
    ] as const) {
      const page = await browser.newPage(viewport);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      for (const [name, path] of pages) {
        await page.goto(hubUrl + path);
        await page.waitForLoadState("networkidle").catch(() => {});
        await noSidewaysScroll(page, `${name} at ${width} width`);
        await browser.screenshot(page, `${name}-${width}`);
      }
      expect(errors).toEqual([]);
      await page.close();
    }
    // Dark theme, through the header's switch (remembered across pages).
    const dark = await browser.newPage();
    await dark.goto(`${hubUrl}/`);
    await dark.getByRole("button", { name: /^Color theme: system/ }).click();
    await dark.getByRole("button", { name: /^Color theme: light/ }).click();
    expect(await dark.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    for (const [name, path] of pages.filter(([n]) =>
      ["home", "tool", "publish", "channel-console"].includes(n),
    )) {
      await dark.goto(hubUrl + path);
      expect(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
        "rgb(13, 17, 23)",
      );
      await browser.screenshot(dark, `${name}-dark-desktop`);
    }
    await dark.getByRole("button", { name: /^Color theme: dark/ }).click();
    await dark.close();
    console.log("page weights (bytes):", JSON.stringify(weights));
  });
});

async function ownerKey(page: Page, id: string): Promise<string | undefined> {
  return page.evaluate((channelId) => {
    const all = JSON.parse(localStorage.getItem("webmcp-hub:channels") ?? "[]") as Array<{
      id: string;
      ownerKey: string;
    }>;
    return all.find((c) => c.id === channelId)?.ownerKey;
  }, id);
}
