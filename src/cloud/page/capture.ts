// The capture script the runner injects into a site's page before the page's own scripts
// (evaluateOnNewDocument): the same WebMCP registry the extension's MAIN-world script installs (src/bridge
// install.ts and registry.ts, imported, not copied), so the seed-era navigator.modelContext,
// document.modelContext and declarative forms all register into it, and a native document.modelContext is
// wrapped, not replaced. It marks the window as the extension does, so a /bridge.js the page embeds itself
// stands aside (no relay, no widget). A native document.modelContext's getTools() leaves a tool's outputSchema
// out (Chromium 156), which the published definition covers: the outputSchema each registration gave native is
// noted on the way in (its registerTool wrapped), so the runner checks the definition the page registered.
// Then it defines a hidden, non-writable global (capture-api.ts) through
// which the runner lists the tools and runs one. Built into a string by scripts/lib/capture-script.mjs.
import { installWebMcp } from "../../bridge/install.js";
import { EXTENSION_MARK } from "../../bridge/extension-mark.js";
import { toolClient } from "../../bridge/model-context.js";
import { CHANGE_EVENT, registry, type RegisteredTool } from "../../bridge/registry.js";
import { errorResult, messageOf, relayResult, toCallToolResult } from "../../bridge/results.js";
import { isObject, toObjectSchema } from "../../bridge/schema-check.js";
import { toolData } from "../../bridge/tool-data.js";
import { CAPTURE_KEY, type CaptureApi, type CapturedTool } from "./capture-api.js";

/** The outputSchema of each tool registered with a native document.modelContext, by name (none: absent). */
const nativeOutputSchemas = new Map<string, Record<string, unknown>>();

function noteNativeOutputSchemas(): void {
  const native = (document as unknown as { modelContext?: unknown }).modelContext;
  if (!isObject(native) || typeof native.registerTool !== "function") return;
  const prototype = Object.getPrototypeOf(native) as Record<string, unknown>;
  const registerTool = prototype.registerTool as (...args: unknown[]) => unknown;
  Object.defineProperty(prototype, "registerTool", {
    configurable: true,
    writable: true,
    value: function (this: unknown, tool: unknown, ...rest: unknown[]) {
      if (isObject(tool)) {
        const name = String(tool.name);
        try {
          if (tool.outputSchema === undefined) nativeOutputSchemas.delete(name);
          else nativeOutputSchemas.set(name, toObjectSchema(tool.outputSchema, "outputSchema"));
        } catch {
          nativeOutputSchemas.delete(name); // native refuses it too
        }
      }
      return registerTool.call(this, tool, ...rest);
    },
  });
}

function describe(tool: RegisteredTool): CapturedTool {
  const outputSchema =
    tool.outputSchema ?? (tool.source === "native" ? nativeOutputSchemas.get(tool.name) : undefined);
  return toolData({ ...tool, outputSchema });
}

const ownTools = () => registry.list().filter((t) => t.frameOrigin === undefined);

/** One token per registration: the registry keeps the object a registration made until it is removed. */
const tokens = new WeakMap<RegisteredTool, number>();
let lastToken = 0;
function tokenOf(tool: RegisteredTool): number {
  let token = tokens.get(tool);
  if (token === undefined) tokens.set(tool, (token = ++lastToken));
  return token;
}

const ownTool = (name: string) => {
  const tool = registry.get(name);
  return tool && tool.frameOrigin === undefined ? tool : undefined;
};

const api: CaptureApi = {
  tools: () => ownTools().map(describe),
  wait(name, ms) {
    if (registry.get(name)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!registry.get(name)) return;
        done(true);
      };
      const timer = setTimeout(() => done(false), ms);
      const done = (found: boolean) => {
        clearTimeout(timer);
        registry.removeEventListener(CHANGE_EVENT, check);
        resolve(found);
      };
      registry.addEventListener(CHANGE_EVENT, check);
    });
  },
  definition(name) {
    const tool = ownTool(name);
    return tool ? { tool: describe(tool), token: tokenOf(tool) } : null;
  },
  async call(name, token, input, maxBytes) {
    const tool = ownTool(name);
    if (!tool || tokenOf(tool) !== token) return { stale: true };
    let value: unknown;
    try {
      // Never aborted: a call that runs out of time ends with its page, which the runner closes.
      value = await tool.execute(input, toolClient(new AbortController().signal));
    } catch (e) {
      return { result: errorResult(messageOf(e)) };
    }
    const result = toCallToolResult(value);
    const bytes = new TextEncoder().encode(JSON.stringify(result)).byteLength;
    if (bytes > maxBytes) return { tooLarge: bytes };
    return { result: relayResult(result) };
  },
};

if (globalThis.isSecureContext) {
  noteNativeOutputSchemas();
  installWebMcp();
  Object.defineProperty(window, EXTENSION_MARK, { value: true });
  // Only the top-level document's own tools are run in the cloud.
  if (window === window.top)
    Object.defineProperty(window, Symbol.for(CAPTURE_KEY), { value: Object.freeze(api) });
}
