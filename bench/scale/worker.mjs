// Bench-only Worker entry (bench/scale/wrangler.toml; never deployed): the real app and the real ChannelRelay,
// unchanged, plus /bench/ probes the scale bench reads its figures through. Nothing here changes a call's path.
//   POST /bench/d1-count            installs row-write counters in D1: an AFTER INSERT / UPDATE / DELETE trigger
//                                   on every ordinary table adds 1 to `_bench_writes` (table, op) per row, so
//                                   every write from any code path (the Worker, the objects' alarms) is counted
//   GET  /bench/d1-writes           the counters: {table: {insert, update, delete}}
//   GET  /bench/d1-rows             each counted table's row count
//   POST /bench/flush/:channelId    the channel object flushes its usage rollups now (what its alarm does once
//                                   ROLLUP_FLUSH_MS has passed), so the run need not wait minutes: they go to
//                                   the site's SiteUsage aggregator
//   POST /bench/flush-site/:host    the site's aggregator writes D1 now (its alarm, once due)
//   GET  /bench/storage/:channelId  the object's SQLite: databaseSize and each table's rows
//   POST /bench/retain/:channelId   {days} the object applies its audit retention as if `days` had passed
//   GET  /bench/usage               tool_usage_daily / _channels / _errors as stored, with p50/p95 read from
//                                   the histogram by protocol/usage.ts's latencyQuantile; per key the channel
//                                   rows and their KMV estimate (what the analytics answer)
// Plain JS because tsconfig.node.json typechecks bench/ for Node, without the Workers types.
import { Hono } from "hono";
import { createApp } from "../../src/worker/app.ts";
import { hubContext } from "../../src/worker/http/context.ts";
import { renderError } from "../../src/worker/http/errors.ts";
import { LATENCY_BUCKETS, USAGE_KMV_K, latencyQuantile } from "../../src/protocol/usage.ts";
import { kmvCount } from "../../src/worker/registry/usage.ts";
import { ChannelRelay as RealChannelRelay } from "../../src/worker/channel-relay.ts";
import { SiteUsage as RealSiteUsage } from "../../src/worker/usage/site-usage.ts";

/** The real SiteUsage plus the forced write (its alarm's, now), until nothing is pending. */
export class SiteUsage extends RealSiteUsage {
  async benchFlush() {
    for (let i = 0; i < 20 && this.usage.nextFlushAt() !== null; i++) await this.usage.flush(Date.now());
    return true;
  }
}

/** The real ChannelRelay plus read-only probes and the forced flush. */
export class ChannelRelay extends RealChannelRelay {
  benchStorage() {
    const sql = this.ctx.storage.sql;
    const tables = sql
      .exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'`)
      .toArray()
      .map((r) => String(r.name));
    const rows = {};
    for (const t of tables) rows[t] = sql.exec(`SELECT count(*) AS n FROM "${t}"`).one().n;
    return { databaseSize: sql.databaseSize, rows };
  }

  /** The rollup's flush now (usage-rollup.ts; what the alarm does once due), until nothing is pending. */
  async benchFlush() {
    if (!this.rollup || typeof this.rollup.flush !== "function") return false;
    for (let i = 0; i < 20 && this.rollup.nextFlushAt() !== null; i++) await this.rollup.flush(Date.now());
    return true;
  }

  /** The audit log's retention (audit-log.ts prune) run as if `days` had passed; false: no such hook. */
  async benchRetain(days) {
    const log = this.auditLog;
    if (!log || typeof log.prune !== "function") return false;
    const at = Date.now() + days * 86_400_000;
    for (let i = 0; i < 1000; i++) {
      const next = log.prune(at);
      if (next === null || next > at) break;
    }
    return "prune";
  }
}

const relay = (env, channelId) => env.CHANNEL.get(env.CHANNEL.idFromName(channelId));

async function countedTables(db) {
  const { results } = await db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'
       AND name NOT LIKE 'sqlite%' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'd1\\_%' ESCAPE '\\'
       AND name NOT LIKE '%fts\\_%' ESCAPE '\\'`,
    )
    .all();
  return results.map((r) => String(r.name));
}

const probes = new Hono();
probes.use("*", hubContext());

probes.post("/bench/d1-count", async (c) => {
  const db = c.env.DB;
  await db
    .prepare(
      `CREATE TABLE IF NOT EXISTS _bench_writes (tbl TEXT, op TEXT, n INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tbl, op))`,
    )
    .run();
  const tables = await countedTables(db);
  const statements = [];
  for (const t of tables)
    for (const [op, event] of [
      ["insert", "INSERT"],
      ["update", "UPDATE"],
      ["delete", "DELETE"],
    ]) {
      statements.push(db.prepare(`INSERT OR IGNORE INTO _bench_writes (tbl, op) VALUES (?, ?)`).bind(t, op));
      statements.push(
        db.prepare(
          `CREATE TRIGGER IF NOT EXISTS "_bench_${t}_${op}" AFTER ${event} ON "${t}" FOR EACH ROW BEGIN
             UPDATE _bench_writes SET n = n + 1 WHERE tbl = '${t}' AND op = '${op}'; END`,
        ),
      );
    }
  await db.batch(statements);
  return c.json({ tables });
});

probes.get("/bench/d1-writes", async (c) => {
  const { results } = await c.env.DB.prepare(`SELECT tbl, op, n FROM _bench_writes`).all();
  const out = {};
  for (const r of results) (out[r.tbl] ??= { insert: 0, update: 0, delete: 0 })[r.op] = r.n;
  return c.json(out);
});

probes.get("/bench/d1-rows", async (c) => {
  const out = {};
  for (const t of await countedTables(c.env.DB))
    out[t] = await c.env.DB.prepare(`SELECT count(*) AS n FROM "${t}"`).first("n");
  return c.json(out);
});

probes.post("/bench/flush/:channelId", async (c) =>
  c.json({ flushed: await relay(c.env, c.req.param("channelId")).benchFlush() }),
);

probes.post("/bench/flush-site/:host", async (c) =>
  c.json({
    flushed: await c.env.SITE_USAGE.get(c.env.SITE_USAGE.idFromName(c.req.param("host"))).benchFlush(),
  }),
);

probes.get("/bench/storage/:channelId", async (c) =>
  c.json(await relay(c.env, c.req.param("channelId")).benchStorage()),
);

probes.post("/bench/retain/:channelId", async (c) => {
  const { days } = await c.req.json();
  return c.json({ hook: await relay(c.env, c.req.param("channelId")).benchRetain(Number(days)) });
});

probes.get("/bench/usage", async (c) => {
  const db = c.env.DB;
  const exists = async (t) =>
    (await db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = ?`).bind(t).first("n")) > 0;
  if (!(await exists("tool_usage_daily"))) return c.json({ daily: [], channels: [], errors: [] });
  const daily = (await db.prepare(`SELECT * FROM tool_usage_daily`).all()).results.map((r) => {
    const buckets = Array.from({ length: LATENCY_BUCKETS }, (_, i) => Number(r[`d${i}`] ?? 0));
    const row = {
      ...r,
      buckets,
      p50Ms: latencyQuantile(buckets, 0.5),
      p95Ms: latencyQuantile(buckets, 0.95),
    };
    for (let i = 0; i < LATENCY_BUCKETS; i++) delete row[`d${i}`];
    return row;
  });
  // Per key: the rows D1 holds (the aggregator writes only the day's USAGE_KMV_K smallest hashes) and the
  // distinct-channel figure the analytics read from them (registry/usage.ts kmvCount: exact below K).
  const groups = new Map();
  for (const r of (
    await db
      .prepare(`SELECT host, tool, day, channel_hash FROM tool_usage_channels ORDER BY channel_hash`)
      .all()
  ).results) {
    const k = `${r.host} ${r.tool} ${r.day}`;
    if (!groups.has(k)) groups.set(k, { host: r.host, tool: r.tool, day: r.day, hashes: [] });
    groups.get(k).hashes.push(r.channel_hash);
  }
  const channels = [...groups.values()].map(({ hashes, ...key }) => ({
    ...key,
    n: hashes.length,
    estimate: kmvCount(hashes.slice(0, USAGE_KMV_K)),
  }));
  const errors = (await db.prepare(`SELECT * FROM tool_usage_errors`).all()).results;
  return c.json({ daily, channels, errors });
});

probes.onError(renderError);

const app = createApp();

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    return pathname.startsWith("/bench/") ? probes.fetch(request, env, ctx) : app.fetch(request, env, ctx);
  },
};
