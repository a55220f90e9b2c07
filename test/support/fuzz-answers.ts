// What every fuzzed answer must be: no 5xx but upstream_failed, REST errors in the documented shape with a
// known code and its status, 429 with Retry-After, and MCP answers that are JSON-RPC results or errors.
import { ErrorBodySchema } from "../../src/protocol/index.js";
import { statusFor } from "../../src/worker/http/errors.js";

export class AnswerError extends Error {
  override readonly name = "AnswerError";
}

function fail(what: string, res: Response, detail: string): never {
  throw new AnswerError(`${what}: HTTP ${res.status}: ${detail.slice(0, 600)}`);
}

/**
 * Checks a REST answer: success statuses pass (their body is returned parsed when JSON); an error status must
 * carry {error:{code,message}} with a known code whose status is this one; 5xx only as 502 upstream_failed.
 */
export async function expectDocumentedAnswer(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  if (res.status < 400) {
    if (type.includes("json")) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        fail(what, res, `a success answer declared JSON but is not: ${text}`);
      }
    }
    return text;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail(what, res, `an error answer that is not JSON: ${text}`);
  }
  const parsed = ErrorBodySchema.safeParse(body);
  if (!parsed.success) fail(what, res, `an error answer not in the documented shape: ${text}`);
  const { code, message } = parsed.data.error;
  if (statusFor(code) !== res.status) fail(what, res, `code ${code} belongs with HTTP ${statusFor(code)}`);
  if (res.status >= 500 && code !== "upstream_failed") fail(what, res, `a server error: ${text}`);
  if (message.trim().length < 10) fail(what, res, `an error message that says nothing: ${text}`);
  if (code === "rate_limited" && !/^\d+$/.test(res.headers.get("retry-after") ?? ""))
    fail(what, res, "429 without a Retry-After of whole seconds");
  return body;
}

/** Checks a page answer: HTML (or a documented JSON error), never a server error. */
export async function expectPageAnswer(res: Response, what: string): Promise<void> {
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("json")) {
    await expectDocumentedAnswer(res, what);
    return;
  }
  const text = await res.text();
  if (res.status >= 500) fail(what, res, `a server error page: ${text}`);
  // 410: a delisted site's pages (POST /api/sites/:host/delist), which say so.
  if (res.status !== 404 && res.status !== 410 && res.status >= 400 && res.status !== 429)
    fail(what, res, `an unexpected page status: ${text}`);
  if (res.status === 410 && !text.includes("was delisted"))
    fail(what, res, `a 410 page that does not say why: ${text}`);
}

type JsonRpcMessage = Record<string, unknown>;

function isJsonRpcAnswer(m: unknown): m is JsonRpcMessage {
  if (m === null || typeof m !== "object" || Array.isArray(m)) return false;
  const msg = m as JsonRpcMessage;
  if (msg.jsonrpc !== "2.0") return false;
  if ("method" in msg) return typeof msg.method === "string"; // a notification or request from the server
  const idOk = msg.id === null || typeof msg.id === "string" || typeof msg.id === "number";
  if (!idOk) return false;
  if ("error" in msg) {
    const e = msg.error as Record<string, unknown> | null;
    return (
      e !== null &&
      typeof e === "object" &&
      Number.isInteger(e.code) &&
      typeof e.message === "string" &&
      !("result" in msg)
    );
  }
  return "result" in msg && typeof msg.result === "object" && msg.result !== null;
}

/** The JSON-RPC messages of an MCP answer: JSON (one or a batch) or an SSE stream of `data:` lines. */
export function jsonRpcMessages(text: string, type: string): unknown[] {
  if (type.includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => JSON.parse(l.slice(5).trim()) as unknown);
  }
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * Checks an MCP endpoint's answer: never a 5xx; 202 with no body (notifications); 4xx either a JSON-RPC
 * error (the transport's) or the REST error shape (the Worker's auth and routing); 2xx JSON-RPC messages.
 * Returns the JSON-RPC messages.
 */
export async function expectMcpAnswer(res: Response, what: string): Promise<JsonRpcMessage[]> {
  const type = res.headers.get("content-type") ?? "";
  if (res.status >= 500) fail(what, res, `a server error: ${await res.text()}`);
  if (res.status === 202 || res.status === 204) return [];
  if (res.status === 405 && !type.includes("json")) return []; // Method Not Allowed (GET on a stateless server)
  const text = await res.text();
  if (res.status >= 400 && type.includes("json")) {
    const body = JSON.parse(text) as unknown;
    if (ErrorBodySchema.safeParse(body).success) {
      return expectDocumentedAnswer(
        new Response(text, { status: res.status, headers: res.headers }),
        what,
      ).then(() => []);
    }
  }
  let messages: unknown[];
  try {
    messages = jsonRpcMessages(text, type);
  } catch {
    fail(what, res, `an answer that is neither JSON-RPC nor SSE of JSON-RPC (${type}): ${text}`);
  }
  for (const m of messages)
    if (!isJsonRpcAnswer(m)) fail(what, res, `not a JSON-RPC result or error: ${JSON.stringify(m)}`);
  if (res.status >= 400 && !messages.every((m) => "error" in (m as JsonRpcMessage)))
    fail(what, res, `an error status with a non-error body: ${text}`);
  return messages as JsonRpcMessage[];
}
