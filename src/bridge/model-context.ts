// document.modelContext as the current WebMCP draft and its web-platform-tests define it: an EventTarget with
// registerTool / getTools / executeTool and their events, backed by the shared registry. It also holds what
// every source shares (the tool checks, and the execute wrapper that fires toolactivated / toolcancel), so a
// call the relay makes behaves as executeTool does. The rules followed, and the decisions where the spec is
// silent: docs/bridge-protocol.md, "document.modelContext".
import type { ToolAnnotations } from "../protocol/tool.js";
import { Frames, type FrameHost, type FrameTool } from "./frames.js";
import { CHANGE_EVENT, registry, type RegisteredTool, type ToolClient, type ToolSource } from "./registry.js";
import { toCallToolResult } from "./results.js";
import { isObject, toObjectSchema } from "./schema-check.js";
import { checkInput } from "./validate.js";

type Input = Record<string, unknown>;
type Execute = RegisteredTool["execute"];

/** Adds a tool for the seed-era API or a form; throws synchronously on a bad tool. */
export type AddTool = (
  tool: unknown,
  signal: AbortSignal,
  source: ToolSource,
  prepare?: (input: Input) => void,
) => void;

export interface RegisterToolOptions {
  signal?: AbortSignal;
  exposedTo?: Iterable<string>;
}

interface ToolEventInit extends EventInit {
  toolName?: string;
}

class ToolEvent extends Event {
  readonly toolName: string;
  constructor(type: string, init: ToolEventInit = {}) {
    super(type, init);
    this.toolName = String(init.toolName ?? "");
  }
}
export class ToolActivatedEvent extends ToolEvent {}
export class ToolCancelEvent extends ToolEvent {}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const HINTS = [
  "readOnlyHint",
  "untrustedContentHint",
  "consequentialHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
] as const;
const LOOPBACK = /^(.+\.)?localhost$|^127\.\d+\.\d+\.\d+$|^\[::1\]$/;

/** Tools registered without an inputSchema: getTools shows none, as the spec says, and nothing is checked. */
const schemaless = new WeakSet<RegisteredTool>();
/** The other origins a tool is exposed to (registerTool's exposedTo, as origins). */
const exposure = new WeakMap<RegisteredTool, Set<string>>();

const invalid = (message: string) => new DOMException(message, "InvalidStateError");
export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Hints as booleans (seed 002 writes "true" / "false"); other MCP hints and a string title are kept. */
export function toAnnotations(given: unknown): ToolAnnotations {
  const out: ToolAnnotations = {};
  if (!isObject(given)) return out;
  for (const hint of HINTS)
    if (given[hint] !== undefined) out[hint] = given[hint] !== "false" && !!given[hint];
  if (typeof given.title === "string") out.title = given.title;
  return out;
}

/** Checks a tool as either generation passes it; throws TypeError or InvalidStateError like the spec. */
export function checkTool(tool: unknown): Omit<RegisteredTool, "source"> {
  if (!isObject(tool)) throw new TypeError("A tool must be an object.");
  const { name, title, description, inputSchema, outputSchema, annotations, execute } = tool;
  if (name === undefined || description === undefined || typeof execute !== "function")
    throw new TypeError("A tool needs a name, a description and an execute function.");
  const toolName = String(name);
  if (registry.get(toolName)) throw invalid(`A tool named "${toolName}" is already registered.`);
  if (!NAME.test(toolName))
    throw invalid(`"${toolName}" is not a tool name: use 1 to 128 letters, digits, "_", "-" or ".".`);
  if (String(description) === "") throw invalid(`The tool "${toolName}" needs a description.`);
  return {
    name: toolName,
    ...(title !== undefined && { title: String(title) }),
    description: String(description),
    inputSchema: toObjectSchema(inputSchema ?? { type: "object", properties: {} }),
    ...(outputSchema !== undefined && { outputSchema: toObjectSchema(outputSchema, "outputSchema") }),
    annotations: toAnnotations(annotations),
    execute: execute as Execute,
  };
}

/** The origins of `urls`; throws SecurityError unless each is potentially trustworthy. */
function checkOrigins(urls: Iterable<unknown> | undefined): Set<string> {
  const origins = new Set<string>();
  for (const url of urls ?? []) {
    let u: URL | undefined;
    try {
      u = new URL(String(url));
    } catch {}
    const p = u?.protocol;
    if (!(p === "https:" || p === "wss:" || ((p === "http:" || p === "ws:") && LOOPBACK.test(u!.hostname))))
      throw new DOMException(`${String(url)} is not a potentially trustworthy origin.`, "SecurityError");
    origins.add(u!.origin);
  }
  return origins;
}

/** The one object a tool's execute receives: the current API's {signal} and the seed-era client. */
export const toolClient = (signal: AbortSignal): ToolClient => ({
  signal,
  async requestUserInteraction(callback) {
    signal.throwIfAborted();
    return await callback();
  },
});

function fire(target: EventTarget, type: "toolactivated" | "toolcancel", toolName: string): void {
  const Type = type === "toolactivated" ? ToolActivatedEvent : ToolCancelEvent;
  target.dispatchEvent(new Type(type, { toolName }));
}

/** Wraps a page's execute so that every call (executeTool's or the relay's) fires the spec's events. */
function activating(name: string, execute: Execute, prepare?: (input: Input) => void): Execute {
  return (input, client) => {
    prepare?.(input);
    fire(modelContext, "toolactivated", name);
    const result = execute(input, client);
    fire(window, "toolactivated", name);
    const cancel = () => {
      fire(modelContext, "toolcancel", name);
      fire(window, "toolcancel", name);
    };
    client.signal.addEventListener("abort", cancel, { once: true });
    return Promise.resolve(result).finally(() => client.signal.removeEventListener("abort", cancel));
  };
}

/** Checks and adds a tool to the registry; the signal, when aborted, removes this registration. */
export function addTool(
  init: unknown,
  { signal, exposedTo }: RegisterToolOptions,
  source: ToolSource,
  prepare?: (input: Input) => void,
): void {
  const checked = checkTool(init);
  if (signal?.aborted) throw signal.reason;
  const others = checkOrigins(exposedTo);
  const tool: RegisteredTool = {
    ...checked,
    source,
    execute: activating(checked.name, checked.execute, prepare),
  };
  if ((init as Input).inputSchema === undefined) schemaless.add(tool);
  others.delete(origin);
  if (others.size) exposure.set(tool, others);
  registry.add(tool);
  signal?.addEventListener("abort", () => registry.get(tool.name) === tool && registry.remove(tool.name), {
    once: true,
  });
}

export const addToRegistry: AddTool = (tool, signal, source, prepare) =>
  addTool(tool, { signal }, source, prepare);

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A tool as other documents see it (frames.ts). */
const asFrameTool = (tool: RegisteredTool): FrameTool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: schemaless.has(tool) ? undefined : tool.inputSchema,
  annotations: tool.annotations,
});

function asRegisteredTool(tool: FrameTool, win: Window = window, from: string = origin) {
  const a = tool.annotations;
  return {
    name: tool.name,
    title: tool.title ?? "",
    description: tool.description,
    // JSON text, as WPT expects (toolsAreEqual compares it with JSON.stringify(schema)); native Chromium 156
    // still gives an object.
    ...(tool.inputSchema && { inputSchema: JSON.stringify(tool.inputSchema) }),
    window: win,
    origin: from,
    ...(Object.keys(a).length > 0 && {
      annotations: {
        readOnlyHint: a.readOnlyHint === true,
        untrustedContentHint: a.untrustedContentHint === true,
        consequentialHint: a.consequentialHint === true,
      },
    }),
  };
}

/**
 * Some builds' executeTool take the input as JSON text (WPT executeTool-invalid-dictionary passes '{}'):
 * text that parses to an object is that object; any other string stays a string and is refused with a
 * TypeError like any non-object (object-arguments), as native Chromium 156 refuses every string.
 */
function fromJsonText(input: unknown): unknown {
  if (typeof input !== "string") return input;
  try {
    const parsed: unknown = JSON.parse(input);
    if (typeof parsed === "object" && parsed !== null) return parsed;
  } catch {}
  return input;
}

type Handler = ((this: ModelContext, event: Event) => unknown) | null;

export class ModelContext extends EventTarget {
  declare ontoolchange: Handler;
  declare ontoolactivated: Handler;
  declare ontoolcancel: Handler;

  constructor() {
    super();
    const handlers: Record<string, Handler> = {};
    for (const type of ["toolchange", "toolactivated", "toolcancel"]) {
      Object.defineProperty(this, `on${type}`, {
        get: () => handlers[type] ?? null,
        set: (h: unknown) => {
          // Like an event handler attribute: its listener joins the list when first set.
          if (!(type in handlers)) this.addEventListener(type, (e) => handlers[type]?.call(this, e));
          handlers[type] = typeof h === "function" ? (h as Handler) : null;
        },
        enumerable: true,
      });
    }
    registry.addEventListener(CHANGE_EVENT, () => this.dispatchEvent(new Event("toolchange")));
  }

  registerTool(tool: unknown, options: RegisterToolOptions = {}): Promise<undefined> {
    return new Promise((resolve, reject) => {
      if (frames?.denied) throw notAllowed();
      addTool(tool, options, "current");
      options.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true });
      setTimeout(resolve); // After toolchange, as the spec orders it.
    });
  }

  getTools(options: { fromOrigins?: Iterable<string> } = {}): Promise<ReturnType<typeof asRegisteredTool>[]> {
    return new Promise((resolve) => {
      const from = checkOrigins(options.fromOrigins);
      if (frames?.denied) throw notAllowed();
      const tools = registry.list().map((t) => asRegisteredTool(asFrameTool(t)));
      for (const [win, peer] of frames?.list() ?? [])
        if (peer.origin === origin || from.has(peer.origin))
          for (const t of peer.tools) tools.push(asRegisteredTool(t, win, peer.origin));
      setTimeout(resolve, 0, tools.sort(byName));
    });
  }

  executeTool(
    tool: unknown,
    inputObject?: unknown,
    options: { signal?: AbortSignal } = {},
  ): Promise<string | null> {
    const { signal } = options;
    return new Promise((resolve, reject) => {
      if (!isObject(tool) || [tool.name, tool.description, tool.window, tool.origin].includes(undefined))
        throw new TypeError(
          "executeTool() takes a tool from getTools(): name, description, window and origin.",
        );
      let target: string | undefined;
      try {
        target = new URL(String(tool.origin)).origin;
      } catch {}
      if (!target || target === "null")
        throw new DOMException(`Bad tool origin ${tool.origin}.`, "NotSupportedError");
      const input = inputObject === undefined ? {} : fromJsonText(inputObject);
      const json = typeof input === "object" && input !== null ? JSON.stringify(input) : undefined;
      if (json === undefined)
        throw new TypeError("The tool's input must be an object that JSON can represent.");
      if (frames?.denied) throw notAllowed();
      if (signal?.aborted) throw signal.reason;

      const controller = new AbortController();
      let settled = false;
      signal?.addEventListener(
        "abort",
        () => {
          reject(signal.reason);
          setTimeout(() => settled || controller.abort());
        },
        { once: true },
      );
      setTimeout(async () => {
        const name = String(tool.name);
        const call = { validate: true, raw: false, signal: controller.signal };
        try {
          const args = JSON.parse(json) as Input;
          const win = tool.window as Window;
          const peer = win === window ? undefined : frames?.peer(win);
          if (win === window && target === origin)
            resolve((await runHere(name, args, origin, call)) as string);
          else if (peer?.origin === target && peer.tools.some((t) => t.name === name))
            resolve((await frames!.call(win, target!, name, args, call)) as string | null);
          else throw unknown(name);
        } catch (e) {
          reject(e instanceof DOMException ? e : new DOMException(messageOf(e), "UnknownError"));
        } finally {
          settled = true;
        }
      });
    });
  }
}

/** The document's one ModelContext (SameObject); installed as document.modelContext by install.ts. */
export const modelContext = new ModelContext();

const notAllowed = () =>
  new DOMException('Access to the feature "tools" is disallowed by permissions policy.', "NotAllowedError");
const unknown = (name: string) =>
  new DOMException(`This document has no tool named "${name}".`, "UnknownError");

/**
 * Runs one of this document's tools for a caller of `caller` origin (this document's executeTool, another
 * frame's, or the relay's through the top frame): checked for exposure, then the input (DataError) unless
 * the call came through the relay, then run. Resolves with executeTool's string, or for the relay (raw) with
 * the CallToolResult; rejects with a DOMException.
 */
async function runHere(
  name: string,
  input: Input,
  caller: string,
  { validate, raw, signal }: { validate: boolean; raw: boolean; signal: AbortSignal },
): Promise<unknown> {
  const tool = registry.get(name);
  if (!tool || (caller !== origin && !exposure.get(tool)?.has(caller))) throw unknown(name);
  if (validate && !schemaless.has(tool)) checkInput(tool.inputSchema, input);
  try {
    const result: unknown = await tool.execute(input, toolClient(signal));
    if (raw) return toCallToolResult(result);
    return typeof result === "string" ? result : (JSON.stringify(result) ?? null);
  } catch (e) {
    throw new DOMException(messageOf(e), "UnknownError");
  }
}

/** The frame layer, once shareAcrossFrames() ran (only where this polyfill is document.modelContext). */
export let frames: Frames | undefined;

/** Makes document.modelContext span the tab's frames (frames.ts); returns the one frame layer. */
export function shareAcrossFrames(): Frames {
  if (frames) return frames;
  const host: FrameHost = {
    exposed: (to) =>
      registry
        .list()
        .filter((t) => to === origin || exposure.get(t)?.has(to))
        .map(asFrameTool),
    origins() {
      const all = new Set([origin]);
      for (const t of registry.list()) for (const o of exposure.get(t) ?? []) all.add(o);
      return all;
    },
    run: runHere,
    changed: () => modelContext.dispatchEvent(new Event("toolchange")),
  };
  const f = (frames = new Frames(host));
  registry.addEventListener(CHANGE_EVENT, () => f.announce());
  return f;
}
