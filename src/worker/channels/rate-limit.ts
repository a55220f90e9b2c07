// Fixed-window rate limits kept in D1 (pairing attempts): one upsert per attempt.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";

export async function consumeRateLimit(
  db: Db,
  key: string,
  limit: number,
  windowMs: number,
  now: number,
): Promise<void> {
  const windowStart = now - (now % windowMs);
  const [row] = await db.all<{
    count: number;
  }>(sql`INSERT INTO rate_limits (key, window_start, count) VALUES (${key}, ${windowStart}, 1)
    ON CONFLICT(key) DO UPDATE SET
      count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
      window_start = excluded.window_start
    RETURNING count`);
  if ((row?.count ?? 0) > limit) {
    const retryAfter = Math.ceil((windowStart + windowMs - now) / 1000);
    throw new HubError(
      "rate_limited",
      `Too many pairing attempts. Wait ${Math.ceil(retryAfter / 60)} minute(s) and try again.`,
      {
        headers: { "retry-after": String(retryAfter) },
      },
    );
  }
}
