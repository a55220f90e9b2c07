// The extension's own pages in a real Chromium with the unpacked extension (dist/extension/, built by the e2e
// global setup): the popup renders the service worker's state with no console error or CSP violation, pairs
// with a real hub set in its Settings and unpairs, decides about the site of the tab it was opened over, and
// the approval window of a request that is not waiting says so.
import { createServer, type Server } from "node:http";
import { mkdir } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { BrowserContext, Page, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { SCREENSHOT_DIR, launchWithExtension, type ExtensionBrowser } from "./browser.js";
import { createChannel, type Channel } from "./hub-api.js";

const TOOL_PAGE = `<!doctype html><title>stamps</title><script>
navigator.modelContext.registerTool({
  name: "buy-stamp",
  description: "Buys a stamp",
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
  execute: ({ id }) => "bought " + id,
});
</script>`;

let server: Server;
let siteOrigin: string;
let context: BrowserContext;
let worker: Worker;
let extension: ExtensionBrowser;
let extensionId: string;
const hubUrl = inject("hubUrl");

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(req.url === "/stamps.html" ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(req.url === "/stamps.html" ? TOOL_PAGE : "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  siteOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  extension = await launchWithExtension();
  ({ context, worker, extensionId } = extension);
});

afterAll(async () => {
  await extension?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Console errors and uncaught exceptions of a page (a CSP violation is logged as a console error). */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

/** One of the extension's pages in a new tab, with its errors collected from the start. */
async function openExtensionPage(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`chrome-extension://${extensionId}/${path}`);
  return { page, errors };
}

/**
 * The popup as it is when opened over `tabUrl`'s tab: opened by the service worker as a background tab of
 * the same window, so that tab stays the active one when the popup asks chrome.tabs which tab it is over;
 * then brought to the front to be clicked.
 */
async function popupOver(tabUrl: string): Promise<{ page: Page; errors: string[] }> {
  const opened = context.waitForEvent("page", (p) => p.url().endsWith("/popup.html"));
  await worker.evaluate(async (url) => {
    // The service worker's chrome.* (the Node side of this file has no chrome types).
    const chrome = (
      globalThis as unknown as {
        chrome: {
          tabs: {
            query(q: { url: string }): Promise<{ id?: number; windowId: number }[]>;
            create(p: { url: string; active: boolean; windowId: number }): Promise<unknown>;
          };
          runtime: { getURL(path: string): string };
        };
      }
    ).chrome;
    const [tab] = await chrome.tabs.query({ url });
    if (!tab?.id) throw new Error(`no tab shows ${url}`);
    await chrome.tabs.create({
      url: chrome.runtime.getURL("popup.html"),
      active: false,
      windowId: tab.windowId,
    });
  }, tabUrl);
  const page = await opened;
  const errors = collectErrors(page);
  await expect.poll(() => page.getByRole("heading", { name: "This site" }).isVisible()).toBe(true);
  await page.bringToFront();
  return { page, errors };
}

/** A request to the service worker, as the extension's pages send it (the worker's own debugging hook). */
const ui = (request: Record<string, unknown>) =>
  worker.evaluate(
    (r) =>
      (
        globalThis as unknown as { webmcpHubExtension: { ui(r: unknown): Promise<unknown> } }
      ).webmcpHubExtension.ui(r),
    request,
  );

/** The names of the tools the channel offers now. */
async function channelTools(ch: Channel): Promise<string[]> {
  const res = await fetch(`${hubUrl}/api/channels/${ch.id}`, {
    headers: { authorization: `Bearer ${ch.ownerKey}` },
  });
  const body = (await res.json()) as { tools?: { name: string }[] };
  return (body.tools ?? []).map((t) => t.name);
}

/** An agent's call over plain HTTP: its status and result. */
async function agentCall(ch: Channel, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${hubUrl}/api/channels/${ch.id}/calls`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ch.agentToken}` },
    body: JSON.stringify({ name, arguments: args }),
  });
  const body = (await res.json()) as { results: { status: string; result: unknown }[] };
  return body.results[0]!;
}

/** Whether an element shows exactly `text` (a string is matched whole, so "Never shared" is not "Never" + "Shared tabs"). */
const visible = (page: Page, text: string | RegExp) =>
  expect.poll(() =>
    page
      .getByText(text, { exact: typeof text === "string" })
      .first()
      .isVisible(),
  );

describe("the popup", () => {
  test("opened as a page, it renders 'Not paired' and the pairing form, with no console error or CSP violation", async () => {
    const { page, errors } = await openExtensionPage("popup.html");
    await visible(page, /^Not paired\./).toBe(true);
    expect(await page.getByRole("textbox", { name: "Pairing code" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Pair", exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Sign in and pick a channel" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Unpair" }).isVisible()).toBe(false);
    // Opened in a tab of its own, the popup's "current tab" is an extension page, not a web page.
    await visible(page, /works only on web pages/).toBe(true);
    expect(await page.getByRole("textbox", { name: "Hub URL" }).inputValue()).toMatch(/^https?:\/\//);
    expect(await page.getByRole("checkbox", { name: "Share incognito tabs" }).isChecked()).toBe(false);
    expect(await page.getByRole("button", { name: "Forget 'always allow' approvals" }).isVisible()).toBe(
      true,
    );

    // Pairing with no code says what to do, in an alert next to the field, without asking the service worker.
    await page.getByRole("button", { name: "Pair", exact: true }).click();
    await visible(page, "Type the pairing code from your channel's page.").toBe(true);
    expect(await page.getByRole("textbox", { name: "Pairing code" }).getAttribute("aria-invalid")).toBe(
      "true",
    );

    expect(errors).toEqual([]);
    await page.close();
  });

  test("pairs with the hub set in its Settings, shows the channel, shows the hub's error for a wrong code, and unpairs", async () => {
    const { page, errors } = await openExtensionPage("popup.html");
    await visible(page, /^Not paired\./).toBe(true);

    const hubField = page.getByRole("textbox", { name: "Hub URL" });
    await hubField.fill(`${hubUrl}/some/path`);
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => hubField.inputValue()).toBe(hubUrl);
    await visible(
      page,
      `Not paired. Pair this browser with a channel on ${new URL(hubUrl).host} to relay the sites you allow.`,
    ).toBe(true);

    // "Sign in and pick a channel" opens the hub's connect page in a tab, at the hub just set.
    const connectPage = context.waitForEvent("page");
    await page.getByRole("button", { name: "Sign in and pick a channel" }).click();
    const connect = await connectPage;
    // Signed out, the hub sends it to sign in first, then back to /extension/connect.
    await connect.waitForURL((url) =>
      [`${hubUrl}/extension/connect`, `${hubUrl}/signin?return_to=%2Fextension%2Fconnect`].includes(url.href),
    );
    await connect.close();

    const code = page.getByRole("textbox", { name: "Pairing code" });
    await code.fill("NOT-A-CODE");
    await page.getByRole("button", { name: "Pair", exact: true }).click();
    const pairError = page.locator("#pair-error");
    await expect.poll(() => pairError.isVisible()).toBe(true);
    expect(await pairError.getAttribute("role")).toBe("alert");
    expect(await pairError.textContent()).not.toMatch(/not responding|^$/);

    const channel = await createChannel("popup e2e");
    await code.fill(channel.pairingCode);
    await page.getByRole("button", { name: "Pair", exact: true }).click();
    await visible(page, `Paired with the channel “popup e2e” on ${new URL(hubUrl).host}.`).toBe(true);
    expect(await pairError.isVisible()).toBe(false);
    expect(await code.isVisible()).toBe(false);
    await visible(page, /Saving a different hub unpairs this browser\./).toBe(true);
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await page.locator("body").screenshot({ path: join(SCREENSHOT_DIR, "extension-popup-paired.png") });

    await page.getByRole("button", { name: "Unpair" }).click();
    await visible(page, /^Not paired\./).toBe(true);
    expect(await code.isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("over a web page's tab, it shows the site and its tool, and allow once / always / forget change what it shares", async () => {
    const site = await context.newPage();
    await site.goto(`${siteOrigin}/stamps.html`);
    const { page, errors } = await popupOver(site.url());

    await visible(page, siteOrigin).toBe(true);
    await visible(page, "Registered 1 tool").toBe(true);
    await visible(page, "Not shared: nothing reaches the channel until you allow this site.").toBe(true);
    await visible(page, "Not decided yet").toBe(true);

    await page.getByRole("button", { name: "Allow once", exact: true }).click();
    await visible(page, "Allowed for this tab only").toBe(true);
    expect(await page.getByRole("button", { name: "Stop sharing" }).isVisible()).toBe(true);
    // Allowed but not paired: the popup does not pretend the tab reaches a channel.
    await visible(page, /not relayed: this browser is not paired/).toBe(true);
    await visible(page, /No tab is shared\.|1 tool · not paired/).toBe(true);

    await page.getByRole("button", { name: "Always allow", exact: true }).click();
    await visible(page, "Always allowed").toBe(true);
    const decision = page.getByRole("combobox", { name: `Decision for ${siteOrigin}` });
    await expect.poll(() => decision.inputValue()).toBe("always");

    await decision.selectOption("never");
    await visible(page, "Never shared").toBe(true);
    expect(await page.getByRole("button", { name: "Ask again" }).isVisible()).toBe(true);

    await page.getByRole("button", { name: `Forget ${siteOrigin}` }).click();
    await visible(page, "Not decided yet").toBe(true);
    await visible(page, "You have not decided about any site yet.").toBe(true);
    expect(errors).toEqual([]);
    await page.close();
    await site.close();
  });
});

describe("the approval window", () => {
  test("for a request that is not waiting, it says so and offers Close, with no console error or CSP violation", async () => {
    const { page, errors } = await openExtensionPage("approval.html#no-such-approval");
    await expect
      .poll(() => page.getByRole("heading", { name: "This request is no longer waiting" }).isVisible())
      .toBe(true);
    const close = page.getByRole("button", { name: "Close" });
    expect(await close.evaluate((b) => b === document.activeElement)).toBe(true);
    expect(await page.getByRole("button", { name: "Approve" }).isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("an approval in its window", () => {
  test("shows channel, agent, site, tool and arguments as text with a countdown; Enter denies, Approve runs the call", async () => {
    const channel = await createChannel("approval e2e");
    expect(await ui({ type: "ui:set-hub", url: hubUrl })).toEqual({ ok: true });
    expect(await ui({ type: "ui:pair", code: channel.pairingCode })).toMatchObject({ ok: true });
    expect(await ui({ type: "ui:site", origin: siteOrigin, decision: "always" })).toEqual({ ok: true });
    const site = await context.newPage();
    await site.goto(`${siteOrigin}/stamps.html`);
    await expect.poll(() => channelTools(channel), { timeout: 15_000 }).toContain("buy-stamp");

    const approvalPage = () =>
      context
        .waitForEvent("page", (p) => p.url().includes("/approval.html#"))
        .then((page) => {
          const errors = collectErrors(page);
          return { page, errors };
        });

    // The first call: its window shows what is asked, with Deny focused, so Enter (pressed by habit) denies.
    let opened = approvalPage();
    const denied = agentCall(channel, "buy-stamp", { id: "<b>42</b>" });
    let { page, errors } = await opened;
    await expect
      .poll(() => page.getByRole("heading", { name: "Approve a tool call?" }).isVisible())
      .toBe(true);
    expect(await page.locator("#channel").textContent()).toBe("approval e2e");
    expect(await page.locator("#site").textContent()).toBe(siteOrigin);
    expect(await page.locator("#tool-name").textContent()).toBe("buy-stamp");
    expect(await page.locator("#agent").textContent()).not.toBe("");
    // The page's string is shown as text: no element was made from it.
    expect(await page.locator("#arguments").textContent()).toBe('{\n  "id": "<b>42</b>"\n}');
    expect(await page.locator("#arguments b").count()).toBe(0);
    expect(await page.getByRole("timer").textContent()).toMatch(
      /^The hub waits \d+:\d\d more for your answer\.$/,
    );
    expect(
      await page.getByRole("button", { name: "Deny" }).evaluate((b) => b === document.activeElement),
    ).toBe(true);

    // The popup lists it as waiting.
    const popup = await openExtensionPage("popup.html");
    await visible(popup.page, "An approval window is open for each call: decide there.").toBe(true);
    await visible(popup.page, `buy-stamp on ${siteOrigin}`).toBe(true);
    await popup.page.close();

    const closed = page.waitForEvent("close");
    await page.bringToFront();
    // Enter activates a button on keydown; the window is gone before keyup, and on a busy machine even before
    // the key press's own bookkeeping ends (it then rejects with "Target page … has been closed").
    await page.keyboard.down("Enter").catch((e: unknown) => {
      if (!page.isClosed()) throw e;
    });
    await closed;
    expect((await denied).status).not.toBe("ok");
    expect(errors).toEqual([]);

    // The second call: Approve runs it on the page.
    opened = approvalPage();
    const approved = agentCall(channel, "buy-stamp", { id: "7" });
    ({ page, errors } = await opened);
    const closedAgain = page.waitForEvent("close");
    await page.bringToFront();
    // The window closes itself as the click lands, which can end the click's own bookkeeping early.
    await page
      .getByRole("button", { name: "Approve" })
      .click()
      .catch((e: unknown) => {
        if (!page.isClosed()) throw e;
      });
    await closedAgain;
    const result = await approved;
    expect(result.status).toBe("ok");
    expect(JSON.stringify(result.result)).toContain("bought 7");
    expect(errors).toEqual([]);

    expect(await ui({ type: "ui:unpair" })).toEqual({ ok: true });
    expect(await ui({ type: "ui:site", origin: siteOrigin, decision: "ask" })).toEqual({ ok: true });
    await site.close();
  });
});
