// The one registry behind every source of tools in /bridge.js, in a real Chromium: document.modelContext,
// navigator.modelContext and forms in one set, relayed calls firing the spec's events, native modelContexts
// kept and mirrored, and nothing installed outside a secure context. Setup: bridge-spec-helpers.ts.
import { describe, expect, it } from "vitest";
import {
  useBridgeSpec,
  open,
  type Doc,
  type Nav,
  type Win,
  type SpecTool,
  type SpecModelContext,
  type ToolEvent,
} from "./bridge-spec-helpers.js";

useBridgeSpec();

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
      // The bridge mirrors the native context after its getTools() resolves: wait for the registry's change.
      const until = async (check: (names: string[]) => boolean) => {
        while (!check(list())) await w.nextEvent(w.__registry, "change");
      };
      await until((names) => names.includes("early (native)"));
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
      await until((names) => names.includes("late (native)") && names.includes("seed-tool (native)"));
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
      await until((names) => !names.includes("early (native)"));
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
