// Reads a JSON request body once, at the edge: media type, size cap, JSON syntax, then the zod schema.
import type { Context } from "hono";
import type { z } from "zod";
import { fieldIssues, LIMITS } from "../../protocol/index.js";
import { HubError } from "./errors.js";

export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new HubError(
      "unsupported_media_type",
      "Send the body as JSON with `Content-Type: application/json`.",
    );
  }
  const bytes = await readCappedBody(c.req.raw, maxBytes);
  if (bytes === null) throw tooLarge(maxBytes);
  return new TextDecoder().decode(bytes);
}

/**
 * A request's body as bytes, at most `maxBytes`: null when it is larger (a declared Content-Length over the
 * cap reads nothing; otherwise counted as the bytes arrive, so a missing or false Content-Length cannot get
 * past it). One chunk, the usual case, is returned as it is, not copied.
 */
export async function readCappedBody(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** An unpaired UTF-16 surrogate (with the `u` flag a paired one is one code point and does not match). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** A `\uD800`-`\uDFFF` escape in JSON text: with a raw one, the only way a parsed string holds one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Parses JSON text, refusing strings and keys that hold an unpaired surrogate (a `\uD800` escape alone): they
 * are not Unicode text, cannot be stored as UTF-8, and make JSON Pointer encoding throw (schema validation).
 */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "")
    throw new HubError("invalid_json", "The request body is empty; send a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const detail = e instanceof SyntaxError ? `: ${e.message}` : "";
    throw new HubError("invalid_json", `The request body is not valid JSON${detail}.`);
  }
  const unpaired =
    SURROGATE_ESCAPE.test(text) || LONE_SURROGATE.test(text) ? findUnpairedSurrogate(value) : undefined;
  if (unpaired !== undefined) {
    throw new HubError(
      "invalid_json",
      `The request body holds a string with an unpaired UTF-16 surrogate (${JSON.stringify(unpaired.slice(0, 40))}); send well-formed Unicode text.`,
    );
  }
  return value;
}

/** The first key or string in `value` that holds an unpaired surrogate; iterative, so depth cannot overflow. */
function findUnpairedSurrogate(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) return v;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return k;
        stack.push(item);
      }
    }
  }
  return undefined;
}

export async function readJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  maxBytes: number = LIMITS.requestBodyBytes,
): Promise<z.infer<S>> {
  return parseWith(schema, parseJsonText(await readBodyText(c, maxBytes)));
}

export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: "validation_failed" | "invalid_manifest" = "validation_failed",
): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = fieldIssues(parsed.error);
  const first = issues[0];
  const summary = first ? `${first.path}: ${first.message}` : "invalid input";
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : "";
  throw new HubError(code, `Invalid request: ${summary}${more}.`, { issues });
}

function tooLarge(maxBytes: number): HubError {
  return new HubError(
    "payload_too_large",
    `The request body is larger than ${Math.round(maxBytes / 1024)} KiB.`,
  );
}
