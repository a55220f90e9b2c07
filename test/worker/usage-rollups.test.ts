// Tool usage rollups: a channel's calls of a verified site's tab tools are added up in the
// channel's object, sent at its flush to the site's SiteUsage aggregator, and written to D1 in one batch by the
// aggregator's alarm (time driven by passing `now`, no sleeps); eviction of either object loses nothing; a
// failing D1 batch is retried without counting twice; distinct channels (exact; only the K smallest hashes and
// changed top messages reach D1); and GET /api/sites/:host/analytics (JSON, CSV, bad input).
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SiteAnalyticsSchema, USAGE_KMV_K } from "../../src/protocol/usage.js";
import { database } from "../../src/worker/db/client.js";
import { ROLLUP_FLUSH_MS, USAGE_COUNTERS, sha256Hex, type PendingRow } from "../../src/usage/rollup.js";
import { kmvCount, publicUsage, pruneUsage } from "../../src/worker/registry/usage.js";
import type { ChannelRelay } from "../../src/worker/channel-relay.js";
import type { SiteUsage } from "../../src/worker/usage/site-usage.js";
import { evictDurableObject } from "./evict.js";
import { api, expectError, publish, tool, verifiedSite } from "./helpers.js";
import { connectProvider, createChannel, echoTool, type TestChannel } from "./relay-helpers.js";

const stub = (ch: TestChannel) => env.CHANNEL.get(env.CHANNEL.idFromName(ch.id));
const aggregator = (host: string) => env.SITE_USAGE.get(env.SITE_USAGE.idFromName(host));
const today = () => new Date().toISOString().slice(0, 10);

async function call(ch: TestChannel, name: string, text = "x") {
  const res = await api(`/api/channels/${ch.id}/calls`, {
    method: "POST",
    json: { name, arguments: { text } },
    headers: { authorization: `Bearer ${ch.agentToken}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { status: string }[] }).results[0]!.status;
}

/** Runs the rollup's alarm part at `now` in the channel's object; the keys still pending there. */
async function flushAt(ch: TestChannel, now: number): Promise<number> {
  return runInDurableObject(stub(ch), async (o: ChannelRelay) => {
    await o.rollup.onAlarm(now);
    return o.rollup.pending();
  });
}

/** Runs the site aggregator's alarm part at `now`; the keys still pending and the D1 rows it wrote. */
async function writeAt(host: string, now: number): Promise<{ pending: number; rowsWritten: number }> {
  return runInDurableObject(aggregator(host), async (o: SiteUsage) => {
    o.usage.lastRowsWritten = 0;
    await o.usage.onAlarm(now);
    return { pending: o.usage.pending(), rowsWritten: o.usage.lastRowsWritten };
  });
}

/** A channel's flush then its site aggregator's write, both due. */
async function flushThrough(ch: TestChannel, host: string) {
  expect(await flushAt(ch, Date.now() + ROLLUP_FLUSH_MS + 1000)).toBe(0);
  return writeAt(host, Date.now() + ROLLUP_FLUSH_MS + 1000);
}

async function daily(host: string) {
  const { results } = await env.DB.prepare(
    `SELECT tool, calls, ok, error, verified, changed, unpublished, cloud FROM tool_usage_daily WHERE host = ? ORDER BY tool`,
  )
    .bind(host)
    .all();
  return results;
}

const count = async (table: string, host: string) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE host = ?`)
    .bind(host)
    .first<{ n: number }>())!.n;

/** A verified site publishing `same` and `edited`; a channel whose tab offers them (edited changed), `extra` and a sidecar tool. */
async function setup() {
  const site = await verifiedSite();
  expect((await publish(site.host, site.key, { tools: [tool("same"), tool("edited")] })).status).toBe(201);
  return { site, ch: await channelOf(site.origin) };
}

async function channelOf(origin: string) {
  const ch = await createChannel();
  const tab = await connectProvider(ch, {
    kind: "tab",
    origin,
    tools: [tool("same"), tool("edited", { description: "Something else now." }), tool("extra")],
  });
  tab.serve((c) =>
    c.arguments.text === "fail"
      ? { content: [{ type: "text", text: "The shop is closed." }], isError: true }
      : { content: [{ type: "text", text: "done" }] },
  );
  (await connectProvider(ch, { kind: "sidecar", label: "files", tools: [echoTool("read_file")] })).serve(
    () => ({
      content: [{ type: "text", text: "file" }],
    }),
  );
  return ch;
}

/** A pending row of `calls` ok calls of `tool` today (what a channel's flush sends). */
const row = (host: string, t: string, calls: number) =>
  ({
    ...Object.fromEntries(USAGE_COUNTERS.map((c) => [c, 0])),
    host,
    tool: t,
    day: today(),
    calls,
    ok: calls,
  }) as unknown as PendingRow;

describe("usage rollups: channel object → site aggregator → D1", () => {
  it("counts each call once per (site, tool, day), one D1 batch from the aggregator's alarm, eviction of either object losing nothing", async () => {
    const { site, ch } = await setup();
    for (const t of ["same", "same", "same", "edited", "extra", "read_file", "nope"]) await call(ch, t);
    expect(await call(ch, "same", "fail")).toBe("error");
    // Evicted before any flush: the pending counters are in the channel object's storage.
    await evictDurableObject(stub(ch));
    const started = Date.now();
    // Not due yet: nothing leaves the channel.
    expect(await flushAt(ch, started)).toBe(3);
    expect(await flushAt(ch, started + ROLLUP_FLUSH_MS + 1000)).toBe(0);
    // The aggregator has them (acknowledged); evicted before its alarm, and not due yet: D1 has nothing.
    await evictDurableObject(aggregator(site.host));
    expect(await writeAt(site.host, Date.now())).toEqual({ pending: 3, rowsWritten: 0 });
    expect(await daily(site.host)).toEqual([]);
    const written = await writeAt(site.host, Date.now() + ROLLUP_FLUSH_MS + 1000);
    expect(written.pending).toBe(0);
    const zero = { error: 0, verified: 0, changed: 0, unpublished: 0, cloud: 0 };
    expect(await daily(site.host)).toEqual([
      { tool: "edited", calls: 1, ok: 1, ...zero, changed: 1 },
      { tool: "extra", calls: 1, ok: 1, ...zero, unpublished: 1 },
      { tool: "same", calls: 4, ok: 3, ...zero, error: 1, verified: 4 },
    ]);
    // 3 daily rows, 3 channel rows, 1 error row.
    console.log(`usage write: 3 keys, D1 rows_written = ${written.rowsWritten}`);
    expect(written.rowsWritten).toBeGreaterThanOrEqual(7);
    const errors = await env.DB.prepare(`SELECT tool, message, count FROM tool_usage_errors WHERE host = ?`)
      .bind(site.host)
      .all();
    expect(errors.results).toEqual([{ tool: "same", message: "The shop is closed.", count: 1 }]);
    // Later calls the same day add to the same rows; the channel's hash is not written again: one D1 row.
    await call(ch, "same");
    expect((await flushThrough(ch, site.host)).rowsWritten).toBe(1);
    expect((await daily(site.host)).find((r) => r.tool === "same")).toMatchObject({ calls: 5, ok: 4 });
    expect(await count("tool_usage_channels", site.host)).toBe(3);
  });

  it("keeps the deltas when D1 refuses the batch and retries later, counting each call once", async () => {
    const { site, ch } = await setup();
    await call(ch, "same");
    await call(ch, "same", "fail");
    expect(await flushAt(ch, Date.now() + ROLLUP_FLUSH_MS + 1000)).toBe(0);
    const t0 = Date.now() + ROLLUP_FLUSH_MS + 1000;
    const failed = await runInDurableObject(aggregator(site.host), async (o: SiteUsage) => {
      const w = o.usage as unknown as { db: D1Database };
      const real = w.db;
      w.db = {
        prepare: (q: string) => real.prepare(q),
        batch: () => Promise.reject(new Error("D1 is down")),
      } as never;
      await o.usage.onAlarm(t0);
      w.db = real;
      return { pending: o.usage.pending(), next: o.usage.nextFlushAt() };
    });
    expect(failed.pending).toBe(1);
    expect(failed.next).toBeGreaterThan(t0);
    expect(await daily(site.host)).toEqual([]);
    // A channel's flush while the retry waits joins the same pending key.
    await call(ch, "same");
    expect(await flushAt(ch, Date.now() + ROLLUP_FLUSH_MS + 1000)).toBe(0);
    // Not before the retry time; then once.
    expect((await writeAt(site.host, failed.next! - 1)).pending).toBe(1);
    expect((await writeAt(site.host, failed.next!)).pending).toBe(0);
    expect((await writeAt(site.host, failed.next! + 10 * ROLLUP_FLUSH_MS)).rowsWritten).toBe(0);
    expect(await daily(site.host)).toEqual([
      { tool: "same", calls: 3, ok: 2, error: 1, verified: 3, changed: 0, unpublished: 0, cloud: 0 },
    ]);
    expect(await count("tool_usage_channels", site.host)).toBe(1);
    const errors = await env.DB.prepare(`SELECT count FROM tool_usage_errors WHERE host = ?`)
      .bind(site.host)
      .all();
    expect(errors.results).toEqual([{ count: 1 }]);
  });

  it("writes only the day's USAGE_KMV_K smallest channel hashes, and only changed messages of the top 10", async () => {
    const host = "aggregate.example";
    const site = aggregator(host);
    const hashes = await Promise.all(Array.from({ length: 40 }, (_, i) => sha256Hex(`ch-${i}`)));
    const errors = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => ({
        host,
        tool: "t",
        day: today(),
        message: `m${from + i}`,
        count: 20 - from - i,
      }));
    for (const [i, h] of hashes.entries()) await site.add([row(host, "t", 1)], i ? [] : errors(12), h);
    // The first add set the object's alarm at its write time.
    const alarm = await runInDurableObject(site, async (o: SiteUsage, state) => ({
      set: await state.storage.getAlarm(),
      due: o.usage.nextFlushAt(),
    }));
    expect(alarm.set).toBe(alarm.due);
    const first = await writeAt(host, Date.now() + ROLLUP_FLUSH_MS + 1000);
    const kept = await env.DB.prepare(
      `SELECT channel_hash AS h FROM tool_usage_channels WHERE host = ? ORDER BY h`,
    )
      .bind(host)
      .all<{ h: string }>();
    expect(kept.results.map((r) => r.h)).toEqual([...hashes].sort().slice(0, USAGE_KMV_K));
    expect(await count("tool_usage_errors", host)).toBe(10);
    // 1 daily row (2 with its day index), K channel rows, 10 error rows.
    expect(first.rowsWritten).toBe(2 + USAGE_KMV_K + 10);
    // Again from known channels: a changed message past the top 10 is kept, not written; one in it is.
    await site.add([row(host, "t", 2)], [{ ...errors(1, 11)[0]!, count: 1 }], hashes[0]!);
    expect((await writeAt(host, Date.now() + 3 * ROLLUP_FLUSH_MS)).rowsWritten).toBe(1);
    await site.add([row(host, "t", 1)], [{ ...errors(1)[0]!, count: 5 }], hashes[1]!);
    expect((await writeAt(host, Date.now() + 5 * ROLLUP_FLUSH_MS)).rowsWritten).toBe(2);
    expect(await daily(host)).toEqual([expect.objectContaining({ calls: 43 })]);
    const top = await env.DB.prepare(`SELECT count FROM tool_usage_errors WHERE host = ? AND message = 'm0'`)
      .bind(host)
      .first<{ count: number }>();
    expect(top?.count).toBe(25);
  });
});

describe("GET /api/sites/:host/analytics", () => {
  it("answers the owner's figures per day and tool, distinct channels from 3 channels, as JSON and CSV", async () => {
    const { site, ch } = await setup();
    const others = [await channelOf(site.origin), await channelOf(site.origin)];
    for (const c of [ch, ...others]) {
      await call(c, "same");
      await call(c, "same", "fail");
      expect(await flushAt(c, Date.now() + ROLLUP_FLUSH_MS + 1000)).toBe(0);
    }
    // One D1 write for the 3 channels: 1 daily row (2 with its day index), 3 channel rows, 1 error row (count 3).
    expect((await writeAt(site.host, Date.now() + ROLLUP_FLUSH_MS + 1000)).rowsWritten).toBe(6);
    expect(await count("tool_usage_channels", site.host)).toBe(3);
    const auth = { authorization: `Bearer ${site.key}` };
    const res = await api(`/api/sites/${site.host}/analytics`, { headers: auth });
    expect(res.status).toBe(200);
    const a = SiteAnalyticsSchema.parse(await res.json());
    expect(a.to).toBe(today());
    expect(a.days).toHaveLength(1);
    expect(a.days[0]).toMatchObject({ day: today(), tool: "same", calls: 6, ok: 3, error: 3, channels: 3 });
    expect(a.tools).toEqual([
      expect.objectContaining({ tool: "same", calls: 6, errorRate: 0.5, channels: 3, changed: 0 }),
    ]);
    expect(a.tools[0]!.p50Ms).not.toBeNull();
    expect(a.errors).toEqual([{ tool: "same", message: "The shop is closed.", count: 3 }]);

    const one = await api(`/api/sites/${site.host}/analytics?tool=edited&from=${today()}&to=${today()}`, {
      headers: auth,
    });
    expect(SiteAnalyticsSchema.parse(await one.json())).toMatchObject({
      tool: "edited",
      days: [],
      tools: [],
    });

    const csv = await api(`/api/sites/${site.host}/analytics?format=csv`, { headers: auth });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe(
      "day,tool,calls,ok,error,denied,timeout,invalid,other,verified,changed,unpublished,cloud,channels,p50Ms,p95Ms",
    );
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(new RegExp(`^${today()},same,6,3,3,0,0,0,0,6,0,0,0,3,\\d+,\\d+$`));
  });

  it("answers bad input with the hub's usual errors", async () => {
    const site = await verifiedSite();
    const other = await verifiedSite();
    const auth = { headers: { authorization: `Bearer ${site.key}` } };
    const url = (q: string) => `/api/sites/${site.host}/analytics${q}`;
    const field = async (q: string, path: string) =>
      expect((await expectError(await api(url(q), auth), 400, "validation_failed")).issues?.[0]?.path).toBe(
        path,
      );
    await field("?from=2026-02-30", "from");
    await field("?to=yesterday", "to");
    await field("?from=2026-01-02&to=2026-01-01", "from");
    const old = new Date(Date.now() - 120 * 86_400_000).toISOString().slice(0, 10);
    await field(`?from=${old}`, "from");
    const future = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await field(`?to=${future}`, "to");
    await field("?format=xml", "format");
    await expectError(await api(url("?tool=never_published"), auth), 404, "not_found");
    await expectError(await api(url("")), 401, "unauthorized");
    // Another site's key: refused as every publisher-key route refuses it.
    await expectError(
      await api(url(""), { headers: { authorization: `Bearer ${other.key}` } }),
      403,
      "forbidden",
    );
    await expectError(await api(`/api/sites/nowhere.example/analytics`, auth), 403, "forbidden");
  });
});

describe("the daily maintenance's part and the distinct-channel estimate", () => {
  it("drops rows past USAGE_DAYS, keeps the K smallest hashes and the 10 commonest errors per key; estimates past K", async () => {
    const host = "prune.example";
    const now = Date.now();
    const day = today();
    const old = new Date(now - 100 * 86_400_000).toISOString().slice(0, 10);
    const hashes = await Promise.all(Array.from({ length: 1000 }, (_, i) => sha256Hex(`channel-${i}`)));
    const insert = env.DB.prepare(`INSERT INTO tool_usage_channels VALUES (?, 't', ?, ?)`);
    for (let i = 0; i < hashes.length; i += 50)
      await env.DB.batch(hashes.slice(i, i + 50).map((h) => insert.bind(host, day, h)));
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO tool_usage_daily (host, tool, day, calls) VALUES (?, 't', ?, 1), (?, 't', ?, 1000)`,
      ).bind(host, old, host, day),
      ...Array.from({ length: 12 }, (_, i) =>
        env.DB.prepare(`INSERT INTO tool_usage_errors VALUES (?, 't', ?, ?, ?)`).bind(
          host,
          day,
          `message ${i}`,
          i + 1,
        ),
      ),
    ]);
    await pruneUsage(database(env.DB), now);
    const kept = await env.DB.prepare(
      `SELECT channel_hash AS h FROM tool_usage_channels WHERE host = ? ORDER BY h`,
    )
      .bind(host)
      .all<{ h: string }>();
    expect(kept.results.map((r) => r.h)).toEqual([...hashes].sort().slice(0, USAGE_KMV_K));
    const days = await env.DB.prepare(`SELECT day FROM tool_usage_daily WHERE host = ?`).bind(host).all();
    expect(days.results).toEqual([{ day }]);
    const errors = await env.DB.prepare(
      `SELECT count FROM tool_usage_errors WHERE host = ? ORDER BY count DESC`,
    )
      .bind(host)
      .all<{ count: number }>();
    expect(errors.results.map((r) => r.count)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    // Exact below K; past it the KMV estimate of 1,000 channels (standard error about 1/√(K-2) ≈ 27%).
    expect(kmvCount(hashes.slice(0, 5))).toBe(5);
    const estimate = kmvCount(kept.results.map((r) => r.h));
    console.log(`KMV estimate of 1000 distinct channels (K = ${USAGE_KMV_K}): ${estimate}`);
    expect(estimate).toBeGreaterThan(500);
    expect(estimate).toBeLessThan(2000);
    const usage = await publicUsage(env.DB, host, null, now);
    expect(usage.get("t")).toEqual({ calls30d: 1000, channels30d: estimate });
  });
});
