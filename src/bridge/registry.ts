// The one tool registry behind both WebMCP generations (document.modelContext and the seed-era
// navigator.modelContext), declarative <form toolname> tools and natively registered tools. The relay
// client reads it and runs its tools; the API objects only translate their generation's calls into it.
// No zod here: /bridge.js must stay under 15 KiB gzipped, so shapes are checked by hand and the hub
// re-validates every frame with the zod schemas in src/protocol.
import type { ToolAnnotations } from "../protocol/tool.js";

export type ToolSource = "current" | "seed" | "declarative" | "native";

/** What a tool's execute receives as its second argument: both generations' client in one object. */
export interface ToolClient {
  /**
   * Aborted when the agent cancels or the hub times the call out. Not when the page unregisters the tool
   * mid-call: WPT requires such a call to still deliver its result.
   */
  signal: AbortSignal;
  /** Seed-era ModelContextClient: lets the tool show its own UI to the user during the call. */
  requestUserInteraction<T>(callback: () => T | Promise<T>): Promise<T>;
}

export interface RegisteredTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
  execute: (input: Record<string, unknown>, client: ToolClient) => unknown;
  source: ToolSource;
  /** Set for a tool that lives in one of the tab's frames, not this document: that frame's origin. */
  frameOrigin?: string;
}

/** Fired (batched to one per microtask) whenever the set of tools changes. */
export const CHANGE_EVENT = "change";

export class ToolRegistry extends EventTarget {
  private readonly tools = new Map<string, RegisteredTool>();
  private pending = false;

  /** Adds a tool; throws InvalidStateError on a duplicate name (both generations require it). */
  add(tool: RegisteredTool): void {
    if (this.tools.has(tool.name)) {
      throw new DOMException(`A tool named "${tool.name}" is already registered.`, "InvalidStateError");
    }
    this.tools.set(tool.name, tool);
    this.changed();
  }

  /** Removes a tool; returns whether it existed. */
  remove(name: string): boolean {
    const existed = this.tools.delete(name);
    if (existed) this.changed();
    return existed;
  }

  /** Removes every tool, or every tool of one source (provideContext replaces only its own kind). */
  clear(source?: ToolSource): void {
    let removed = false;
    for (const [name, tool] of this.tools) {
      if (source === undefined || tool.source === source) {
        this.tools.delete(name);
        removed = true;
      }
    }
    if (removed) this.changed();
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  private changed(): void {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      this.dispatchEvent(new Event(CHANGE_EVENT));
    });
  }
}

/** The page's single registry (one per document). */
export const registry = new ToolRegistry();
