// Every page of the hub at 360 and 1280 px, in a real Chromium against `wrangler dev`: a full-page PNG of each
// in test-results/screenshots/<page>-<width>.png (for people to look at: the README links some), and on each
// page no horizontal overflow at 360 px and no console error (a 404 for a favicon included).
// Signed out: home, search results, a site, a tool, publish, docs, the manifest schema, the channels list, the
// add page, sign-in, /account (which sends to sign-in, saying why). A channel's console with a live tab (the
// demo shop paired through its /bridge.js). Signed in with a passkey: the account, extension-connect, and the
// OAuth consent page for an app registered by Dynamic Client Registration.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type E2EBrowser, signUpWithPasskey } from "./browser.js";
import { createChannelInUi } from "./hub-api.js";

/** Passkeys need a host name: every page is opened on localhost. */
const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const demoOrigin = inject("demoOrigin");
const demoHost = inject("demoHost");
const WIDTHS = [360, 1280] as const;
const enc = encodeURIComponent;

interface Shot {
  name: string;
  path: string;
  /** Where the page must end up (a redirect), when not at `path`. */
  landsOn?: string;
  /** The hub's origin to open it on, when not localhost (see the console). */
  base?: string;
}

/** What a page logged as an error while it loaded and settled, 404s included. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

describe("screenshots of every page", () => {
  let browser: E2EBrowser;
  let tabBrowser: E2EBrowser | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await tabBrowser?.close();
    await browser?.close();
  });

  /** Opens `shot` at each width; saves its PNG; checks overflow at 360 and the errors it logged. */
  async function capture(page: Page, shot: Shot, ready?: (page: Page) => Promise<void>) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width === 360 ? 780 : 800 });
      const problems = watch(page);
      await page.goto((shot.base ?? hubUrl) + shot.path, { waitUntil: "networkidle" });
      if (shot.landsOn) expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(shot.landsOn);
      await ready?.(page);
      await browser.screenshot(page, `${shot.name}-${width}`);
      if (width === 360) {
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        expect(scrollWidth, `${shot.name} at 360 px scrolls sideways`).toBeLessThanOrEqual(innerWidth);
      }
      expect(problems, `${shot.name} at ${width} px`).toEqual([]);
      page.removeAllListeners("console");
      page.removeAllListeners("pageerror");
      page.removeAllListeners("response");
    }
  }

  it("signed out: the registry's pages, publish, docs, the schema, channels, sign-in and /account", async () => {
    const page = await browser.newPage();
    const site = `/sites/${enc(demoHost)}`;
    const shots: Shot[] = [
      { name: "home", path: "/" },
      { name: "search", path: "/?q=stamp" },
      { name: "site", path: site },
      { name: "tool", path: `${site}/tools/add-stamp` },
      { name: "publish", path: "/publish" },
      { name: "docs", path: "/docs" },
      { name: "schema", path: "/schema/manifest.json" },
      { name: "channels", path: "/channels" },
      { name: "add", path: `${site}/add?tool=add-stamp` },
      { name: "signin", path: "/signin" },
      { name: "account-signed-out", path: "/account", landsOn: "/signin?return_to=%2Faccount" },
    ];
    for (const shot of shots) await capture(page, shot);
    await page.close();
  });

  it("a channel's console with a live tab", async () => {
    const page = await browser.newPage();
    const channel = await createChannelInUi(page, "Screenshots channel");
    // The demo shop in the user's other window, paired with the channel's code through its /bridge.js.
    tabBrowser = await launchBrowser();
    const tab = await tabBrowser.newPage();
    const tabProblems = watch(tab);
    await tab.goto(`${demoOrigin}/shop.html`, { waitUntil: "networkidle" });
    await tab.waitForFunction(() => (window as { webmcpHub?: unknown }).webmcpHub !== undefined);
    await tab.evaluate((code) => window.webmcpHub!.pair(code), channel.pairingCode);
    await tab.waitForFunction(() => window.webmcpHub!.status === "connected");
    await tabBrowser.screenshot(tab, "demo-shop-1280");
    expect(tabProblems, "the demo shop").toEqual([]);

    // On the origin whose storage keeps the channel's keys (createChannelInUi opens the hub by its own URL).
    const base = inject("hubUrl");
    await capture(page, { name: "console-live-tab", path: `/channels/${channel.id}`, base }, async (p) => {
      // The live tab is listed (the console reads the channel every few seconds).
      await p
        .locator("#providers")
        .getByText(new URL(demoOrigin).host, { exact: false })
        .first()
        .waitFor({ timeout: 30_000 });
    });
    await page.close();
  });

  it("signed in: the account, extension-connect and an app's consent page", async () => {
    const page = await browser.newPage();
    await signUpWithPasskey(page, hubUrl, "Ada");
    // A channel of the account's, for the account page to list and the consent page to offer.
    const made = await page.request.post(`${hubUrl}/api/channels`, {
      data: { name: "Ada's channel" },
      headers: { origin: hubUrl },
    });
    expect(made.status()).toBe(201);

    // An app registers itself (Dynamic Client Registration) and sends the user to the consent page.
    const redirect = "http://127.0.0.1:9/callback";
    const registered = await fetch(`${hubUrl}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Screenshots app",
        redirect_uris: [redirect],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
    const authorize = `/authorize?${new URLSearchParams({
      response_type: "code",
      client_id,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "screenshots",
    })}`;

    await capture(page, { name: "account", path: "/account" });
    await capture(page, { name: "extension-connect", path: "/extension/connect" });
    await capture(page, { name: "consent", path: authorize }, async (p) => {
      await p.getByText("Screenshots app").first().waitFor();
      // The channel picker (the app named no channel) or, with one chosen, Allow / Deny.
      await p.locator("#picker-continue, #consent-allow").first().waitFor();
    });
    await page.close();
  });
});
