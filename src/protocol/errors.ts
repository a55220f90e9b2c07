// Stable machine-readable error codes of the REST API, and the JSON body that carries them.
import * as z from "zod";

export const ERROR_CODES = [
  "bad_request",
  "invalid_json",
  "validation_failed",
  "payload_too_large",
  "unsupported_media_type",
  "invalid_cursor",
  "invalid_origin",
  "private_origin",
  "unauthorized",
  "forbidden",
  "not_found",
  "site_not_found",
  "site_not_verified",
  "site_delisted",
  "challenge_expired",
  "verification_failed",
  "invalid_manifest",
  "duplicate_tool_name",
  "unknown_tool",
  "conflict",
  "rate_limited",
  "upstream_failed",
  "internal_error",
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** One problem in a request body, pointing at the exact field (JSON Pointer-ish dotted path). */
export const FieldIssueSchema = z.object({ path: z.string(), message: z.string() });
export type FieldIssue = z.infer<typeof FieldIssueSchema>;

export const ErrorBodySchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    issues: z.array(FieldIssueSchema).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Turns zod issues into field issues with readable paths like `tools[2].inputSchema.type`. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || "(root)";
}
