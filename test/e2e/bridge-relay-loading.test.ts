// /bridge.js's relay in a real Chromium: the relay (pairing, the WebSocket, calls) is /bridge-relay.js, which
// /bridge.js imports from the hub it came from only when the page is paired at start or pairs
// (src/bridge/relay-loader.ts); window.webmcpHub is a stand-in defined at once. Pages here are on a site of
// another origin than the hub's (a cross-origin module fetch, CORS), as on a real site, and the network is
// watched for the relay file. What is proven: an unpaired page fetches no relay until pair(), and listeners
// added before it hear its status; a paired page loads the relay at start after a reload and reconnects
// alone; and a relay that cannot load leaves the page unpaired, pair() rejecting with the reason and a console
// warning, until a later pair() loads it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { api, createChannel, type Channel } from "./hub-api.js";

const hubUrl = inject("hubUrl");
const RELAY_URL = `${hubUrl}/bridge-relay.js`;

/** window.webmcpHub as these tests use it, and what the page's inline script saw of it at once. */
type HubWindow = Window & {
  webmcpHub?: EventTarget & {
    status: string;
    problem: string;
    pair(code: string): Promise<{ channelId: string }>;
  };
  __atOnce?: { status: string; pair: string };
  __statuses?: string[];
};

describe("/bridge-relay.js: the bridge's relay, imported when the page pairs or is paired", () => {
  let browser: E2EBrowser;
  // The site: a loopback server of its own on "localhost" while the hub is on 127.0.0.1: two origins.
  let site: Server;
  let siteOrigin: string;

  beforeAll(async () => {
    site = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      // The inline script runs right after /bridge.js: window.webmcpHub must be there already.
      res.end(
        `<!doctype html><meta charset="utf-8"><title>relay loading</title><script src="${hubUrl}/bridge.js"></script>` +
          `<script>window.__atOnce = { status: webmcpHub.status, pair: typeof webmcpHub.pair };</script><body></body>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
  });

  beforeEach(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await browser?.close();
  });

  /** A page of the site with /bridge.js from the hub; `relayRequests` lists its fetches of /bridge-relay.js. */
  async function open({ relayLoads = true } = {}) {
    const page: Page = await browser.newPage();
    const errors: string[] = [];
    const warnings: string[] = [];
    const relayRequests: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
    page.on("request", (r) => r.url() === RELAY_URL && relayRequests.push(r.url()));
    if (!relayLoads) await page.route(RELAY_URL, (route) => route.abort());
    await page.goto(`${siteOrigin}/page.html`);
    await watchStatuses(page);
    return Object.assign(page, { errors, warnings, relayRequests });
  }

  /** Collects every status window.webmcpHub announces from now on in window.__statuses. */
  async function watchStatuses(page: Page): Promise<void> {
    await page.evaluate(() => {
      const w = window as HubWindow;
      w.__statuses = [];
      w.webmcpHub!.addEventListener("statuschange", () => w.__statuses!.push(w.webmcpHub!.status));
    });
  }

  const statuses = (page: Page) => page.evaluate(() => (window as HubWindow).__statuses);
  const status = (page: Page) => page.evaluate(() => (window as HubWindow).webmcpHub!.status);

  async function pair(page: Page, ch: Channel): Promise<{ channelId: string } | string> {
    return page.evaluate(
      (code) =>
        (window as HubWindow).webmcpHub!.pair(code).then(
          (paired) => paired,
          (e: Error) => e.message,
        ),
      ch.pairingCode,
    );
  }

  async function providers(ch: Channel): Promise<unknown[]> {
    const { status, body } = await api(`/api/channels/${ch.id}`, { token: ch.ownerKey });
    expect(status).toBe(200);
    return (body as { providers: unknown[] }).providers;
  }

  it("an unpaired page has window.webmcpHub at once and fetches no relay until pair(); listeners added before it hear the relay's statuses", async () => {
    const ch = await createChannel("relay loading e2e");
    const page = await open();
    expect(await page.evaluate(() => (window as HubWindow).__atOnce)).toEqual({
      status: "unpaired",
      pair: "function",
    });
    // Nothing to relay yet, so nothing may be fetched: wait until the network is idle, then count.
    await page.waitForLoadState("networkidle");
    expect(page.relayRequests).toEqual([]);

    expect(await pair(page, ch)).toEqual({ channelId: ch.id });
    expect(page.relayRequests).toEqual([RELAY_URL]);
    await page.waitForFunction(() => (window as HubWindow).webmcpHub!.status === "connected");
    expect(await statuses(page)).toEqual(["connecting", "connected"]);
    await expect.poll(() => providers(ch)).toHaveLength(1);
    expect(page.errors).toEqual([]);
  });

  it("a paired page loads the relay at start after a reload and reconnects by itself", async () => {
    const ch = await createChannel("relay loading e2e");
    const page = await open();
    expect(await pair(page, ch)).toEqual({ channelId: ch.id });
    await page.waitForFunction(() => (window as HubWindow).webmcpHub!.status === "connected");

    page.relayRequests.length = 0;
    await page.reload();
    // No pair() after the reload: the stored pairing is enough.
    await page.waitForFunction(() => (window as HubWindow).webmcpHub?.status === "connected");
    expect(page.relayRequests).toEqual([RELAY_URL]);
    await expect.poll(() => providers(ch)).toHaveLength(1);
    expect(page.errors).toEqual([]);
  });

  it("when /bridge-relay.js cannot load, pair() rejects saying so, the page stays unpaired with a warning, and a later pair() loads it", async () => {
    const ch = await createChannel("relay loading e2e");
    const page = await open({ relayLoads: false });

    const refused = await pair(page, ch);
    expect(refused).toMatch(
      new RegExp(
        `^The relay could not load from ${hubUrl.replace(/\./g, "\\.")} \\(.*bridge-relay\\.js.*\\)\\.$`,
      ),
    );
    expect(await status(page)).toBe("unpaired");
    // The stand-in told its listeners about the problem, without ever leaving "unpaired".
    expect(await statuses(page)).toEqual(["unpaired"]);
    expect(await page.evaluate(() => (window as HubWindow).webmcpHub!.problem)).toBe(refused);
    expect(page.warnings).toContain(`webmcp-hub: ${refused as string}`);
    expect(await providers(ch)).toEqual([]);
    // The code was never redeemed (the relay redeems it): it still pairs once the relay can load.
    await page.unroute(RELAY_URL);
    expect(await pair(page, ch)).toEqual({ channelId: ch.id });
    await page.waitForFunction(() => (window as HubWindow).webmcpHub!.status === "connected");
    expect(page.relayRequests).toEqual([RELAY_URL, RELAY_URL]);
    expect(await page.evaluate(() => (window as HubWindow).webmcpHub!.problem)).toBe("");
    expect(page.errors).toEqual([]);
  });

  it("a paired page whose relay cannot load at start stays unpaired with a warning", async () => {
    const ch = await createChannel("relay loading e2e");
    const page = await open();
    expect(await pair(page, ch)).toEqual({ channelId: ch.id });
    await page.waitForFunction(() => (window as HubWindow).webmcpHub!.status === "connected");

    await page.route(RELAY_URL, (route) => route.abort());
    page.relayRequests.length = 0;
    await page.reload();
    await expect
      .poll(() => page.warnings.find((w) => w.startsWith("webmcp-hub: The relay could not load from")))
      .toContain("bridge-relay.js");
    expect(page.relayRequests).toEqual([RELAY_URL]);
    expect(await status(page)).toBe("unpaired");
    expect(page.errors).toEqual([]);
  });
});
