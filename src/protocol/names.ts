// Tool-name rules: MCP's `[A-Za-z0-9_.-]{1,128}`, and the stricter `[A-Za-z0-9_-]{1,64}` some clients need.
// No zod here, so /bridge.js checks names with the same pattern as the hub's ToolNameSchema (tool.ts).
import { LIMITS } from "./limits.js";

export const TOOL_NAME_PATTERN = new RegExp(`^[A-Za-z0-9_.-]{1,${LIMITS.toolNameMax}}$`);

/**
 * Rewrites a name so it fits `[A-Za-z0-9_-]{1,max}`: forbidden characters become `_`, and an over-long
 * name is cut and given a short hash so two long names stay distinct.
 */
export function toStrictToolName(name: string, max: number = LIMITS.strictToolNameMax): string {
  let out = name.replace(/[^A-Za-z0-9_-]/g, "_");
  if (out.length === 0) out = "_";
  if (out.length > max) out = `${out.slice(0, max - 9)}_${shortHash(name)}`;
  return out;
}

/** 8 hex chars of FNV-1a: enough to keep cut names apart; not a security boundary. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
