// The channel console reads at a glance, in a real Chromium against `wrangler dev`: a person signed in with a
// passkey owns a channel with a tab (the demo shop), the conformance provider (a sidecar-kind provider with
// long tool names) and an OAuth app connected. Checked: the glance strip, no table header without rows, tool
// names that wrap only between their words at 360 and 1280 px, the connected app's count and last use, the
// audit naming the app and the first token for what they are, the approval naming the agent, /channels
// listing a channel once, Try it offering the account's channels, and the one-click console link (its
// fragment kept in this browser and gone from the address bar); the app's tool policy edited in its row.
// Screenshots at 360 and 1280 px.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { launchBrowser, type E2EBrowser, signUpWithPasskey } from "./browser.js";
import {
  CONFORMANCE_TOOLS,
  startConformanceProvider,
  waitForTools,
} from "../support/conformance-provider.mjs";
import { demoCloudOffDuringTheseTests } from "./demo-cloud.js";

/** Passkeys need a host name: the signed-in flows run on localhost. */
const hubUrl = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const demoOrigin = inject("demoOrigin");
const demoHost = inject("demoHost");
const FIRST_TOKEN = "your agent (token created with the channel)";
const APP = "Layout e2e app";
const NARROW = { width: 360, height: 780 };
const WIDE = { width: 1280, height: 800 };
const poll = <T>(fn: () => Promise<T> | T, timeout = 20_000) => expect.poll(fn, { timeout });
const squash = (t: string | null | undefined) => (t ?? "").replace(/\s+/g, " ").trim();

/** The OAuth client's redirect target: hands over the callback's query. */
async function callbackServer() {
  let deliver: ((p: URLSearchParams) => void) | undefined;
  const code = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (url.searchParams.get("code")) deliver?.(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    code,
    close: () => server.close(),
  };
}

class AppProvider implements OAuthClientProvider {
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";
  constructor(
    private readonly redirect: string,
    private readonly open: (url: URL) => Promise<void>,
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: APP,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    await this.open(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Every table in the console that shows has at least one row; tables without rows are hidden. */
async function headerOnlyTables(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("#console table"))
      .filter((t) => (t as HTMLElement).offsetParent !== null && t.querySelectorAll("tbody tr").length === 0)
      .map((t) => t.querySelector("caption")?.textContent ?? "a table"),
  );
}

/** Tool names whose text breaks inside a word (anywhere but the <wbr> after `.`, `_`, `-`). */
async function namesBrokenMidWord(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("#tool-rows code.tool-name")).flatMap((code) => {
      const bad = Array.from(code.childNodes).some((n) => {
        if (n.nodeType !== Node.TEXT_NODE || !n.textContent) return false;
        const range = document.createRange();
        range.selectNodeContents(n);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        return tops.size > 1;
      });
      return bad ? [code.textContent ?? ""] : [];
    }),
  );
}

demoCloudOffDuringTheseTests();

describe("the channel console at a glance", () => {
  let browser: E2EBrowser;
  let page: Page;
  let tabBrowser: E2EBrowser;
  let tab: Page;
  let provider: Awaited<ReturnType<typeof startConformanceProvider>>;
  let channel: { id: string; ownerKey: string; agentToken: string };
  let app: Client;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("pageerror", (e) => problems.push(e.message));
    await signUpWithPasskey(page, hubUrl, "Ada");

    // Created in the dashboard while signed in: the account owns it and this browser keeps its keys.
    await page.goto(`${hubUrl}/channels`);
    await page.getByLabel("Name", { exact: true }).fill("Layout channel");
    await Promise.all([
      page.waitForURL(/\/channels\/[^/?]+/),
      page.getByRole("button", { name: "Create channel" }).click(),
    ]);
    const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await page.waitForFunction(
      () => /^who_/.test(document.getElementById("owner-key")?.textContent ?? ""),
      undefined,
      { timeout: 20_000 },
    );
    channel = {
      id,
      ownerKey: (await page.locator("#owner-key").textContent())!,
      agentToken: (await page.locator("#agent-token").textContent())!,
    };
    const code = async () =>
      (
        (await (
          await page.request.post(`${hubUrl}/api/channels/${id}/pairing-codes`, {
            headers: { authorization: `Bearer ${channel.ownerKey}`, origin: hubUrl },
          })
        ).json()) as { pairingCode: string }
      ).pairingCode;

    // A tab: the demo shop, paired through its widget.
    tabBrowser = await launchBrowser();
    tab = await tabBrowser.newPage();
    await tab.goto(`${demoOrigin}/shop.html`);
    await tab.waitForFunction(() => (window as { webmcpHub?: unknown }).webmcpHub !== undefined);
    const input = tab.locator("webmcp-hub-widget").getByLabel("Pairing code");
    await input.fill(await code());
    await input.press("Enter");
    await tab.waitForFunction(
      () => (window as { webmcpHub?: { status: string } }).webmcpHub?.status === "connected",
      undefined,
      { timeout: 20_000 },
    );
    // A provider with long names (test_multiple_content_types) beside the shop's.
    provider = await startConformanceProvider({ hubUrl, pairingCode: await code() });
    await waitForTools(hubUrl, id, channel.ownerKey, ["buyProduct", ...CONFORMANCE_TOOLS.map((t) => t.name)]);

    // An OAuth app: DCR, consent in this signed-in browser, then one call.
    const callback = await callbackServer();
    try {
      const oauth = new AppProvider(callback.url, async (url) => {
        const consent = await browser.newPage();
        await consent.goto(url.href);
        await consent.locator("#consent-allow").click();
        await consent.waitForURL(/127\.0\.0\.1:\d+\/callback/, { waitUntil: "commit" });
        await consent.close();
      });
      const mcpUrl = new URL(`${hubUrl}/mcp/${id}`);
      const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth });
      await expect(new Client({ name: "layout", version: "1" }).connect(first)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      await first.finishAuth(await callback.code);
      app = new Client({ name: "layout", version: "1" });
      await app.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth }));
      const done = await app.callTool({ name: "test_simple_text", arguments: {} });
      expect(done.isError ?? false).toBe(false);
    } finally {
      callback.close();
    }
  }, 180_000);

  afterAll(async () => {
    await app?.close().catch(() => {});
    await provider?.close();
    await tabBrowser?.close();
    await browser?.close();
  });

  it("names the agent in the approval: the OAuth app by its name, the first token for what it is", async () => {
    const dialog = tab.locator("webmcp-hub-widget dialog");
    const byApp = app.callTool({ name: "buyProduct", arguments: { product_id: "dress-001" } });
    await poll(async () => squash(await dialog.locator("h2").textContent())).toMatch(
      new RegExp(`^Allow ${APP} to run .+\\?$`),
    );
    await dialog.locator('[data-action="deny"]').click();
    expect((await byApp).isError).toBe(true);

    const byToken = page.request.post(`${hubUrl}/api/channels/${channel.id}/calls`, {
      headers: { authorization: `Bearer ${channel.agentToken}`, origin: hubUrl },
      data: { name: "buyProduct", arguments: { product_id: "dress-001" } },
    });
    await poll(async () => squash(await dialog.locator("h2 b").first().textContent())).toBe(FIRST_TOKEN);
    await dialog.locator('[data-action="deny"]').click();
    expect((await byToken).status()).toBe(200);
  });

  it("shows what is connected, the tools and the last call at a glance, and names the app in the audit", async () => {
    await page.setViewportSize(WIDE);
    await page.goto(`${hubUrl}/channels/${channel.id}`);
    await poll(async () => squash(await page.locator("#glance-tabs").textContent())).toBe("1 tab connected");
    expect(squash(await page.locator("#glance-sidecar").textContent())).toBe("1 sidecar connected");
    await poll(async () => squash(await page.locator("#glance-agents").textContent())).toBe(
      "1 agent token · 1 app",
    );
    await poll(async () => squash(await page.locator("#glance-last").textContent())).toMatch(
      /^buyProduct · denied · (just now|\d+ s ago)$/,
    );
    // Connected apps: one app, used moments ago (not "1 1 app", not 1970).
    await poll(async () => squash(await page.locator("#apps-summary").textContent())).toBe(
      "1 app connected.",
    );
    const lastUsed = squash(await page.locator('#app-rows td[data-label="Last used"]').textContent());
    expect(lastUsed).toMatch(/^(just now|\d+ s ago|\d+ min ago)$/);
    const row = page.locator("#app-rows tr").first();
    expect(squash(await row.locator("th").textContent())).toContain(APP);
    // The audit names the app and the first token, never oauth:<grant>.
    await poll(async () =>
      (await page.locator("#audit-rows td.agent-cell").allTextContents()).map(squash),
    ).toEqual(expect.arrayContaining([APP, FIRST_TOKEN]));
    expect((await page.locator("#audit-rows").textContent()) ?? "").not.toContain("oauth:");
    // Every section is reachable from the section nav.
    for (const href of await page
      .locator(".console-nav a")
      .evaluateAll((as) => as.map((a) => a.getAttribute("href"))))
      expect(await page.locator(href!).count(), href!).toBe(1);
    expect(problems).toEqual([]);
  });

  it("has no table header without rows, and tool names readable at 1280 and 360 px", async () => {
    for (const [viewport, name] of [
      [WIDE, "console-1280"],
      [NARROW, "console-360"],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`${hubUrl}/channels/${channel.id}`);
      await poll(() => page.locator("#tool-rows tr").count()).toBeGreaterThanOrEqual(
        CONFORMANCE_TOOLS.length,
      );
      await poll(() => page.locator("#audit-rows tr").count()).toBeGreaterThan(0);
      await poll(() => page.locator("#app-rows tr").count()).toBe(1);
      expect(await headerOnlyTables(page)).toEqual([]);
      expect(await namesBrokenMidWord(page)).toEqual([]);
      // The names column is never squeezed: at least as wide as the longest name's longest word.
      const squeezed = await page.evaluate(
        () =>
          Array.from(document.querySelectorAll<HTMLElement>("#tool-rows th")).filter((th) => {
            const code = th.querySelector("code")!;
            return th.getBoundingClientRect().width < code.getBoundingClientRect().width;
          }).length,
      );
      expect(squeezed).toBe(0);
      // Nothing makes the page scroll sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport.width,
      );
      await browser.screenshot(page, name);
    }
    await page.setViewportSize(WIDE);
  });

  it("lists a channel once on /channels when it is both the account's and kept in this browser", async () => {
    await page.goto(`${hubUrl}/channels`);
    await poll(async () => squash(await page.locator("#account-channel-list").textContent())).toContain(
      "kept in this browser too",
    );
    const links = await page.locator(`a[href="/channels/${channel.id}"]`).count();
    expect(links).toBe(1);
  });

  it("Try it offers the account's channels, including one this browser keeps no key of", async () => {
    const created = await page.request.post(`${hubUrl}/api/channels`, {
      data: { name: "Account only channel" },
      headers: { origin: hubUrl },
    });
    expect(created.status()).toBe(201);
    const other = (await created.json()) as { channel: { id: string } };
    await page.goto(`${hubUrl}/sites/${encodeURIComponent(demoHost)}/tools/get-dresses`);
    const options = page.locator('#try-channel optgroup[label="Your account\'s channels"] option');
    await poll(() => options.evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(
      expect.arrayContaining([channel.id, other.channel.id]),
    );
    // The account's channel with the shop tab runs the tool through the session, as an agent would.
    await page.locator("#try-channel").selectOption(channel.id);
    await poll(async () => squash(await page.locator("#try-status").textContent())).toContain("Ready.");
  });

  it("offers a signed-in user to add a channel opened by its owner key to the account, and only then", async () => {
    // A channel created anonymously (as npm start's demo channel is), opened from its console link.
    const res = await fetch(`${hubUrl}/api/channels`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Anonymous demo" }),
    });
    expect(res.status).toBe(201);
    const anon = (await res.json()) as { channel: { id: string }; ownerKey: string };
    await page.goto(`${hubUrl}/channels/${anon.channel.id}#ownerKey=${anon.ownerKey}`);
    const claim = page.getByRole("button", { name: "Add to my account" });
    await poll(() => claim.isVisible()).toBe(true);
    await claim.click();
    await poll(() => page.locator("#claim-status").textContent()).toContain("Added to your account");
    const owned = (await (await page.request.get(`${hubUrl}/api/account/channels`)).json()) as {
      channels: Array<{ id: string }>;
    };
    expect(owned.channels.map((c) => c.id)).toContain(anon.channel.id);
    // Opened again, it is the account's: nothing to offer. Nor for the account's own channel.
    for (const id of [anon.channel.id, channel.id]) {
      await page.goto(`${hubUrl}/channels/${id}`);
      await poll(() => page.locator("#console").isVisible()).toBe(true);
      await poll(() => page.locator("#owner-key").textContent()).not.toBe("");
      expect(await page.locator("#claim-box").isVisible()).toBe(false);
    }
  });

  it("opens a channel from a one-click console link: keeps its keys here, and the fragment leaves the address bar", async () => {
    const fresh = await launchBrowser();
    try {
      const p = await fresh.newPage();
      const seen: string[] = [];
      // Every request but the page's own navigation (whose fragment the browser never sends), with the owner
      // key's one allowed place, the Authorization header, blanked.
      p.on("request", (r) => {
        if (r.isNavigationRequest()) return;
        const headers = { ...r.headers() };
        if (headers.authorization === `Bearer ${channel.ownerKey}`) delete headers.authorization;
        seen.push(r.url() + JSON.stringify(headers) + (r.postData() ?? ""));
      });
      await p.goto(
        `${hubUrl}/channels/${channel.id}#ownerKey=${channel.ownerKey}&agentToken=${channel.agentToken}`,
      );
      await poll(() => p.locator("#console").isVisible()).toBe(true);
      expect(p.url()).toBe(`${hubUrl}/channels/${channel.id}`);
      expect(await p.evaluate(() => location.hash)).toBe("");
      const kept = await p.evaluate(() => JSON.parse(localStorage.getItem("webmcp-hub:channels") ?? "[]"));
      expect(kept).toEqual([
        expect.objectContaining({
          id: channel.id,
          ownerKey: channel.ownerKey,
          agentToken: channel.agentToken,
        }),
      ]);
      await poll(() => p.locator("#agent-token").textContent()).toBe(channel.agentToken);
      // The keys went nowhere but the owner's Authorization header.
      expect(seen.filter((s) => s.includes(channel.ownerKey) || s.includes(channel.agentToken))).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("edits the connected app's tool policy in its row: read-only, and the app then lists only read-only tools", async () => {
    const row = page.locator("#app-rows > tr:not(.policy-row)").first();
    await poll(async () => squash(await row.locator("td.policy-summary").textContent())).toBe(
      "All tools Edit",
    );
    await row.getByRole("button", { name: `Edit the tools the app “${APP}” may call` }).click();
    const editor = page.getByRole("form", { name: `Tools the app “${APP}” may call` });
    await editor.getByRole("radio", { name: "Read-only tools" }).check();
    await editor.getByRole("button", { name: "Save" }).click();
    await poll(async () => squash(await row.locator("td.policy-summary").textContent())).toBe(
      "Read-only tools Edit",
    );
    const owner = { authorization: `Bearer ${channel.ownerKey}` };
    const apps = (await (
      await fetch(`${hubUrl}/api/channels/${channel.id}/connected-apps`, { headers: owner })
    ).json()) as { connectedApps: Array<{ grantId: string }> };
    const policyUrl = `${hubUrl}/api/channels/${channel.id}/connected-apps/${apps.connectedApps[0]!.grantId}/policy`;
    expect(await (await fetch(policyUrl, { headers: owner })).json()).toEqual({ tools: "read-only" });
    const listed = (await app.listTools()).tools;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);

    // Back to all tools, from the same editor.
    await row.getByRole("button", { name: `Edit the tools the app “${APP}” may call` }).click();
    await editor.getByRole("radio", { name: "All tools" }).check();
    await editor.getByRole("button", { name: "Save" }).click();
    await poll(async () => squash(await row.locator("td.policy-summary").textContent())).toBe(
      "All tools Edit",
    );
    expect(await (await fetch(policyUrl, { headers: owner })).json()).toEqual({ tools: "all" });
    expect(problems).toEqual([]);
  });
});
