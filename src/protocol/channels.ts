// REST shapes of channels, pairing and plain HTTP calls.
import * as z from "zod";
import { LIMITS } from "./limits.js";
import { PROVIDER_KINDS } from "./frames.js";

export const CreateChannelBodySchema = z.object({
  name: z.string().trim().min(1, "give the channel a name").max(100),
  /** Restrict tool names to [A-Za-z0-9_-]{1,64} for MCP clients that reject dots. */
  strictNames: z.boolean().default(false),
});

export const CreateAgentTokenBodySchema = z.object({
  label: z.string().trim().min(1).max(100).default("agent"),
});
export const RevokeAgentTokenBodySchema = z.object({ id: z.string().min(1).max(64) });

/** Crockford base32 without I, L, O, U. */
export const PAIRING_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Accepts `ABCD-EFGH`, lower case, spaces, and the look-alikes Crockford maps (I/L→1, O→0). */
export function normalizePairingCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
}

/**
 * What a pairing code is redeemed for: a tab or sidecar (one provider each), or the browser extension, whose
 * one token (bound to the extension's own Origin) opens a socket per shared tab, each a provider of kind "tab".
 */
export const PAIRING_KINDS = [...PROVIDER_KINDS, "extension"] as const;
export const PairingKindSchema = z.enum(PAIRING_KINDS);
export type PairingKind = z.infer<typeof PairingKindSchema>;

export const PairBodySchema = z.object({
  code: z
    .string()
    .max(32)
    .transform(normalizePairingCode)
    .pipe(
      z.string().regex(/^[0-9A-HJKMNP-TV-Z]{8}$/, "a pairing code is 8 letters and digits, like 7K3M-Q9XD"),
    ),
  kind: PairingKindSchema,
  label: z.string().trim().min(1).max(64).optional(),
});
export type PairBody = z.infer<typeof PairBodySchema>;

/** A point in time in a query string: an ISO 8601 date-time, or milliseconds since the epoch. */
const TimeParamSchema = z
  .string()
  .max(40)
  .transform((v, ctx) => {
    const ms = /^\d{1,15}$/.test(v)
      ? Number(v)
      : /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(v)
        ? Date.parse(v)
        : NaN;
    if (Number.isNaN(ms)) {
      ctx.addIssue({
        code: "custom",
        message: "give a time as ISO 8601 with a zone (2026-11-23T10:00:00Z) or milliseconds since 1970",
      });
      return z.NEVER;
    }
    return ms;
  });

/** `since` is inclusive, `until` exclusive; both compare with the time the call started. */
export const AuditQuerySchema = z.object({
  tool: z.string().max(200).optional(),
  since: TimeParamSchema.optional(),
  until: TimeParamSchema.optional(),
  status: z.enum(["ok", "error", "invalid", "denied", "timeout", "disconnected", "cancelled"]).optional(),
  cursor: z.string().max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.pageMax).default(50),
});

export const AUDIT_STATUSES = [
  "ok",
  "error",
  "invalid",
  "denied",
  "timeout",
  "disconnected",
  "cancelled",
] as const;
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

export const ToolCallSchema = z.object({
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const PlainCallBodySchema = z.union([
  ToolCallSchema.extend({
    timeoutMs: z.number().int().min(1).max(LIMITS.callTimeoutMaxMs).optional(),
  }).strict(),
  z
    .object({
      text: z.string().min(1).max(LIMITS.callsTextMax),
      timeoutMs: z.number().int().min(1).max(LIMITS.callTimeoutMaxMs).optional(),
    })
    .strict(),
]);
