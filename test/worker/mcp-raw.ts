// Raw MCP requests for the era tests: exactly the bytes a client of either revision sends, so the tests can
// also send what no SDK client would (missing or mismatched headers, a session id on a 2026 request, …).
import { SELF } from "cloudflare:test";
import { HUB, MODERN, type TestChannel } from "./relay-helpers.js";

export const CLIENT_INFO = { name: "raw-client", version: "1.0.0" };

/** The 2026-07-28 per-request `_meta` envelope. */
export function envelope(capabilities: Record<string, unknown> = {}, version = MODERN) {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

/** The routing name a 2026 request's Mcp-Name header carries for its method. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === "tools/call" || method === "prompts/get") return String(params.name);
  if (method === "resources/read") return String(params.uri);
  if (method.startsWith("tasks/")) return String(params.taskId);
  return undefined;
}

export interface RawOptions {
  token?: string | null;
  /** Headers to add, or to remove (null). */
  headers?: Record<string, string | null>;
  capabilities?: Record<string, unknown>;
  meta?: Record<string, unknown> | null;
  id?: number;
  path?: string;
}

/** A well-formed 2026-07-28 request (headers mirroring the body), with `options` to break it. */
export function modernRequest(
  ch: TestChannel,
  method: string,
  params: Record<string, unknown>,
  options: RawOptions = {},
): Promise<Response> {
  const token = options.token === undefined ? ch.agentToken : options.token;
  const name = nameOf(method, params);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name !== undefined ? { "mcp-name": name } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const meta = options.meta === null ? undefined : { ...envelope(options.capabilities), ...options.meta };
  return SELF.fetch(`${HUB}${options.path ?? `/mcp/${ch.id}`}`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? 1,
      method,
      params: { ...params, ...(meta ? { _meta: meta } : {}) },
    }),
  });
}

/** A 2025-11-25 request (no envelope), optionally within a session. */
export function legacyRequest(
  ch: TestChannel,
  body: unknown,
  options: { sessionId?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return SELF.fetch(`${HUB}/mcp/${ch.id}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ch.agentToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(options.sessionId
        ? { "mcp-session-id": options.sessionId, "mcp-protocol-version": "2025-11-25" }
        : {}),
      ...options.headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The (last) JSON-RPC message of a response, whether sent as JSON or as SSE events. */
export async function readJsonRpc(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text);
  const events = text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)) as unknown);
  return events.at(-1);
}
