// Turns whatever a page's tool returns (or throws) into the MCP CallToolResult the relay carries. The hub
// re-validates every result frame with zod and refuses the whole frame when one block is malformed, which
// would leave the agent waiting for its timeout; so blocks are checked here, by hand (no zod in the bridge).
// Two steps, so /bridge.js carries only the first: toCallToolResult converts a value to a CallToolResult's
// shape (in /bridge.js: a frame's document converts its tool's value for the top-level document's relay, the
// `raw` calls of frames.ts); relayResult, which runTool applies, also checks the blocks and the size (the
// relay's: /bridge-relay.js, the extension). A frame's result reaches the relay through runTool too, so it
// is checked there, by the document that sends it to the hub.
import type { CallToolResult } from "../protocol/results.js";
import type { RegisteredTool, ToolClient } from "./registry.js";
import { isObject as isRecord } from "./schema-check.js";

/** The largest result a frame can carry, leaving room for the frame's own fields (LIMITS.frameBytes is 1 MiB). */
export const MAX_RESULT_BYTES = 1024 * 1024 - 4096;

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** The message of anything thrown: an Error's message, a string, or its JSON. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error || thrown instanceof DOMException) return thrown.message || thrown.name;
  if (typeof thrown === "string") return thrown;
  return safeJson(thrown) ?? String(thrown);
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

const str = (v: unknown): v is string => typeof v === "string";

/** Why a content block would be refused by the hub, or "" when it is well formed. */
function blockProblem(block: unknown): string {
  if (!isRecord(block)) return "a content block is not an object";
  switch (block.type) {
    case "text":
      return str(block.text) ? "" : "a text block needs a string `text`";
    case "image":
    case "audio":
      return str(block.data) && str(block.mimeType)
        ? ""
        : `an ${block.type} block needs base64 \`data\` and a \`mimeType\``;
    case "resource":
      return isRecord(block.resource) && str(block.resource.uri)
        ? ""
        : "a resource block needs `resource.uri` and its text or blob";
    case "resource_link":
      return str(block.uri) && str(block.name) ? "" : "a resource_link block needs `uri` and `name`";
    default:
      return `unknown content type ${JSON.stringify(block.type)}`;
  }
}

/**
 * A tool's return value in a CallToolResult's shape: a string becomes text content; an object with a
 * `content` array passes through, unchecked (relayResult checks it); any other value becomes its JSON as
 * text, plus `structuredContent` when it is a plain object. A value JSON cannot hold becomes an `isError`
 * result that says so.
 */
export function toCallToolResult(value: unknown): CallToolResult {
  let result: CallToolResult;
  if (typeof value === "string") {
    result = { content: [{ type: "text", text: value }] };
  } else if (isRecord(value) && Array.isArray(value.content)) {
    result = value as CallToolResult;
  } else if (value === undefined) {
    result = { content: [] };
  } else {
    const text = safeJson(value);
    if (text === undefined) return errorResult("The tool returned a value that cannot be turned into JSON.");
    result = { content: [{ type: "text", text }] };
    if (isRecord(value)) result.structuredContent = JSON.parse(text) as Record<string, unknown>;
  }
  return safeJson(result) === undefined
    ? errorResult("The tool returned a value that cannot be turned into JSON.")
    : result;
}

/**
 * A tool's return value as the relay sends it: toCallToolResult's, and then results the hub would refuse
 * (a malformed block, a structuredContent that is not an object) or a frame could not carry (over
 * MAX_RESULT_BYTES as UTF-8 JSON) become `isError` results that say why.
 */
export function relayResult(value: unknown): CallToolResult {
  const result = toCallToolResult(value);
  const problem =
    result.content.map(blockProblem).find(Boolean) ||
    (result.structuredContent !== undefined && !isRecord(result.structuredContent)
      ? "structuredContent must be an object"
      : "");
  if (problem) return errorResult(`The tool returned an invalid MCP result: ${problem}.`);
  if (new TextEncoder().encode(JSON.stringify(result)).byteLength > MAX_RESULT_BYTES)
    return errorResult(
      `The tool's result is larger than ${MAX_RESULT_BYTES} bytes, the most a relay frame carries.`,
    );
  return result;
}

/**
 * Runs a registered tool for a relayed call (the bridge's and the extension's): its execute gets the input and
 * a client whose signal is the call's (cancel, timeout), and whatever it returns or throws becomes a result
 * that fits a frame.
 */
export async function runTool(
  tool: RegisteredTool,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const client: ToolClient = {
    signal,
    async requestUserInteraction(callback) {
      signal.throwIfAborted();
      return await callback();
    },
  };
  try {
    return relayResult(await tool.execute(input, client));
  } catch (e) {
    return errorResult(messageOf(e));
  }
}
