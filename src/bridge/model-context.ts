// document.modelContext as the current WebMCP draft defines it (webmachinelearning/webmcp index.bs, pinned
// down by web-platform-tests webmcp/): an EventTarget with registerTool / getTools / executeTool and the
// toolchange / toolactivated / toolcancel events, backed by the shared registry. It also holds what every
// source shares: the tool checks, and the execute wrapper that fires toolactivated / toolcancel, so a call
// the relay makes fires the same events as executeTool.
//
// Followed from the spec and WPT: name rules, duplicate and empty description → InvalidStateError; an
// unserializable or invalid schema → TypeError; an aborted registration signal rejects with its reason and
// aborting it later unregisters (only that registration, never a newer tool of the same name); exposedTo /
// fromOrigins must be potentially trustworthy origins (SecurityError). getTools resolves in a later task,
// sorted by name, as RegisteredTool {name, title ("" if none), description, inputSchema (a copy, undefined if
// none was given), window, origin, annotations}. executeTool: a non-object input → TypeError, an omitted one
// → {}; a bad tool dictionary → TypeError; an unknown tool or a tool that throws → UnknownError; an aborted
// signal rejects at once; aborting later rejects with the signal's reason, then (in a later task) aborts the
// tool's signal with AbortError, then fires toolcancel. toolactivated fires at document.modelContext before
// execute runs and at window after; toolcancel at both. Unregistering does not cancel a running call.
//
// Decisions where they are silent or disagree: a string result is returned as is (WPT), other results as
// JSON, and undefined as null rather than an error; the tentative WPT checks (input validated against the
// schema → DataError, a JSON Schema subset) are left out, the hub validates arguments; exposedTo is checked
// but otherwise moot, as this polyfill sees one document (no frames); the `debugging` annotation is not kept
// (the relay's annotations have no such hint); isTrusted is false on the events, as a polyfill cannot help it.
import type { ToolAnnotations } from "../protocol/tool.js";
import { CHANGE_EVENT, registry, type RegisteredTool, type ToolClient, type ToolSource } from "./registry.js";
import { isObject, toObjectSchema } from "./schema-check.js";

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

/** Tools registered without an inputSchema: getTools shows none, as the spec says. */
const schemaless = new WeakSet<RegisteredTool>();

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

/** Throws SecurityError unless every URL's origin is potentially trustworthy. */
function checkOrigins(urls: Iterable<unknown> | undefined): void {
  for (const url of urls ?? []) {
    let u: URL | undefined;
    try {
      u = new URL(String(url));
    } catch {}
    const p = u?.protocol;
    if (!(p === "https:" || p === "wss:" || ((p === "http:" || p === "ws:") && LOOPBACK.test(u!.hostname))))
      throw new DOMException(`${String(url)} is not a potentially trustworthy origin.`, "SecurityError");
  }
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
  checkOrigins(exposedTo);
  const tool: RegisteredTool = {
    ...checked,
    source,
    execute: activating(checked.name, checked.execute, prepare),
  };
  if ((init as Input).inputSchema === undefined) schemaless.add(tool);
  registry.add(tool);
  signal?.addEventListener("abort", () => registry.get(tool.name) === tool && registry.remove(tool.name), {
    once: true,
  });
}

export const addToRegistry: AddTool = (tool, signal, source, prepare) =>
  addTool(tool, { signal }, source, prepare);

const byName = (a: RegisteredTool, b: RegisteredTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function asRegisteredTool(tool: RegisteredTool) {
  const a = tool.annotations;
  return {
    name: tool.name,
    title: tool.title ?? "",
    description: tool.description,
    ...(!schemaless.has(tool) && { inputSchema: structuredClone(tool.inputSchema) }),
    window,
    origin,
    ...(Object.keys(a).length > 0 && {
      annotations: {
        readOnlyHint: a.readOnlyHint === true,
        untrustedContentHint: a.untrustedContentHint === true,
        consequentialHint: a.consequentialHint === true,
      },
    }),
  };
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
      addTool(tool, options, "current");
      options.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true });
      setTimeout(resolve); // After toolchange, as the spec orders it.
    });
  }

  getTools(options: { fromOrigins?: Iterable<string> } = {}): Promise<ReturnType<typeof asRegisteredTool>[]> {
    return new Promise((resolve) => {
      checkOrigins(options.fromOrigins);
      setTimeout(resolve, 0, registry.list().sort(byName).map(asRegisteredTool));
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
      const input = inputObject === undefined ? {} : inputObject;
      const json = typeof input === "object" && input !== null ? JSON.stringify(input) : undefined;
      if (json === undefined)
        throw new TypeError("The tool's input must be an object that JSON can represent.");
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
        const entry = registry.get(String(tool.name));
        try {
          if (!entry || tool.window !== window || target !== origin)
            throw new Error(`This document has no tool named "${tool.name}".`);
          const result: unknown = await entry.execute(
            JSON.parse(json) as Input,
            toolClient(controller.signal),
          );
          resolve(typeof result === "string" ? result : (JSON.stringify(result) ?? null));
        } catch (e) {
          reject(new DOMException(messageOf(e), "UnknownError"));
        } finally {
          settled = true;
        }
      });
    });
  }
}

/** The document's one ModelContext (SameObject); installed as document.modelContext by install.ts. */
export const modelContext = new ModelContext();
