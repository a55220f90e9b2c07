// The hub's /extension/connect page in a real Chromium (its own script, under its CSP): signed out it sends
// the visitor to sign in and back; signed in, a channel's button makes a real pairing code, posts it to the
// window for the extension's content script (ConnectCodeMessage) and shows it; the extension's answers
// (ConnectResultMessage) are shown. The extension is stood in for by a listener in the page's own window,
// which is where the real content script's messages arrive too.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import WebSocket from "ws";
import { launchBrowser, type E2EBrowser } from "./browser.js";

/** Passkeys need a domain name as the relying party ID: use localhost. */
const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });
const EXTENSION = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

describe("/extension/connect in Chromium", () => {
  let browser: E2EBrowser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("signs in first, then hands a fresh pairing code to the extension and shows what it answered", async () => {
    await page.goto(`${hubUrl}/extension/connect`);
    expect(new URL(page.url()).pathname).toBe("/signin");
    await page.getByLabel("Your name").fill("Grace");
    await page.getByRole("button", { name: "Create account with a passkey" }).click();
    await page.waitForURL(`${hubUrl}/extension/connect`);
    // No channels yet: a link to make one.
    await poll(() => page.locator("#connect-no-channels").isVisible()).toBe(true);
    const created = await page.request.post(`${hubUrl}/api/channels`, {
      data: { name: "Connect e2e" },
      headers: { origin: hubUrl },
    });
    expect(created.status()).toBe(201);
    const channelId = ((await created.json()) as { channel: { id: string } }).channel.id;

    await page.goto(`${hubUrl}/extension/connect`);
    // Stand-in for the extension's content script: says it is present, and answers a code with "connected".
    await page.evaluate((channelId) => {
      const w = window as unknown as { received: unknown[] };
      w.received = [];
      window.addEventListener("message", (e) => {
        const m = e.data as { source?: string; type?: string; code?: string };
        if (m?.source !== "webmcp-hub-connect") return;
        w.received.push(m);
        window.postMessage({ source: "webmcp-hub-extension", type: "connected", channelId }, location.origin);
      });
      window.postMessage({ source: "webmcp-hub-extension", type: "present" }, location.origin);
    }, channelId);
    await poll(() => page.locator("#extension-presence").textContent()).toBe("Extension detected.");

    const button = page.getByRole("button", { name: "Connect the extension to the channel “Connect e2e”" });
    await button.click();
    await poll(() => page.locator("#connect-status").textContent()).toBe("Connected to Connect e2e.");
    const code = await page.locator("#connect-code").textContent();
    expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const received = await page.evaluate(() => (window as unknown as { received: unknown[] }).received);
    expect(received).toEqual([{ source: "webmcp-hub-connect", type: "pairing-code", code }]);
    expect(await page.locator("#connect-code-row").textContent()).toContain("type this code into its popup");

    // The code is real: the extension redeems it from its own Origin for this channel.
    const paired = await fetch(`${hubUrl}/api/pair`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: EXTENSION },
      body: JSON.stringify({ code, kind: "extension" }),
    });
    expect(paired.status).toBe(201);
    const pairing = (await paired.json()) as { providerToken: string; relayUrl: string };
    expect(pairing).toMatchObject({ channelId, channelName: "Connect e2e" });

    // One of its tab sockets: the console shows the tab by its origin, marked as relayed by the extension.
    const ws = new WebSocket(
      `${pairing.relayUrl}?origin=${encodeURIComponent("https://a.example")}`,
      ["webmcp-hub.v1", pairing.providerToken],
      { origin: EXTENSION },
    );
    await new Promise<void>((resolve, reject) => {
      ws.once("error", reject);
      ws.on("message", (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type !== "welcome") return;
        ws.send(JSON.stringify({ type: "hello", kind: "tab", label: "tab", version: "test" }));
        resolve();
      });
    });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    const consolePage = await browser.newPage();
    await consolePage.goto(`${hubUrl}/channels/${channelId}`);
    const card = consolePage.locator("#provider-list li");
    await poll(() => card.count()).toBe(1);
    expect(await card.locator("h3").textContent()).toBe("a.example");
    expect(await card.locator(".via-extension").textContent()).toBe("via extension");
    expect(await card.locator(".paired-by-script").count()).toBe(0);
    expect(await consolePage.locator("#providers-summary").textContent()).toBe(
      "1 connected: 1 tab (1 through the browser extension), 0 sidecars.",
    );
    consolePage.once("dialog", (d) => void d.accept());
    await card.getByRole("button", { name: "Disconnect the browser extension (all its tabs)" }).click();
    expect(await closed).toBe(4001);
    await poll(() => card.count()).toBe(0);
    await consolePage.close();

    // A failure the extension reports is shown as an alert.
    await page.evaluate(() =>
      window.postMessage(
        { source: "webmcp-hub-extension", type: "connect-failed", message: "This pairing code is unknown." },
        location.origin,
      ),
    );
    await poll(() => page.locator("#connect-error").textContent()).toBe("This pairing code is unknown.");
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
  });
});
