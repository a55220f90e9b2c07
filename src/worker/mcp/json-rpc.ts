// A JSON-RPC error as an HTTP response, for the refusals the endpoint makes before any SDK server sees the
// request (unknown session, a session id on a 2026 request, a body over the limit).
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id }, { status, headers });
}

/** The id of a parsed JSON-RPC request body, when it has a usable one. */
export function requestIdOf(body: unknown): string | number | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const id = (body as Record<string, unknown>).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
