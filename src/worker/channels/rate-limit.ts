// Failed pairing attempts, counted in D1 fixed windows: a client that guesses codes is stopped, while a user
// pairing many tabs (each attempt succeeding) is not. (Every attempt, failed or not, is also counted by the
// ANON_WRITES binding, http/rate-limit.ts; that one bounds the rate, this one the number of guesses.)
//
// What is counted, and why:
// - Per client: its IPv4 address or its IPv6 /64 (client-key.ts). Keyed on the exact address, 400 of 400
//   guesses went through from rotating IPv6 addresses of one /64.
// - Hub-wide: a failure budget shared by every client. A guesser with many addresses (a /48 holds 65,536
//   /64s; a botnet holds many IPv4 addresses) passes any per-client limit, so what bounds guessing is a
//   global count. The chance that G guesses hit one of L live codes is about G·L / 32^8 (32^8 ≈ 1.1·10^12):
//   with G = 1,000 per 10 minutes, a channel (at most LIMITS.livePairingCodesPerChannel = 20 live codes) is
//   hit with probability ≈ 1.8·10^-8 per window, ≈ 10^-3 a year under a sustained attack. The price: a
//   flood from many addresses can use up the budget and hold back everyone's pairing for the rest of the
//   window (at most 10 minutes; a real user's typos are far below it). An injected provider in someone's
//   channel is worse than a paused pairing, so the budget is enforced.
// - Per channel: a failed guess names no channel (the code is what identifies one), so failures cannot be
//   counted per channel. What a guesser can reach in one channel is bounded instead by capping its live codes
//   (channels.ts, createPairingCode: creating another supersedes the oldest), which makes the per-channel
//   chance above independent of how many codes an owner creates. A replayed used or expired code names its
//   channel but can never succeed, so counting those per channel would protect nothing; they count as failures
//   of the client and of the hub like any other.
import { sql } from "drizzle-orm";
import { LIMITS } from "../../protocol/index.js";
import { atomically, type Db } from "../db/client.js";
import { HubError } from "../http/errors.js";

export interface FailureRule {
  key: string;
  limit: number;
  windowMs: number;
  /** What the 429 says was exceeded. */
  message: string;
}

/** The rules a pairing attempt from `clientKey` is checked against: its own budget, and the hub's. */
export function pairingRules(clientKey: string): FailureRule[] {
  return [
    {
      key: `pair:${clientKey}`,
      limit: LIMITS.pairFailuresPerClient,
      windowMs: LIMITS.pairFailureWindowMs,
      message: "Too many failed pairing attempts from your network.",
    },
    {
      key: "pair:*",
      limit: LIMITS.pairFailuresHubWide,
      windowMs: LIMITS.pairFailureWindowMs,
      message: "Too many failed pairing attempts on this hub just now (someone may be guessing codes).",
    },
  ];
}

function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** Throws rate_limited when a rule's key already used up its failures in the current window. */
export async function assertUnderLimit(db: Db, rules: FailureRule[], now: number): Promise<void> {
  const keys = rules.map((r) => r.key);
  const rows = await db.all<{ key: string; window_start: number; count: number }>(
    sql`SELECT key, window_start, count FROM rate_limits WHERE key IN ${keys}`,
  );
  for (const rule of rules) {
    const start = windowStart(now, rule.windowMs);
    const row = rows.find((r) => r.key === rule.key && r.window_start === start);
    if ((row?.count ?? 0) < rule.limit) continue;
    const retryAfter = Math.ceil((start + rule.windowMs - now) / 1000);
    throw new HubError(
      "rate_limited",
      `${rule.message} Wait ${Math.ceil(retryAfter / 60)} minute(s) and try again.`,
      { headers: { "retry-after": String(retryAfter) } },
    );
  }
}

/** Counts one failure under every rule. */
export async function recordFailure(db: Db, rules: FailureRule[], now: number): Promise<void> {
  await atomically(
    db,
    rules.map(
      (rule) => sql`INSERT INTO rate_limits (key, window_start, count)
      VALUES (${rule.key}, ${windowStart(now, rule.windowMs)}, 1)
      ON CONFLICT(key) DO UPDATE SET
        count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
        window_start = excluded.window_start`,
    ),
  );
}

/** Deletes counters whose window ended before `before` (the daily maintenance). */
export async function pruneRateLimits(db: Db, before: number): Promise<number> {
  const result = await db.run(
    sql`DELETE FROM rate_limits WHERE window_start < ${before - LIMITS.pairFailureWindowMs}`,
  );
  return result.meta.changes ?? 0;
}
