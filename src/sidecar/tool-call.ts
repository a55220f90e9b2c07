// One fs.search_by_time call as a CallToolResult, shared by the stdio server and the hub link: success is
// structuredContent plus two text blocks (the summary, then the JSON, as seed 001 §2.1.4 shows); a
// SearchError is an isError result with its sentence. InvalidArgumentsError and cancellation are thrown:
// each transport answers them its own way.
import type { CallToolResult } from "../protocol/results.js";
import { SearchError } from "./errors.js";
import type { SearchRoot } from "./roots.js";
import { searchByTime, type SearchOptions, type SearchResult } from "./search.js";

export function successResult(result: SearchResult): CallToolResult {
  return {
    content: [
      { type: "text", text: result.summary },
      { type: "text", text: JSON.stringify(result.output) },
    ],
    structuredContent: result.output as unknown as Record<string, unknown>,
    isError: false,
  };
}

export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** Runs the search; `shape` may cut the page (the relay's frame limit) before it becomes a result. */
export async function callSearchTool(
  roots: readonly SearchRoot[],
  args: unknown,
  options: SearchOptions,
  shape: (result: SearchResult) => CallToolResult = successResult,
): Promise<CallToolResult> {
  try {
    return shape(await searchByTime(roots, args, options));
  } catch (e) {
    if (e instanceof SearchError) return toolErrorResult(e.message);
    throw e;
  }
}
