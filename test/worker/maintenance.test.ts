// The daily maintenance: audit retention, expiry of pending sites and unused or idle channels (closing their
// live connections), stale challenges and pairing codes — as a function, and through the scheduled handler.
import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker/index.js";
import { database } from "../../src/worker/db/client.js";
import { settingsOf } from "../../src/worker/env.js";
import { closeChannelRelay, runMaintenance } from "../../src/worker/maintenance.js";
import { api, register } from "./helpers.js";
import { connectAgent, connectProvider, createChannel, echoTool, type TestChannel } from "./relay-helpers.js";
import { fakeOrigin } from "./helpers.js";

const DAY = 24 * 60 * 60 * 1000;

async function count(query: string, ...params: unknown[]): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM (${query})`)
    .bind(...params)
    .first<{ n: number }>();
  return row!.n;
}

async function auditRow(channelId: string, createdAt: number): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO audit_log (id, channel_id, seq, tool, arg_bytes, arg_sha256, status, duration_ms, created_at)
     VALUES (?, ?, ?, 'echo', 2, 'x', 'ok', 1, ?)`,
  )
    .bind(crypto.randomUUID(), channelId, createdAt, createdAt)
    .run();
}

async function setChannel(ch: TestChannel, createdAt: number, lastUsedAt: number | null): Promise<void> {
  await env.DB.prepare("UPDATE channels SET created_at = ?, last_used_at = ? WHERE id = ?")
    .bind(createdAt, lastUsedAt, ch.id)
    .run();
}

const exists = (table: string, where: string, ...params: unknown[]) =>
  count(`SELECT 1 FROM ${table} WHERE ${where}`, ...params).then((n) => n > 0);

describe("runMaintenance", () => {
  it("prunes old audit rows and expires what was never verified or used, keeping the rest", async () => {
    const now = Date.now();
    const settings = settingsOf(env);
    const kept = await createChannel();
    await auditRow(kept.id, now - (settings.AUDIT_RETENTION_DAYS + 1) * DAY);
    await auditRow(kept.id, now - DAY);

    // Sites: pending for long with no open claim (expires), pending for long but registered again (kept).
    const stale = await fakeOrigin();
    const reclaimed = await fakeOrigin();
    await register(stale.origin);
    await register(reclaimed.origin);
    await env.DB.prepare("UPDATE sites SET created_at = ? WHERE host IN (?, ?)")
      .bind(now - (settings.PENDING_SITE_DAYS + 1) * DAY, stale.host, reclaimed.host)
      .run();
    await env.DB.prepare("UPDATE challenges SET expires_at = ? WHERE host = ?")
      .bind(now - 1, stale.host)
      .run();

    // Channels: never used and old (expires), never used and new (kept), used recently (kept).
    const unused = await createChannel();
    await setChannel(unused, now - (settings.UNUSED_CHANNEL_DAYS + 1) * DAY, null);
    const young = await createChannel();
    const used = await createChannel();
    await setChannel(used, now - 200 * DAY, now - DAY);
    // An expired pairing code goes; a live one stays.
    await env.DB.prepare("UPDATE pairing_codes SET expires_at = ? WHERE channel_id = ?")
      .bind(now - 1, used.id)
      .run();

    const report = await runMaintenance(database(env.DB), now, settings, closeChannelRelay(env));

    expect(report).toMatchObject({ auditRows: 1, pendingSites: 1, unusedChannels: 1, idleChannels: 0 });
    expect(await count("SELECT 1 FROM audit_log WHERE channel_id = ?", kept.id)).toBe(1);
    expect(await exists("sites", "host = ?", stale.host)).toBe(false);
    expect(await exists("challenges", "host = ?", stale.host)).toBe(false);
    expect(await exists("sites", "host = ?", reclaimed.host)).toBe(true);
    expect(await exists("channels", "id = ?", unused.id)).toBe(false);
    expect(await exists("agent_tokens", "channel_id = ?", unused.id)).toBe(false);
    for (const ch of [kept, young, used]) expect(await exists("channels", "id = ?", ch.id)).toBe(true);
    expect(await exists("pairing_codes", "channel_id = ?", used.id)).toBe(false);
    expect(await exists("pairing_codes", "channel_id = ?", young.id)).toBe(true);
    // The expired channel's keys no longer work.
    const res = await api(`/api/channels/${unused.id}`, {
      headers: { authorization: `Bearer ${unused.ownerKey}` },
    });
    expect(res.status).toBe(401);
  });

  it("expires a channel idle for long and closes its live connections", async () => {
    const now = Date.now();
    const settings = settingsOf(env);
    const idle = await createChannel();
    const provider = await connectProvider(idle, { tools: [echoTool()] });
    const agent = await connectAgent(idle);
    await setChannel(
      idle,
      now - 2 * settings.IDLE_CHANNEL_DAYS * DAY,
      now - (settings.IDLE_CHANNEL_DAYS + 1) * DAY,
    );

    const report = await runMaintenance(database(env.DB), now, settings, closeChannelRelay(env));

    expect(report.idleChannels).toBe(1);
    expect(report.closedConnections).toBeGreaterThanOrEqual(2);
    expect(await exists("channels", "id = ?", idle.id)).toBe(false);
    // The hub closed the provider's socket; the agent's session is gone and its token refused.
    await provider.next("welcome").catch(() => undefined);
    expect(provider.closed).toBe(true);
    await expect(agent.listTools()).rejects.toThrow();
  });

  it("counts calls as use: the channel's object notes it on the channels row, at most once an hour, not from D1 audit rows", async () => {
    const now = Date.now();
    const settings = settingsOf(env);
    const busy = await createChannel();
    (await connectProvider(busy, { tools: [echoTool()] })).serve(() => ({
      content: [{ type: "text", text: "ok" }],
    }));
    // One long session: the agent authenticated once, long ago; only its calls show the channel is used.
    const agent = await connectAgent(busy);
    const old = now - (settings.IDLE_CHANNEL_DAYS + 1) * DAY;
    await setChannel(busy, now - 2 * settings.IDLE_CHANNEL_DAYS * DAY, old);
    await agent.callTool({ name: "echo", arguments: { text: "a" } });
    const lastUsed = async () =>
      (await env.DB.prepare("SELECT last_used_at AS t FROM channels WHERE id = ?")
        .bind(busy.id)
        .first<{ t: number }>())!.t;
    expect(await lastUsed()).toBeGreaterThanOrEqual(now);
    // Noted within the hour: the next calls cost D1 nothing.
    await setChannel(busy, now - 2 * settings.IDLE_CHANNEL_DAYS * DAY, old);
    await agent.callTool({ name: "echo", arguments: { text: "b" } });
    expect(await lastUsed()).toBe(old);
    await setChannel(busy, now - 2 * settings.IDLE_CHANNEL_DAYS * DAY, now);
    // An audit row in D1 (from before the channels kept their own) is not counted as use any more.
    const other = await createChannel();
    await setChannel(other, now - 2 * settings.IDLE_CHANNEL_DAYS * DAY, old);
    await auditRow(other.id, now - DAY);

    const report = await runMaintenance(database(env.DB), now, settings, closeChannelRelay(env));

    expect(report.idleChannels).toBe(1);
    expect(await exists("channels", "id = ?", other.id)).toBe(false);
    expect(await exists("channels", "id = ?", busy.id)).toBe(true);
  });

  it("keeps a channel in use: pairing and agent requests record the use", async () => {
    const ch = await createChannel();
    expect(await exists("channels", "id = ? AND last_used_at IS NULL", ch.id)).toBe(true);
    await connectProvider(ch);
    expect(await exists("channels", "id = ? AND last_used_at IS NOT NULL", ch.id)).toBe(true);
  });
});

describe("the scheduled handler", () => {
  it("runs the maintenance when the Cron Trigger fires", async () => {
    const settings = settingsOf(env);
    const scheduledTime = Date.now();
    const unused = await createChannel();
    await setChannel(unused, scheduledTime - (settings.UNUSED_CHANNEL_DAYS + 1) * DAY, null);
    const kept = await createChannel();
    await auditRow(kept.id, scheduledTime - (settings.AUDIT_RETENTION_DAYS + 1) * DAY);

    const controller = createScheduledController({ scheduledTime, cron: "17 3 * * *" });
    // The handler awaits the whole run, so a failed run fails the cron invocation (and shows in its status).
    await worker.scheduled(controller, env);

    expect(await exists("channels", "id = ?", unused.id)).toBe(false);
    expect(await exists("channels", "id = ?", kept.id)).toBe(true);
    expect(await exists("audit_log", "channel_id = ?", kept.id)).toBe(false);
  });
});
