// The WebMCP surface of /bridge.js in a real Chromium, on pages of the hub's origin (http://127.0.0.1 is a
// secure context): document.modelContext as the current draft and its web-platform-tests define it, the
// seed-era navigator.modelContext, declarative <form toolname> tools, the one registry behind them all, the
// native-wrap paths and the secure-context guard. Pages are served by routing /__bridge-spec/ on the hub;
// the built /bridge.js comes from wrangler dev. Where a test must look inside the registry, the page loads
// a probe build instead: installWebMcp() plus the registry on window.__registry.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, type E2EBrowser } from "./browser.js";

const hubUrl = inject("hubUrl");
const SPEC = `${hubUrl}/__bridge-spec/`;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// ---- What the page sees (types only: page.evaluate functions run in the browser) ------------------------

interface Client {
  signal: AbortSignal;
  requestUserInteraction<T>(callback: () => T | Promise<T>): Promise<T>;
}
interface SpecTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  execute: (input: Record<string, unknown>, client: Client) => unknown;
}
interface RegisteredToolView {
  name: string;
  title: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  window: Window;
  origin: string;
  annotations?: Record<string, boolean>;
}
interface ToolEvent extends Event {
  toolName: string;
}
interface SpecModelContext extends EventTarget {
  registerTool(tool: SpecTool, options?: { signal?: AbortSignal; exposedTo?: string[] }): Promise<undefined>;
  getTools(options?: { fromOrigins?: string[] }): Promise<RegisteredToolView[]>;
  executeTool(tool: object, input?: unknown, options?: { signal?: AbortSignal }): Promise<string | null>;
  ontoolchange: ((event: Event) => void) | null;
}
interface SeedModelContext {
  provideContext(options?: { tools: SpecTool[] }): void;
  clearContext(): void;
  registerTool(tool: SpecTool): void;
  unregisterTool(name: string): void;
}
type Outcome =
  { ok: true; value: unknown } | { ok: false; name?: string; message?: string; reason?: unknown };
interface ProbeTool {
  name: string;
  title?: string;
  source: string;
  annotations: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
  execute(input: Record<string, unknown>, client: Client): Promise<unknown>;
}
type Doc = { modelContext: SpecModelContext };
type Nav = { modelContext: SeedModelContext };
type Win = Window & {
  outcome(promise: unknown): Promise<Outcome>;
  nextTask(ms?: number): Promise<void>;
  ToolActivatedEvent: new (type: string, init?: EventInit & { toolName?: string }) => ToolEvent;
  ToolCancelEvent: new (type: string, init?: EventInit & { toolName?: string }) => ToolEvent;
  submits: Array<Record<string, unknown>>;
  __registry: { list(): ProbeTool[]; get(name: string): ProbeTool | undefined };
};

/** Runs in every page before the bridge: how a test reads a promise's outcome. */
const HELPERS = `<script>
  window.outcome = async (p) => {
    try { return { ok: true, value: await p }; }
    catch (e) { return typeof e === "object" && e ? { ok: false, name: e.name, message: e.message } : { ok: false, reason: e }; }
  };
  window.nextTask = (ms = 0) => new Promise((r) => setTimeout(r, ms));
</script>`;

const PROBE = `
  import { installWebMcp } from "./src/bridge/install.ts";
  import { registry } from "./src/bridge/registry.ts";
  installWebMcp();
  window.__registry = registry;
`;

let browser: E2EBrowser;
let probe: string;
let bridge: string;
let forms: string;
const pages: Page[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  const built = await esbuild.build({
    stdin: { contents: PROBE, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
  });
  probe = built.outputFiles[0]!.text;
  bridge = await readFile(new URL("../../web/assets/bridge.js", import.meta.url), "utf8");
  // The hub serves it (and its first request, which can be slow, is out of the way before the tests).
  const served = await fetch(`${hubUrl}/bridge.js`);
  expect(served.headers.get("content-type")).toMatch(/javascript/);
  await served.arrayBuffer();
  forms = await readFile(new URL("./fixtures/bridge-spec-forms.html", import.meta.url), "utf8");
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((p) => p.close()));
});

interface PageOptions {
  /** Runs before the bridge loads (a "native" modelContext, say). */
  head?: string;
  body?: string;
  /** The real /bridge.js, or the probe build. */
  script?: "bridge" | "probe";
  /** The page's origin: the hub's, unless a test needs another (served by the route alone). */
  origin?: string;
}

/** A new tab on ORIGIN/__bridge-spec/page.html; `served` counts the scripts the page fetched. */
async function open({ head = "", body = "", script = "bridge", origin = hubUrl }: PageOptions = {}) {
  const page = await browser.newPage();
  pages.push(page);
  const served = { bridge: 0, probe: 0 };
  const src = script === "probe" ? "/__bridge-spec/probe.js" : "/bridge.js";
  const html = `<!doctype html><meta charset="utf-8"><title>bridge spec</title>${HELPERS}${head}<script src="${src}"></script><body>${body}</body>`;
  await page.route(
    (u) => u.pathname.startsWith("/__bridge-spec/") || u.pathname === "/bridge.js",
    (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === "/__bridge-spec/probe.js") {
        served.probe++;
        return route.fulfill({ contentType: "text/javascript", body: probe });
      }
      if (path === "/bridge.js") {
        served.bridge++;
        // From wrangler dev on the hub; another origin gets the same built file.
        return origin === hubUrl
          ? route.continue()
          : route.fulfill({ contentType: "text/javascript", body: bridge });
      }
      return route.fulfill({ contentType: "text/html", body: html });
    },
  );
  await page.goto(`${origin}/__bridge-spec/page.html`);
  return Object.assign(page, { served });
}

// ---- document.modelContext ------------------------------------------------------------------------------

describe("document.modelContext, the current draft", () => {
  it("is one EventTarget, the same object on every access, with the draft's methods, handlers and events", async () => {
    const page = await open();
    const seen = await page.evaluate(() => {
      const doc = document as unknown as Doc;
      const w = window as unknown as Win;
      const mc = doc.modelContext;
      const members = mc as unknown as Record<string, unknown>;
      const activated = new w.ToolActivatedEvent("toolactivated", { toolName: "x" });
      return {
        secure: isSecureContext,
        sameObject: doc.modelContext === mc,
        onThePrototype: "modelContext" in Document.prototype,
        eventTarget: mc instanceof EventTarget,
        methods: ["registerTool", "getTools", "executeTool"].map((m) => typeof members[m]),
        handlers: ["ontoolchange", "ontoolactivated", "ontoolcancel"].map((h) => members[h]),
        events: [
          activated instanceof Event,
          activated.toolName,
          new w.ToolCancelEvent("toolcancel").toolName,
        ],
      };
    });
    expect(seen).toEqual({
      secure: true,
      sameObject: true,
      onThePrototype: true,
      eventTarget: true,
      methods: ["function", "function", "function"],
      handlers: [null, null, null],
      events: [true, "x", ""],
    });
  });

  it("registerTool rejects bad names, an empty description and a taken name with InvalidStateError, a malformed tool with TypeError", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome } = window as unknown as Win;
      const tool = (name: string, extra: Partial<SpecTool> = {}): SpecTool => ({
        name,
        description: "d",
        execute: () => "ok",
        ...extra,
      });
      const name = async (p: Promise<unknown>) => {
        const o = await outcome(p);
        return o.ok ? "ok" : o.name;
      };
      const badNames = ["", "has space", "é", "a/b", "x".repeat(129)];
      return {
        badNames: await Promise.all(badNames.map((n) => name(mc.registerTool(tool(n))))),
        longest: await name(mc.registerTool(tool("x".repeat(128)))),
        allChars: await name(mc.registerTool(tool("aZ09_-."))),
        taken: await name(mc.registerTool(tool("aZ09_-."))),
        emptyDescription: await name(mc.registerTool(tool("empty", { description: "" }))),
        noExecute: await name(mc.registerTool({ name: "n", description: "d" } as SpecTool)),
        noName: await name(mc.registerTool({ description: "d", execute: () => 1 } as unknown as SpecTool)),
        notAnObject: await name(mc.registerTool("tool" as unknown as SpecTool)),
        registered: (await mc.getTools()).map((t) => t.name),
      };
    });
    expect(seen).toEqual({
      badNames: Array(5).fill("InvalidStateError"),
      longest: "ok",
      allChars: "ok",
      taken: "InvalidStateError",
      emptyDescription: "InvalidStateError",
      noExecute: "TypeError",
      noName: "TypeError",
      notAnObject: "TypeError",
      registered: ["aZ09_-.", "x".repeat(128)],
    });
  });

  it("registerTool rejects an invalid or unserializable inputSchema with TypeError saying where; a schema without a type is an object schema", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome } = window as unknown as Win;
      const cyclic: Record<string, unknown> = { type: "object" };
      cyclic.self = cyclic;
      const bad: unknown[] = [
        { type: "string" },
        { type: "object", properties: 5 },
        { type: "object", required: "q" },
        { type: "object", properties: { q: { type: "strng" } } },
        { type: "object", properties: { q: { type: "string", pattern: "[" } } },
        { type: "object", properties: { q: { type: "number", minimum: "1" } } },
        { type: "object", properties: { q: { type: "array", items: 3 } } },
        { type: "object", anyOf: [] },
        cyclic,
        { toJSON: () => undefined },
        "an object schema",
      ];
      const refused = [];
      for (const [i, inputSchema] of bad.entries()) {
        const o = await outcome(
          mc.registerTool({ name: `bad${i}`, description: "d", inputSchema, execute: () => 1 }),
        );
        refused.push(o.ok ? "ok" : `${o.name}: ${o.message}`);
      }
      const good: Record<string, unknown> = {
        empty: {},
        untyped: { properties: { q: { type: "string" } } },
        rich: {
          type: "object",
          properties: { email: { type: "string", format: "email" }, n: { $ref: "#/$defs/n" } },
          $defs: { n: { type: "integer", minimum: 0 } },
          additionalProperties: true,
        },
      };
      const accepted = [];
      for (const [name, inputSchema] of Object.entries(good)) {
        accepted.push(
          (await outcome(mc.registerTool({ name, description: "d", inputSchema, execute: () => 1 }))).ok,
        );
      }
      await mc.registerTool({ name: "none", description: "no schema", execute: () => 1 });
      const tools = await mc.getTools();
      return {
        refused,
        accepted,
        schemas: Object.fromEntries(tools.map((t) => [t.name, t.inputSchema ?? "absent"])),
        noneHasTheKey: "inputSchema" in tools.find((t) => t.name === "none")!,
      };
    });
    expect(seen.refused.map((r) => r.split(":")[0])).toEqual(Array(11).fill("TypeError"));
    expect(seen.refused.slice(0, 8)).toEqual([
      'TypeError: inputSchema/type must be "object": tool arguments are an object',
      "TypeError: inputSchema/properties must be an object of schemas",
      "TypeError: inputSchema/required must be an array of distinct property names",
      "TypeError: inputSchema/properties/q/type must be one of array, boolean, integer, null, number, object, string (or a list of them)",
      'TypeError: inputSchema/properties/q/pattern "[" is not a valid regular expression',
      "TypeError: inputSchema/properties/q/minimum must be a number",
      "TypeError: inputSchema/properties/q/items must be a schema (an object or a boolean)",
      "TypeError: inputSchema/anyOf must be a non-empty array of schemas",
    ]);
    expect(seen.accepted).toEqual([true, true, true]);
    expect(seen.schemas).toEqual({
      empty: { type: "object" },
      untyped: { type: "object", properties: { q: { type: "string" } } },
      rich: {
        type: "object",
        properties: { email: { type: "string", format: "email" }, n: { $ref: "#/$defs/n" } },
        $defs: { n: { type: "integer", minimum: 0 } },
        additionalProperties: true,
      },
      none: "absent",
    });
    expect(seen.noneHasTheKey).toBe(false);
  });

  it("a registration signal: aborted already, it rejects with its reason; aborted later, it unregisters; exposedTo must be trustworthy origins", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome } = window as unknown as Win;
      const tool = (name: string): SpecTool => ({ name, description: "d", execute: () => 1 });
      const names = async () => (await mc.getTools()).map((t) => t.name);
      const alreadyAborted = await outcome(
        mc.registerTool(tool("a"), { signal: AbortSignal.abort("too late") }),
      );
      const afterAlreadyAborted = await names();

      const early = new AbortController();
      const pending = mc.registerTool(tool("early"), { signal: early.signal });
      early.abort("changed my mind");
      const abortedBeforeResolving = await outcome(pending);
      const afterEarly = await names();

      const later = new AbortController();
      await mc.registerTool(tool("b"), { signal: later.signal });
      const beforeAbort = await names();
      later.abort();
      const afterAbort = await names();
      await mc.registerTool(tool("b"));
      const reRegistered = await names();

      const exposed = async (origins: string[]) => {
        const o = await outcome(
          mc.registerTool(tool(`x${Math.random()}`.replace("0.", "")), { exposedTo: origins }),
        );
        return o.ok ? "ok" : o.name;
      };
      return {
        alreadyAborted,
        afterAlreadyAborted,
        abortedBeforeResolving,
        afterEarly,
        beforeAbort,
        afterAbort,
        reRegistered,
        exposedTo: [
          await exposed(["https://partner.example", "http://localhost:8080", "http://127.0.0.1:1"]),
          await exposed(["http://partner.example"]),
          await exposed(["not a url"]),
        ],
        fromOrigins: await outcome(mc.getTools({ fromOrigins: ["http://partner.example"] })),
      };
    });
    expect(seen).toEqual({
      alreadyAborted: { ok: false, reason: "too late" },
      afterAlreadyAborted: [],
      abortedBeforeResolving: { ok: false, reason: "changed my mind" },
      afterEarly: [],
      beforeAbort: ["b"],
      afterAbort: [],
      reRegistered: ["b"],
      exposedTo: ["ok", "SecurityError", "SecurityError"],
      fromOrigins: {
        ok: false,
        name: "SecurityError",
        message: "http://partner.example is not a potentially trustworthy origin.",
      },
    });
  });

  it("toolchange fires on registration and unregistration, before registerTool's promise resolves; ontoolchange joins in when set", async () => {
    const page = await open();
    const log = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const log: string[] = [];
      mc.addEventListener("toolchange", (e) => log.push(`listener:${e.constructor.name}:${e.target === mc}`));
      mc.ontoolchange = () => log.push("ontoolchange");
      const controller = new AbortController();
      await mc.registerTool({ name: "t", description: "d", execute: () => 1 }, { signal: controller.signal });
      log.push("registerTool resolved");
      controller.abort();
      await (window as unknown as Win).nextTask(20);
      mc.ontoolchange = null;
      await mc.registerTool({ name: "u", description: "d", execute: () => 1 });
      return log;
    });
    expect(log).toEqual([
      "listener:Event:true",
      "ontoolchange",
      "registerTool resolved",
      "listener:Event:true",
      "ontoolchange",
      "listener:Event:true",
    ]);
  });

  it("getTools lists every tool by name in code-unit order, as RegisteredTool dictionaries holding a copy of the schema", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const schema = {
        type: "object",
        properties: { q: { type: "string", description: "query" } },
        required: ["q"],
      };
      await mc.registerTool({
        name: "b",
        title: "Find things",
        description: "finds",
        inputSchema: schema,
        annotations: { readOnlyHint: "true", untrustedContentHint: true, consequentialHint: "false" },
        execute: () => 1,
      });
      await mc.registerTool({ name: "a", description: "plain", execute: () => 1 });
      await mc.registerTool({ name: "C", description: "upper case sorts first", execute: () => 1 });
      schema.properties.q.description = "changed by the page after registering";
      const first = await mc.getTools();
      (first[2]!.inputSchema!.properties as Record<string, unknown>).q = "changed by the caller";
      const second = await mc.getTools();
      return {
        names: first.map((t) => t.name),
        windows: first.map((t) => t.window === window),
        tools: second.map(({ window: _, ...rest }) => rest),
      };
    });
    expect(seen.names).toEqual(["C", "a", "b"]);
    expect(seen.windows).toEqual([true, true, true]);
    const origin = new URL(hubUrl).origin;
    expect(seen.tools).toEqual([
      { name: "C", title: "", description: "upper case sorts first", origin },
      { name: "a", title: "", description: "plain", origin },
      {
        name: "b",
        title: "Find things",
        description: "finds",
        inputSchema: {
          type: "object",
          properties: { q: { type: "string", description: "query" } },
          required: ["q"],
        },
        origin,
        annotations: { readOnlyHint: true, untrustedContentHint: true, consequentialHint: false },
      },
    ]);
  });

  it("executeTool runs execute with a copy of the input and one client with signal and requestUserInteraction, and returns the result as text", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome } = window as unknown as Win;
      const inputs: unknown[] = [];
      const clients: unknown[] = [];
      const register = (name: string, execute: SpecTool["execute"]) =>
        mc.registerTool({ name, description: "d", execute });
      await register("echo", (input, client) => {
        inputs.push(input);
        clients.push({
          signal: client.signal instanceof AbortSignal && !client.signal.aborted,
          requestUserInteraction: typeof client.requestUserInteraction,
        });
        return "plain text";
      });
      await register("object", () => ({ status: "resolved" }));
      await register("nothing", () => undefined);
      await register("throws", () => {
        throw new Error("boom");
      });
      await register("rejects", async () => Promise.reject(new Error("async boom")));
      await register("asks", (_input, client) =>
        client.requestUserInteraction(async () => "the user said yes"),
      );
      const tools = await mc.getTools();
      const tool = (name: string) => tools.find((t) => t.name === name)!;
      const original = { a: 1 };
      const run = (name: string, input?: unknown) => outcome(mc.executeTool(tool(name), input));
      return {
        echo: await run("echo", original),
        copied: inputs[0] !== original,
        omitted: await run("echo"),
        array: await run("echo", [1, 2, 3]),
        inputs: inputs.slice(),
        clients,
        primitives: await Promise.all(
          ["hello", 123, true, null, { toJSON: () => undefined }].map((i) => run("echo", i)),
        ),
        object: await run("object"),
        nothing: await run("nothing"),
        throws: await run("throws"),
        rejects: await run("rejects"),
        asks: await run("asks"),
        noOrigin: await outcome(mc.executeTool({ name: "echo", description: "d", window })),
        unknown: await outcome(
          mc.executeTool({ name: "ghost", description: "d", window, origin: location.origin }),
        ),
        otherOrigin: await outcome(mc.executeTool({ ...tool("echo"), origin: "https://other.example" })),
        badOrigin: await outcome(mc.executeTool({ ...tool("echo"), origin: "not a url" })),
      };
    });
    const typeError = expect.objectContaining({ ok: false, name: "TypeError" });
    expect(seen).toEqual({
      echo: { ok: true, value: "plain text" },
      copied: true,
      omitted: { ok: true, value: "plain text" },
      array: { ok: true, value: "plain text" },
      inputs: [{ a: 1 }, {}, [1, 2, 3]],
      clients: Array(3).fill({ signal: true, requestUserInteraction: "function" }),
      primitives: Array(5).fill(typeError),
      object: { ok: true, value: '{"status":"resolved"}' },
      nothing: { ok: true, value: null },
      throws: { ok: false, name: "UnknownError", message: "boom" },
      rejects: { ok: false, name: "UnknownError", message: "async boom" },
      asks: { ok: true, value: "the user said yes" },
      noOrigin: typeError,
      unknown: { ok: false, name: "UnknownError", message: 'This document has no tool named "ghost".' },
      otherOrigin: expect.objectContaining({ ok: false, name: "UnknownError" }),
      badOrigin: expect.objectContaining({ ok: false, name: "NotSupportedError" }),
    });
  });

  it("aborting executeTool rejects the call with the signal's reason, then aborts the tool's signal with AbortError, then fires toolcancel", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      const events: string[] = [];
      let started!: () => void;
      const toolStarted = new Promise<void>((r) => (started = r));
      let cancelled!: () => void;
      const toolCancelled = new Promise<void>((r) => (cancelled = r));
      let toolReason: unknown;
      await mc.registerTool({
        name: "slow",
        description: "never finishes",
        execute: (_input, client) =>
          new Promise(() => {
            client.signal.onabort = () => {
              toolReason = client.signal.reason;
              events.push("tool signal aborted");
            };
            events.push("tool started");
            started();
          }),
      });
      const record = (where: string) => (e: Event) => {
        const event = e as ToolEvent;
        const activated = e instanceof w.ToolActivatedEvent;
        const cancel = e instanceof w.ToolCancelEvent;
        const kind = activated ? "ToolActivatedEvent" : cancel ? "ToolCancelEvent" : "Event";
        events.push(
          `${where} ${event.type} ${event.toolName} ${kind}${event.target === mc ? " at modelContext" : ""}`,
        );
        if (where === "window" && event.type === "toolcancel") cancelled();
      };
      for (const type of ["toolactivated", "toolcancel"]) {
        mc.addEventListener(type, record("modelContext"));
        window.addEventListener(type, record("window"));
      }
      const [tool] = await mc.getTools();
      const controller = new AbortController();
      const call = mc
        .executeTool(tool!, {}, { signal: controller.signal })
        .catch((e) => events.push(`call rejected: ${e}`));
      await toolStarted;
      controller.abort("custom cancellation reason");
      await Promise.all([call, toolCancelled]);
      return { events, toolReason: toolReason instanceof DOMException && toolReason.name };
    });
    expect(seen).toEqual({
      events: [
        "modelContext toolactivated slow ToolActivatedEvent at modelContext",
        "tool started",
        "window toolactivated slow ToolActivatedEvent",
        "call rejected: custom cancellation reason",
        "tool signal aborted",
        "modelContext toolcancel slow ToolCancelEvent at modelContext",
        "window toolcancel slow ToolCancelEvent",
      ],
      toolReason: "AbortError",
    });
  });

  it("executeTool with an aborted signal rejects at once and never runs the tool", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      let ran = false;
      await mc.registerTool({ name: "never", description: "d", execute: () => (ran = true) });
      const [tool] = await mc.getTools();
      let rejection: unknown = "not yet";
      mc.executeTool(tool!, {}, { signal: AbortSignal.abort("already aborted") }).catch(
        (e) => (rejection = e),
      );
      await Promise.resolve();
      const afterOneMicrotask = rejection;
      await (window as unknown as Win).nextTask(20);
      return { afterOneMicrotask, ran };
    });
    expect(seen).toEqual({ afterOneMicrotask: "already aborted", ran: false });
  });

  it("a call stays rejected when the tool resolves after the abort, and concurrent calls have their own signals", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome } = window as unknown as Win;
      const signals: AbortSignal[] = [];
      let finishSecond!: (v: string) => void;
      await mc.registerTool({
        name: "late",
        description: "resolves once aborted",
        execute: (_input, client) =>
          new Promise((resolve) => (client.signal.onabort = () => resolve("late value"))),
      });
      await mc.registerTool({
        name: "twice",
        description: "d",
        execute: (_input, client) => {
          signals.push(client.signal);
          return signals.length === 1 ? new Promise(() => {}) : new Promise((r) => (finishSecond = r));
        },
      });
      const tools = await mc.getTools();
      const late = tools.find((t) => t.name === "late")!;
      const twice = tools.find((t) => t.name === "twice")!;
      const c = new AbortController();
      const lateCall = mc.executeTool(late, {}, { signal: c.signal });
      c.abort(); // Before the tool has even started: it still starts, then its signal aborts.
      const lateOutcome = await outcome(lateCall);

      const c1 = new AbortController();
      const first = outcome(mc.executeTool(twice, {}, { signal: c1.signal }));
      const second = outcome(mc.executeTool(twice, {}, { signal: new AbortController().signal }));
      while (signals.length < 2) await (window as unknown as Win).nextTask();
      c1.abort("cancel 1");
      const firstOutcome = await first;
      await (window as unknown as Win).nextTask();
      const aborted = signals.map((s) => s.aborted);
      finishSecond("second result");
      return { lateOutcome, firstOutcome, aborted, secondOutcome: await second };
    });
    expect(seen).toEqual({
      lateOutcome: { ok: false, name: "AbortError", message: "signal is aborted without reason" },
      firstOutcome: { ok: false, reason: "cancel 1" },
      aborted: [true, false],
      secondOutcome: { ok: true, value: "second result" },
    });
  });

  it("a tool that unregisters itself while it runs still returns its result, and is gone afterwards", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const registration = new AbortController();
      await mc.registerTool(
        {
          name: "once",
          description: "unregisters when it succeeds",
          execute: async () => {
            registration.abort();
            return { status: "resolved" };
          },
        },
        { signal: registration.signal },
      );
      const [tool] = await mc.getTools();
      const result = await mc.executeTool(tool!);
      return { result, left: (await mc.getTools()).map((t) => t.name) };
    });
    expect(seen).toEqual({ result: '{"status":"resolved"}', left: [] });
  });
});

// ---- navigator.modelContext -----------------------------------------------------------------------------

describe("navigator.modelContext, the seed-era API, on the same registry", () => {
  it("registerTool throws at once on a taken name or an invalid inputSchema; its tools show in getTools, fire toolchange and unregister by name", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      let changes = 0;
      mc.addEventListener("toolchange", () => changes++);
      const thrown = (f: () => void) => {
        try {
          f();
          return "no error";
        } catch (e) {
          return `${(e as Error).name}: ${(e as Error).message}`;
        }
      };
      const tool = (name: string, extra: Partial<SpecTool> = {}): SpecTool => ({
        name,
        description: "Add a new stamp to the collection",
        inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        execute: ({ name }) => `Stamp "${String(name)}" added!`,
        ...extra,
      });
      const sameObject = (navigator as unknown as Nav).modelContext === seed;
      const first = thrown(() => seed.registerTool(tool("add-stamp")));
      await mc.registerTool(tool("current-one"));
      const results = {
        sameObject,
        first,
        taken: thrown(() => seed.registerTool(tool("add-stamp"))),
        takenByTheOtherGeneration: thrown(() => seed.registerTool(tool("current-one"))),
        badSchema: thrown(() =>
          seed.registerTool(tool("bad", { inputSchema: { type: "object", required: [1] } })),
        ),
        badName: thrown(() => seed.registerTool(tool("add stamp"))),
        listed: (await mc.getTools()).map((t) => t.name),
        changes,
      };
      const [stamp] = (await mc.getTools()).filter((t) => t.name === "add-stamp");
      const called = await mc.executeTool(stamp!, { name: "Penny Black" });
      seed.unregisterTool("add-stamp");
      seed.unregisterTool("current-one"); // Not this API's tool: left alone.
      seed.unregisterTool("never-registered");
      await w.nextTask();
      return {
        ...results,
        called,
        afterUnregister: (await mc.getTools()).map((t) => t.name),
        changesAfter: changes,
      };
    });
    expect(seen).toEqual({
      sameObject: true,
      first: "no error",
      taken: 'InvalidStateError: A tool named "add-stamp" is already registered.',
      takenByTheOtherGeneration: 'InvalidStateError: A tool named "current-one" is already registered.',
      badSchema: "TypeError: inputSchema/required must be an array of distinct property names",
      badName:
        'InvalidStateError: "add stamp" is not a tool name: use 1 to 128 letters, digits, "_", "-" or ".".',
      listed: ["add-stamp", "current-one"],
      changes: 1, // Both registrations came in one microtask: the registry batches its change events.
      called: 'Stamp "Penny Black" added!',
      afterUnregister: ["current-one"],
      changesAfter: 2,
    });
  });

  it("provideContext replaces the tools it gave before and clearContext removes them, leaving document.modelContext's tools alone", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const names = async () => (await mc.getTools()).map((t) => t.name);
      const tool = (name: string, description = "d"): SpecTool => ({
        name,
        description,
        execute: () => name,
      });
      await mc.registerTool(tool("current-one"));
      seed.registerTool(tool("edit-design"));
      seed.provideContext({ tools: [tool("filter-templates"), tool("greet")] });
      const afterProvide = await names();
      seed.provideContext({ tools: [tool("greet", "first"), tool("greet", "last one wins")] });
      const afterSecond = await mc.getTools();
      seed.clearContext();
      const afterClear = await names();
      seed.provideContext({ tools: [tool("a")] });
      seed.provideContext();
      return {
        afterProvide,
        afterSecond: afterSecond.map((t) => `${t.name}: ${t.description}`),
        afterClear,
        afterEmptyProvide: await names(),
      };
    });
    expect(seen).toEqual({
      afterProvide: ["current-one", "filter-templates", "greet"],
      afterSecond: ["current-one: d", "greet: last one wins"],
      afterClear: ["current-one"],
      afterEmptyProvide: ["current-one"],
    });
  });

  it("provideContext with one bad tool throws and keeps the previous context as it was", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const tool = (name: string, inputSchema?: unknown): SpecTool => ({
        name,
        description: "d",
        inputSchema,
        execute: () => name,
      });
      seed.provideContext({ tools: [tool("old-1"), tool("old-2")] });
      let error = "";
      try {
        seed.provideContext({ tools: [tool("new-1"), tool("new-2", { type: "string" })] });
      } catch (e) {
        error = (e as Error).name;
      }
      const [old1] = await mc.getTools();
      return {
        error,
        names: (await mc.getTools()).map((t) => t.name),
        stillRuns: await mc.executeTool(old1!),
      };
    });
    expect(seen).toEqual({ error: "TypeError", names: ["old-1", "old-2"], stillRuns: "old-1" });
  });

  it("a seed-era execute gets one client: requestUserInteraction shows the page's own UI, signal tells of a cancel", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const purchases: string[] = [];
      seed.registerTool({
        name: "buyProduct",
        description: "Use this tool to purchase a product given its unique product_id.",
        inputSchema: {
          type: "object",
          properties: { product_id: { type: "string" } },
          required: ["product_id"],
        },
        async execute({ product_id }, agent) {
          const confirmed = await agent.requestUserInteraction(async () => !agent.signal.aborted);
          if (!confirmed) throw new Error("Purchase cancelled by user.");
          purchases.push(String(product_id));
          return `Product ${String(product_id)} purchased.`;
        },
      });
      const [tool] = await mc.getTools();
      return { result: await mc.executeTool(tool!, { product_id: "p-42" }), purchases };
    });
    expect(seen).toEqual({ result: "Product p-42 purchased.", purchases: ["p-42"] });
  });
});

// ---- declarative forms ----------------------------------------------------------------------------------

describe("declarative <form toolname> tools", () => {
  it("a tool form is a tool whose inputSchema comes from its controls", async () => {
    const page = await open({ body: forms });
    const tools = await page.evaluate(async () =>
      (await (document as unknown as Doc).modelContext.getTools()).map(({ window: _, ...rest }) => rest),
    );
    expect(tools.map((t) => t.name)).toEqual(["add-stamp", "search"]);
    expect(tools[0]).toEqual({
      name: "add-stamp",
      title: "",
      description: "Add a stamp to the collection",
      origin: new URL(hubUrl).origin,
      inputSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "The stamp's name" },
          year: { type: "number", minimum: 1840, maximum: 2100, description: "Year issued" },
          rating: { type: "number", minimum: 0, maximum: 10 },
          rare: { type: "boolean", description: "Rare" },
          country: { type: "string", enum: ["fr", "jp"], description: "Country of issue" },
          tags: { type: "array", items: { type: "string", enum: ["bird", "ship", "flower"] } },
          condition: { type: "string", enum: ["mint", "used"], description: "mint or used" },
          perf: { type: "array", items: { type: "string", enum: ["comb", "line"] } },
          notes: { type: "string", minLength: 2, maxLength: 200 },
        },
        required: ["name", "condition"],
      },
    });
  });

  it("a toolautosubmit form is filled (input and change fire where a value changes), toolactivated fires, it is submitted with agentInvoked, and respondWith's value is the result", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      const form = document.getElementById("stamp") as HTMLFormElement;
      const events: string[] = [];
      for (const el of Array.from(form.elements)) {
        if (!(el as HTMLInputElement).name) continue; // The fieldset sees its radios' events bubble.
        for (const type of ["input", "change"]) {
          el.addEventListener(type, () => events.push(`${type}:${(el as HTMLInputElement).name}`));
        }
      }
      let nameAtActivation = "";
      mc.addEventListener(
        "toolactivated",
        () => (nameAtActivation = (form.elements.namedItem("name") as HTMLInputElement).value),
      );
      const tool = (await mc.getTools()).find((t) => t.name === "add-stamp")!;
      const input = {
        name: "Penny Black",
        year: 1840,
        rare: true,
        country: "jp",
        tags: ["bird", "flower"],
        condition: "used",
        perf: ["line"],
        notes: "the first",
      };
      const result = await mc.executeTool(tool, input);
      const firstEvents = events.splice(0);
      await mc.executeTool(tool, input); // The same values again: nothing changes, no events.
      return {
        result,
        nameAtActivation,
        firstEvents,
        secondEvents: events,
        submits: w.submits,
        listed: Array.from(document.querySelectorAll("#stamps li")).map((li) => li.textContent),
      };
    });
    expect(seen.result).toBe('{"content":[{"type":"text","text":"Stamp Penny Black added"}]}');
    expect(seen.nameAtActivation).toBe("Penny Black");
    expect(seen.firstEvents).toEqual(
      ["name", "year", "rare", "country", "tags", "condition", "perf", "notes"].flatMap((n) => [
        `input:${n}`,
        `change:${n}`,
      ]),
    );
    expect(seen.secondEvents).toEqual([]);
    const data = {
      name: "Penny Black",
      year: "1840",
      rating: "5",
      rare: "on",
      country: "jp",
      tags: ["bird", "flower"],
      condition: "used",
      perf: ["line"],
      notes: "the first",
      csrf: "token-123",
      go: "add",
    };
    expect(seen.submits).toEqual([
      { agentInvoked: true, data },
      { agentInvoked: true, data },
    ]);
    expect(seen.listed).toEqual(["Penny Black", "Penny Black"]);
  });

  it("without toolautosubmit the submit button gets focus and the call waits for the user to submit", async () => {
    const page = await open({ body: forms });
    await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const tool = (await mc.getTools()).find((t) => t.name === "search")!;
      (window as unknown as { call: Promise<unknown> }).call = mc.executeTool(tool, { q: "ship" });
    });
    await page.waitForFunction(() => document.activeElement?.id === "search-button");
    expect(await page.inputValue("input[name=q]")).toBe("ship");
    expect(await page.evaluate(() => (window as unknown as Win).submits.length)).toBe(0);
    await page.click("#search-button");
    const result = await page.evaluate(() => (window as unknown as { call: Promise<unknown> }).call);
    expect(result).toBe('3 stamps match "ship"');
    expect(await page.evaluate(() => (window as unknown as Win).submits)).toEqual([
      { agentInvoked: true, q: "ship" },
    ]);
  });

  it("invalid fields fail the call with the browser's validation messages, and the form is not submitted", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const tool = (await mc.getTools()).find((t) => t.name === "add-stamp")!;
      return {
        outcome: await (window as unknown as Win).outcome(mc.executeTool(tool, { year: 1700 })),
        submits: (window as unknown as Win).submits,
      };
    });
    expect(seen.submits).toEqual([]);
    expect(seen.outcome).toMatchObject({ ok: false, name: "UnknownError" });
    const message = (seen.outcome as { message: string }).message;
    expect(message).toMatch(/^The form was not submitted\. name: [^:]+ year: [^:]+ condition: [^:]+$/);
  });

  it("forms that appear become tools, changed forms register again, removed forms stop being tools", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      let changes = 0;
      mc.addEventListener("toolchange", () => changes++);
      const snapshot = async () =>
        (await mc.getTools()).map(
          (t) => `${t.name}: ${t.description} ${Object.keys(t.inputSchema!.properties as object).join(",")}`,
        );
      const form = document.createElement("form");
      form.setAttribute("toolname", "book-table");
      form.setAttribute("tooldescription", "Book a table");
      form.innerHTML = `<input name="guests" type="number">`;
      document.body.append(form);
      await w.nextTask();
      const added = await snapshot();
      form.setAttribute("tooldescription", "Book a table for dinner");
      form.insertAdjacentHTML("beforeend", `<input name="time" type="time">`);
      await w.nextTask();
      const changed = await snapshot();
      form.append(document.createElement("p")); // Not a control: no new registration.
      await w.nextTask();
      const changesBeforeRemoval = changes;
      form.remove();
      await w.nextTask();
      return { added, changed, changesBeforeRemoval, removed: await snapshot(), changes };
    });
    expect(seen).toEqual({
      added: ["book-table: Book a table guests"],
      changed: ["book-table: Book a table for dinner guests,time"],
      changesBeforeRemoval: 2,
      removed: [],
      changes: 3,
    });
  });

  it("removing the form while its call waits for the response, or resetting it before it is submitted, fails the call", async () => {
    const page = await open({
      body: `<form id="f" toolname="crash_test" tooldescription="the crashy form!" toolautosubmit><input name="dummy"></form>
        <form id="g" toolname="reset_test" tooldescription="reset before submit"><input name="dummy"><button>Go</button></form>`,
    });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome, nextTask } = window as unknown as Win;
      const f = document.getElementById("f") as HTMLFormElement;
      f.addEventListener("submit", (e) => {
        e.preventDefault();
        (e as SubmitEvent & { respondWith(p: Promise<unknown>): void }).respondWith(Promise.resolve());
        f.remove();
      });
      const tools = await mc.getTools();
      const removed = await outcome(
        mc.executeTool(
          tools.find((t) => t.name === "crash_test")!,
          {},
        ),
      );
      const resetCall = outcome(
        mc.executeTool(
          tools.find((t) => t.name === "reset_test")!,
          { dummy: "x" },
        ),
      );
      await nextTask();
      (document.getElementById("g") as HTMLFormElement).reset();
      return { removed, reset: await resetCall };
    });
    expect(seen).toEqual({
      removed: {
        ok: false,
        name: "UnknownError",
        message: 'The form of the tool "crash_test" was reset, changed or removed during the call.',
      },
      reset: {
        ok: false,
        name: "UnknownError",
        message: 'The form of the tool "reset_test" was reset, changed or removed during the call.',
      },
    });
  });

  it("aborting a call to a form fires toolcancel and rejects with the signal's reason", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const events: string[] = [];
      for (const type of ["toolactivated", "toolcancel"])
        window.addEventListener(type, (e) => events.push(`${type}:${(e as ToolEvent).toolName}`));
      const tool = (await mc.getTools()).find((t) => t.name === "search")!;
      const controller = new AbortController();
      const call = (window as unknown as Win).outcome(
        mc.executeTool(tool, { q: "ship" }, { signal: controller.signal }),
      );
      await (window as unknown as Win).nextTask(10);
      controller.abort();
      const outcome = await call;
      await (window as unknown as Win).nextTask(10);
      return { outcome, events, submits: (window as unknown as Win).submits };
    });
    expect(seen).toEqual({
      outcome: { ok: false, name: "AbortError", message: "signal is aborted without reason" },
      events: ["toolactivated:search", "toolcancel:search"],
      submits: [],
    });
  });

  it("a form with a name outside the rules or without a description is not a tool, and the console says why", async () => {
    const page = await browser.newPage();
    pages.push(page);
    const warnings: string[] = [];
    page.on(
      "console",
      (m) => m.type() === "warning" && m.text().includes("<form") && warnings.push(m.text()),
    );
    await page.route(`${SPEC}page.html`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><script src="/bridge.js"></script>
          <form toolname="Search flights" tooldescription="spaces are not allowed"></form>
          <form toolname="no-description"></form>`,
      }),
    );
    await page.goto(`${SPEC}page.html`);
    const tools = await page.evaluate(
      async () => (await (document as unknown as Doc).modelContext.getTools()).length,
    );
    expect(tools).toBe(0);
    expect(warnings).toEqual([
      'webmcp-hub: <form toolname="Search flights"> is not a tool: "Search flights" is not a tool name: use 1 to 128 letters, digits, "_", "-" or ".".',
      'webmcp-hub: <form toolname="no-description"> is not a tool: The tool "no-description" needs a description.',
    ]);
  });
});

// ---- one registry, native paths, secure contexts --------------------------------------------------------

describe("one registry behind every source, native modelContexts, secure contexts only", () => {
  it("tools from document.modelContext, navigator.modelContext and forms are one set in the registry, hints as booleans", async () => {
    const page = await open({
      script: "probe",
      body: `<form toolname="subscribe" tooldescription="Subscribe"><input name="email" type="email"></form>`,
    });
    const seen = await page.evaluate(async () => {
      const w = window as unknown as Win;
      await (document as unknown as Doc).modelContext.registerTool({
        name: "get-dresses",
        description: "Returns an array of product listings",
        annotations: { readOnlyHint: true, consequentialHint: "false", debugging: true },
        execute: () => [],
      });
      (navigator as unknown as Nav).modelContext.registerTool({
        name: "search-products",
        description: "seed 002 style",
        inputSchema: { type: "object", properties: { query: { type: "string" } } },
        outputSchema: { type: "object", properties: { items: { type: "array" } } },
        annotations: { readOnlyHint: "true", openWorldHint: "false", title: "Search" },
        execute: () => ({ items: [] }),
      });
      return w.__registry
        .list()
        .map(({ name, source, annotations, inputSchema }) => ({ name, source, annotations, inputSchema }));
    });
    expect(seen).toEqual([
      {
        name: "subscribe",
        source: "declarative",
        annotations: {},
        inputSchema: { type: "object", properties: { email: { type: "string" } } },
      },
      {
        name: "get-dresses",
        source: "current",
        annotations: { readOnlyHint: true, consequentialHint: false },
        inputSchema: { type: "object", properties: {} },
      },
      {
        name: "search-products",
        source: "seed",
        annotations: { readOnlyHint: true, openWorldHint: false, title: "Search" },
        inputSchema: { type: "object", properties: { query: { type: "string" } } },
      },
    ]);
  });

  it("a call the relay makes through the registry fires toolactivated, and toolcancel when its signal aborts", async () => {
    const page = await open({ script: "probe" });
    const events = await page.evaluate(async () => {
      const w = window as unknown as Win;
      const events: string[] = [];
      for (const type of ["toolactivated", "toolcancel"]) {
        (document as unknown as Doc).modelContext.addEventListener(type, (e) =>
          events.push(`modelContext ${type}:${(e as ToolEvent).toolName}`),
        );
      }
      (navigator as unknown as Nav).modelContext.registerTool({
        name: "wait",
        description: "waits for its signal",
        execute: (_input, client) =>
          new Promise((_, reject) =>
            client.signal.addEventListener("abort", () => reject(client.signal.reason)),
          ),
      });
      const controller = new AbortController();
      const client = {
        signal: controller.signal,
        requestUserInteraction: async <T>(cb: () => T | Promise<T>) => cb(),
      };
      const call = w.outcome(w.__registry.get("wait")!.execute({}, client));
      controller.abort(new DOMException("The agent cancelled.", "AbortError"));
      events.push(JSON.stringify(await call));
      return events;
    });
    expect(events).toEqual([
      "modelContext toolactivated:wait",
      "modelContext toolcancel:wait",
      '{"ok":false,"name":"AbortError","message":"The agent cancelled."}',
    ]);
  });

  it("a native document.modelContext is kept and mirrored: its tools, from before and after the bridge loads, land in the registry and run through its executeTool", async () => {
    const head = `<script>
      // A stand-in for a browser's own document.modelContext, defined before the bridge loads.
      class NativeModelContext extends EventTarget {
        tools = new Map();
        calls = [];
        async registerTool(tool, { signal } = {}) {
          if (this.tools.has(tool.name)) throw new DOMException("taken", "InvalidStateError");
          this.tools.set(tool.name, tool);
          signal?.addEventListener("abort", () => { this.tools.delete(tool.name); this.dispatchEvent(new Event("toolchange")); });
          this.dispatchEvent(new Event("toolchange"));
        }
        async getTools() {
          return [...this.tools.values()].map((t) => ({ name: t.name, title: t.title ?? "", description: t.description,
            inputSchema: t.inputSchema, window, origin: location.origin, annotations: t.annotations }));
        }
        async executeTool(tool, input = {}, { signal } = {}) {
          this.calls.push(tool.name);
          const result = await this.tools.get(tool.name).execute(input, { signal: signal ?? new AbortController().signal });
          return typeof result === "string" ? result : JSON.stringify(result);
        }
      }
      window.nativeContext = new NativeModelContext();
      Object.defineProperty(Document.prototype, "modelContext", { configurable: true, get: () => window.nativeContext });
      window.early = new AbortController();
      nativeContext.registerTool({ name: "early", description: "registered before the bridge",
        annotations: { readOnlyHint: true }, execute: () => ({ ok: true }) }, { signal: early.signal });
    </script>`;
    const page = await open({
      script: "probe",
      head,
      body: `<form toolname="form-tool" tooldescription="left to the browser"></form>`,
    });
    const seen = await page.evaluate(async () => {
      type NativeWin = Win & {
        nativeContext: SpecModelContext & { calls: string[] };
        early: AbortController;
      };
      const w = window as unknown as NativeWin;
      const list = () => w.__registry.list().map((t) => `${t.name} (${t.source})`);
      await w.nextTask(10);
      const atLoad = list();
      await w.nativeContext.registerTool({
        name: "late",
        description: "registered after",
        execute: ({ n }) => Number(n) * 2,
      });
      let clientHad = "";
      (navigator as unknown as Nav).modelContext.registerTool({
        name: "seed-tool",
        description: "seed-era, on top of the native one",
        execute: (_input, client) => {
          clientHad = `${typeof client.requestUserInteraction} ${client.signal instanceof AbortSignal}`;
          return "seeded";
        },
      });
      await w.nextTask(10);
      const afterRegistering = list();
      const annotations = w.__registry.get("early")!.annotations;
      const client = {
        signal: new AbortController().signal,
        requestUserInteraction: async <T>(cb: () => T | Promise<T>) => cb(),
      };
      const results = [
        await w.__registry.get("early")!.execute({}, client),
        await w.__registry.get("late")!.execute({ n: 21 }, client),
        await w.__registry.get("seed-tool")!.execute({}, client),
      ];
      w.early.abort();
      await w.nextTask(10);
      return {
        kept: (document as unknown as Doc).modelContext === w.nativeContext,
        atLoad,
        afterRegistering,
        annotations,
        results,
        clientHad,
        nativeCalls: w.nativeContext.calls,
        afterUnregistering: list(),
      };
    });
    expect(seen).toEqual({
      kept: true,
      atLoad: ["early (native)"],
      afterRegistering: ["early (native)", "late (native)", "seed-tool (native)"],
      annotations: { readOnlyHint: true },
      results: [{ ok: true }, "42", "seeded"], // JSON text back to an object; other values stay text.
      clientHad: "function true",
      nativeCalls: ["early", "late", "seed-tool"],
      afterUnregistering: ["late (native)", "seed-tool (native)"],
    });
  });

  it("a native seed-era navigator.modelContext is kept and wrapped: what the page gives it lands in the registry too", async () => {
    const head = `<script>
      window.nativeCalls = [];
      const nativeSeed = {
        tools: new Map(),
        provideContext({ tools = [] } = {}) { nativeCalls.push("provideContext"); this.tools = new Map(tools.map((t) => [t.name, t])); },
        clearContext() { nativeCalls.push("clearContext"); this.tools.clear(); },
        registerTool(tool) { nativeCalls.push("registerTool"); if (this.tools.has(tool.name)) throw new DOMException("taken", "InvalidStateError"); this.tools.set(tool.name, tool); },
        unregisterTool(name) { nativeCalls.push("unregisterTool"); this.tools.delete(name); },
      };
      Object.defineProperty(Navigator.prototype, "modelContext", { configurable: true, get: () => nativeSeed });
    </script>`;
    const page = await open({ script: "probe", head });
    const seen = await page.evaluate(async () => {
      const w = window as unknown as Win & { nativeCalls: string[] };
      const seed = (navigator as unknown as Nav).modelContext;
      const names = () => w.__registry.list().map((t) => `${t.name} (${t.source})`);
      const tool = (name: string): SpecTool => ({ name, description: "d", execute: () => `${name} ran` });
      seed.provideContext({ tools: [tool("a"), tool("b")] });
      const provided = names();
      seed.registerTool(tool("c"));
      let taken = "";
      try {
        seed.registerTool(tool("c"));
      } catch (e) {
        taken = (e as Error).message;
      }
      seed.unregisterTool("a");
      const afterUnregister = names();
      const { modelContext: mc } = document as unknown as Doc;
      const viaCurrentApi = await mc.executeTool((await mc.getTools()).find((t) => t.name === "c")!);
      seed.clearContext();
      return {
        provided,
        taken,
        afterUnregister,
        viaCurrentApi,
        cleared: names(),
        nativeCalls: w.nativeCalls,
      };
    });
    expect(seen).toEqual({
      provided: ["a (seed)", "b (seed)"],
      taken: "taken",
      afterUnregister: ["b (seed)", "c (seed)"],
      viaCurrentApi: "c ran",
      cleared: [],
      nativeCalls: ["provideContext", "registerTool", "registerTool", "unregisterTool", "clearContext"],
    });
  });

  it("in an insecure context (plain http on a name that is not loopback) /bridge.js installs nothing", async () => {
    const page = await open({
      origin: "http://bridge-spec.test",
      body: `<form toolname="t" tooldescription="d"></form>`,
    });
    expect(page.served.bridge).toBe(1);
    expect(await page.evaluate(installed)).toEqual(NOTHING_INSTALLED);
  });

  it("installWebMcp() itself does nothing outside a secure context", async () => {
    const page = await open({ origin: "http://bridge-spec.test", script: "probe" });
    expect(page.served.probe).toBe(1);
    expect(await page.evaluate(installed)).toEqual(NOTHING_INSTALLED);
    expect(await page.evaluate(() => (window as unknown as Win).__registry.list().length)).toBe(0);
  });
});

const NOTHING_INSTALLED = {
  secure: false,
  document: false,
  navigator: false,
  events: false,
  submitEvent: false,
};

function installed() {
  return {
    secure: isSecureContext,
    document: "modelContext" in document,
    navigator: "modelContext" in navigator,
    events: "ToolActivatedEvent" in window,
    submitEvent: "agentInvoked" in SubmitEvent.prototype,
  };
}
