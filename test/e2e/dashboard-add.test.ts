// "Add from the marketplace" in the dashboard, in a real Chromium against `wrangler dev`
// (test/e2e/global-setup.ts, which seeds the verified demo site): with no channel, the tool page's control
// links to creating one and signing in; then a channel created in the dashboard, the
// demo site's tool added to it from the tool page's "Add to a channel", the console's "Marketplace tools
// added" listing it, and its Remove button taking it away; then an agent's proposal confirmed on
// /sites/:host/add (its channel pre-selected, one tool unchecked) and the site's tools removed at once. The
// REST API confirms each step. And a signed-in account's channel, with no key kept in the browser: the
// chooser offers it, and adding and removing go through the session.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { api, createChannelInUi } from "./hub-api.js";

const hubUrl = inject("hubUrl");
const demoHost = inject("demoHost");
const enc = encodeURIComponent;
/** expect.poll with room for a busy machine. */
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });
const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();

describe("adding a marketplace tool to a channel in the dashboard", () => {
  let browser: E2EBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("adds a tool from its page and a proposal's chosen tool, lists them in the console, removes them there", async () => {
    const { body: manifest } = await api(`/api/sites/${enc(demoHost)}/manifest`);
    const toolName: string = manifest.manifest.tools[0].name;
    const page = await browser.newPage();
    const toolPath = `/sites/${enc(demoHost)}/tools/${enc(toolName)}`;

    // No channel yet (a fresh browser, nobody signed in): the control says how to get one.
    await page.goto(hubUrl + toolPath);
    const none = page.locator("#add-none");
    await poll(() => none.isVisible()).toBe(true);
    expect(await none.getByRole("link", { name: "Create a channel" }).getAttribute("href")).toBe("/channels");
    expect(await none.getByRole("link", { name: "sign in" }).getAttribute("href")).toBe(
      `/signin?return_to=${enc(toolPath)}`,
    );
    expect(await page.locator("#add-submit").isDisabled()).toBe(true);

    const channel = await createChannelInUi(page, "Add from the marketplace");
    const addedNames = async () => {
      const { status, body } = await api(`/api/channels/${enc(channel.id)}/tools`, {
        token: channel.ownerKey,
      });
      expect(status).toBe(200);
      return (body.tools as Array<{ host: string; name: string; status: string }>).map(
        (t) => `${t.host} ${t.name} ${t.status}`,
      );
    };
    expect(await addedNames()).toEqual([]);

    // The tool page: the chooser lists the channel this browser keeps; Add says what was added.
    await page.goto(hubUrl + toolPath);
    const section = page.locator("#add-to-channel");
    const chooser = section.getByLabel("Add to", { exact: true });
    await poll(() => chooser.isEnabled()).toBe(true);
    await chooser.selectOption(channel.id);
    await section.getByRole("button", { name: "Add to channel" }).click();
    const status = section.getByRole("status");
    await poll(async () => squash(await status.textContent())).toContain("Added.");
    expect(squash(await status.textContent())).toContain(
      `The tool ${toolName} of ${demoHost} is now in “Add from the marketplace”`,
    );
    expect(await addedNames()).toEqual([`${demoHost} ${toolName} listed`]);
    await browser.screenshot(page, "add-to-channel-tool-page");

    // The console, through the status's link: the tool is listed to agents, with a Remove button.
    await Promise.all([
      page.waitForURL(new RegExp(`/channels/${channel.id}#added-tools$`)),
      status.getByRole("link", { name: "Open the console of “Add from the marketplace”" }).click(),
    ]);
    const added = page.locator("#added-tools");
    await poll(async () => squash(await added.locator("#added-summary").textContent())).toBe(
      "1 tool added, 1 listed to agents now.",
    );
    const row = added.locator(`tr[data-tool="${toolName}"]`);
    expect(squash(await row.locator("th").textContent())).toContain(toolName);
    expect(squash(await row.locator('td[data-label="Agents"]').textContent())).toBe("listed to agents");
    expect(await added.getByRole("heading", { name: demoHost }).count()).toBe(1);
    // No browser has the extension connected to this channel: the console says added tools need an open page.
    await poll(async () => squash(await added.locator("#added-opener").textContent())).toContain(
      "No browser with the webmcp-hub extension is connected",
    );
    await browser.screenshot(page, "console-added-tools");

    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: `Remove ${toolName} of ${demoHost}` }).click();
    await poll(async () => squash(await added.locator("#added-summary").textContent())).toBe(
      "No marketplace tools added yet.",
    );
    expect(await added.locator("tr[data-tool]").count()).toBe(0);
    expect(await addedNames()).toEqual([]);

    // A proposal of two tools, confirmed on the add page with the first unchecked: only the second is added.
    const [first, second] = manifest.manifest.tools as Array<{ name: string }>;
    await page.goto(
      `${hubUrl}/sites/${enc(demoHost)}/add?tool=${enc(first!.name)}&tool=${enc(second!.name)}&channel=${enc(channel.id)}`,
    );
    const confirm = page.locator("#add-to-channel");
    await poll(() => confirm.getByLabel("Add to", { exact: true }).isEnabled()).toBe(true);
    expect(await confirm.getByLabel("Add to", { exact: true }).inputValue()).toBe(channel.id);
    await confirm.locator(`input[type="checkbox"][value="${first!.name}"]`).uncheck();
    await browser.screenshot(page, "add-proposal-page");
    await confirm.getByRole("button", { name: "Add to channel" }).click();
    await poll(async () => squash(await confirm.getByRole("status").textContent())).toContain(
      `The tool ${second!.name} of ${demoHost}`,
    );
    expect(await addedNames()).toEqual([`${demoHost} ${second!.name} listed`]);

    await page.goto(`${hubUrl}/channels/${enc(channel.id)}`);
    await poll(() => added.locator(`tr[data-tool="${second!.name}"]`).count()).toBe(1);
    page.once("dialog", (d) => void d.accept());
    await added.getByRole("button", { name: `Remove all tools of ${demoHost}` }).click();
    await poll(async () => squash(await added.locator("#added-summary").textContent())).toBe(
      "No marketplace tools added yet.",
    );
    expect(await addedNames()).toEqual([]);
    await page.close();
  });
  it("a signed-in account adds to its channel through its session, with no key kept in this browser", async () => {
    // Passkeys need a domain name as the relying party ID (test/e2e/accounts.test.ts): use localhost.
    const hub = hubUrl.replace("//127.0.0.1:", "//localhost:");
    const page = await browser.newPage();
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
    await page.goto(`${hub}/signin`);
    await page.getByLabel("Your name").fill("Grace");
    await page.getByRole("button", { name: "Create account with a passkey" }).click();
    await page.waitForURL(`${hub}/account`);
    await page.goto(`${hub}/channels`);
    await page.locator("#channel-name").fill("Grace's channel");
    await Promise.all([
      page.waitForURL((u) => /^\/channels\/[^/]+$/.test(u.pathname)),
      page.getByRole("button", { name: "Create channel" }).click(),
    ]);
    const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await poll(() => page.locator("#owner-key").textContent()).toMatch(/^who_/);
    // As on another device: no owner key in this browser, only the session.
    await page.evaluate(() => localStorage.clear());
    const addedNames = async () => {
      const res = await page.request.get(`${hub}/api/channels/${enc(id)}/tools`);
      expect(res.status()).toBe(200);
      return ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    };

    const { body: manifest } = await api(`/api/sites/${enc(demoHost)}/manifest`);
    const toolName: string = manifest.manifest.tools[0].name;
    await page.goto(`${hub}/sites/${enc(demoHost)}/add?tool=${enc(toolName)}&channel=${enc(id)}`);
    const section = page.locator("#add-to-channel");
    const chooser = section.getByLabel("Add to", { exact: true });
    await poll(() => chooser.isEnabled()).toBe(true);
    expect(await chooser.inputValue()).toBe(id);
    expect(await chooser.locator("optgroup").getAttribute("label")).toBe("Your account's channels");
    await section.getByRole("button", { name: "Add to channel" }).click();
    await poll(async () => squash(await section.getByRole("status").textContent())).toContain(
      `The tool ${toolName} of ${demoHost} is now in “Grace's channel”`,
    );
    expect(await addedNames()).toEqual([toolName]);

    await page.goto(`${hub}/channels/${enc(id)}`);
    const row = page.locator(`#added-tools tr[data-tool="${toolName}"]`);
    await poll(() => row.count()).toBe(1);
    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: `Remove ${toolName} of ${demoHost}` }).click();
    await poll(() => page.locator("#added-tools tr[data-tool]").count()).toBe(0);
    expect(await addedNames()).toEqual([]);
    await page.close();
  });
});
