// The hub's REST API from the browser: JSON in and out, `Authorization: Bearer` keys, and the API's error
// body (`{error: {code, message, issues?}}`) as an ApiError the page can show.

export interface ApiIssue {
  path: string;
  message: string;
}

/** An error answered by the hub's REST API, or a network failure (status 0, code "network"). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: ApiIssue[];
  constructor(status: number, code: string, message: string, issues?: ApiIssue[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues ?? [];
  }
}

export interface ApiOptions {
  method?: string;
  /** Sent as the JSON body. */
  json?: unknown;
  /** Sent as the body as is (JSON text the user wrote). */
  text?: string;
  /** Sent as `Authorization: Bearer`. */
  token?: string;
}

/** Calls the hub's REST API and resolves with its JSON answer, typed as the caller expects (src/protocol/views.ts). */
export async function api<T>(
  path: string,
  { method = "GET", json, text, token }: ApiOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (json !== undefined || text !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: text ?? (json === undefined ? null : JSON.stringify(json)),
    });
  } catch {
    throw new ApiError(0, "network", "Could not reach the hub. Check your connection and try again.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const e = errorBody(body);
    throw new ApiError(
      res.status,
      e.code ?? "http_" + res.status,
      e.message ?? `The hub answered ${res.status}.`,
      e.issues,
    );
  }
  return body as T;
}

function errorBody(body: unknown): { code?: string; message?: string; issues?: ApiIssue[] } {
  if (typeof body !== "object" || body === null || !("error" in body)) return {};
  const e: unknown = body.error;
  if (typeof e !== "object" || e === null) return {};
  const out: { code?: string; message?: string; issues?: ApiIssue[] } = {};
  if ("code" in e && typeof e.code === "string") out.code = e.code;
  if ("message" in e && typeof e.message === "string") out.message = e.message;
  if ("issues" in e && Array.isArray(e.issues))
    out.issues = e.issues.filter(
      (i): i is ApiIssue =>
        typeof i === "object" && i !== null && typeof i.path === "string" && typeof i.message === "string",
    );
  return out;
}
