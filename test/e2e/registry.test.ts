// The public registry end to end: the demo site, published through the real API by the global setup,
// as people see it in Chromium (home, search, site page, two widths) and as agents see it over HTTP.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, PHONE, type E2EBrowser } from "./browser.js";

const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");
const sitePath = `/sites/${encodeURIComponent(demoHost)}`;

interface DemoTool {
  name: string;
  annotations?: { readOnlyHint?: boolean; untrustedContentHint?: boolean };
}

/** The demo site's tools as the registry published them (the demo site's manifest may grow). */
async function demoTools(): Promise<DemoTool[]> {
  const res = await fetch(`${hubUrl}/api/sites/${encodeURIComponent(demoHost)}/manifest`);
  return ((await res.json()) as { manifest: { tools: DemoTool[] } }).manifest.tools;
}

const squash = (text: string | null) => (text ?? "").replace(/\s+/g, " ").trim();

/** The tool cards on a page: each card's tool name, site link text and badge texts. */
async function toolCards(page: Page) {
  return page.locator("li.tool-card").evaluateAll((cards) =>
    cards.map((card) => ({
      name: card.querySelector("code")?.textContent ?? "",
      badges: Array.from(card.querySelectorAll(".badges .badge"), (b) => b.textContent?.trim() ?? ""),
      site: card.querySelector(".meta a")?.textContent ?? "",
    })),
  );
}

describe("the registry in Chromium", () => {
  let browser: E2EBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("the home page shows the registry's counts and the demo site's tools", async () => {
    // Other e2e files may publish sites of their own: the counts are the API's, the cards the demo site's.
    const tools = await demoTools();
    const listing = (await (await fetch(`${hubUrl}/api/sites?limit=100`)).json()) as {
      sites: Array<{ toolCount: number }>;
    };
    const siteCount = listing.sites.length;
    const toolCount = listing.sites.reduce((n, s) => n + s.toolCount, 0);
    const page = await browser.newPage();
    const res = await page.goto(`${hubUrl}/`);
    expect(res?.status()).toBe(200);
    expect(squash(await page.locator(".hero p").first().textContent())).toBe(
      `${siteCount} verified site${siteCount === 1 ? "" : "s"}, ${toolCount} tools.`,
    );
    const recent = squash(await page.getByRole("region", { name: "Recently published" }).textContent());
    expect(recent).toContain(`WebMCP demo site — ${tools.length} tools`);
    await page.goto(`${hubUrl}/?site=${encodeURIComponent(demoHost)}`);
    const cards = await toolCards(page);
    expect(cards.map((c) => c.name).sort()).toEqual(tools.map((t) => t.name).sort());
    expect(new Set(cards.map((c) => c.site))).toEqual(new Set([demoHost]));
    await page.close();
  });

  it("searching for “stamp” with the search form shows add-stamp", async () => {
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/`);
    await page.getByLabel("Search tools").fill("stamp");
    await Promise.all([
      page.waitForURL(/[?&]q=stamp\b/),
      page.getByRole("button", { name: "Search" }).click(),
    ]);
    const cards = await toolCards(page);
    expect(cards.map((c) => c.name)).toEqual(["add-stamp"]);
    expect(await page.getByLabel("Search tools").inputValue()).toBe("stamp");
    await browser.screenshot(page, "search-stamp-desktop");
    await page.close();
  });

  it("the demo site's page lists all its tools, and marks exactly the read-only ones read-only", async () => {
    const tools = await demoTools();
    const page = await browser.newPage();
    const res = await page.goto(hubUrl + sitePath);
    expect(res?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe("WebMCP demo site");
    const cards = await toolCards(page);
    const badgeOf = Object.fromEntries(cards.map((c) => [c.name, c.badges.join(" ")]));
    expect(badgeOf).toEqual(
      Object.fromEntries(
        tools.map((t) => [
          t.name,
          [
            t.annotations?.readOnlyHint === true ? "read-only" : "changes data — asks for approval",
            ...(t.annotations?.untrustedContentHint === true ? ["untrusted content"] : []),
          ].join(" "),
        ]),
      ),
    );
    expect(badgeOf["get-dresses"]).toBe("read-only");
    await page.close();
  });

  it("the home and site pages fit desktop and phone widths, and are saved as screenshots", async () => {
    for (const [width, viewport] of [
      ["desktop", undefined],
      ["phone", PHONE],
    ] as const) {
      const page = await browser.newPage(viewport);
      for (const [name, path] of [
        ["home", "/"],
        ["site", sitePath],
      ] as const) {
        await page.goto(hubUrl + path);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name} page scrolls sideways at ${width} width`).toBeLessThanOrEqual(0);
        await browser.screenshot(page, `${name}-${width}`);
      }
      await page.close();
    }
  });
});

describe("the registry over HTTP", () => {
  it("GET /api/tools?q=dress returns get-dresses from the demo site", async () => {
    const res = await fetch(`${hubUrl}/api/tools?q=dress`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      tools: Array<{ site: string; name: string; readOnly: boolean }>;
    };
    expect(body.tools).toContainEqual(
      expect.objectContaining({ site: demoHost, name: "get-dresses", readOnly: true }),
    );
  });
});
