// Accounts in a real Chromium against `wrangler dev`, with CDP virtual authenticators for the passkeys: create an
// account, create a channel, sign out and in, see the channel under "Your channels"; add a second passkey, remove
// one, and the last cannot be removed. Every page runs under its CSP.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { CDPSession, Page } from "playwright-core";
import { launchBrowser, type E2EBrowser } from "./browser.js";

/** Passkeys need a domain name as the relying party ID (browsers refuse an IP address): use localhost. */
const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });
const AUTHENTICATOR = {
  protocol: "ctap2",
  transport: "internal",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

describe("accounts with passkeys in Chromium", () => {
  let browser: E2EBrowser;
  let page: Page;
  let cdp: CDPSession;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    cdp = await browser.context.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const addAuthenticator = async () =>
    (await cdp.send("WebAuthn.addVirtualAuthenticator", { options: AUTHENTICATOR })).authenticatorId;

  it("creates an account, owns a channel, signs out and in, and manages its passkeys", async () => {
    const first = await addAuthenticator();
    await page.goto(`${hubUrl}/signin`);
    await page.getByLabel("Your name").fill("Ada");
    await page.getByRole("button", { name: "Create account with a passkey" }).click();
    await page.waitForURL(`${hubUrl}/account`);
    expect(await page.locator("h1").textContent()).toBe("Ada");

    // A channel created while signed in belongs to the account.
    await page.goto(`${hubUrl}/channels`);
    await page.locator("#channel-name").fill("Accounts e2e channel");
    await page.getByRole("button", { name: "Create channel" }).click();
    // Creating opens the new channel's console; wait for it so no later navigation interrupts it.
    await page.waitForURL((u) => /^\/channels\/[^/]+$/.test(u.pathname));
    await poll(async () => {
      const res = await page.request.get(`${hubUrl}/api/account/channels`);
      return ((await res.json()) as { channels: Array<{ name: string }> }).channels.map((c) => c.name);
    }).toEqual(["Accounts e2e channel"]);

    // Sign out, then in again with the passkey: the channel is listed under "Your channels".
    await page.goto(`${hubUrl}/account`);
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(`${hubUrl}/signin`);
    expect((await page.request.get(`${hubUrl}/api/account`)).status()).toBe(401);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(`${hubUrl}/account`);
    expect(await page.locator("#account-channels").textContent()).toContain("Accounts e2e channel");
    await page.goto(`${hubUrl}/channels`);
    expect(await page.locator("#account-channel-list").textContent()).toContain("Accounts e2e channel");

    // As on another device: this browser forgets the channel's keys, and the console still opens by the session.
    const [owned] = (
      (await (await page.request.get(`${hubUrl}/api/account/channels`)).json()) as {
        channels: Array<{ id: string }>;
      }
    ).channels;
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${hubUrl}/channels/${owned!.id}`);
    await poll(() => page.locator("#console").isVisible()).toBe(true);
    expect(await page.locator("#ch-missing").isVisible()).toBe(false);
    await page.getByRole("button", { name: "New pairing code" }).click();
    await poll(() => page.locator("#pair-code").textContent()).toMatch(/^[0-9A-Z]{4}-?[0-9A-Z]{4}$/);

    // A second passkey, on another authenticator (the first one's credential is excluded).
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: first });
    await addAuthenticator();
    await page.goto(`${hubUrl}/account`);
    await page.getByLabel("Name for a new passkey (optional)").fill("Second device");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await poll(() => page.locator("#passkey-list li").count()).toBe(2);
    // Remove the first; the second, now the last, cannot be removed.
    await page.getByRole("button", { name: "Remove passkey “Passkey 1”" }).click();
    await poll(() => page.locator("#passkey-list li").count()).toBe(1);
    await page.getByRole("button", { name: "Remove passkey “Second device”" }).click();
    await poll(() => page.locator("#account-error").textContent()).toContain("only passkey");
    expect(await page.locator("#passkey-list li").count()).toBe(1);

    // The remaining passkey signs in.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(`${hubUrl}/signin`);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(`${hubUrl}/account`);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
  });

  it("on an IP address the sign-in page says to open localhost instead", async () => {
    const ipUrl = inject("hubUrl");
    await page.goto(`${ipUrl}/signin`);
    expect(await page.locator("#ip-host-notice").textContent()).toContain("localhost");
  });

  it("the sign-in page sends a signed-in visitor on to a same-origin return_to only", async () => {
    await page.goto(`${hubUrl}/signin?return_to=${encodeURIComponent("/docs")}`);
    expect(new URL(page.url()).pathname).toBe("/docs");
    await page.goto(`${hubUrl}/signin?return_to=${encodeURIComponent("https://example.com/")}`);
    expect(new URL(page.url()).pathname).toBe("/account");
  });
});
