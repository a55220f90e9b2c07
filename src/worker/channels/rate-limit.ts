// Fixed-window counters kept in D1, for failed pairing attempts: a client that guesses codes is stopped,
// while a user pairing many tabs (each attempt succeeding) is not.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";

export interface RateLimit {
  key: string;
  limit: number;
  windowMs: number;
}

function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** Throws rate_limited when `key` already used up its failures in the current window. */
export async function assertUnderLimit(db: Db, rule: RateLimit, now: number): Promise<void> {
  const start = windowStart(now, rule.windowMs);
  const [row] = await db.all<{ count: number }>(
    sql`SELECT count FROM rate_limits WHERE key = ${rule.key} AND window_start = ${start}`,
  );
  if ((row?.count ?? 0) >= rule.limit) {
    const retryAfter = Math.ceil((start + rule.windowMs - now) / 1000);
    throw new HubError(
      "rate_limited",
      `Too many failed pairing attempts. Wait ${Math.ceil(retryAfter / 60)} minute(s) and try again.`,
      {
        headers: { "retry-after": String(retryAfter) },
      },
    );
  }
}

export async function recordFailure(db: Db, rule: RateLimit, now: number): Promise<void> {
  const start = windowStart(now, rule.windowMs);
  await db.run(sql`INSERT INTO rate_limits (key, window_start, count) VALUES (${rule.key}, ${start}, 1)
    ON CONFLICT(key) DO UPDATE SET
      count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
      window_start = excluded.window_start`);
}
