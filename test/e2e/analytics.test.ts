// The site owner's usage analytics in Chromium: rollup rows written straight into the local D1 (the tables are
// the contract the channels' flushes fill) for the demo site, which a passkey account claims with its publisher
// key; the page at /sites/<host>/analytics shows the figures in its charts and tables and links the CSV. A
// signed-out visitor is asked to sign in and another account is told the site is not theirs. Full-page
// screenshots at 360 and 1280 px go to test-results/screenshots/analytics-*.png.
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, signUpWithPasskey, type E2EBrowser } from "./browser.js";

const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const demoHost = inject("demoHost");
const analyticsPage = `${hubUrl}/sites/${encodeURIComponent(demoHost)}/analytics`;
const WRANGLER = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin/wrangler.js",
);

/** SQL on wrangler dev's local D1 (the same persisted database the hub reads). */
async function d1(sql: string): Promise<Array<Record<string, unknown>>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      WRANGLER,
      "d1",
      "execute",
      "DB",
      "--local",
      "--persist-to",
      inject("persistTo"),
      "--json",
      "--command",
      sql,
    ],
    { env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" } },
  );
  return (JSON.parse(stdout) as Array<{ results: Array<Record<string, unknown>> }>)[0]!.results;
}

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);

let browser: E2EBrowser;
let ownerBefore: unknown;

beforeAll(async () => {
  browser = await launchBrowser();
  // Another test may have claimed the demo site: it is handed back afterwards.
  ownerBefore = (await d1(`SELECT account_id FROM sites WHERE host = ${q(demoHost)}`))[0]?.account_id ?? null;
  const h = q(demoHost);
  // get-dresses: 120 calls yesterday (6 errors, 4 changed), 80 today; list-books: 30 calls yesterday.
  await d1(`DELETE FROM tool_usage_daily WHERE host = ${h};
    INSERT INTO tool_usage_daily (host, tool, day, calls, ok, error, changed, unpublished, d4, d8) VALUES
      (${h}, 'get-dresses', '${day(1)}', 120, 114, 6, 4, 0, 100, 20),
      (${h}, 'get-dresses', '${day(0)}', 80, 80, 0, 0, 0, 80, 0),
      (${h}, 'list-books', '${day(1)}', 30, 30, 0, 0, 2, 30, 0);
    INSERT OR IGNORE INTO tool_usage_errors (host, tool, day, message, count) VALUES
      (${h}, 'get-dresses', '${day(1)}', 'The shop is closed for inventory', 6);
    INSERT OR IGNORE INTO tool_usage_channels (host, tool, day, channel_hash) VALUES
      (${h}, 'get-dresses', '${day(1)}', '${"a".repeat(64)}'),
      (${h}, 'get-dresses', '${day(1)}', '${"b".repeat(64)}'),
      (${h}, 'list-books', '${day(1)}', '${"c".repeat(64)}');
    UPDATE sites SET account_id = NULL WHERE host = ${h};`);
});

afterAll(async () => {
  await d1(
    `UPDATE sites SET account_id = ${ownerBefore === null ? "NULL" : q(String(ownerBefore))} WHERE host = ${q(demoHost)}`,
  );
  await browser?.close();
});

const notice = (page: Page) => page.locator("#analytics-notice").textContent({ timeout: 30_000 });

describe("the site owner's usage analytics", () => {
  it("shows the owner the figures as charts and tables, with the CSV; the owner's site page links it", async () => {
    const page = await browser.newPage();
    await signUpWithPasskey(page, hubUrl, "Analytics owner");
    const status = await page.evaluate(async (publisherKey) => {
      const res = await fetch("/api/account/sites/claim", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ publisherKey }),
      });
      return res.status;
    }, inject("demoPublisherKey"));
    expect(status).toBe(201);
    await page.goto(`${hubUrl}/sites/${encodeURIComponent(demoHost)}`);
    await page.locator("#analytics-link").click();
    await page.waitForURL(/\/analytics/);

    const tools = page.locator("#analytics-tools");
    await tools.waitFor({ timeout: 30_000 });
    const rows = await tools.locator("tbody tr").allTextContents();
    expect(rows).toHaveLength(2);
    const dresses = tools.locator("tbody tr", { hasText: "get-dresses" });
    expect(await dresses.locator("td").allTextContents()).toEqual(
      expect.arrayContaining(["200", "3.0%", "4"]),
    );
    expect(
      await tools.locator("tbody tr", { hasText: "list-books" }).locator("td").first().textContent(),
    ).toBe("30");
    expect(await page.locator("#analytics-status").textContent()).toContain("230 calls");

    // Charts are images with a summary, and their numbers are in tables.
    const chart = page.locator('svg[role="img"]').first();
    expect(await chart.getAttribute("aria-label")).toContain("get-dresses: 200 in total");
    const perDay = page.locator("table", { hasText: day(1) }).first();
    expect(
      await perDay
        .locator("tr", { hasText: day(1) })
        .first()
        .textContent(),
    ).toContain("120");
    expect(await page.getByText("The shop is closed for inventory").count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Your page and your manifest disagree" }).count()).toBe(1);
    expect(await page.locator("table", { hasText: "Unpublished" }).locator("tbody tr").count()).toBe(2);

    const csvHref = await page.locator("#analytics-csv").getAttribute("href");
    const csv = await page.evaluate(async (href) => (await fetch(href!)).text(), csvHref);
    expect(csv).toContain("get-dresses");

    // The tool filter narrows the answer.
    await page.locator("#analytics-tool").selectOption("list-books");
    await page.getByRole("button", { name: "Show" }).click();
    await expect.poll(() => page.locator("#analytics-status").textContent()).toContain("30 calls");
    expect(page.url()).toContain("tool=list-books");

    await page.goto(analyticsPage);
    await tools.waitFor({ timeout: 30_000 });
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.reload(); // the charts are drawn for the width the page loads at
      await tools.waitFor({ timeout: 30_000 });
      await browser.screenshot(page, `analytics-${width}`);
      if (width === 360) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
      }
    }
    await page.close();
  });

  it("asks a signed-out visitor to sign in and tells another account the site is not theirs", async () => {
    const other = await launchBrowser();
    const visitor = await other.newPage();
    await visitor.goto(analyticsPage);
    expect(await notice(visitor)).toContain("Sign in to see this site's analytics.");
    expect(await visitor.locator("#analytics-tools").count()).toBe(0);

    await signUpWithPasskey(visitor, hubUrl, "Someone else");
    await visitor.goto(analyticsPage);
    expect(await notice(visitor)).toContain("These analytics are not yours.");
    expect(await visitor.locator("#analytics-tools").count()).toBe(0);
    await other.close();
  });
});
