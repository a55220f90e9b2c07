// What the capture script (capture.ts, run in the site's page) offers the runner (page-run.ts): the names and
// shapes both sides use, and nothing that needs the DOM or the Workers runtime.
import type { ToolData } from "../../bridge/tool-data.js";

/** The hidden global the capture script defines (a registered symbol: no page name can collide with it). */
export const CAPTURE_KEY = "webmcp-hub.cloud";

/** A registered tool as plain data (the same shape the extension's MAIN world relays). */
export type CapturedTool = ToolData;

/** How a call ended in the page: the tool's CallToolResult, or why there is none. */
export type CaptureOutcome = { result: Record<string, unknown> } | { tooLarge: number };

/** A registered tool's definition and the token of exactly this registration (a new registration, a new token). */
export interface CapturedDefinition {
  tool: CapturedTool;
  token: number;
}

export interface CaptureApi {
  /** The page's registered tools, its own document's (frames' tools are not run in the cloud). */
  tools(): CapturedTool[];
  /** Resolves true once a tool of this name is registered, false after `ms`. */
  wait(name: string, ms: number): Promise<boolean>;
  /** The tool's definition now, with its registration's token; null if no such tool is registered. */
  definition(name: string): CapturedDefinition | null;
  /**
   * Runs the tool if it is still the registration `token` names (what the runner checked); `{ stale: true }`
   * without running it if the page registered it again or removed it since. A result over `maxBytes` (UTF-8
   * JSON) never leaves the page.
   */
  call(
    name: string,
    token: number,
    input: Record<string, unknown>,
    maxBytes: number,
  ): Promise<CaptureOutcome | { stale: true }>;
}
