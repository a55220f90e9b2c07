// /bridge.js's UI in a real Chromium: the widget's face and the approval dialog are /bridge-ui.js, which
// /bridge.js imports from the hub it came from only when one is shown (src/bridge/ui-loader.ts). Pages here are
// on a site of another origin than the hub's, so the import is a cross-origin module fetch (CORS), as on a
// real site. What is proven: no UI is fetched until shown; a widget added
// later renders; a dialog shows in a page without a widget; and when /bridge-ui.js cannot load, the widget
// warns in the console and a call that needs approval is not run, the agent told why.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { createChannel, type Channel } from "./hub-api.js";

const hubUrl = inject("hubUrl");
const UI_URL = `${hubUrl}/bridge-ui.js`;

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

describe("/bridge-ui.js: the bridge's UI, imported when shown", () => {
  let browser: E2EBrowser;
  const clients: Client[] = [];
  // The site: a loopback server of its own (a page a test fulfils by route has no address, so Chromium would
  // not let it load scripts from the loopback hub), on "localhost" while the hub is on 127.0.0.1: two origins.
  let site: Server;
  let siteOrigin: string;
  let served = 0;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    site = createServer((req, res) => {
      const body = pages.get(req.url ?? "");
      res.writeHead(body === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><meta charset="utf-8"><title>bridge ui</title><script src="${hubUrl}/bridge.js"></script><body>${body ?? ""}</body>`,
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
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    await browser?.close();
  });

  /** A page of the site's origin with /bridge.js from the hub; `uiRequests` lists fetches of /bridge-ui.js. */
  async function open(body: string, { uiLoads = true } = {}) {
    const page: Page = await browser.newPage();
    const errors: string[] = [];
    const warnings: string[] = [];
    const uiRequests: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
    page.on("request", (r) => r.url() === UI_URL && uiRequests.push(r.url()));
    if (!uiLoads) await page.route(UI_URL, (route) => route.abort());
    const path = `/page-${++served}.html`;
    pages.set(path, body);
    await page.goto(`${siteOrigin}${path}`);
    await page.waitForFunction(() => window.webmcpHub !== undefined);
    return Object.assign(page, { errors, warnings, uiRequests });
  }

  /** Pairs the page through window.webmcpHub (no widget needed) and registers `change_note`, which is not
   *  read-only (so each call asks for approval) and counts its runs in window.__runs. */
  async function pairWithTool(page: Page, ch: Channel): Promise<void> {
    await page.evaluate(async (code) => {
      const w = window as unknown as { __runs: number };
      w.__runs = 0;
      const mc = (
        document as unknown as {
          modelContext: { registerTool(tool: Record<string, unknown>): Promise<void> };
        }
      ).modelContext;
      await mc.registerTool({
        name: "change_note",
        description: "Changes the page's note.",
        inputSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
        execute: ({ note }: { note: string }) => {
          w.__runs++;
          return `note: ${note}`;
        },
      });
      await window.webmcpHub!.pair(code);
    }, ch.pairingCode);
    await page.waitForFunction(() => window.webmcpHub?.status === "connected");
  }

  async function agentFor(ch: Channel): Promise<Client> {
    const client = new Client({ name: "e2e-agent", version: "1.0.0" });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(ch.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${ch.agentToken}` } },
      }),
    );
    await expect
      .poll(async () => (await client.listTools()).tools.map((t) => t.name), { timeout: 10_000 })
      .toEqual(["change_note"]);
    return client;
  }

  it("a page without a widget fetches no UI; a widget added later has its shadow root at once and renders once the UI has loaded", async () => {
    const page = await open("<p>No widget here.</p>");
    // Nothing is shown, so nothing may be fetched: wait until the network is idle, then count.
    await page.waitForLoadState("networkidle");
    expect(page.uiRequests).toEqual([]);

    const shadowAtOnce = await page.evaluate(() => {
      const widget = document.createElement("webmcp-hub-widget");
      document.body.append(widget);
      return widget.shadowRoot !== null;
    });
    expect(shadowAtOnce).toBe(true);
    const widget = page.locator("webmcp-hub-widget");
    await expect
      .poll(() => widget.getByRole("status").textContent())
      .toBe(
        `Not connected. Enter a pairing code from ${new URL(hubUrl).host} to let your agent use this page's tools.`,
      );
    expect(await widget.getByLabel("Pairing code").count()).toBe(1);
    expect(page.uiRequests).toEqual([UI_URL]);
    expect(page.errors).toEqual([]);
  });

  it("a call that needs approval loads the dialog into a widget the bridge adds, which renders beside it", async () => {
    const ch = await createChannel("bridge ui e2e");
    const page = await open("<p>No widget here.</p>");
    await pairWithTool(page, ch);
    expect(page.uiRequests).toEqual([]);
    const agent = await agentFor(ch);

    const call = agent.callTool({ name: "change_note", arguments: { note: "hello" } }) as Promise<ToolResult>;
    const dialog = page.locator("webmcp-hub-widget dialog");
    await dialog.waitFor();
    expect(await dialog.locator("h2").textContent()).toBe(
      "Allow your agent (token created with the channel) to run change_note?",
    );
    // The widget the bridge added rendered too, and its rendering left the dialog in place.
    expect(await page.locator("webmcp-hub-widget").getByRole("status").textContent()).toContain(
      "Connected to",
    );
    await page.locator('webmcp-hub-widget dialog [data-action="approve"]').click();
    expect(await call).toEqual({ content: [{ type: "text", text: "note: hello" }] });
    expect(await page.evaluate(() => (window as unknown as { __runs: number }).__runs)).toBe(1);
    expect(page.uiRequests).toEqual([UI_URL]);
    expect(page.errors).toEqual([]);
  });

  it("when /bridge-ui.js cannot load, the widget warns in the console and a call that needs approval is not run; the agent is told why", async () => {
    const ch = await createChannel("bridge ui e2e");
    const page = await open("<webmcp-hub-widget></webmcp-hub-widget>", { uiLoads: false });
    await expect
      .poll(() => page.warnings.find((w) => w.startsWith("webmcp-hub: the widget cannot be shown:")))
      .toContain(`${UI_URL} could not load`);
    // window.webmcpHub works without its UI.
    await pairWithTool(page, ch);
    const agent = await agentFor(ch);

    const result = (await agent.callTool({
      name: "change_note",
      arguments: { note: "hello" },
    })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(
      /^The approval dialog could not load, so change_note was not run: .*\/bridge-ui\.js could not load/,
    );
    expect(await page.evaluate(() => (window as unknown as { __runs: number }).__runs)).toBe(0);
    expect(await page.locator("webmcp-hub-widget dialog").count()).toBe(0);
    // Each attempt imports again (a failed import is not kept): the widget's, then the call's.
    expect(page.uiRequests).toEqual([UI_URL, UI_URL]);
    expect(page.errors).toEqual([]);
  });
});
