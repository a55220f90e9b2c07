// The provider's side of the relay frames, shared by /bridge.js (relay-client.ts, one socket per tab) and the
// extension's service worker (one socket per shared tab): registered tools as the hub's ToolDescriptors,
// within the hub's limits, and result frames that never exceed the frame limit. The limits and the name
// pattern come from src/protocol's zod-free modules (the bridge bundles no zod; the hub re-validates every frame).
import type { LiveTool, ProviderFrame, ToolsFrame } from "../protocol/frames.js";
import { LIMITS } from "../protocol/limits.js";
import { exceedsUtf8Bytes, utf8ByteLength } from "../protocol/measure.js";
import { TOOL_NAME_PATTERN } from "../protocol/names.js";
import type { ToolAnnotations } from "../protocol/tool.js";
import { errorResult } from "./results.js";

const MAX_TOOLS = LIMITS.toolsPerProvider;
const MAX_FRAME_BYTES = LIMITS.frameBytes;
const HINTS = [
  "readOnlyHint",
  "destructiveHint",
  "idempotentHint",
  "openWorldHint",
  "untrustedContentHint",
  "consequentialHint",
] as const;

/** A tool as a page registered it, data only (a RegisteredTool, or the extension's copy of one). */
export interface ToolDefinition {
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
  /** Set for a tool registered in one of the tab's frames: that frame's origin (relayed in `_meta`). */
  frameOrigin?: string | undefined;
}

/** A tool as the hub's ToolDescriptor, or null when the hub would refuse it (name or description). */
export function toDescriptor(tool: ToolDefinition): LiveTool | null {
  if (
    !TOOL_NAME_PATTERN.test(tool.name) ||
    !tool.description ||
    tool.description.length > LIMITS.descriptionMax
  )
    return null;
  const annotations: ToolAnnotations = {};
  for (const hint of HINTS) {
    const value: unknown = tool.annotations?.[hint];
    if (value !== undefined) annotations[hint] = value === true || value === "true";
  }
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title.slice(0, LIMITS.titleMax) } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations,
    ...(tool.frameOrigin ? { frameOrigin: tool.frameOrigin } : {}),
  };
}

export interface ToolsFrameText {
  /** The `tools` frame, as the text to send. */
  text: string;
  /** How many tools it carries. */
  sent: number;
  /** Why tools were left out, one line each (empty when none were). */
  warnings: string[];
}

/**
 * The `tools` frame for a provider's tools: tools the hub would refuse are left out, at most MAX_TOOLS are
 * sent, and the frame is trimmed (dropping tools from the end) until it fits MAX_FRAME_BYTES.
 */
export function toolsFrameText(tools: Iterable<ToolDefinition>): ToolsFrameText {
  const warnings: string[] = [];
  const descriptors: LiveTool[] = [];
  for (const tool of tools) {
    const descriptor = toDescriptor(tool);
    if (descriptor) descriptors.push(descriptor);
    else warnings.push(`the tool "${tool.name.slice(0, 200)}" cannot be relayed (name or description).`);
  }
  // A tool too big for a frame on its own (a huge schema) is left out by name, and the others still go.
  for (let i = descriptors.length - 1; i >= 0; i--) {
    const text = JSON.stringify(descriptors[i]);
    if (exceedsUtf8Bytes(text, MAX_FRAME_BYTES - 64)) {
      warnings.push(
        `the tool "${descriptors[i]!.name}" is ${utf8ByteLength(text)} bytes, more than a relay frame carries (${MAX_FRAME_BYTES}); left out.`,
      );
      descriptors.splice(i, 1);
    }
  }
  if (descriptors.length > MAX_TOOLS) {
    warnings.push(`a tab relays at most ${MAX_TOOLS} tools; ${descriptors.length - MAX_TOOLS} left out.`);
    descriptors.length = MAX_TOOLS;
  }
  const before = descriptors.length;
  let text = JSON.stringify({ type: "tools", tools: descriptors } satisfies ToolsFrame);
  while (exceedsUtf8Bytes(text, MAX_FRAME_BYTES) && descriptors.length) {
    descriptors.length = Math.floor(descriptors.length * 0.9);
    text = JSON.stringify({ type: "tools", tools: descriptors } satisfies ToolsFrame);
  }
  if (descriptors.length < before)
    warnings.push(
      `the tools' definitions are over the hub's ${MAX_FRAME_BYTES}-byte frame limit; ${before - descriptors.length} left out.`,
    );
  return { text, sent: descriptors.length, warnings };
}

/**
 * A frame as the text to send, or null when it is over the hub's limit (which would close the socket). A
 * result over the limit is replaced by an `isError` result that says so, so the agent is not left waiting.
 */
export function frameText(frame: ProviderFrame): string | null {
  const text = JSON.stringify(frame);
  if (!exceedsUtf8Bytes(text, MAX_FRAME_BYTES)) return text;
  if (frame.type !== "result") return null;
  return JSON.stringify({
    ...frame,
    result: errorResult(
      `The tool's answer was ${utf8ByteLength(text)} bytes as a relay frame; a frame may be at most ${MAX_FRAME_BYTES} bytes.`,
    ),
  } satisfies ProviderFrame);
}

/** Reconnection delay after `attempt` failures: exponential from 500 ms, capped at 30 s, with jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(30_000, 500 * 2 ** attempt);
  return base / 2 + (Math.random() * base) / 2;
}
