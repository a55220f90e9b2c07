// document.modelContext in a real Chromium with /bridge.js, as the current WebMCP draft and its
// web-platform-tests define it: registerTool's checks and signal, toolchange, getTools, executeTool and its
// abort path with toolactivated/toolcancel. Setup and page types: bridge-spec-helpers.ts.
import { describe, expect, it } from "vitest";
import {
  useBridgeSpec,
  open,
  hubUrl,
  type Doc,
  type Win,
  type SpecTool,
  type ToolEvent,
} from "./bridge-spec-helpers.js";

useBridgeSpec();

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
        types: [...new Set(tools.map((t) => typeof t.inputSchema))],
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
    // The schema is JSON text (WPT's toolsAreEqual compares it with JSON.stringify(schema)).
    expect(seen.types.sort()).toEqual(["string", "undefined"]);
    expect(seen.schemas).toEqual({
      empty: JSON.stringify({ type: "object" }),
      untyped: JSON.stringify({ properties: { q: { type: "string" } }, type: "object" }),
      rich: JSON.stringify({
        type: "object",
        properties: { email: { type: "string", format: "email" }, n: { $ref: "#/$defs/n" } },
        $defs: { n: { type: "integer", minimum: 0 } },
        additionalProperties: true,
      }),
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
      const unregistered = (window as unknown as Win).nextEvent(mc, "toolchange");
      controller.abort();
      await unregistered;
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

  it("getTools lists every tool by name in code-unit order, as RegisteredTool dictionaries holding the schema as JSON text taken at registration", async () => {
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
        inputSchema: JSON.stringify({
          type: "object",
          properties: { q: { type: "string", description: "query" } },
          required: ["q"],
        }),
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
        // JSON text, as builds that take the input as a string are called: an object in it is the input.
        jsonText: await run("echo", '{"b":2}'),
        jsonTextPrimitive: await run("echo", "123"),
        invalidJsonText: await run("echo", "invalid-json"),
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
      jsonText: { ok: true, value: "plain text" },
      jsonTextPrimitive: typeError,
      invalidJsonText: typeError,
      inputs: [{ a: 1 }, {}, [1, 2, 3], { b: 2 }],
      clients: Array(4).fill({ signal: true, requestUserInteraction: "function" }),
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
      // A fixed wait on purpose: it proves the tool does NOT run, so there is no event to wait for; 20 ms is
      // several tasks after the one in which executeTool would have run it.
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
      let bothStarted!: () => void;
      const started = new Promise<void>((r) => (bothStarted = r));
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
          if (signals.length === 2) bothStarted();
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
      await started;
      const firstToolAborted = (window as unknown as Win).nextEvent(signals[0]!, "abort");
      c1.abort("cancel 1");
      const firstOutcome = await first;
      await firstToolAborted;
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
