// Request rate limits on Cloudflare's Rate Limiting binding: anonymous writes per client, agent requests per
// token. Over the limit: 429 rate_limited with Retry-After and the usual error body.
//
// The limits are in wrangler.toml ([[ratelimits]]; the binding takes a period of 10 or 60 s), chosen so a
// person never meets them and a flood does:
//   ANON_WRITES  30 a minute per client and action (creating a channel, registering or re-registering a
//                site, a verification attempt, a pairing attempt). A person does a handful; the flood seen
//                made 1,000 channels in 9 s.
//   AGENT_CALLS  200 per 10 s per agent token (MCP requests; plain calls count each call of a batch). An
//                agent driven by a model makes a few a second; the flood seen wrote 36,000 audit rows a minute.
//   CLOUD_CALLS  120 a minute per client to /mcp/sites/<host> and Try it; CLOUD_SITE_CALLS 120 cloud runs a
//                minute per site from everyone (cloud/call.ts): the hub's browser time is shared.
// The binding counts per Cloudflare location and approximately: it bounds floods, it is not an exact quota.
// A client is its CF-Connecting-IP, IPv6 by its /64 (client-key.ts). Benches that legitimately exceed a limit
// configure their own binding (bench/*/wrangler.toml), or, on the project's wrangler.toml, raise every limit
// with the RATE_LIMIT_SCALE var (bench/bridge); the test pool raises AGENT_CALLS (vitest.config.ts).
import type { AppContext } from "./context.js";
import { HubError } from "./errors.js";
import { requestClientKey } from "./client-key.js";
import { settingsOf, type Bindings } from "../env.js";

/** The bindings declared in wrangler.toml, and the period each was declared with (seconds). */
export const LIMITERS = {
  ANON_WRITES: { periodSeconds: 60 },
  AGENT_CALLS: { periodSeconds: 10 },
  CLOUD_CALLS: { periodSeconds: 60 },
  CLOUD_SITE_CALLS: { periodSeconds: 60 },
} as const satisfies Record<string, { periodSeconds: 10 | 60 }>;
export type LimiterName = keyof typeof LIMITERS;

/**
 * Counts `weight` requests for `key` against a limiter; throws 429 rate_limited (Retry-After: the period, the
 * longest the caller may have to wait) when any of them is over. `what` names what was limited.
 */
export async function consumeRateLimit(
  env: Bindings,
  limiter: LimiterName,
  key: string,
  what: string,
  weight = 1,
): Promise<void> {
  const scale = settingsOf(env).RATE_LIMIT_SCALE;
  const outcomes = await Promise.all(
    Array.from({ length: weight }, () => env[limiter].limit({ key: scaled(key, scale) })),
  );
  if (outcomes.every((o) => o.success)) return;
  const { periodSeconds } = LIMITERS[limiter];
  throw new HubError("rate_limited", `Too many ${what}. Wait ${periodSeconds} seconds and try again.`, {
    headers: { "retry-after": String(periodSeconds) },
  });
}

let spread = 0;
/**
 * RATE_LIMIT_SCALE = n (local runs only; 1 when deployed) spreads a key's count over n counters in turn, so n
 * times the binding's limit passes: the binding's limit is fixed in wrangler.toml, which `npm start` shares.
 */
function scaled(key: string, scale: number): string {
  return scale === 1 ? key : `${key}#${spread++ % scale}`;
}

export interface RateLimitOptions {
  limiter: LimiterName;
  /** Separates the counters of different actions that share a limiter. */
  action: string;
  /** Plural noun for the message ("channels created"). */
  what: string;
  /** The key to count under; null: not limited (no client address: the request did not come from the edge). */
  key?: (c: AppContext) => string | null | Promise<string | null>;
  /**
   * Renders the refusal where the REST error body is not what the caller parses (the OAuth endpoints answer
   * `{error, error_description}`); by default the HubError goes to the app's error handler.
   */
  refusal?: (error: HubError) => Response;
}

/** Middleware factory: counts each request under its client (or `key`) and refuses it when over the limit. */
export function rateLimit(options: RateLimitOptions) {
  const keyOf = options.key ?? ((c: AppContext) => requestClientKey(c.req.raw.headers));
  return async function rateLimitMiddleware(
    c: AppContext,
    next: () => Promise<void>,
  ): Promise<Response | void> {
    const key = await keyOf(c);
    if (key !== null) {
      try {
        await consumeRateLimit(c.env, options.limiter, `${options.action}:${key}`, options.what);
      } catch (e) {
        if (options.refusal && e instanceof HubError) return options.refusal(e);
        throw e;
      }
    }
    await next();
  };
}
