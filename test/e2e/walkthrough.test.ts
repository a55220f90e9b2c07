// The README's five-minute walkthrough, followed step by step as a new user would, on the e2e stack: the
// demo channel `npm start` makes and what it prints (scripts/lib/seed.mjs demoChannel and
// scripts/lib/start-banner.ts startBanner, read back from the printed text), the one-click console link
// opened in Chromium, a passkey account at /signin, the demo channel claimed on /account with the printed
// owner key, Claude Desktop's configuration for the printed MCP URL run as Claude Desktop runs it
// (`npx -y mcp-remote URL`, spoken to over stdio) through the hub's consent page, the demo stamps page
// paired through its widget with the printed pairing code, the agent's add-stamp call approved in the tab's
// dialog, and the call in the console's "Recent calls", naming the agent by the OAuth app's name.
//
// Screenshots at 1280×800 (test-results/screenshots/walkthrough-<step>.png; docs/images/walkthrough-*.png
// are shrunk copies of them for the README): the console after the link, the consent page, the tab's
// approval dialog, the console's recent calls.
//
// As `npm start` runs it, every URL is on localhost (passkeys refuse 127.0.0.1). The e2e stack listens on
// 127.0.0.1, so the hub is addressed as localhost here too; the demo site stays on the e2e stack's origin
// (its pages load bridge.js from it, and the registry verified the site under that host). mcp-remote
// registers itself as "MCP CLI Proxy" (its built-in client_name), so that is the name the approval and
// the audit show for Claude Desktop connected this way.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { SCREENSHOT_DIR, launchBrowser, type E2EBrowser, signUpWithPasskey } from "./browser.js";
import { demoChannel } from "../../scripts/lib/seed.mjs";
import { startBanner } from "../../scripts/lib/start-banner.js";
import { consoleLink } from "../../web/shared/snippets.js";
import {
  MCP_REMOTE_VERSION,
  connectMcpRemote,
  installed,
  makeShell,
  type McpRemote,
  type Shell,
} from "./walkthrough-helpers.js";

const hub = inject("hubUrl").replace("//127.0.0.1:", "//localhost:");
const demoOrigin = inject("demoOrigin");
const WIDE = { width: 1280, height: 800 };
const poll = <T>(fn: () => Promise<T> | T, timeout = 30_000) => expect.poll(fn, { timeout });
const squash = (t: string | null | undefined) => (t ?? "").replace(/\s+/g, " ").trim();
/** mcp-remote's own client_name in its dynamic client registration. */
const MCP_REMOTE_NAME = "MCP CLI Proxy";
/** What Claude Desktop declares as its clientInfo (mcp-remote passes it on, "via mcp-remote"). */
const CLAUDE_DESKTOP = { name: "claude-ai", version: "0.1.0" };

/** The value printed after `label` on its own line of the banner ("    Pairing code       72Z5-S2NW  (…)"). */
function printed(banner: string, label: string): string {
  const value = new RegExp(`^ +${label} {2,}(\\S+)`, "m").exec(banner)?.[1];
  if (!value) throw new Error(`npm start's output has no "${label}" line:\n${banner}`);
  return value;
}

/** A 1280×800 screenshot (the viewport, not the full page) saved as walkthrough-<step>.png. */
async function shot(page: Page, step: string, scrollTo?: Locator): Promise<void> {
  await page.setViewportSize(WIDE);
  if (scrollTo) await scrollTo.evaluate((el) => el.scrollIntoView({ block: "start", behavior: "instant" }));
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `walkthrough-${step}.png`) });
}

describe("the README's five-minute walkthrough", () => {
  let stateDir: string;
  let shell: Shell;
  let browser: E2EBrowser;
  let banner: string;
  let consolePage: Page;
  let tab: Page;
  let agent: McpRemote | undefined;
  /** The app's name as the consent page showed it. */
  let appName = "";
  const problems: string[] = [];

  beforeAll(async () => {
    const mcpRemote = await installed("mcp-remote", MCP_REMOTE_VERSION);
    shell = await makeShell(mcpRemote);
    stateDir = await mkdtemp(join(tmpdir(), "webmcp-hub-walkthrough-"));
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await agent?.client.close().catch(() => {});
    await browser?.close();
    if (shell) await rm(shell.home, { recursive: true, force: true });
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it("1. npm start prints the demo channel: a one-click console link, a pairing code, the MCP URL", async () => {
    // What scripts/start.mjs does once the stack is up (the e2e stack has published the demo site).
    const channel = await demoChannel({
      hubUrl: hub,
      stateFile: join(stateDir, "webmcp-hub-demo-channel.json"),
    });
    banner = startBanner({
      hub,
      demoOrigin,
      site: {
        host: inject("demoHost"),
        version: 1,
        toolCount: 10,
        unchanged: true,
        publisherKey: "whp_…",
      },
      channel,
      stateFile: ".wrangler/webmcp-hub-demo-channel.json",
    });
    const link = printed(banner, "Open its console");
    expect(link).toBe(consoleLink(hub, channel.channelId, channel.ownerKey, channel.agentToken));
    expect(link).toMatch(new RegExp(`^${hub}/channels/[^#/]+#ownerKey=who_[^&]+&agentToken=wha_`));
    expect(printed(banner, "Pairing code")).toBe(channel.pairingCode);
    expect(printed(banner, "MCP URL")).toBe(`${hub}/mcp/${channel.channelId}`);
    expect(printed(banner, "Owner key")).toBe(channel.ownerKey);
    expect(banner).toMatch(/\/stamps\.html +add-stamp$/m);
  });

  it("2. the console link opens the channel's console in the browser", async () => {
    consolePage = await browser.newPage(WIDE);
    consolePage.on("pageerror", (e) => problems.push(`console: ${e.message}`));
    const link = printed(banner, "Open its console");
    await consolePage.goto(link);
    await poll(() => consolePage.locator("#console").isVisible()).toBe(true);
    // The keys stay in this browser; the address bar no longer shows them.
    expect(consolePage.url()).toBe(link.split("#")[0]);
    await poll(async () => squash(await consolePage.locator("#ch-name").textContent())).toBe("Demo channel");
    await poll(async () => squash(await consolePage.locator("#glance-tabs").textContent())).toBe(
      "none connected",
    );
    await poll(async () => squash(await consolePage.locator("#glance-last").textContent())).toBe("none yet");
    await shot(consolePage, "console");
  });

  it("3. sign in with a passkey, claim the demo channel with its owner key, and connect Claude Desktop with OAuth", async () => {
    const account = await browser.newPage(WIDE);
    account.on("pageerror", (e) => problems.push(`account: ${e.message}`));
    await signUpWithPasskey(account, hub, "Ada");

    // /account: "Claim a channel by its owner key", with the key npm start printed.
    const channelId = decodeURIComponent(
      new URL(printed(banner, "Open its console")).pathname.split("/")[2]!,
    );
    await account.getByLabel("Claim a channel by its owner key").fill(printed(banner, "Owner key"));
    await account.getByRole("button", { name: "Claim channel" }).click();
    const claimed = account.locator(`#account-channels a[href="/channels/${channelId}"]`);
    await poll(() => claimed.count()).toBe(1);
    expect(squash(await claimed.textContent())).toBe("Demo channel");
    expect(await account.locator("#account-error").isVisible()).toBe(false);

    // Claude Desktop's claude_desktop_config.json as the README gives it, with the printed MCP URL.
    const mcpUrl = printed(banner, "MCP URL");
    const config = JSON.parse(
      `{"mcpServers": {"webmcp-hub": {"command": "npx", "args": ["-y", "mcp-remote", "${mcpUrl}"]}}}`,
    ) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const server = config.mcpServers["webmcp-hub"]!;

    // mcp-remote sends the user to the hub's consent page, in the browser they signed in with.
    agent = await connectMcpRemote(
      server,
      shell,
      async (authorizeUrl) => {
        expect(new URL(authorizeUrl).origin).toBe(hub);
        const consent = await browser.newPage(WIDE);
        consent.on("pageerror", (e) => problems.push(`consent: ${e.message}`));
        await consent.goto(authorizeUrl);
        await consent.locator("#consent-allow, #authorize-problem").first().waitFor();
        expect(squash(await consent.locator("#consent-channel-name").textContent())).toBe("Demo channel");
        appName = squash(await consent.locator("h1 span").first().textContent());
        await shot(consent, "consent");
        await consent.locator("#consent-allow").click();
        await consent.waitForURL(/localhost:\d+\/oauth\/callback/, { waitUntil: "commit" });
      },
      CLAUDE_DESKTOP,
    );
    expect(appName).toBe(MCP_REMOTE_NAME);
    // Connected, and the channel (no tab paired yet) serves no page tools.
    const { tools } = await agent.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("add-stamp");
  }, 180_000);

  it("4. the demo stamps page pairs through its widget with the printed pairing code", async () => {
    const stamps = /^ +(\S+\/stamps\.html) +add-stamp$/m.exec(banner)![1]!;
    tab = await browser.newPage(WIDE);
    tab.on("pageerror", (e) => problems.push(`stamps: ${e.message}`));
    await tab.goto(stamps);
    const widget = tab.locator("webmcp-hub-widget");
    await widget.getByLabel("Pairing code").fill(printed(banner, "Pairing code"));
    await widget.getByRole("button", { name: "Pair" }).click();
    await poll(async () => squash(await widget.getByRole("status").textContent())).toMatch(
      /^Connected to .+: your agent can use 1 tool of this page\.$/,
    );
    // The agent sees the page's tool.
    await poll(async () => (await agent!.client.listTools()).tools.map((t) => t.name)).toContain("add-stamp");
    await poll(async () => squash(await consolePage.locator("#glance-tabs").textContent())).toBe(
      "1 tab connected",
    );
  }, 90_000);

  it("5. the agent calls add-stamp; the tab asks, naming the agent; Approve runs it", async () => {
    const call = agent!.client.callTool({
      name: "add-stamp",
      arguments: { name: "Walkthrough Jenny", description: "Added by my agent", year: 2026 },
    });
    const dialog = tab.locator("webmcp-hub-widget dialog");
    await poll(async () => squash(await dialog.locator("h2").textContent())).toBe(
      `Allow ${appName} to run Add a stamp?`,
    );
    expect(await dialog.isVisible()).toBe(true);
    expect(squash(await dialog.locator(".self-declared").textContent())).toContain(
      `“${CLAUDE_DESKTOP.name} (via mcp-remote`,
    );
    await shot(tab, "approval");
    await dialog.locator('[data-action="approve"]').click();
    const result = await call;
    expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
    await poll(async () => squash(await tab.locator("#confirmationMessage").textContent())).toBe(
      'Stamp "Walkthrough Jenny" added successfully!',
    );
    expect(await tab.locator("#stampList").textContent()).toContain("Walkthrough Jenny");
  }, 90_000);

  it("6. the console's Recent calls lists the call, naming the agent by the app's name", async () => {
    // Back to the console's tab, open since step 2: the call appears there on its own.
    await consolePage.bringToFront();
    const row = consolePage.locator("#audit-rows tr").first();
    await poll(async () => squash(await row.locator("th code").textContent())).toBe("add-stamp");
    expect(squash(await row.locator('td[data-label="Status"]').textContent())).toBe("ok");
    expect(squash(await row.locator("td.agent-cell").textContent())).toBe(appName);
    await poll(async () => squash(await consolePage.locator("#glance-last").textContent())).toMatch(
      /^add-stamp · ok/,
    );
    // The glance counts the connected app too (the console re-reads its apps every 10 s).
    await poll(async () => squash(await consolePage.locator("#glance-agents").textContent())).toBe(
      "1 agent token · 1 app",
    );
    await shot(consolePage, "audit", consolePage.locator("#audit"));
    expect(problems).toEqual([]);
  });
});
