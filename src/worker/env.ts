// The Worker's bindings, typed once (`npm run types` regenerates worker-configuration.d.ts) and parsed once.
import * as z from "zod";

export type Bindings = Env;

const BoolString = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((v) => v === "true" || v === "1");

/** A whole number of days (a var is a string). */
const Days = (fallback: number) => z.coerce.number().int().min(1).max(3650).default(fallback);

export const SettingsSchema = z.object({
  ALLOW_PRIVATE_ORIGINS: BoolString,
  DOH_URL: z.url().default("https://cloudflare-dns.com/dns-query"),
  /** Extra browser origins allowed to call the channel MCP endpoint (comma-separated). */
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    ),
  /** Multiplies every request rate limit (http/rate-limit.ts); for local benches, never set when deployed. */
  RATE_LIMIT_SCALE: z.coerce.number().int().min(1).max(1_000_000).default(1),
  /** Audit rows older than this are deleted by the daily maintenance. */
  AUDIT_RETENTION_DAYS: Days(30),
  /** A site registered this long ago and never verified is deleted once it has no live challenge. */
  PENDING_SITE_DAYS: Days(7),
  /** A channel never used (no pairing, no agent, no owner visit) is deleted this long after its creation. */
  UNUSED_CHANNEL_DAYS: Days(7),
  /** A channel used once but not since is deleted after this long. */
  IDLE_CHANNEL_DAYS: Days(90),
});
export type Settings = z.infer<typeof SettingsSchema>;

const cache = new WeakMap<object, Settings>();

/** Parses the string vars once per env object; a misconfigured deployment fails loudly, not subtly. */
export function settingsOf(env: Bindings): Settings {
  let settings = cache.get(env);
  if (!settings) {
    const parsed = SettingsSchema.safeParse(env);
    if (!parsed.success) {
      throw new Error(
        `invalid Worker configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    }
    settings = parsed.data;
    cache.set(env, settings);
  }
  return settings;
}
