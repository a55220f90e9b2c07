// The dashboard under its Content-Security-Policy in a real Chromium: every page works with no violation
// reported (while an injected inline handler is refused), the channel console refuses to render in another
// origin's frame, and the console shows what a provider says about itself only as secondary text: no link to
// a URL off the tab's origin, a mark on tabs paired by a script, and agents named by their token's label.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { createChannelInUi } from "./hub-api.js";
import { demoCloudOffDuringTheseTests } from "./demo-cloud.js";

const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");
const demoOrigin = inject("demoOrigin");
const enc = encodeURIComponent;
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });
const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();

declare global {
  interface Window {
    cspViolations: string[];
    injectedRan?: boolean;
  }
}

/** A page that records CSP violations (securitypolicyviolation) and console errors from its first script on. */
async function watchedPage(browser: E2EBrowser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.cspViolations.push(`${e.effectiveDirective} ${e.blockedURI}`),
    );
  });
  return { page, errors };
}

const violations = (page: Page) => page.evaluate(() => window.cspViolations);

/** Creates a channel through the console's own form; the browser keeps its owner key. */

/** Serves one HTML page from another origin (its own loopback port). */
async function otherOrigin(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the browser keeps its connection alive
      }),
  };
}

/** A tab as a script plays it: paired with a plain fetch (no page), connected over `ws` with an Origin. */
async function scriptedTab(
  channel: { id: string; ownerKey: string },
  origin: string,
  page: { url: string; title: string },
): Promise<WebSocket> {
  const codeRes = await fetch(`${hubUrl}/api/channels/${channel.id}/pairing-codes`, {
    method: "POST",
    headers: { authorization: `Bearer ${channel.ownerKey}` },
  });
  const { pairingCode } = (await codeRes.json()) as { pairingCode: string };
  const res = await fetch(`${hubUrl}/api/pair`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ code: pairingCode, kind: "tab" }),
  });
  expect(res.status).toBe(201);
  const paired = (await res.json()) as { providerToken: string; relayUrl: string };
  const ws = new WebSocket(paired.relayUrl, ["webmcp-hub.v1", paired.providerToken], { origin });
  await new Promise<void>((resolve, reject) => {
    ws.once("error", reject);
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { type: string; id?: string };
      if (frame.type === "welcome") {
        ws.send(JSON.stringify({ type: "hello", kind: "tab", label: "page", version: "test", page }));
        ws.send(
          JSON.stringify({
            type: "tools",
            tools: [
              {
                name: "lookup",
                description: "Looks something up on this page.",
                inputSchema: { type: "object", properties: {} },
                annotations: { readOnlyHint: true },
              },
            ],
          }),
        );
        resolve();
      }
      if (frame.type === "call")
        ws.send(
          JSON.stringify({
            type: "result",
            id: frame.id,
            result: { content: [{ type: "text", text: "found" }] },
          }),
        );
    });
  });
  return ws;
}

demoCloudOffDuringTheseTests();

describe("the dashboard under its CSP", () => {
  let browser: E2EBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("runs every page's scripts with no CSP violation, and refuses an injected inline handler", async () => {
    const { page, errors } = await watchedPage(browser);
    const pages = [
      "/",
      "/?q=dress",
      "/publish",
      "/channels",
      "/docs",
      `/sites/${enc(demoHost)}`,
      `/sites/${enc(demoHost)}/tools/get-dresses`,
    ];
    for (const path of pages) {
      await page.goto(hubUrl + path);
      // common.js ran: it shows the theme switch, which is hidden in the HTML.
      await page.locator("#theme").waitFor({ state: "visible" });
      expect(await violations(page), path).toEqual([]);
    }
    // The console: its module ran, and its polling of the API (connect-src) succeeds.
    await createChannelInUi(page, "CSP console");
    await page.locator("#live").waitFor({ state: "visible" });
    await poll(() => page.locator("#providers-summary").textContent()).toContain("Nothing is connected");
    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);

    // What an injection would try: an inline event handler. The CSP refuses it and reports the violation.
    await page.evaluate(() =>
      document.body.insertAdjacentHTML(
        "beforeend",
        '<img src="/nothing-here.png" onerror="window.injectedRan = true">',
      ),
    );
    await poll(() => violations(page)).toEqual([expect.stringMatching(/^script-src-attr /)]);
    expect(await page.evaluate(() => window.injectedRan)).toBeUndefined();
    await page.close();
  });

  it("the channel console refuses to render inside another origin's frame", async () => {
    const framer = await otherOrigin(
      `<!doctype html><title>Not the hub</title><iframe id="f" src="${hubUrl}/channels/abc123" width="800" height="600"></iframe>`,
    );
    const page = await browser.newPage();
    const messages: string[] = [];
    page.on("console", (m) => messages.push(m.text()));
    try {
      const consoleUrl = `${hubUrl}/channels/abc123`;
      const answered = page.waitForResponse((r) => r.url() === consoleUrl);
      const blocked = page.waitForEvent("requestfailed", (r) => r.url() === consoleUrl);
      await page.goto(framer.url);
      // The hub answered; the browser then refused to show the answer in the frame, following its headers.
      const res = await answered;
      expect(res.status()).toBe(200);
      expect(res.headers()["x-frame-options"]).toBe("DENY");
      expect((await blocked).failure()?.errorText).toBe("net::ERR_BLOCKED_BY_RESPONSE");
      await poll(() => messages.some((m) => m.includes(`"frame-ancestors 'none'"`))).toBe(true);
      // The frame holds the browser's error page, not the console (its URL is "" until the error page commits).
      await poll(() => page.frames().map((f) => f.url())).toEqual([
        framer.url,
        "chrome-error://chromewebdata/",
      ]);
    } finally {
      await page.close();
      await framer.close();
    }
  });
});

describe("what the console shows of a provider", () => {
  let browser: E2EBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("links a page only on the tab's origin, marks tabs paired by a script, and names agents by their token", async () => {
    const { page, errors } = await watchedPage(browser);
    const channel = await createChannelInUi(page, "Provider claims");
    const sockets = [
      // A pretend sign-in page: its URL is javascript:, its title borrows another site's name.
      await scriptedTab(channel, demoOrigin, {
        url: "javascript:alert(document.domain)",
        title: "github.com — Sign in to continue",
      }),
      await scriptedTab(channel, "https://elsewhere.example", {
        url: "https://elsewhere.example/account?tab=1",
        title: "A".repeat(250),
      }),
      await scriptedTab(channel, "https://third.example", {
        url: "https://evil.example/login",
        title: "Third",
      }),
    ];
    try {
      await poll(async () => squash(await page.locator("#providers-summary").textContent())).toBe(
        "3 connected: 3 tabs, 0 sidecars.",
      );
      const card = (host: string) =>
        page.locator(".provider", { has: page.locator("h3", { hasText: host }) });
      // Headings are the origins' hosts the hub saw, never what the page says.
      expect((await page.locator(".provider h3").allTextContents()).sort()).toEqual(
        [demoHost, "elsewhere.example", "third.example"].sort(),
      );
      for (const host of [demoHost, "elsewhere.example", "third.example"]) {
        expect(squash(await card(host).locator(".paired-by-script").textContent())).toContain(
          "Paired by a script — not from a browser page.",
        );
      }
      // javascript: and another site's URL are no links; the tab's own page is.
      expect(await card(demoHost).locator("a").count()).toBe(0);
      expect(await card("third.example").locator("a").count()).toBe(0);
      expect(await card("elsewhere.example").locator("a").getAttribute("href")).toBe(
        "https://elsewhere.example/account?tab=1",
      );
      expect(squash(await card(demoHost).locator(".page-title").textContent())).toBe(
        "Page: github.com — Sign in to continue",
      );
      const longTitle = squash(await card("elsewhere.example").locator(".page-title").textContent());
      expect(longTitle.length).toBeLessThanOrEqual("Page: ".length + 120);
      expect(longTitle.endsWith("…")).toBe(true);

      // An MCP client that calls itself something official: the audit log names the agent by its token.
      const client = new Client({
        name: "bank-check",
        title: "Your bank's security check (verified by webmcp-hub)",
        version: "1.0.0",
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${hubUrl}/mcp/${channel.id}`), {
          requestInit: { headers: { authorization: `Bearer ${channel.agentToken}` } },
        }),
      );
      const tools = await client.listTools();
      const result = await client.callTool({ name: tools.tools[0]!.name, arguments: {} });
      expect(result.isError).toBeFalsy();
      await client.close();
      await poll(() => page.locator("#audit-rows tr").count()).toBe(1);
      const agentCell = page.locator('#audit-rows td[data-label="Agent"]');
      expect(squash(await agentCell.textContent())).toBe("your agent (token created with the channel)");
      expect(await page.locator("body").textContent()).not.toContain("verified by webmcp-hub");
      expect(await violations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      for (const ws of sockets) ws.close();
      await page.close();
    }
  });
});
