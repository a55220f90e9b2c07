// The audit trail: one row per call, kept in the channel's own Durable Object (relay/audit-log.ts), never
// shipped to D1; the object answers the audit API, applies the retention on its alarm, and moves rows D1
// still holds from before into its storage. An account's view fans out to its channels.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChannelRelay } from "../../src/worker/channel-relay.js";
import { settingsOf } from "../../src/worker/env.js";
import { api, expectError } from "./helpers.js";
import {
  HUB,
  until,
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  type TestChannel,
} from "./relay-helpers.js";
import { evictDurableObject } from "./evict.js";
import { signedInAccount } from "./account-helpers.js";

function stubOf(channelId: string) {
  return env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
}

const owner = (key: string) => ({ authorization: `Bearer ${key}` });
const DAY = 86_400_000;

async function auditOf(ch: TestChannel, qs = ""): Promise<{ entries: any[]; nextCursor: string | null }> {
  const res = await api(`/api/channels/${ch.id}/audit?${qs}`, { headers: owner(ch.ownerKey) });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

async function d1AuditRows(channelId?: string): Promise<number> {
  const row = channelId
    ? await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE channel_id = ?").bind(channelId).first()
    : await env.DB.prepare("SELECT count(*) AS n FROM audit_log").first();
  return (row as { n: number }).n;
}

/** Rows written straight into a channel's object (times the test chooses). */
async function seedRows(
  channelId: string,
  rows: Array<{ seq: number; at: number; tool?: string; status?: string }>,
) {
  await runInDurableObject(stubOf(channelId), (_obj: ChannelRelay, state) => {
    for (const r of rows)
      state.storage.sql.exec(
        `INSERT INTO audit (seq, created_at, tool, status, arg_bytes, arg_sha256, duration_ms) VALUES (?, ?, ?, ?, 2, 'x', 1)`,
        r.seq,
        r.at,
        r.tool ?? "echo",
        r.status ?? "ok",
      );
  });
}

async function plainCall(ch: TestChannel, text: string): Promise<void> {
  const res = await api(`/api/channels/${ch.id}/calls`, {
    method: "POST",
    json: { name: "echo", arguments: { text } },
    headers: { authorization: `Bearer ${ch.agentToken}` },
  });
  expect(res.status).toBe(200);
}

async function sha256Of(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function servedChannel(): Promise<TestChannel> {
  const ch = await createChannel();
  (await connectProvider(ch, { tools: [echoTool()] })).serve(() => ({
    content: [{ type: "text", text: "ok" }],
  }));
  return ch;
}

describe("audit rows", () => {
  it("records one row per call with its size, hash, status, provider and agent", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { kind: "tab", origin: "https://shop.example", tools: [echoTool()] })).serve(
      () => ({ content: [{ type: "text", text: "ok" }] }),
    );
    const agent = await connectAgent(ch);
    await agent.callTool({ name: "echo", arguments: { text: "hello" } });
    await agent.callTool({ name: "echo", arguments: { text: 1 } });
    await expect(agent.callTool({ name: "nope", arguments: {} })).rejects.toThrow();
    const audit = await auditOf(ch);
    expect(audit.entries.map((e: any) => [e.tool, e.status])).toEqual([
      ["nope", "invalid"],
      ["echo", "invalid"],
      ["echo", "ok"],
    ]);
    const ok = audit.entries[2];
    const args = JSON.stringify({ text: "hello" });
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(args)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(ok).toMatchObject({
      id: `${ch.id}:1`,
      argBytes: args.length,
      argSha256: digest,
      agentTokenId: ch.agentTokenId,
      provider: { label: "shop.example", origin: "https://shop.example" },
    });
    expect(ok.durationMs).toBeGreaterThanOrEqual(0);
    // The arguments themselves are never stored.
    const raw = await runInDurableObject(stubOf(ch.id), (_obj: ChannelRelay, state) =>
      JSON.stringify(state.storage.sql.exec("SELECT * FROM audit").toArray()),
    );
    expect(raw).toContain(digest);
    expect(raw).not.toContain("hello");
  });

  it("calls ending together are each answered only once their own row is stored, each row numbered once", async () => {
    const ch = await servedChannel();
    const texts = Array.from({ length: 24 }, (_, i) => `burst ${i}`);
    // As each call answers, its own row (found by its arguments' sha256) is already stored.
    const stored = await Promise.all(
      texts.map(async (text) => {
        await plainCall(ch, text);
        const digest = await sha256Of(JSON.stringify({ text }));
        return runInDurableObject(
          stubOf(ch.id),
          (_obj: ChannelRelay, state) =>
            state.storage.sql
              .exec<{ n: number }>("SELECT count(*) AS n FROM audit WHERE arg_sha256 = ?", digest)
              .one().n,
        );
      }),
    );
    expect(stored).toEqual(texts.map(() => 1));
    const audit = await auditOf(ch, "limit=100");
    expect(audit.entries).toHaveLength(24);
    const seqs = audit.entries.map((e: any) => Number(String(e.id).split(":")[1]));
    expect(new Set(seqs).size).toBe(24);
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });

  it("writes no per-call row to D1: calls through a channel leave D1 audit_log as it was, the API returns them", async () => {
    const before = await d1AuditRows();
    const ch = await servedChannel();
    const agent = await connectAgent(ch);
    await agent.callTool({ name: "echo", arguments: { text: "mcp" } });
    await plainCall(ch, "plain");
    await plainCall(ch, "plain again");
    const audit = await auditOf(ch);
    expect(audit.entries.map((e: any) => e.status)).toEqual(["ok", "ok", "ok"]);
    expect(await d1AuditRows()).toBe(before);
    expect(await d1AuditRows(ch.id)).toBe(0);
    // No alarm comes to ship anything: the one set is the oldest row's expiry (or the usage rollup's flush).
    const { alarm, flush } = await runInDurableObject(stubOf(ch.id), async (obj: ChannelRelay, state) => ({
      alarm: await state.storage.getAlarm(),
      flush: obj.rollup.nextFlushAt(),
    }));
    const retention = settingsOf(env).AUDIT_RETENTION_DAYS * DAY;
    expect(alarm).toBe(Math.min(Date.parse(audit.entries[2].at) + retention, flush ?? Infinity));
  });

  it("loses nothing on eviction and numbers rows on, never reusing a number, after the retention deleted all", async () => {
    const ch = await servedChannel();
    const stub = stubOf(ch.id);
    await plainCall(ch, "a");
    await plainCall(ch, "b");
    await evictDurableObject(stub);
    await plainCall(ch, "c");
    await evictDurableObject(stub);
    expect((await auditOf(ch)).entries.map((e: any) => e.id)).toEqual([3, 2, 1].map((n) => `${ch.id}:${n}`));
    // A month on, the alarm deletes every row; the next call still gets the next number.
    await runInDurableObject(stub, (obj: ChannelRelay) => obj.runAlarm(Date.now() + 31 * DAY));
    expect((await auditOf(ch)).entries).toEqual([]);
    await evictDurableObject(stub);
    await plainCall(ch, "d");
    expect((await auditOf(ch)).entries.map((e: any) => e.id)).toEqual([`${ch.id}:4`]);
  });

  it("applies the retention on the object's alarm, a bounded batch at a time, then sleeps until the oldest row expires", async () => {
    const ch = await createChannel();
    const now = Date.now();
    const retention = settingsOf(env).AUDIT_RETENTION_DAYS * DAY;
    const expired = Array.from({ length: 2500 }, (_, i) => ({ seq: i + 1, at: now - retention - DAY + i }));
    const fresh = now - DAY;
    await seedRows(ch.id, [...expired, { seq: 2501, at: fresh }]);
    const stub = stubOf(ch.id);
    const state = () =>
      runInDurableObject(stub, async (_obj: ChannelRelay, state) => ({
        rows: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM audit").one().n,
        alarm: await state.storage.getAlarm(),
      }));
    // One alarm deletes one batch, and (more expired rows remaining) asks for the next at once.
    const first = await runInDurableObject(stub, async (obj: ChannelRelay, state) => {
      await obj.runAlarm(now);
      return {
        rows: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM audit").one().n,
        alarm: await state.storage.getAlarm(),
      };
    });
    expect(first.rows).toBe(1501);
    expect(first.alarm).toBeLessThanOrEqual(Date.now());
    // The runtime runs those alarms; then the object sleeps until the fresh row expires.
    await until(async () => (await state()).rows === 1, "the runtime's alarms to prune the rest", 60_000);
    expect(await state()).toEqual({ rows: 1, alarm: fresh + retention });
    expect((await auditOf(ch)).entries.map((e: any) => e.id)).toEqual([`${ch.id}:2501`]);
  });

  it("filters by tool and status and pages with cursors", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool("a"), echoTool("b")] })).serve(() => ({
      content: [{ type: "text", text: "ok" }],
    }));
    const agent = await connectAgent(ch);
    for (let i = 0; i < 5; i++)
      await agent.callTool({ name: i % 2 ? "a" : "b", arguments: { text: String(i) } });
    await agent.callTool({ name: "a", arguments: {} });
    const get = (qs: string) => auditOf(ch, qs);
    expect((await get("tool=a")).entries.length).toBe(3);
    expect((await get("status=invalid")).entries.map((e: any) => e.tool)).toEqual(["a"]);
    const first = await get("limit=4");
    const second = await get(`limit=4&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(first.entries.length + second.entries.length).toBe(6);
    expect(second.nextCursor).toBeNull();
    await expectError(
      await api(`/api/channels/${ch.id}/audit?status=great`, { headers: owner(ch.ownerKey) }),
      400,
      "validation_failed",
    );
    await expectError(
      await api(`/api/channels/${ch.id}/audit?cursor=abc`, { headers: owner(ch.ownerKey) }),
      400,
      "invalid_cursor",
    );
    await expectError(
      await api(`/api/channels/${ch.id}/audit?tool=b&cursor=${encodeURIComponent(first.nextCursor!)}`, {
        headers: owner(ch.ownerKey),
      }),
      400,
      "invalid_cursor",
    );
    await expectError(
      await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch.agentToken) }),
      401,
      "unauthorized",
    );
  });
});

describe("the audit log's time window", () => {
  it("keeps calls from `since` (inclusive) to `until` (exclusive), in ISO 8601 or epoch ms, across pages", async () => {
    const ch = await createChannel();
    // Rows one an hour, so the window's edges are exact.
    const hour = 3_600_000;
    const base = Math.floor(Date.now() / DAY) * DAY - DAY;
    const iso = (h: number) => new Date(base + h * hour).toISOString();
    await seedRows(
      ch.id,
      Array.from({ length: 6 }, (_, i) => ({ seq: i + 1, at: base + i * hour })),
    );
    const get = (qs: string) => auditOf(ch, qs);
    const hours = (body: { entries: Array<{ at: string }> }) =>
      body.entries.map((e) => (Date.parse(e.at) - base) / hour);

    expect(hours(await get(`since=${base + 2 * hour}`))).toEqual([5, 4, 3, 2]);
    expect(hours(await get(`until=${iso(2)}`))).toEqual([1, 0]);
    const plusOne = encodeURIComponent(iso(2).replace("Z", "+01:00"));
    expect(hours(await get(`since=${plusOne}&until=${iso(4)}`))).toEqual([3, 2, 1]);

    const first = await get(`since=${base + hour}&limit=3`);
    expect(hours(first)).toEqual([5, 4, 3]);
    const second = await get(`since=${base + hour}&limit=3&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(hours(second)).toEqual([2, 1]);
    expect(second.nextCursor).toBeNull();
    // A cursor belongs to its window.
    await expectError(
      await api(
        `/api/channels/${ch.id}/audit?since=${base}&cursor=${encodeURIComponent(first.nextCursor!)}`,
        {
          headers: owner(ch.ownerKey),
        },
      ),
      400,
      "invalid_cursor",
    );
    for (const bad of ["yesterday", "2026-11-20", "2026-11-20T00:00:00", "-5"])
      await expectError(
        await api(`/api/channels/${ch.id}/audit?since=${encodeURIComponent(bad)}`, {
          headers: owner(ch.ownerKey),
        }),
        400,
        "validation_failed",
      );
  });
});

describe("rows D1 holds from before the channel kept its own log", () => {
  it("are moved into the channel's object as its owner reads, newest first in batches, and deleted from D1", async () => {
    const ch = await servedChannel();
    const now = Date.now();
    const retention = settingsOf(env).AUDIT_RETENTION_DAYS * DAY;
    // 1,200 legacy rows one a minute (numbered as the object numbered them then), and 3 past the retention.
    const legacy = Array.from({ length: 1200 }, (_, i) => ({
      seq: 1000 + i,
      at: now - 2 * DAY + i * 60_000,
    }));
    const expired = Array.from({ length: 3 }, (_, i) => ({ seq: 900 + i, at: now - retention - DAY + i }));
    const all = [...expired, ...legacy];
    const statements = [];
    for (let i = 0; i < all.length; i += 10) {
      const chunk = all.slice(i, i + 10);
      statements.push(
        env.DB.prepare(
          `INSERT INTO audit_log (id, channel_id, seq, tool, arg_bytes, arg_sha256, status, duration_ms, created_at)
           VALUES ${chunk.map(() => "(?, ?, ?, 'old', 2, 'x', 'ok', 1, ?)").join(", ")}`,
        ).bind(...chunk.flatMap((r) => [`${ch.id}:${r.seq}`, ch.id, r.seq, r.at])),
      );
    }
    await env.DB.batch(statements);
    // A call made after the upgrade, in the object's own log.
    await plainCall(ch, "new");

    const first = await auditOf(ch, "limit=3");
    expect(first.entries.map((e: any) => e.tool)).toEqual(["echo", "old", "old"]);
    expect(first.entries[1].id).toBe(`${ch.id}:2199`);
    // Only what the page needed moved (one batch); the rest waits in D1.
    expect(await d1AuditRows(ch.id)).toBe(1200 + 3 - 500);
    // Paging on moves the rest, in order, each row once.
    const seen: string[] = [...first.entries.map((e: any) => e.id)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await auditOf(ch, `limit=100&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...page.entries.map((e: any) => e.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([`${ch.id}:1`, ...legacy.map((r) => `${ch.id}:${r.seq}`).reverse()]);
    // The expired rows stay for the daily maintenance to prune; nothing else of the channel is left in D1.
    expect(await d1AuditRows(ch.id)).toBe(3);
    // The object numbers on past the moved rows.
    await plainCall(ch, "newer");
    expect((await auditOf(ch, "limit=1")).entries[0].id).toBe(`${ch.id}:2200`);
    // A filtered read after the move sees moved rows too.
    expect((await auditOf(ch, "tool=old&limit=1")).entries[0].id).toBe(`${ch.id}:2199`);
  });
});

describe("rows the old outbox had not shipped when the object was upgraded", () => {
  it("move into the object's log when it next wakes", async () => {
    const ch = await servedChannel();
    const stub = stubOf(ch.id);
    const at = Date.now() - 60_000;
    const row = {
      id: `${ch.id}:7`,
      channelId: ch.id,
      seq: 7,
      agentTokenId: ch.agentTokenId,
      agentLabel: "old agent",
      providerId: null,
      providerLabel: null,
      origin: null,
      tool: "shipped-never",
      argBytes: 2,
      argSha256: "x",
      status: "error",
      durationMs: 3,
      message: "it failed",
      createdAt: at,
      verification: null,
    };
    await runInDurableObject(stub, (_obj: ChannelRelay, state) => {
      state.storage.sql.exec("CREATE TABLE audit_outbox (seq INTEGER PRIMARY KEY, row TEXT NOT NULL)");
      state.storage.sql.exec("INSERT INTO audit_outbox (seq, row) VALUES (7, ?)", JSON.stringify(row));
    });
    await evictDurableObject(stub);
    expect((await auditOf(ch)).entries).toEqual([
      {
        id: `${ch.id}:7`,
        tool: "shipped-never",
        status: "error",
        agentTokenId: ch.agentTokenId,
        agent: "old agent",
        provider: null,
        argBytes: 2,
        argSha256: "x",
        durationMs: 3,
        message: "it failed",
        verification: null,
        at: new Date(at).toISOString(),
      },
    ]);
    expect(await d1AuditRows(ch.id)).toBe(0);
    // Numbered on from the moved row.
    await plainCall(ch, "next");
    expect((await auditOf(ch, "limit=1")).entries[0].id).toBe(`${ch.id}:8`);
  });
});

describe("an account's audit view", () => {
  it("fans out to the account's channels, merges newest first and pages with one opaque cursor", async () => {
    const me = await signedInAccount();
    const chs = [await createChannel(), await createChannel(), await createChannel()];
    for (const ch of chs)
      await env.DB.prepare("UPDATE channels SET account_id = ? WHERE id = ?").bind(me.accountId, ch.id).run();
    const base = Date.now() - DAY;
    // Interleaved in time, with ties across channels at the same instant.
    await seedRows(
      chs[0]!.id,
      [1, 2, 3, 4].map((i) => ({ seq: i, at: base + i * 1000, tool: i % 2 ? "a" : "b" })),
    );
    await seedRows(
      chs[1]!.id,
      [1, 2, 3].map((i) => ({ seq: i, at: base + i * 1000 + 500, tool: "a" })),
    );
    await seedRows(
      chs[2]!.id,
      [1, 2, 3, 4].map((i) => ({ seq: i, at: base + i * 1000, tool: "b", status: "error" })),
    );
    const get = async (qs: string) => {
      const res = await SELF.fetch(`${HUB}/api/account/audit?${qs}`, { headers: { cookie: me.cookie } });
      expect(res.status).toBe(200);
      return (await res.json()) as { entries: any[]; nextCursor: string | null; channels: unknown };
    };
    const expected = chs
      .flatMap((ch, n) =>
        [1, 2, 3, 4]
          .filter((i) => n !== 1 || i < 4)
          .map((i) => ({
            id: `${ch.id}:${i}`,
            channelId: ch.id,
            seq: i,
            at: base + i * 1000 + (n === 1 ? 500 : 0),
          })),
      )
      .sort(
        (x, y) =>
          y.at - x.at || (x.channelId < y.channelId ? 1 : x.channelId > y.channelId ? -1 : y.seq - x.seq),
      );
    const whole = await get("limit=100");
    expect(whole.entries.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    expect(whole.entries[0]).toMatchObject({ channelId: expected[0]!.channelId, tool: expect.any(String) });
    expect(whole.channels).toEqual({ read: 3, total: 3 });
    expect(whole.nextCursor).toBeNull();
    // Pages of 2 (ties split across pages) give the same list, each entry once.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      paged.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(expected.map((e) => e.id));
    // The same filters as a channel's.
    const filtered = await get("tool=a&status=ok");
    expect(filtered.entries.map((e) => e.id)).toEqual(
      expected
        .filter((e) => e.channelId === chs[1]!.id || (e.channelId === chs[0]!.id && e.seq % 2))
        .map((e) => e.id),
    );
    // Cursors are opaque and bound to their query; no session, no view.
    const first = await get("limit=2");
    for (const qs of ["cursor=abc", `tool=a&cursor=${encodeURIComponent(first.nextCursor!)}`])
      await expectError(
        await SELF.fetch(`${HUB}/api/account/audit?${qs}`, { headers: { cookie: me.cookie } }),
        400,
        "invalid_cursor",
      );
    await expectError(
      await SELF.fetch(`${HUB}/api/account/audit?status=great`, { headers: { cookie: me.cookie } }),
      400,
      "validation_failed",
    );
    await expectError(await SELF.fetch(`${HUB}/api/account/audit`), 401, "unauthorized");
    // Another account sees none of it.
    const other = await signedInAccount("Other");
    const theirs = await SELF.fetch(`${HUB}/api/account/audit`, { headers: { cookie: other.cookie } });
    expect(await theirs.json()).toEqual({ entries: [], nextCursor: null, channels: { read: 0, total: 0 } });
  });

  it("reads at most 20 channels, the most recently used", async () => {
    const me = await signedInAccount();
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      const ch = await createChannel();
      ids.push(ch.id);
      await env.DB.prepare("UPDATE channels SET account_id = ?, last_used_at = ? WHERE id = ?")
        .bind(me.accountId, now - i * 60_000, ch.id)
        .run();
      await seedRows(ch.id, [{ seq: 1, at: now - DAY }]);
    }
    const res = await SELF.fetch(`${HUB}/api/account/audit?limit=100`, { headers: { cookie: me.cookie } });
    const body = (await res.json()) as { entries: Array<{ channelId: string }>; channels: unknown };
    expect(body.channels).toEqual({ read: 20, total: 21 });
    expect(new Set(body.entries.map((e) => e.channelId))).toEqual(new Set(ids.slice(0, 20)));
  });
});

describe("what survives eviction", () => {
  it("keeps connected providers' tool lists in the object's storage", async () => {
    const ch = await createChannel();
    await connectProvider(ch, { tools: [echoTool("kept")] });
    const stored = await runInDurableObject(stubOf(ch.id), (_obj: ChannelRelay, state) =>
      state.storage.sql
        .exec<{ tools: string }>("SELECT tools FROM providers")
        .toArray()
        .map((r) => JSON.parse(r.tools).map((t: { name: string }) => t.name)),
    );
    expect(stored).toEqual([["kept"]]);
  });
});
