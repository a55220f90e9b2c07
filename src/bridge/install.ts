// installWebMcp(): WebMCP in the page, in secure contexts only (both generations are [SecureContext]).
//
// - No document.modelContext (today's browsers): the polyfill becomes document.modelContext (with the
//   ToolActivatedEvent / ToolCancelEvent interfaces), <form toolname> forms are watched, and
//   navigator.modelContext is the seed-era API on the same registry.
// - A document.modelContext already there (a browser that has WebMCP, or a script that ran before us) is
//   left in place and mirrored: its getTools() is read on load and on every toolchange, so tools registered
//   before the bridge loaded land in the registry too, as "native" tools that run through its executeTool().
//   Forms are left to it; a missing navigator.modelContext is added, registering through it.
// - A native seed-era navigator.modelContext (an early browser preview) is kept and wrapped: each of its
//   four methods runs, then the same call is mirrored into the registry. Tools it got before the bridge
//   loaded cannot be listed, so the bridge should load before the page's WebMCP code.
import { watchDeclarativeTools } from "./declarative.js";
import {
  addToRegistry,
  checkTool,
  messageOf,
  modelContext,
  toAnnotations,
  ToolActivatedEvent,
  ToolCancelEvent,
  toolClient,
  type AddTool,
} from "./model-context.js";
import { createNavigatorContext, type SeedModelContext } from "./navigator-context.js";
import { registry } from "./registry.js";
import { isObject, toObjectSchema } from "./schema-check.js";

interface NativeModelContext extends EventTarget {
  registerTool(tool: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
  getTools(): Promise<unknown[]>;
  executeTool(tool: unknown, input: unknown, options: { signal: AbortSignal }): Promise<string | null>;
}

const isNative = (v: unknown): v is NativeModelContext =>
  v instanceof EventTarget &&
  ["registerTool", "getTools", "executeTool"].every(
    (m) => typeof (v as unknown as Record<string, unknown>)[m] === "function",
  );

const warn = (message: string) => console.warn(`webmcp-hub: ${message}`);

/** A [SameObject] attribute: the one value for the page's own document / navigator. */
function defineAttribute(prototype: object, owner: object, value: object): void {
  Object.defineProperty(prototype, "modelContext", {
    configurable: true,
    enumerable: true,
    get(this: unknown) {
      return this === owner ? value : undefined;
    },
  });
}

/** Native results are JSON text (or the string the tool returned); objects go back to being objects. */
function fromJson(text: string | null): unknown {
  try {
    const value: unknown = JSON.parse(text ?? "");
    if (typeof value === "object" && value !== null) return value;
  } catch {}
  return text;
}

function mirrorNative(native: NativeModelContext): void {
  const sync = async () => {
    let tools: unknown[];
    try {
      tools = await native.getTools();
    } catch {
      return;
    }
    registry.clear("native");
    for (const tool of tools) {
      // A frame's tools are its own bridge's to relay.
      if (!isObject(tool) || (tool.window !== undefined && tool.window !== window)) continue;
      const { name, title, description, inputSchema, annotations } = tool;
      try {
        registry.add({
          name: String(name),
          ...(title ? { title: String(title) } : {}),
          description: String(description),
          // Early implementations give the schema as JSON text.
          inputSchema: toObjectSchema(
            typeof inputSchema === "string" ? JSON.parse(inputSchema) : (inputSchema ?? {}),
          ),
          annotations: toAnnotations(annotations),
          execute: (input, client) =>
            native.executeTool(tool, input, { signal: client.signal }).then(fromJson),
          source: "native",
        });
      } catch (e) {
        warn(`the tool "${String(name)}" cannot be relayed: ${messageOf(e)}`);
      }
    }
  };
  native.addEventListener("toolchange", sync);
  void sync();
}

/** The seed-era API and forms on top of a native document.modelContext: checked here, kept there. */
const addToNative =
  (native: NativeModelContext): AddTool =>
  (tool, signal, _source, prepare) => {
    const { execute, ...rest } = checkTool(tool);
    const run = (input: Record<string, unknown>, options: { signal: AbortSignal }) => {
      prepare?.(input);
      return execute(input, toolClient(options.signal));
    };
    native.registerTool({ ...rest, execute: run }, { signal }).catch((e: unknown) => warn(messageOf(e)));
  };

function mirrorNativeSeed(seed: Record<string, unknown>): void {
  const mirror = createNavigatorContext(addToRegistry);
  for (const method of ["provideContext", "clearContext", "registerTool", "unregisterTool"] as const) {
    const original = seed[method];
    if (typeof original !== "function") continue;
    seed[method] = function (this: unknown, ...args: unknown[]) {
      const result: unknown = original.apply(this, args);
      try {
        (mirror[method] as (...a: unknown[]) => void)(...args);
      } catch (e) {
        warn(`the bridge could not follow navigator.modelContext.${method}(): ${messageOf(e)}`);
      }
      return result;
    };
  }
}

let installed = false;

export function installWebMcp(): void {
  if (installed || !globalThis.isSecureContext) return;
  installed = true;
  const native = (document as unknown as { modelContext?: unknown }).modelContext;
  const seed = (navigator as unknown as { modelContext?: unknown }).modelContext;
  let add: AddTool = addToRegistry;
  if (isNative(native)) {
    mirrorNative(native);
    add = addToNative(native);
  } else {
    defineAttribute(Document.prototype, document, modelContext);
    for (const type of [ToolActivatedEvent, ToolCancelEvent]) {
      const name = type === ToolActivatedEvent ? "ToolActivatedEvent" : "ToolCancelEvent";
      if (!(name in window))
        Object.defineProperty(window, name, { value: type, configurable: true, writable: true });
    }
    watchDeclarativeTools(add);
  }
  if (!isObject(seed)) {
    defineAttribute(Navigator.prototype, navigator, createNavigatorContext(add) satisfies SeedModelContext);
  } else if (!isNative(native)) {
    mirrorNativeSeed(seed);
  }
}
