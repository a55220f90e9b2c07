// One error type for the REST API, rendered by one onError handler as {error: {code, message, issues?}}.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorBody, ErrorCode, FieldIssue } from "../../protocol/index.js";

export class HubError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { issues?: FieldIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HubError";
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers;
  }

  get status(): ContentfulStatusCode {
    return statusFor(this.code);
  }

  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) },
    };
  }
}

export function statusFor(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case "bad_request":
    case "invalid_json":
    case "validation_failed":
    case "invalid_cursor":
    case "invalid_origin":
    case "private_origin":
      return 400;
    case "unauthorized":
      return 401;
    case "forbidden":
    case "site_not_verified":
      return 403;
    case "not_found":
    case "site_not_found":
      return 404;
    case "conflict":
      return 409;
    case "challenge_expired":
    case "site_delisted":
      return 410;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "verification_failed":
    case "invalid_manifest":
    case "duplicate_tool_name":
    case "unknown_tool":
      return 422;
    case "rate_limited":
      return 429;
    case "upstream_failed":
      return 502;
    case "internal_error":
      return 500;
  }
}

export function renderError(err: unknown, c: Context): Response {
  if (err instanceof HubError) {
    return c.json(err.toBody(), err.status, err.headers);
  }
  // Never leak a stack or a secret: log it for the operator, answer with a generic message.
  console.error("unhandled error", err);
  const body: ErrorBody = {
    error: {
      code: "internal_error",
      message: "Something went wrong on our side. Try again; if it persists, report it.",
    },
  };
  return c.json(body, 500);
}
