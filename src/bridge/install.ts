// installWebMcp(): WebMCP in the page, in secure contexts only. With no document.modelContext the polyfill
// becomes it (and navigator.modelContext the seed-era API on the same registry); a browser's own
// document.modelContext, or a native seed-era navigator.modelContext, is wrapped and mirrored, never replaced,
// so a page's tools are relayed whichever registered them. How each case is mirrored and called, measured
// against Chromium 156: docs/bridge-protocol.md, "Installing WebMCP next to a browser's own".
import { watchDeclarativeTools } from "./declarative.js";
import { Frames } from "./frames.js";
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
import { registry, type RegisteredTool } from "./registry.js";
import { isObject, toObjectSchema } from "./schema-check.js";

interface NativeModelContext extends EventTarget {
  registerTool(tool: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
  getTools(options?: { fromOrigins?: string[] }): Promise<unknown[]>;
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

const isTypeError = (e: unknown) => e instanceof TypeError || (e as Error | null)?.name === "TypeError";

/** Which input executeTool takes, found on the first call that gets past the input check, then kept. */
let inputForm: "object" | "string" | undefined;

/** Runs a native tool with the input in the form this browser takes: an object (Chromium 156) or JSON text. */
async function executeNative(
  native: NativeModelContext,
  tool: unknown,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const run = async (form: "object" | "string") => {
    try {
      const text = await native.executeTool(tool, form === "string" ? JSON.stringify(input) : input, {
        signal,
      });
      inputForm = form;
      return fromJson(text);
    } catch (e) {
      // The input got through unless it was refused (TypeError) or the call never started (aborted).
      if (!isTypeError(e) && !signal.aborted) inputForm = form;
      throw e;
    }
  };
  if (inputForm) return run(inputForm);
  try {
    return await run("object");
  } catch (e) {
    if (!isTypeError(e)) throw e;
    return run("string").catch((second: unknown) => {
      throw isTypeError(second) ? e : second;
    });
  }
}

/** Origins a URL may name in fromOrigins: potentially trustworthy ones (anything else is a SecurityError). */
function trustworthy(url: string): string | undefined {
  try {
    const u = new URL(url, location.href);
    const loopback = /^(.+\.)?localhost$|^127\.\d+\.\d+\.\d+$|^\[::1\]$/.test(u.hostname);
    if (u.protocol === "https:" || (u.protocol === "http:" && loopback)) return u.origin;
  } catch {}
  return undefined;
}

/** The origins of the page's cross-origin frames: iframe src here and in every frame we can look into. */
function frameOrigins(doc: Document, out = new Set<string>()): Set<string> {
  for (const frame of doc.querySelectorAll<HTMLIFrameElement>("iframe, frame")) {
    let inner: Document | null = null;
    try {
      inner = frame.contentDocument;
    } catch {}
    if (inner) frameOrigins(inner, out);
    else {
      const o = frame.src && trustworthy(frame.src);
      if (o && o !== location.origin) out.add(o);
    }
  }
  return out;
}

/** What the registry entry of a native tool was built from (its window too): a change means a new entry. */
const builtFrom = new WeakMap<RegisteredTool, string>();
const windowIds = new WeakMap<object, number>();
let windowCount = 0;
const windowId = (w: unknown) => {
  if (typeof w !== "object" || w === null) return 0;
  if (!windowIds.has(w)) windowIds.set(w, ++windowCount);
  return windowIds.get(w);
};

/** Mirrors native getTools() into the registry; `local` tells it about a tool the bridge itself registered. */
interface NativeMirror {
  sync(): void;
  local(tool: Record<string, unknown>, signal: AbortSignal, registered: Promise<unknown>): void;
}

function mirrorNative(native: NativeModelContext): NativeMirror {
  const top = window === window.top;
  const warned = new Set<string>();
  let latest = 0;

  /** A registry entry that runs the tool through native executeTool; null (and a warning) if it cannot. */
  const entryFor = (tool: Record<string, unknown>, frameOrigin?: string): RegisteredTool | null => {
    const { name, title, description, inputSchema, annotations } = tool;
    try {
      const entry: RegisteredTool = {
        name: String(name),
        ...(title ? { title: String(title) } : {}),
        description: String(description),
        // Early implementations give the schema as JSON text; none given is an empty object schema.
        inputSchema: toObjectSchema(
          typeof inputSchema === "string" ? JSON.parse(inputSchema) : (inputSchema ?? {}),
        ),
        annotations: toAnnotations(annotations),
        execute: (input, client) => executeNative(native, tool, input, client.signal),
        source: "native",
        ...(frameOrigin ? { frameOrigin } : {}),
      };
      const { execute: _e, ...data } = entry;
      builtFrom.set(entry, JSON.stringify([windowId(tool.window), data]));
      return entry;
    } catch (e) {
      warn(`the tool "${String(name)}" cannot be relayed: ${messageOf(e)}`);
      return null;
    }
  };

  /** Own tools first, then frames' (top-level document only): a name taken in the tab is not relayed twice. */
  const apply = (tools: unknown[]) => {
    const own = tools.filter((t) => isObject(t) && (t.window === undefined || t.window === window));
    const frames = top ? tools.filter((t) => isObject(t) && !own.includes(t)) : [];
    const next = new Map<string, RegisteredTool>();
    for (const tool of [...own, ...frames] as Record<string, unknown>[]) {
      const frameOrigin = own.includes(tool) ? undefined : String(tool.origin);
      const name = String(tool.name);
      const taken = next.has(name) || (registry.get(name)?.source !== "native" && registry.get(name));
      if (taken) {
        const key = `${name} ${frameOrigin ?? ""}`;
        if (!warned.has(key))
          warn(`the tool "${name}" of a frame (${frameOrigin ?? origin}) is not relayed: its name is taken.`);
        warned.add(key);
        continue;
      }
      const entry = entryFor(tool, frameOrigin);
      if (entry) next.set(name, entry);
    }
    for (const tool of registry.list()) {
      const fresh = next.get(tool.name);
      if (tool.source !== "native" || (fresh && builtFrom.get(fresh) === builtFrom.get(tool))) {
        next.delete(tool.name); // unchanged (or not ours): kept as it is, no change for the relay
      } else registry.remove(tool.name);
    }
    for (const entry of next.values()) registry.add(entry);
  };

  const sync = async () => {
    const mine = ++latest;
    let tools: unknown[];
    try {
      const fromOrigins = top ? [...frameOrigins(document)] : [];
      tools = await (fromOrigins.length ? native.getTools({ fromOrigins }) : native.getTools());
    } catch (e) {
      warn(`the browser's getTools() failed: ${messageOf(e)}`);
      return;
    }
    if (mine === latest) apply(tools); // an older answer must not undo a newer one
  };
  const resync = () => void sync();
  native.addEventListener("toolchange", resync);
  if (top) {
    // Native fires no toolchange when a frame goes away or navigates: frames are watched here.
    // (A load event's path stops at the document, so the capture listener is on the document.)
    document.addEventListener("load", (e) => e.target instanceof HTMLIFrameElement && resync(), true);
    new MutationObserver((records) => {
      for (const r of records)
        for (const node of [...r.removedNodes, ...r.addedNodes])
          if (
            node instanceof Element &&
            (node.matches("iframe, frame") || node.querySelector("iframe, frame"))
          )
            return resync();
    }).observe(document, { childList: true, subtree: true });
  }
  resync();

  return {
    sync: resync,
    // Mirrored at once, so the seed API's duplicate check and the relay see it before native's toolchange.
    local(tool, signal, registered) {
      const entry = entryFor({ ...tool, window, origin });
      if (!entry) return;
      let refused = false;
      registry.add(entry);
      resync(); // a getTools() already under way may predate this tool: its answer is dropped
      signal.addEventListener(
        "abort",
        () => {
          // By now a sync may have put native's own copy in place of `entry`: this document's tool of that
          // name is the one native just unregistered (names are unique in a document), unless it was refused.
          const now = registry.get(entry.name);
          if (now === entry || (!refused && now?.source === "native" && !now.frameOrigin))
            registry.remove(entry.name);
          resync();
        },
        { once: true },
      );
      registered.catch((e: unknown) => {
        if (signal.aborted) return;
        refused = true;
        warn(`the browser refused the tool "${entry.name}": ${messageOf(e)}`);
        if (registry.get(entry.name) === entry) registry.remove(entry.name);
        resync();
      });
    },
  };
}

/** The seed-era API on top of a native document.modelContext: checked here, registered there. */
const addToNative =
  (native: NativeModelContext, mirror: NativeMirror): AddTool =>
  (tool, signal, _source, prepare) => {
    const { execute, ...rest } = checkTool(tool);
    if (signal.aborted) return;
    const run = (input: Record<string, unknown>, options: { signal: AbortSignal }) => {
      prepare?.(input);
      return execute(input, toolClient(options.signal));
    };
    let registered: Promise<unknown>;
    try {
      registered = Promise.resolve(native.registerTool({ ...rest, execute: run }, { signal }));
    } catch (e) {
      registered = Promise.reject(e);
    }
    mirror.local(rest, signal, registered);
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

/**
 * On native, the frame protocol (frames.ts) for its hello / hi only, tools left to native: a subframe's
 * bridge learns that the top-level document has one, and its relay stands aside (index.ts).
 */
export const nativeFrames = (): Frames =>
  new Frames({
    exposed: () => [],
    origins: () => [origin],
    run: () => Promise.reject(new DOMException("Native WebMCP runs this document's tools.", "NotFoundError")),
    changed() {},
  });

let installed = false;

export function installWebMcp(): void {
  if (installed || !globalThis.isSecureContext) return;
  installed = true;
  const native = (document as unknown as { modelContext?: unknown }).modelContext;
  const seed = (navigator as unknown as { modelContext?: unknown }).modelContext;
  let add: AddTool = addToRegistry;
  if (isNative(native)) {
    add = addToNative(native, mirrorNative(native));
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
