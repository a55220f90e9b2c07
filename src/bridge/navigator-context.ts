// navigator.modelContext, the seed-era WebMCP API (shared/seeds 000 and 003): provideContext / clearContext /
// registerTool / unregisterTool. Its tools go where document.modelContext's go (the registry, or a native
// document.modelContext), so they show in getTools(), fire toolchange and are relayed; their execute gets
// the one ToolClient with both `signal` and `requestUserInteraction`.
//
// Decisions where the seeds are silent: provideContext and clearContext replace / remove only the tools this
// API registered, never those of document.modelContext or of forms; provideContext is all or nothing (a bad
// tool leaves the previous context in place and throws); within one provideContext a later tool replaces an
// earlier one of the same name (seed 000: "the last one is used"); unregisterTool of a name this API did not
// register does nothing; registerTool also takes the later drafts' `{signal}` option. Errors are the current
// spec's: TypeError for a malformed tool or schema, InvalidStateError for a bad or duplicate name.
import type { AddTool } from "./model-context.js";
import { isObject } from "./schema-check.js";

export interface SeedModelContext {
  provideContext(options?: { tools?: Iterable<unknown> }): void;
  clearContext(): void;
  registerTool(tool: unknown, options?: { signal?: AbortSignal }): void;
  unregisterTool(name: string): void;
}

export function createNavigatorContext(add: AddTool): SeedModelContext {
  const registered = new Map<string, { tool: unknown; controller: AbortController }>();

  const unregisterTool = (name: string) => {
    registered.get(String(name))?.controller.abort();
    registered.delete(String(name));
  };
  const clearContext = () => {
    for (const { controller } of registered.values()) controller.abort();
    registered.clear();
  };
  const registerTool = (tool: unknown, options: { signal?: AbortSignal } = {}) => {
    const controller = new AbortController();
    add(tool, controller.signal, "seed");
    const name = String((tool as { name: unknown }).name);
    const entry = { tool, controller };
    registered.set(name, entry);
    options.signal?.addEventListener("abort", () => registered.get(name) === entry && unregisterTool(name));
  };
  const provideContext = (options: { tools?: Iterable<unknown> } = {}) => {
    const previous = [...registered.values()].map((r) => r.tool);
    const tools = new Map<unknown, unknown>();
    let i = 0;
    for (const tool of options?.tools ?? []) tools.set(isObject(tool) ? String(tool.name) : i++, tool);
    clearContext();
    try {
      for (const tool of tools.values()) registerTool(tool);
    } catch (e) {
      clearContext();
      previous.forEach((tool) => registerTool(tool));
      throw e;
    }
  };

  return { provideContext, clearContext, registerTool, unregisterTool };
}
