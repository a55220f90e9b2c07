// The bridge in a real Chromium, relayed through the real hub (`wrangler dev`): demo pages pair with a
// channel through their widget, an MCP SDK client in Node (the agent) lists and calls their tools on the
// channel's MCP URL, and the user answers the approval dialog by clicking it. Each test has its own channel
// and its own browser profile, so no pairing leaks from one test into the next.
import { afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/client";
import type { Page, WebSocketRoute } from "playwright-core";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { api, createChannel, type Channel } from "./hub-api.js";

const hubUrl = inject("hubUrl");
const demoOrigin = inject("demoOrigin");

declare global {
  interface Window {
    webmcpHub?: EventTarget & {
      status: "unpaired" | "connecting" | "connected";
      pair(code: string): Promise<{ channelId: string }>;
      disconnect(): void;
    };
    __statuses?: string[];
    __dialogs?: number;
  }
}

/** The bridge's WebMCP (today's draft) as these tests use it; demo-site.test.ts types Document.modelContext. */
interface PageModelContext {
  registerTool(tool: {
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    annotations?: Record<string, boolean>;
    execute: (input: any, client: { signal: AbortSignal }) => unknown;
  }): Promise<void>;
}

interface ManifestTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  pages?: string[];
  cloud?: boolean;
}

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function channelState(ch: Channel) {
  const { status, body } = await api(`/api/channels/${ch.id}`, { token: ch.ownerKey });
  expect(status).toBe(200);
  return body as {
    providers: Array<{
      id: string;
      tokenId: string;
      origin: string;
      page: { url: string } | null;
      lastActiveAt: string;
    }>;
    tools: Array<{ name: string; providers: number }>;
  };
}

/** The agent: an MCP SDK client on the channel's MCP URL, counting `notifications/tools/list_changed`. */
class Agent {
  listChanged = 0;
  private constructor(readonly client: Client) {}

  static async connect(ch: Channel): Promise<Agent> {
    const client = new Client({ name: "e2e-agent", version: "1.0.0" });
    const agent = new Agent(client);
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      agent.listChanged++;
    });
    const transport = new StreamableHTTPClientTransport(new URL(ch.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${ch.agentToken}` } },
    });
    await client.connect(transport);
    return agent;
  }

  async tools(): Promise<Tool[]> {
    return (await this.client.listTools()).tools;
  }

  /** Waits until the channel lists exactly `names` (sorted). */
  async waitForTools(names: string[], timeoutMs = 10_000): Promise<Tool[]> {
    const deadline = Date.now() + timeoutMs;
    const want = [...names].sort();
    for (;;) {
      const tools = await this.tools();
      const have = tools.map((t) => t.name).sort();
      if (JSON.stringify(have) === JSON.stringify(want)) return tools;
      if (Date.now() > deadline) expect(have, "tools the agent sees").toEqual(want);
      await sleep(100);
    }
  }

  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    const pending = this.client.callTool({ name, arguments: args }, signal ? { signal } : {});
    pending.catch(() => {}); // a test that fails early leaves it pending; closing the client rejects it
    return pending as Promise<ToolResult>;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (result: ToolResult) => result.content.map((c) => c.text ?? "").join("\n");

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * The hints an MCP client keeps: the SDK's ToolAnnotations schema drops WebMCP's own hints
 * (untrustedContentHint, consequentialHint) from what it parses, so only MCP's are compared.
 */
function mcpHints(annotations: Record<string, unknown> | undefined) {
  const kept = Object.entries(annotations ?? {}).filter(([k]) =>
    ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"].includes(k),
  );
  return kept.length ? Object.fromEntries(kept) : undefined;
}

async function loadManifest(): Promise<ManifestTool[]> {
  const res = await fetch(`${demoOrigin}/.well-known/webmcp.json`);
  return ((await res.json()) as { tools: ManifestTool[] }).tools;
}

describe("the bridge relays a page's WebMCP tools to the user's agent", () => {
  let browser: E2EBrowser;
  let manifest: ManifestTool[];
  const agents: Agent[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    manifest = await loadManifest();
  });
  beforeEach(async () => {
    browser = await launchBrowser();
    pageErrors.length = 0;
  });
  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((a) => a.close()));
    await browser?.close();
  });

  async function agentFor(ch: Channel): Promise<Agent> {
    const agent = await Agent.connect(ch);
    agents.push(agent);
    return agent;
  }

  async function open(path: string, setup?: (page: Page) => Promise<void>): Promise<Page> {
    const page = await browser.newPage();
    page.on("pageerror", (e) => pageErrors.push(`${path}: ${e.message}`));
    await setup?.(page);
    const res = await page.goto(demoOrigin + path);
    expect(res?.status()).toBe(200);
    await page.waitForFunction(() => window.webmcpHub !== undefined);
    return page;
  }

  const status = (page: Page) => page.evaluate(() => window.webmcpHub!.status);
  const waitForStatus = (page: Page, want: string) =>
    page.waitForFunction((s) => window.webmcpHub?.status === s, want, { timeout: 15_000 });
  const widget = (page: Page) => page.locator("webmcp-hub-widget");
  const dialog = (page: Page) => page.locator("webmcp-hub-widget dialog");
  const answer = (page: Page, action: "approve" | "deny" | "always") =>
    page.locator(`webmcp-hub-widget dialog [data-action="${action}"]`).click();

  /** Types the code into the page's widget and presses Enter, as a user would. */
  async function pairThroughWidget(page: Page, code: string): Promise<void> {
    const input = widget(page).getByLabel("Pairing code");
    await input.fill(code);
    await input.press("Enter");
    await waitForStatus(page, "connected");
  }

  /** Counts approval dialogs shown from now on (window.__dialogs). */
  const countDialogs = (page: Page) =>
    page.evaluate(() => {
      window.__dialogs = 0;
      const root = document.querySelector("webmcp-hub-widget")!.shadowRoot!;
      new MutationObserver((records) => {
        for (const r of records)
          r.addedNodes.forEach((n) => {
            if (n.nodeName === "DIALOG") window.__dialogs! += 1;
          });
      }).observe(root, { childList: true });
    });

  it("a demo page pairs through its widget, and the agent's add-stamp runs the page's addStamp after approval", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/stamps.html");
    expect(await status(page)).toBe("unpaired");
    await expect.poll(() => widget(page).getByRole("status").textContent()).toContain("Not connected");

    await pairThroughWidget(page, ch.pairingCode);
    await expect
      .poll(() => widget(page).getByRole("status").textContent())
      .toBe(`Connected to ${new URL(hubUrl).host}: your agent can use 1 tool of this page.`);

    const agent = await agentFor(ch);
    const [tool] = await agent.waitForTools(["add-stamp"]);
    const listed = manifest.find((t) => t.name === "add-stamp")!;
    expect(tool).toMatchObject({
      name: "add-stamp",
      description: listed.description,
      inputSchema: listed.inputSchema,
    });
    expect(tool!._meta?.["webmcp-hub/provider"]).toMatchObject({ kind: "tab", origin: demoOrigin });

    const call = agent.call("add-stamp", {
      name: "Blue Mauritius",
      description: "One of the rarest stamps",
      year: 1847,
    });
    await dialog(page).waitFor();
    const shown = await dialog(page).textContent();
    // The agent is named by its token's label (set by the channel's owner); what the MCP client calls
    // itself is secondary text, marked as self-declared.
    expect(await dialog(page).locator("h2").textContent()).toBe(
      "Allow your agent (token created with the channel) to run Add a stamp?",
    );
    expect(shown).toContain("Its software calls itself “e2e-agent” (self-declared, not verified).");
    expect(shown).toContain(demoOrigin);
    expect(shown).toContain("add-stamp");
    expect(shown).toContain('"Blue Mauritius"');
    // The safe choice has the focus: Enter alone never approves.
    expect(
      await page.evaluate(() =>
        document.querySelector("webmcp-hub-widget")!.shadowRoot!.activeElement?.getAttribute("data-action"),
      ),
    ).toBe("deny");
    await answer(page, "approve");

    expect(await call).toEqual({
      content: [{ type: "text", text: 'Stamp "Blue Mauritius" added! Collection: 3 stamps.' }],
    });
    expect(await page.locator("#stampList").textContent()).toContain("Blue Mauritius (1847)");
    expect(await dialog(page).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("every demo page offers the agent exactly the tools its manifest lists, with its schemas and hints", async () => {
    const ch = await createChannel("bridge e2e");
    const agent = await agentFor(ch);
    let previous: Page | undefined;
    for (const path of [
      "/",
      "/stamps.html",
      "/shop.html",
      "/templates.html",
      "/reading.html",
      "/booking.html",
    ]) {
      // Pages of one origin share the pairing: after the first, each connects by itself.
      const page = await open(path);
      if (previous) await previous.close();
      else await pairThroughWidget(page, ch.pairingCode);
      await waitForStatus(page, "connected");
      if (path === "/templates.html")
        await page.getByRole("button", { name: "Open in editor" }).first().click();
      const expected = manifest.filter((t) => t.pages?.includes(path));
      const tools = await agent.waitForTools(expected.map((t) => t.name));
      for (const want of expected) {
        const got = tools.find((t) => t.name === want.name)!;
        const { pages: _pages, cloud: _cloud, ...descriptor } = want;
        expect(
          {
            name: got.name,
            title: got.title,
            description: got.description,
            inputSchema: got.inputSchema,
            outputSchema: got.outputSchema,
            annotations: mcpHints(got.annotations),
          },
          `${path}: ${want.name}`,
        ).toEqual({
          title: undefined,
          outputSchema: undefined,
          ...descriptor,
          annotations: mcpHints(descriptor.annotations),
        });
      }
      previous = page;
    }
    expect(pageErrors).toEqual([]);
  });

  it("the user denies, approves, or always allows a call that changes the page, by clicking the dialog", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/stamps.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-stamp"]);
    const stamp = (name: string) => ({ name, description: "A test stamp", year: 1900 });

    const denied = agent.call("add-stamp", stamp("Denied stamp"));
    await dialog(page).waitFor();
    await answer(page, "deny");
    expect(await denied).toEqual({
      isError: true,
      content: [{ type: "text", text: "The user declined to run add-stamp." }],
    });
    expect(await page.locator("#stampCount").textContent()).toBe("2");
    const audit = await api(`/api/channels/${ch.id}/audit?status=denied`, { token: ch.ownerKey });
    expect(audit.body.entries).toMatchObject([{ tool: "add-stamp", status: "denied" }]);

    const approved = agent.call("add-stamp", stamp("Approved stamp"));
    await answer(page, "approve");
    expect(text(await approved)).toBe('Stamp "Approved stamp" added! Collection: 3 stamps.');

    const always = agent.call("add-stamp", stamp("First always"));
    await answer(page, "always");
    expect(text(await always)).toBe('Stamp "First always" added! Collection: 4 stamps.');

    await countDialogs(page);
    const again = await agent.call("add-stamp", stamp("Second always"));
    expect(text(again)).toBe('Stamp "Second always" added! Collection: 5 stamps.');
    expect(await page.evaluate(() => window.__dialogs)).toBe(0);
    expect(await page.locator("#stampList").textContent()).toContain("Second always (1900)");
    const remembered = await page.evaluate(
      ([hub, id]) => localStorage.getItem(`webmcp-hub:${hub}:always:${id}`),
      [hubUrl, ch.id] as const,
    );
    expect(JSON.parse(remembered!)).toEqual(["add-stamp"]);
  });

  it("get-dresses is read-only and runs without a dialog; buyProduct also asks through the page's own confirm()", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/shop.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["buyProduct", "get-dresses"]);
    await countDialogs(page);

    const before = await page.locator("main").innerHTML();
    const dresses = await agent.call("get-dresses", { size: 8 });
    const products = (dresses.structuredContent as { products: Array<{ product_id: string }> }).products;
    expect(products.map((p) => p.product_id)).toEqual(["dress-001", "dress-004"]);
    expect(await page.evaluate(() => window.__dialogs)).toBe(0);
    expect(await page.locator("main").innerHTML()).toBe(before);

    let accept = false;
    const confirms: string[] = [];
    page.on("dialog", (d) => {
      confirms.push(d.message());
      void (accept ? d.accept() : d.dismiss());
    });
    const declined = agent.call("buyProduct", { product_id: "dress-002" });
    await answer(page, "approve");
    expect(await declined).toEqual({
      isError: true,
      content: [{ type: "text", text: "Purchase cancelled by user." }],
    });
    expect(await page.locator("#orderList li").count()).toBe(0);

    accept = true;
    const bought = agent.call("buyProduct", { product_id: "dress-002" });
    await answer(page, "approve");
    expect(text(await bought)).toBe("Product dress-002 purchased.");
    expect(await page.locator("#orderList").textContent()).toContain("Wrap dress (dress-002)");
    expect(confirms).toHaveLength(2);
    expect(confirms[0]).toContain("Buy product dress-002");
  });

  it("opening the template editor adds edit-design and the agent is told; closing the editor removes it", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/templates.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["filter-templates"]);

    let seen = agent.listChanged;
    await page.getByRole("button", { name: "Open in editor" }).first().click();
    await until(() => agent.listChanged > seen, "list_changed after opening the editor");
    await agent.waitForTools(["edit-design", "filter-templates"]);

    const edited = agent.call("edit-design", { instructions: 'background to navy; title to "Hi there"' });
    await answer(page, "approve");
    expect(text(await edited)).toContain('title is now "Hi there"');
    expect(await page.locator("#designTitle").textContent()).toBe("Hi there");

    seen = agent.listChanged;
    await page.getByRole("button", { name: "Close editor" }).click();
    await until(() => agent.listChanged > seen, "list_changed after closing the editor");
    await agent.waitForTools(["filter-templates"]);
    const gone = await agent.client
      .callTool({ name: "edit-design", arguments: { instructions: "x" } })
      .catch((e: Error) => e);
    expect(gone).toBeInstanceOf(Error);
    expect(String(gone)).toContain("Unknown tool");
  });

  it("the reading list (document.modelContext) returns values the bridge turns into MCP results, and aborting its signal unregisters tools", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/reading.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-book", "list-books", "mark-book-read"]);

    // A plain object: structuredContent plus its JSON as text.
    const listed = await agent.call("list-books", {});
    expect(listed.structuredContent).toEqual({
      books: [
        { title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", read: true },
        { title: "Middlemarch", author: "George Eliot", read: false },
      ],
    });
    expect(JSON.parse(text(listed))).toEqual(listed.structuredContent);

    // A string: text content.
    const added = agent.call("add-book", { title: "Dune", author: "Frank Herbert" });
    await answer(page, "approve");
    expect(await added).toEqual({
      content: [{ type: "text", text: 'Added "Dune" by Frank Herbert. The list has 3 books.' }],
    });
    expect(await page.locator("#bookList").textContent()).toContain("Dune");

    // A throw: isError with the message.
    const missing = agent.call("mark-book-read", { title: "Ulysses" });
    await answer(page, "approve");
    expect(await missing).toEqual({
      isError: true,
      content: [{ type: "text", text: '"Ulysses" is not on the list. Call list-books for the titles.' }],
    });

    const read = agent.call("mark-book-read", { title: "dune" });
    await answer(page, "approve");
    expect((await read).structuredContent).toEqual({ title: "Dune", author: "Frank Herbert", read: true });

    const seen = agent.listChanged;
    await page.getByLabel("Let agents change this list").uncheck();
    await until(() => agent.listChanged > seen, "list_changed after the signal aborted");
    await agent.waitForTools(["list-books"]);
    expect(pageErrors).toEqual([]);
  });

  it("the declarative booking form is a tool: the agent's call fills it in and submits it", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/booking.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["book-table"]);

    const booked = agent.call("book-table", { name: "Ada", date: "2026-12-01", time: "19:00", guests: 2 });
    await answer(page, "approve");
    const result = await booked;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("Booked a table for 2 on 2026-12-01 at 19:00, under Ada.");
    expect(await page.locator("#bookingList").textContent()).toContain("under Ada");
    expect(await page.locator("#guestName").inputValue()).toBe("Ada");
  });

  it("results that cannot travel as they are still reach the agent, as results or as errors that say why", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/");
    await pairThroughWidget(page, ch.pairingCode);
    await page.evaluate(async () => {
      const { modelContext } = document as unknown as { modelContext: PageModelContext };
      const returning = (name: string, value: () => unknown) =>
        modelContext.registerTool({
          name,
          description: `Returns an odd value (${name}).`,
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
          execute: value,
        });
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      await Promise.all([
        returning("returns_nothing", () => undefined),
        returning("returns_number", () => 42),
        returning("returns_array", () => [1, "two"]),
        returning("returns_bad_block", () => ({ content: [{ type: "text", text: 5 }] })),
        returning("returns_cycle", () => cycle),
        returning("returns_huge", () => "x".repeat(2 * 1024 * 1024)),
        returning("throws_string", () => {
          throw "plain string thrown";
        }),
      ]);
    });
    const agent = await agentFor(ch);
    await until(async () => (await agent.tools()).length === 8, "the page's tools");

    expect(await agent.call("returns_nothing", {})).toEqual({ content: [] });
    expect(await agent.call("returns_number", {})).toEqual({ content: [{ type: "text", text: "42" }] });
    expect(await agent.call("returns_array", {})).toEqual({ content: [{ type: "text", text: '[1,"two"]' }] });
    const bad = await agent.call("returns_bad_block", {});
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("a text block needs a string `text`");
    const cyclic = await agent.call("returns_cycle", {});
    expect(cyclic).toMatchObject({ isError: true });
    expect(text(cyclic)).toContain("cannot be turned into JSON");
    const huge = await agent.call("returns_huge", {});
    expect(huge.isError).toBe(true);
    expect(text(huge)).toContain("larger than");
    expect(await agent.call("throws_string", {})).toEqual({
      isError: true,
      content: [{ type: "text", text: "plain string thrown" }],
    });
    // The socket survived all of it.
    expect(await status(page)).toBe("connected");
    const greeted = agent.call("greet", { name: "Ada" });
    await answer(page, "approve"); // greet is not read-only
    expect(await greeted).toMatchObject({ content: [{ text: "Hello, Ada!" }] });
  });

  it("a call the hub times out aborts the tool's signal in the page", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/");
    await pairThroughWidget(page, ch.pairingCode);
    await page.evaluate(() =>
      (document as unknown as { modelContext: PageModelContext }).modelContext.registerTool({
        name: "wait_forever",
        description: "Waits until its call is aborted.",
        inputSchema: { type: "object", properties: {} },
        annotations: { readOnlyHint: true },
        execute: (_input: unknown, { signal }: { signal: AbortSignal }) =>
          new Promise((_resolve, reject) =>
            signal.addEventListener("abort", () => {
              (window as unknown as { __aborted: string }).__aborted = (signal.reason as Error).name;
              reject(signal.reason);
            }),
          ),
      }),
    );
    const agent = await agentFor(ch);
    await agent.waitForTools(["greet", "wait_forever"]);
    const started = Date.now();
    const result = (await agent.client.callTool({
      name: "wait_forever",
      arguments: {},
      _meta: { "webmcp-hub/timeoutMs": 1000 },
    })) as ToolResult;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("did not answer within 1 s");
    await page.waitForFunction(() => (window as unknown as { __aborted?: string }).__aborted !== undefined);
    expect(["AbortError", "TimeoutError"]).toContain(
      await page.evaluate(() => (window as unknown as { __aborted: string }).__aborted),
    );
  });

  it("two tabs of one origin offer one tool, served by the tab used last; closing it mid-call fails the call at once and the other tab serves the next", async () => {
    const ch = await createChannel("bridge e2e");
    const first = await open("/stamps.html");
    await pairThroughWidget(first, ch.pairingCode);
    const second = await open("/stamps.html");
    await waitForStatus(second, "connected"); // the same origin's stored pairing
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-stamp"]);
    await until(async () => (await channelState(ch)).providers.length === 2, "two providers");
    expect((await channelState(ch)).tools).toMatchObject([{ name: "add-stamp", providers: 2 }]);

    // A focused tab says hello again, which makes it the one the hub routes to.
    for (const [active, idle] of [
      [first, second],
      [second, first],
    ] as const) {
      const before = new Map((await channelState(ch)).providers.map((p) => [p.id, p.lastActiveAt]));
      await active.evaluate(() => window.dispatchEvent(new Event("focus")));
      // Its hello makes it the tab the hub routes to: wait until the hub has it (not a fixed time, which a
      // loaded machine overruns).
      await until(
        async () => (await channelState(ch)).providers.some((p) => p.lastActiveAt > before.get(p.id)!),
        "the focused tab's hello to reach the hub",
      );
      const call = agent.call("add-stamp", { name: "Routed", description: "routing", year: 1901 });
      await dialog(active).waitFor();
      expect(await dialog(idle).count()).toBe(0);
      await answer(active, "approve");
      expect((await call).isError).toBeFalsy();
    }

    // `second` is the active tab now: close it while its dialog waits.
    const pending = agent.call("add-stamp", { name: "Orphan", description: "never added", year: 1902 });
    await dialog(second).waitFor();
    const closedAt = Date.now();
    await second.close();
    const failed = await pending;
    expect(Date.now() - closedAt).toBeLessThan(5_000);
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(/navigated away|disconnected/);

    const next = agent.call("add-stamp", {
      name: "Survivor",
      description: "served by the first tab",
      year: 1903,
    });
    await answer(first, "approve");
    expect(text(await next)).toContain('Stamp "Survivor" added!');
    expect(await first.locator("#stampList").textContent()).toContain("Survivor (1903)");
  });

  it("navigating away mid-call fails the call with a message saying so", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/stamps.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-stamp"]);

    const pending = agent.call("add-stamp", { name: "Left behind", description: "x", year: 1900 });
    await dialog(page).waitFor();
    await page.goto(`${demoOrigin}/shop.html`);
    const result = await pending;
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: "text",
          text: "The page navigated away before add-stamp finished; the call did not complete.",
        },
      ],
    });
    // The next page of the origin connects with the same pairing and offers its own tools.
    await waitForStatus(page, "connected");
    await agent.waitForTools(["buyProduct", "get-dresses"]);
  });

  it("an agent's cancellation reaches the tab: the approval dialog closes", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/stamps.html");
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-stamp"]);

    const controller = new AbortController();
    const pending = agent.call(
      "add-stamp",
      { name: "Cancelled", description: "x", year: 1900 },
      controller.signal,
    );
    await dialog(page).waitFor();
    controller.abort();
    await expect(pending).rejects.toThrow();
    await dialog(page).waitFor({ state: "detached" });
    expect(await page.locator("#stampCount").textContent()).toBe("2");
    const audit = await api(`/api/channels/${ch.id}/audit?status=cancelled`, { token: ch.ownerKey });
    expect(audit.body.entries).toMatchObject([{ tool: "add-stamp", status: "cancelled" }]);
  });

  it("the tab reconnects by itself after the hub drops its socket, and its tools come back", async () => {
    const ch = await createChannel("bridge e2e");
    const servers: WebSocketRoute[] = [];
    const page = await open("/stamps.html", (p) =>
      p.routeWebSocket(/\/relay\//, (ws) => {
        servers.push(ws.connectToServer());
      }),
    );
    await page.evaluate(() => {
      window.__statuses = [];
      window.webmcpHub!.addEventListener("statuschange", () =>
        window.__statuses!.push(window.webmcpHub!.status),
      );
    });
    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-stamp"]);
    expect(servers).toHaveLength(1);

    await servers[0]!.close();
    await until(() => servers.length === 2, "a second connection");
    await waitForStatus(page, "connected");
    expect(await page.evaluate(() => window.__statuses)).toEqual([
      "connecting",
      "connected",
      "connecting",
      "connected",
    ]);
    await agent.waitForTools(["add-stamp"]);
    await until(
      async () => (await channelState(ch)).providers.length === 1,
      "one provider after the reconnect",
    );

    const call = agent.call("add-stamp", { name: "After reconnect", description: "x", year: 1900 });
    await answer(page, "approve");
    expect(text(await call)).toContain('Stamp "After reconnect" added!');
  });

  it("a revoked token sends every tab of the origin back to unpaired and is forgotten", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/stamps.html");
    await pairThroughWidget(page, ch.pairingCode);
    const other = await open("/shop.html");
    await waitForStatus(other, "connected");
    const [provider] = (await channelState(ch)).providers;

    const revoked = await api(`/api/channels/${ch.id}/providers/${provider!.tokenId}`, {
      method: "DELETE",
      token: ch.ownerKey,
    });
    expect(revoked.status).toBe(200);
    await waitForStatus(page, "unpaired");
    await waitForStatus(other, "unpaired");
    expect(await page.evaluate((hub) => localStorage.getItem(`webmcp-hub:${hub}`), hubUrl)).toBeNull();
    await expect.poll(() => widget(page).getByRole("alert").textContent()).toContain("revoked");
    await expect(widget(page).getByLabel("Pairing code").isVisible()).resolves.toBe(true);
    expect((await channelState(ch)).providers).toEqual([]);
  });

  it("a page whose stored pairing was revoked while it was closed is told why at once, in band", async () => {
    const ch = await createChannel("bridge e2e");
    const first = await open("/stamps.html");
    await pairThroughWidget(first, ch.pairingCode);
    const [provider] = (await channelState(ch)).providers;
    await first.close();
    await until(async () => (await channelState(ch)).providers.length === 0, "the tab to disconnect");
    const revoked = await api(`/api/channels/${ch.id}/providers/${provider!.tokenId}`, {
      method: "DELETE",
      token: ch.ownerKey,
    });
    expect(revoked.status).toBe(200);

    // The next page of the origin tries its stored pairing: the hub accepts the socket only to close it with
    // 4001, so the bridge names the reason instead of guessing it from refused upgrades.
    const page = await open("/shop.html");
    await waitForStatus(page, "unpaired");
    await expect
      .poll(() => widget(page).getByRole("alert").textContent())
      .toContain("This tab's access to the channel was revoked.");
    expect(await page.evaluate((hub) => localStorage.getItem(`webmcp-hub:${hub}`), hubUrl)).toBeNull();
    expect((await channelState(ch)).providers).toEqual([]);
  });

  it("a wrong code leaves the tab unpaired with the hub's message; Disconnect forgets the pairing and the tools go away", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/stamps.html");
    const input = widget(page).getByLabel("Pairing code");
    await input.fill("ZZZZ-ZZZZ");
    await input.press("Enter");
    await expect
      .poll(() => widget(page).getByRole("alert").textContent())
      .toContain("unknown, already used or expired");
    expect(await status(page)).toBe("unpaired");

    await pairThroughWidget(page, ch.pairingCode);
    const agent = await agentFor(ch);
    await agent.waitForTools(["add-stamp"]);
    expect(await page.evaluate((hub) => localStorage.getItem(`webmcp-hub:${hub}`), hubUrl)).toContain("whr_");

    await widget(page).getByRole("button", { name: "Disconnect" }).click();
    await waitForStatus(page, "unpaired");
    expect(await page.evaluate((hub) => localStorage.getItem(`webmcp-hub:${hub}`), hubUrl)).toBeNull();
    await agent.waitForTools([]);
    // The pairing is gone for good: a reload stays unpaired.
    await page.reload();
    await page.waitForFunction(() => window.webmcpHub !== undefined);
    await sleep(300);
    expect(await status(page)).toBe("unpaired");
  });

  it("pair() and statuschange are scriptable: window.webmcpHub pairs without the widget", async () => {
    const ch = await createChannel("bridge e2e");
    const page = await open("/");
    const result = await page.evaluate(async (code) => {
      const seen: string[] = [];
      window.webmcpHub!.addEventListener("statuschange", () => seen.push(window.webmcpHub!.status));
      const paired = await window.webmcpHub!.pair(code);
      await new Promise<void>((resolve) => {
        const check = () => (window.webmcpHub!.status === "connected" ? resolve() : setTimeout(check, 20));
        check();
      });
      return { paired, seen };
    }, ch.pairingCode);
    expect(result).toEqual({ paired: { channelId: ch.id }, seen: ["connecting", "connected"] });
    const state = await channelState(ch);
    expect(state.providers).toMatchObject([{ origin: demoOrigin, page: { url: `${demoOrigin}/` } }]);
    expect(state.tools.map((t) => t.name)).toEqual(["greet"]);
  });
});

describe("/bridge.js on the hub", () => {
  it("is served as JavaScript, at most 15 KiB gzipped, importing nothing but its UI and its relay", async () => {
    const res = await fetch(`${hubUrl}/bridge.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    const body = Buffer.from(await res.arrayBuffer());
    const { gzipSync } = await import("node:zlib");
    expect(gzipSync(body, { level: 9 }).byteLength).toBeLessThanOrEqual(15 * 1024);
    // A classic script: no static imports; its two import()s load /bridge-ui.js (the widget's face and the
    // approval dialog) when one is shown (test/e2e/bridge-ui.test.ts) and /bridge-relay.js (the relay) when
    // the page is paired or pairs (test/e2e/bridge-relay-loading.test.ts), both from the hub.
    expect(body.toString()).not.toMatch(/\bimport\s*[{"']/);
    expect(body.toString().match(/\bimport\s*\(/g)).toHaveLength(2);
    expect(body.toString()).toContain("/bridge-ui.js");
    expect(body.toString()).toContain("/bridge-relay.js");
  });

  it("imports a relay that is an ES module with no imports of its own", async () => {
    const res = await fetch(`${hubUrl}/bridge-relay.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    const body = await res.text();
    expect(body).toMatch(/\bexport\s*\{[^}]*\bRelayClient\b/);
    expect(body).not.toMatch(/\bimport\s*[{"'(]/);
  });
});
