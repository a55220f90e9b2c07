// /bridge.js over the browser's own WebMCP: Chromium launched with --enable-blink-features=WebMCP, where
// document.modelContext is native and the bridge wraps it (install.ts) instead of replacing it. Pages on two
// loopback origins (127.0.0.1 and localhost, both secure contexts) load /bridge.js from the real hub, pair
// with a channel, and an MCP SDK client (the agent) lists and calls their tools on the channel's MCP URL.
// Proves: tools registered natively before and after the bridge loads are relayed and run through native
// executeTool; a JSON-text-taking executeTool (a SIMULATION of other builds) is detected once; the agent's
// cancel aborts the native call; native unregistration withdraws a tool; seed-era navigator.modelContext
// tools appear once and unregister; same-origin and cross-origin frames' tools are relayed with frameOrigin;
// a subframe's own bridge stands aside when the top-level document has one.
// Every tool is readOnlyHint, so calls need no approval (bridge-relay.test.ts covers the approval dialog).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport, type Tool } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { launchBrowser, type E2EBrowser } from "./browser.js";
import { api, createChannel, type Channel } from "./hub-api.js";

const hubUrl = inject("hubUrl");

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The agent: an MCP SDK client on the channel's MCP URL. */
class Agent {
  private constructor(readonly client: Client) {}

  static async connect(ch: Channel): Promise<Agent> {
    const client = new Client({ name: "native-e2e-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(ch.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${ch.agentToken}` } },
      }),
    );
    return new Agent(client);
  }

  async tools(): Promise<Tool[]> {
    return (await this.client.listTools()).tools;
  }

  /** Waits until the channel lists exactly `names` (each once), and returns the tools. */
  async waitForTools(names: string[]): Promise<Tool[]> {
    let tools: Tool[] = [];
    await expect
      .poll(async () => (tools = await this.tools()).map((t) => t.name).sort(), { timeout: 10_000 })
      .toEqual([...names].sort());
    return tools;
  }

  call(name: string, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<ToolResult> {
    const pending = this.client.callTool({ name, arguments: args }, signal ? { signal } : {});
    pending.catch(() => {}); // a test that fails early leaves it pending; closing the client rejects it
    return pending as Promise<ToolResult>;
  }
}

const text = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("");
const provider = (t: Tool | undefined) => t?._meta?.["webmcp-hub/provider"] as Record<string, unknown>;

/** Before the bridge: a log, and whether document.modelContext is the browser's own (native code). */
const HEAD = `<script>
window.log = [];
const getter = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get;
window.isNative = !!getter && /\\[native code\\]/.test(Function.prototype.toString.call(getter));
</script>`;
const bridge = () => `<script src="${hubUrl}/bridge.js"></script>`;

/** Tools registered natively before and after /bridge.js; `slow` waits until its call is cancelled. */
const OWN_PAGE = () => `<!doctype html><title>native</title>${HEAD}<script>
document.modelContext.registerTool({
  name: "before_bridge",
  description: "Registered natively before the bridge loaded",
  annotations: { readOnlyHint: true },
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  execute: (input) => { log.push(typeof input); return "before says " + input.word; },
});
</script>${bridge()}<script>
window.removal = new AbortController();
document.modelContext.registerTool({
  name: "after_bridge",
  description: "Registered natively after the bridge loaded",
  annotations: { readOnlyHint: true },
  execute: () => ({ answer: 42 }),
});
document.modelContext.registerTool(
  { name: "removable", description: "Unregistered by the page", annotations: { readOnlyHint: true }, execute: () => "still here" },
  { signal: removal.signal },
);
document.modelContext.registerTool({
  name: "slow",
  description: "Runs until the agent cancels",
  annotations: { readOnlyHint: true },
  execute: (input, client) => new Promise((_, reject) => {
    log.push("slow started");
    client.signal.addEventListener("abort", () => { log.push("slow aborted"); reject(client.signal.reason); });
  }),
});
document.modelContext.addEventListener("toolcancel", (e) => log.push("toolcancel " + e.toolName));
</script>`;

/**
 * A SIMULATION of other builds, not Chromium 156: the page wraps the native object's executeTool before the
 * bridge loads so that it takes the input as JSON text and refuses an object with TypeError, as the issue
 * says some builds do. Chromium 156's own executeTool takes an object (probe-native.md).
 */
const JSON_TEXT_PAGE = () => `<!doctype html><title>json text</title>${HEAD}<script>
const mc = document.modelContext;
const nativeExecute = mc.executeTool;
mc.executeTool = function (tool, input, options) {
  if (typeof input !== "string") {
    log.push("refused " + typeof input);
    return Promise.reject(new TypeError("invalid input: a JSON string is expected"));
  }
  log.push("text " + input);
  return nativeExecute.call(this, tool, JSON.parse(input), options);
};
mc.registerTool({
  name: "echo",
  description: "Echoes its input",
  annotations: { readOnlyHint: true },
  inputSchema: { type: "object", properties: { n: { type: "number" } } },
  execute: (input) => input,
});
</script>${bridge()}`;

/** The seed-era API as a site of that time writes it, over native document.modelContext. */
const SEED_PAGE = () => `<!doctype html><title>seed</title>${HEAD}${bridge()}<script>
const tool = (name, says) =>
  ({ name, description: "Seed tool " + name, annotations: { readOnlyHint: true }, execute: () => says });
navigator.modelContext.provideContext({ tools: [tool("seed_a", "a1"), tool("seed_b", "b1")] });
window.seedTool = tool;
</script>`;

/** A frame's tool, registered natively; a cross-origin frame exposes it to the top (?expose=ORIGIN). */
const FRAME_PAGE = `<!doctype html><title>frame</title><script>
const params = new URLSearchParams(location.search);
const expose = params.get("expose");
for (const name of params.getAll("tool"))
  document.modelContext.registerTool(
    {
      name,
      description: "A tool of the frame " + location.origin,
      annotations: { readOnlyHint: true },
      inputSchema: { type: "object", properties: { x: { type: "number" } } },
      execute: (input) => name + " in " + location.origin + " got " + input.x,
    },
    expose ? { exposedTo: [expose] } : {},
  ).then(() => parent.postMessage("registered " + location.origin, "*"));
</script>`;

/** The top document: its own tool, a same-origin frame, and a cross-origin frame (allow="tools"). */
const FRAMES_PAGE = (siteA: string, siteB: string) => `<!doctype html><title>frames</title>${HEAD}<script>
window.registered = [];
addEventListener("message", (e) => registered.push(e.data));
document.modelContext.registerTool(
  { name: "top_tool", description: "The top's tool", annotations: { readOnlyHint: true }, execute: () => "top" },
);
</script>${bridge()}
<iframe id="same" src="${siteA}/frame.html?tool=same_tool"></iframe>
<iframe id="cross" allow="tools *" src="${siteB}/frame.html?tool=cross_tool&tool=top_tool&expose=${encodeURIComponent(siteA)}"></iframe>`;

/** A top document with /bridge.js whose same-origin iframe loads /bridge.js too. */
const NESTED_PAGE = () => `<!doctype html><title>nested bridges</title>${HEAD}${bridge()}<script>
document.modelContext.registerTool(
  { name: "top_tool", description: "The top's tool", annotations: { readOnlyHint: true }, execute: () => "top" },
);
</script><iframe src="/frame-bridge.html"></iframe>`;
const FRAME_BRIDGE_PAGE = () => `<!doctype html><title>frame with a bridge</title>${bridge()}<script>
document.modelContext.registerTool(
  { name: "inner_tool", description: "The frame's tool", annotations: { readOnlyHint: true }, execute: () => "inner" },
);
</script>`;

let server: Server;
let siteA: string;
let siteB: string;
let browser: E2EBrowser;
const agents: Agent[] = [];
const pageErrors: string[] = [];
const warnings: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const pages: Record<string, () => string> = {
      "/own.html": OWN_PAGE,
      "/json-text.html": JSON_TEXT_PAGE,
      "/seed.html": SEED_PAGE,
      "/frame.html": () => FRAME_PAGE,
      "/frames.html": () => FRAMES_PAGE(siteA, siteB),
      "/nested.html": NESTED_PAGE,
      "/frame-bridge.html": FRAME_BRIDGE_PAGE,
    };
    const page = pages[new URL(req.url ?? "/", "http://x").pathname];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ? page() : "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  siteA = `http://127.0.0.1:${port}`;
  siteB = `http://localhost:${port}`;
  // The hub's first /bridge.js request can be slow: out of the way before the tests.
  await (await fetch(`${hubUrl}/bridge.js`)).arrayBuffer();
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe("/bridge.js on Chromium's own WebMCP (--enable-blink-features=WebMCP)", () => {
  beforeEach(async () => {
    browser = await launchBrowser(["--enable-blink-features=WebMCP"]);
    pageErrors.length = warnings.length = 0;
  });
  afterEach(async () => {
    await Promise.allSettled(agents.splice(0).map((a) => a.client.close()));
    await browser?.close();
  });

  /** Opens a page of siteA (or `url`), checks WebMCP is native there, and pairs it with a new channel. */
  async function openPaired(path: string): Promise<{ page: Page; agent: Agent; ch: Channel }> {
    const page = await browser.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
    expect((await page.goto(siteA + path))?.status()).toBe(200);
    expect(await page.evaluate(() => (window as unknown as { isNative: boolean }).isNative)).toBe(true);
    const ch = await createChannel("native e2e");
    await page.evaluate((code) => (window as HubWindow).webmcpHub!.pair(code), ch.pairingCode);
    await page.waitForFunction(() => (window as HubWindow).webmcpHub?.status === "connected");
    const agent = await Agent.connect(ch);
    agents.push(agent);
    return { page, agent, ch };
  }

  const log = (page: Page) => page.evaluate(() => (window as unknown as { log: string[] }).log);

  it("tools registered natively before and after the bridge loaded are listed and called by the agent", async () => {
    const { page, agent } = await openPaired("/own.html");
    const tools = await agent.waitForTools(["after_bridge", "before_bridge", "removable", "slow"]);
    const before = tools.find((t) => t.name === "before_bridge");
    expect(before).toMatchObject({
      description: "Registered natively before the bridge loaded",
      inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
    });
    expect(tools.find((t) => t.name === "after_bridge")?.annotations).toMatchObject({ readOnlyHint: true });
    // The page's own document: no frameOrigin.
    expect(provider(before)).toMatchObject({ kind: "tab", origin: siteA });
    expect(provider(before)).not.toHaveProperty("frameOrigin");

    expect(text(await agent.call("before_bridge", { word: "hi" }))).toBe("before says hi");
    // Native executeTool got an object (Chromium 156 refuses JSON text with TypeError).
    expect(await log(page)).toEqual(["object"]);
    // A JSON object result comes back as an object, as on the polyfill.
    expect(await agent.call("after_bridge")).toEqual({
      content: [{ type: "text", text: '{"answer":42}' }],
      structuredContent: { answer: 42 },
    });

    // Registered long after pairing: native toolchange → the bridge re-reads getTools().
    await page.evaluate(() =>
      (document as unknown as { modelContext: NativeContext }).modelContext.registerTool({
        name: "late",
        description: "Registered after pairing",
        annotations: { readOnlyHint: true },
        execute: () => "late one",
      }),
    );
    await agent.waitForTools(["after_bridge", "before_bridge", "late", "removable", "slow"]);
    expect(text(await agent.call("late"))).toBe("late one");
    expect(pageErrors).toEqual([]);
  });

  it("native unregistration withdraws the tool from the agent at once", async () => {
    const { page, agent } = await openPaired("/own.html");
    await agent.waitForTools(["after_bridge", "before_bridge", "removable", "slow"]);
    expect(text(await agent.call("removable"))).toBe("still here");
    await page.evaluate(() => (window as unknown as { removal: AbortController }).removal.abort());
    await agent.waitForTools(["after_bridge", "before_bridge", "slow"]);
    // Called anyway: an error (the hub's or the page's), never "still here".
    const gone = await agent.call("removable").then(
      (r) => r.isError,
      () => true,
    );
    expect(gone).toBe(true);
  });

  it("the agent's cancel aborts the native call: the tool's signal aborts and toolcancel fires natively", async () => {
    const { page, agent } = await openPaired("/own.html");
    await agent.waitForTools(["after_bridge", "before_bridge", "removable", "slow"]);
    const cancel = new AbortController();
    const call = agent.call("slow", {}, cancel.signal);
    await expect.poll(() => log(page)).toEqual(["slow started"]);
    cancel.abort("the agent changed its mind");
    await expect(call).rejects.toThrow();
    await expect.poll(() => log(page)).toEqual(["slow started", "slow aborted", "toolcancel slow"]);
    // The tool stays callable afterwards.
    expect(text(await agent.call("before_bridge", { word: "again" }))).toBe("before says again");
  });

  it("detects once which input native executeTool takes: JSON text here (a SIMULATION of other builds)", async () => {
    const { page, agent } = await openPaired("/json-text.html");
    await agent.waitForTools(["echo"]);
    expect(await agent.call("echo", { n: 1 })).toMatchObject({ structuredContent: { n: 1 } });
    // The first call tries an object, falls back to JSON text on the TypeError, and remembers it.
    expect(await agent.call("echo", { n: 2 })).toMatchObject({ structuredContent: { n: 2 } });
    expect(await log(page)).toEqual(["refused object", 'text {"n":1}', 'text {"n":2}']);
  });

  it("seed-era navigator.modelContext tools go into native once each, and unregister there", async () => {
    const { page, agent } = await openPaired("/seed.html");
    type Seed = {
      provideContext(o: { tools: unknown[] }): void;
      registerTool(t: unknown): void;
      unregisterTool(n: string): void;
      clearContext(): void;
    };
    type SeedWin = Window & { seedTool(name: string, says: string): unknown };
    const nativeNames = () =>
      page.evaluate(async () =>
        (await (document as unknown as { modelContext: NativeContext }).modelContext.getTools())
          .map((t) => t.name)
          .sort(),
      );
    // In native's own list (so in the browser's getTools), and once to the agent.
    expect(await nativeNames()).toEqual(["seed_a", "seed_b"]);
    await agent.waitForTools(["seed_a", "seed_b"]);
    expect(text(await agent.call("seed_a"))).toBe("a1");

    // provideContext again with a name it had: the old registrations go, the new ones come, nothing twice.
    await page.evaluate(() => {
      const w = window as unknown as SeedWin;
      const seed = (navigator as unknown as { modelContext: Seed }).modelContext;
      seed.provideContext({ tools: [w.seedTool("seed_a", "a2"), w.seedTool("seed_c", "c2")] });
    });
    expect(await nativeNames()).toEqual(["seed_a", "seed_c"]);
    await agent.waitForTools(["seed_a", "seed_c"]);
    expect(text(await agent.call("seed_a"))).toBe("a2");

    // A duplicate throws synchronously, as on the polyfill.
    const duplicate = await page.evaluate(() => {
      const w = window as unknown as SeedWin;
      try {
        (navigator as unknown as { modelContext: Seed }).modelContext.registerTool(w.seedTool("seed_c", "x"));
        return "registered";
      } catch (e) {
        return (e as Error).name;
      }
    });
    expect(duplicate).toBe("InvalidStateError");

    await page.evaluate(() =>
      (navigator as unknown as { modelContext: Seed }).modelContext.unregisterTool("seed_a"),
    );
    expect(await nativeNames()).toEqual(["seed_c"]);
    await agent.waitForTools(["seed_c"]);
    await page.evaluate(() => (navigator as unknown as { modelContext: Seed }).modelContext.clearContext());
    expect(await nativeNames()).toEqual([]);
    await agent.waitForTools([]);

    // A registration native refuses is reported: the page took the name natively in the same task, before
    // the bridge could read it back, so only the browser sees the clash.
    await page.evaluate(() => {
      const w = window as unknown as SeedWin;
      void (document as unknown as { modelContext: NativeContext }).modelContext.registerTool({
        name: "clash",
        description: "The page's own",
        annotations: { readOnlyHint: true },
        execute: () => "page",
      });
      (navigator as unknown as { modelContext: Seed }).modelContext.registerTool(w.seedTool("clash", "seed"));
    });
    await expect
      .poll(() => warnings.join("\n"))
      .toContain('webmcp-hub: the browser refused the tool "clash": Duplicate tool name');
    await agent.waitForTools(["clash"]);
    expect(text(await agent.call("clash"))).toBe("page");
    expect(pageErrors).toEqual([]);
  });

  it("relays same-origin and cross-origin frames' native tools with their frameOrigin, own tools first", async () => {
    const { page, agent } = await openPaired("/frames.html");
    const tools = await agent.waitForTools(["cross_tool", "same_tool", "top_tool"]);
    expect(provider(tools.find((t) => t.name === "top_tool"))).not.toHaveProperty("frameOrigin");
    expect(provider(tools.find((t) => t.name === "same_tool"))).toMatchObject({
      origin: siteA,
      frameOrigin: siteA,
    });
    expect(provider(tools.find((t) => t.name === "cross_tool"))).toMatchObject({
      origin: siteA,
      frameOrigin: siteB,
    });
    expect(text(await agent.call("same_tool", { x: 1 }))).toBe(`same_tool in ${siteA} got 1`);
    expect(text(await agent.call("cross_tool", { x: 2 }))).toBe(`cross_tool in ${siteB} got 2`);
    // The cross-origin frame's own top_tool: the top's keeps the name, the frame's is left out with a warning.
    expect(text(await agent.call("top_tool"))).toBe("top");
    await expect
      .poll(() => warnings.join("\n"))
      .toContain(`the tool "top_tool" of a frame (${siteB}) is not relayed: its name is taken.`);

    // A frame removed takes its tools along (native fires no toolchange for it; the bridge watches frames).
    await page.evaluate(() => document.getElementById("cross")!.remove());
    await agent.waitForTools(["same_tool", "top_tool"]);
    expect(pageErrors).toEqual([]);
  });

  it("a subframe's bridge on native stands aside when the top-level document has one", async () => {
    const { page, agent, ch } = await openPaired("/nested.html");
    const tools = await agent.waitForTools(["inner_tool", "top_tool"]);
    expect(provider(tools.find((t) => t.name === "inner_tool"))).toMatchObject({ frameOrigin: siteA });
    expect(text(await agent.call("inner_tool"))).toBe("inner");
    // The frame shares the top's stored pairing (same origin) yet does not connect: one provider, the top.
    const frame = page.frames().find((f) => f.url().endsWith("/frame-bridge.html"))!;
    await frame.waitForFunction(() => document.readyState === "complete");
    const refused = await frame.evaluate(() =>
      (window as HubWindow).webmcpHub!.pair("AAAAAAAA").then(
        () => "paired",
        (e: Error) => e.message,
      ),
    );
    expect(refused).toBe("The page this frame is in relays its tools: pair that page instead.");
    expect(await frame.evaluate(() => (window as HubWindow).webmcpHub!.status)).toBe("unpaired");
    const { body } = await api(`/api/channels/${ch.id}`, { token: ch.ownerKey });
    expect((body as { providers: unknown[] }).providers).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  });
});

interface NativeContext {
  registerTool(tool: {
    name: string;
    description: string;
    annotations?: Record<string, boolean>;
    execute: () => unknown;
  }): Promise<undefined>;
  getTools(): Promise<Array<{ name: string }>>;
}

/** window.webmcpHub as these tests use it. */
type HubWindow = Window & { webmcpHub?: { status: string; pair(code: string): Promise<unknown> } };
