// The hub-wide browser time per UTC day, for the total daily budget: one object (idFromName("total")) that
// each SiteRunner adds its time to in batches (at most every TIMES.ledgerSyncMs per site), never per call.
import { DurableObject } from "cloudflare:workers";
import { STATS_DAYS } from "./config.js";

export class CloudLedger extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS totals (day TEXT PRIMARY KEY, ms INTEGER NOT NULL)`);
  }

  /** Adds `ms` to `day`'s total (0 only reads it); returns the total. */
  add(day: string, ms: number): number {
    const sql = this.ctx.storage.sql;
    sql.exec(
      `INSERT INTO totals (day, ms) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET ms = ms + excluded.ms`,
      day,
      Math.max(0, Math.round(ms)),
    );
    sql.exec(
      `DELETE FROM totals WHERE day NOT IN (SELECT day FROM totals ORDER BY day DESC LIMIT ?)`,
      STATS_DAYS,
    );
    return sql.exec<{ ms: number }>(`SELECT ms FROM totals WHERE day = ?`, day).one().ms;
  }
}
