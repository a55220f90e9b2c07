// A site's cloud runs per UTC day, in its SiteRunner's SQLite storage: calls, results, failures by kind and
// the browser time used (which the site's daily budget is checked against). STATS_DAYS days are kept.
// A run's counts are written just after its answer leaves (a timer): a write before it would hold the answer
// until the write is confirmed (the object's output gate), a millisecond or two on every warm call. Reads
// write what is pending first, so the budget and the stats always include every run counted.
import type { CloudFailure } from "../protocol/index.js";
import { STATS_DAYS } from "./config.js";

export interface DayStats {
  day: string;
  calls: number;
  ok: number;
  failures: Partial<Record<CloudFailure, number>>;
  browserMs: number;
}

/** The UTC day of `now`, YYYY-MM-DD. */
export const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Milliseconds from `now` to the next 00:00 UTC. */
export function untilNextDay(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - now;
}

export class DailyStats {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS daily (
      day TEXT PRIMARY KEY,
      calls INTEGER NOT NULL DEFAULT 0,
      ok INTEGER NOT NULL DEFAULT 0,
      browser_ms INTEGER NOT NULL DEFAULT 0,
      failures TEXT NOT NULL DEFAULT '{}'
    )`);
  }

  browserMs(day: string): number {
    this.flush();
    const row = this.sql
      .exec<{ browser_ms: number }>(`SELECT browser_ms FROM daily WHERE day = ?`, day)
      .toArray()[0];
    return row?.browser_ms ?? 0;
  }

  /** Counts one run (a failure by its kind) and its browser time, written a moment later (see above). */
  record(day: string, outcome: { failure?: CloudFailure; browserMs: number }): void {
    this.pending.push({ day, ...outcome });
    this.flushing ??= setTimeout(() => this.flush(), 0);
  }

  private pending: { day: string; failure?: CloudFailure; browserMs: number }[] = [];
  private flushing: ReturnType<typeof setTimeout> | undefined;

  /** Writes the pending runs; drops days past STATS_DAYS. */
  flush(): void {
    if (this.flushing !== undefined) clearTimeout(this.flushing);
    this.flushing = undefined;
    const runs = this.pending;
    if (!runs.length) return;
    this.pending = [];
    for (const outcome of runs) this.write(outcome.day, outcome);
    this.sql.exec(
      `DELETE FROM daily WHERE day NOT IN (SELECT day FROM daily ORDER BY day DESC LIMIT ?)`,
      STATS_DAYS,
    );
  }

  private write(day: string, outcome: { failure?: CloudFailure; browserMs: number }): void {
    const row = this.sql
      .exec<{ failures: string }>(`SELECT failures FROM daily WHERE day = ?`, day)
      .toArray()[0];
    const failures = row ? (JSON.parse(row.failures) as Record<string, number>) : {};
    if (outcome.failure) failures[outcome.failure] = (failures[outcome.failure] ?? 0) + 1;
    this.sql.exec(
      `INSERT INTO daily (day, calls, ok, browser_ms, failures) VALUES (?, 1, ?, ?, ?)
       ON CONFLICT(day) DO UPDATE SET calls = calls + 1, ok = ok + excluded.ok,
         browser_ms = browser_ms + excluded.browser_ms, failures = excluded.failures`,
      day,
      outcome.failure ? 0 : 1,
      outcome.browserMs,
      JSON.stringify(failures),
    );
  }

  /** The newest `days` days that had runs, newest first. */
  list(days: number): DayStats[] {
    this.flush();
    return this.sql
      .exec<{ day: string; calls: number; ok: number; browser_ms: number; failures: string }>(
        `SELECT day, calls, ok, browser_ms, failures FROM daily ORDER BY day DESC LIMIT ?`,
        Math.min(Math.max(days, 1), STATS_DAYS),
      )
      .toArray()
      .map((r) => ({
        day: r.day,
        calls: r.calls,
        ok: r.ok,
        failures: JSON.parse(r.failures) as DayStats["failures"],
        browserMs: r.browser_ms,
      }));
  }
}
