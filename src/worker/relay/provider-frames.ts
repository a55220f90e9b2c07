// The relay frames on a provider's socket, at the object's end: a received message becomes a ProviderFrame
// only within the limits (text, size in UTF-8, nesting depth, the schema), and what the hub sends is held to
// its own schema too (except the call frame, which call-dispatch.ts builds from checked parts and sends as
// text). Anything refused is answered in band with an error frame the provider can read.
//
// A provider's `result` frame, one per call on the relay's hot path, is checked by hand first: a zod parse of
// each was a measurable part of a call's CPU (bench/relay). The hand check accepts only frames the schema
// accepts unchanged (the usual shapes: text content, plain objects); anything else, valid or not, goes to
// the schema, which has the last word and words the refusal.
import {
  CLOSE_CODES,
  HubFrameSchema,
  LIMITS,
  ProviderFrameSchema,
  checkObjectSchema,
  exceedsUtf8Bytes,
  jsonDepth,
  utf8ByteLength,
  type HubFrame,
  type ProviderFrame,
  type LiveTool,
} from "../../protocol/index.js";
import { checkTool } from "../../protocol/tool-checks.js";

/** Levels a provider frame adds around its payload (frame → tools → tool → inputSchema; frame → result →
 *  structuredContent), so a payload may itself be LIMITS.jsonDepthMax deep. */
const FRAME_ENVELOPE_DEPTH = 3;

/** Sends a hub frame; its schema is enforced on what the hub sends, not only on what it receives. */
export function sendFrame(ws: WebSocket, frame: HubFrame): void {
  ws.send(JSON.stringify(HubFrameSchema.parse(frame)));
}

export type FrameRead =
  | { frame: ProviderFrame }
  | {
      /** The error frame that tells the provider why. */
      refusal: Extract<HubFrame, { type: "error" }>;
      /** Close the socket after it (the frame was too large to trust the stream). */
      close?: { code: number; reason: string };
      /** Worth a log line: the provider's software sent something malformed. */
      log?: string;
    };

/** Reads one message from a provider's socket. */
export function readProviderFrame(message: string | ArrayBuffer): FrameRead {
  if (typeof message !== "string") {
    return {
      refusal: {
        type: "error",
        code: "binary_frame",
        message: "Frames are JSON text; binary frames are not accepted.",
      },
    };
  }
  // The limit is in bytes of UTF-8, as the frame travels (a string's length counts UTF-16 units).
  if (exceedsUtf8Bytes(message, LIMITS.frameBytes)) {
    return {
      refusal: {
        type: "error",
        code: "frame_too_large",
        message: `A frame may be at most ${LIMITS.frameBytes} bytes of UTF-8; this one has ${utf8ByteLength(message)}.`,
      },
      close: { code: CLOSE_CODES.frameTooLarge, reason: "frame too large" },
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return { refusal: { type: "error", code: "invalid_json", message: "Frame refused: not valid JSON." } };
  }
  if (jsonDepth(json, LIMITS.jsonDepthMax + FRAME_ENVELOPE_DEPTH) === Number.POSITIVE_INFINITY) {
    return {
      refusal: {
        type: "error",
        code: "frame_too_deep",
        message: `Frame refused: its JSON nests deeper than ${LIMITS.jsonDepthMax} levels inside the frame.`,
      },
    };
  }
  const quick = usualResultFrame(json);
  if (quick) return { frame: quick };
  const parsed = ProviderFrameSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".") || "(frame)"}: ${issue.message}` : "invalid frame";
    return {
      refusal: { type: "error", code: "invalid_frame", message: `Frame refused: ${where}.` },
      log: `sent an invalid frame: ${where}`,
    };
  }
  return { frame: parsed.data };
}

const RESULT_FRAME_KEYS = new Set(["type", "id", "result", "denied"]);
const RESULT_KEYS = new Set(["content", "structuredContent", "isError", "_meta"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * A `result` frame in its usual shape (text content only, plain objects, no key the schema would strip),
 * checked by hand: exactly what ResultFrameSchema accepts and returns unchanged for such a frame. Undefined
 * for anything else, which the schema then reads.
 */
function usualResultFrame(json: unknown): Extract<ProviderFrame, { type: "result" }> | undefined {
  if (!isPlainObject(json) || json.type !== "result" || !onlyKeys(json, RESULT_FRAME_KEYS)) return undefined;
  const { id, result, denied } = json;
  if (typeof id !== "string" || id.length < 1 || id.length > 64) return undefined;
  if (denied !== undefined && typeof denied !== "boolean") return undefined;
  if (!isPlainObject(result) || !onlyKeys(result, RESULT_KEYS)) return undefined;
  const { content, structuredContent, isError, _meta } = result;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== "text" || typeof block.text !== "string") return undefined;
    for (const key in block) if (key !== "type" && key !== "text") return undefined;
  }
  if (structuredContent !== undefined && !isPlainObject(structuredContent)) return undefined;
  if (isError !== undefined && typeof isError !== "boolean") return undefined;
  if (_meta !== undefined && !isPlainObject(_meta)) return undefined;
  return json as Extract<ProviderFrame, { type: "result" }>;
}

/** A tools frame's tools the hub relays, and why each other one is refused (duplicate, unusable schema, hidden
 *  bidi or control characters in its definition). */
export function acceptTools(tools: LiveTool[]): { accepted: LiveTool[]; refused: string[] } {
  const accepted: LiveTool[] = [];
  const refused: string[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    const problems = [
      ...checkObjectSchema(tool.inputSchema),
      ...(tool.outputSchema ? checkObjectSchema(tool.outputSchema) : []),
    ];
    const hidden = checkTool(tool).refused[0];
    if (seen.has(tool.name)) refused.push(`${tool.name}: duplicate name`);
    else if (problems.length)
      refused.push(`${tool.name}: ${problems[0]!.path || "schema"} ${problems[0]!.message}`);
    else if (hidden) refused.push(`${tool.name}: ${hidden.path}: ${hidden.message.replace(/\.$/, "")}`);
    else accepted.push(tool);
    seen.add(tool.name);
  }
  return { accepted, refused };
}
