// The site owner's cloud switch, in Chromium: signed in as the account that owns the demo site (claimed with its
// publisher key), the owner sees the site page's "Cloud runs" section, turns cloud runs off and on with its
// button, and the registry's answers follow at once; a visitor's copy of the page has no such section.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, signUpWithPasskey, type E2EBrowser } from "./browser.js";
import { setDemoCloud } from "./demo-cloud.js";

/** Passkeys need a host name: the signed-in flows run on localhost. */
const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const demoHost = inject("demoHost");
const sitePage = `${hubUrl}/sites/${encodeURIComponent(demoHost)}`;

let browser: E2EBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await setDemoCloud(true);
  await browser.close();
});

async function cloudOf(tool: string): Promise<boolean> {
  const res = await fetch(`${hubUrl}/api/tools?site=${encodeURIComponent(demoHost)}`);
  const { tools } = (await res.json()) as { tools: Array<{ name: string; cloud: boolean }> };
  return tools.find((t) => t.name === tool)!.cloud;
}

async function claimDemoSite(page: Page): Promise<number> {
  return page.evaluate(async (publisherKey) => {
    const res = await fetch("/api/account/sites/claim", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ publisherKey }),
    });
    return res.status;
  }, inject("demoPublisherKey"));
}

describe("the site owner's cloud switch", () => {
  it("turns the site's cloud runs off and on from its page, and the registry follows at once", async () => {
    const visitor = await browser.newPage();
    await visitor.goto(sitePage);
    expect(await visitor.locator("#cloud-endpoint").textContent()).toContain(
      `/mcp/sites/${encodeURIComponent(demoHost)}`,
    );
    expect(await visitor.locator("#cloud-runs").count()).toBe(0);
    await visitor.close();

    const page = await browser.newPage();
    await signUpWithPasskey(page, hubUrl, "Demo owner");
    expect(await claimDemoSite(page)).toBe(201);
    await page.goto(sitePage);
    const section = page.locator("#cloud-runs");
    expect(await section.getByText("get-dresses, list-books").count()).toBe(1);
    const button = page.getByRole("button", { name: "Turn cloud runs off" });
    await button.click();
    await expect.poll(() => page.locator("#cloud-state").textContent()).toBe("off");
    expect(await page.locator("#cloud-status").textContent()).toContain("Cloud runs are off");
    expect(await cloudOf("get-dresses")).toBe(false);

    await page.getByRole("button", { name: "Turn cloud runs on" }).click();
    await expect.poll(() => page.locator("#cloud-state").textContent()).toBe("on");
    expect(await cloudOf("get-dresses")).toBe(true);
    await page.close();
  });
});
