// The audit trail: one row per call, written to the object's storage first, shipped to D1 by an alarm.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChannelRelay } from "../../src/worker/relay/channel-relay.js";
import { api, expectError } from "./helpers.js";
import { connectAgent, connectProvider, createChannel, echoTool } from "./relay-helpers.js";
import { evictDurableObject } from "./evict.js";

function stubOf(channelId: string) {
  return env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
}

const owner = (key: string) => ({ authorization: `Bearer ${key}` });

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
    const audit = (await (
      await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch.ownerKey) })
    ).json()) as any;
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
      argBytes: args.length,
      argSha256: digest,
      agentTokenId: ch.agentTokenId,
      provider: { label: "shop.example", origin: "https://shop.example" },
    });
    expect(ok.durationMs).toBeGreaterThanOrEqual(0);
    // The arguments themselves are never stored.
    const raw = JSON.stringify(
      await env.DB.prepare("SELECT * FROM audit_log WHERE channel_id = ?").bind(ch.id).all(),
    );
    expect(raw).not.toContain("hello");
  });

  it("writes rows to the object's storage first and ships them when the alarm fires", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool()] })).serve(() => ({
      content: [{ type: "text", text: "ok" }],
    }));
    const agent = await connectAgent(ch);
    await agent.callTool({ name: "echo", arguments: { text: "a" } });
    const stub = stubOf(ch.id);
    const pendingBefore = await runInDurableObject(
      stub,
      (obj: ChannelRelay) => obj.snapshot({ channelId: ch.id, strictNames: false }).pendingAudit,
    );
    const inD1 = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE channel_id = ?")
        .bind(ch.id)
        .first<{ n: number }>())!.n;
    if (pendingBefore > 0) {
      expect(await inD1()).toBe(0);
      expect(await runDurableObjectAlarm(stub)).toBe(true);
    }
    expect(await inD1()).toBe(1);
  });

  it("keeps rows when D1 refuses them and ships them on a later alarm", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool()] })).serve(() => ({
      content: [{ type: "text", text: "ok" }],
    }));
    const agent = await connectAgent(ch);
    const stub = stubOf(ch.id);
    // Ship anything pending, then break D1 for the audit table.
    await runDurableObjectAlarm(stub);
    await env.DB.exec("ALTER TABLE audit_log RENAME TO audit_log_away");
    try {
      await agent.callTool({ name: "echo", arguments: { text: "a" } });
      await agent.callTool({ name: "echo", arguments: { text: "b" } });
      await runDurableObjectAlarm(stub);
      const pending = await runInDurableObject(
        stub,
        (obj: ChannelRelay) => obj.snapshot({ channelId: ch.id, strictNames: false }).pendingAudit,
      );
      expect(pending).toBe(2);
    } finally {
      await env.DB.exec("ALTER TABLE audit_log_away RENAME TO audit_log");
    }
    await runDurableObjectAlarm(stub);
    const n = (await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE channel_id = ?")
      .bind(ch.id)
      .first<{ n: number }>())!.n;
    expect(n).toBe(2);
  });

  it("numbers rows on, never reusing a number, after every row shipped and the object was evicted", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool()] })).serve(() => ({
      content: [{ type: "text", text: "ok" }],
    }));
    const stub = stubOf(ch.id);
    const call = async (text: string) => {
      const res = await api(`/api/channels/${ch.id}/calls`, {
        method: "POST",
        json: { name: "echo", arguments: { text } },
        headers: { authorization: `Bearer ${ch.agentToken}` },
      });
      expect(res.status).toBe(200);
    };
    await call("a");
    await call("b");
    // Everything shipped: the outbox is empty, so its rows no longer say which numbers were used.
    await runDurableObjectAlarm(stub);
    expect(
      await runInDurableObject(
        stub,
        (obj: ChannelRelay) => obj.snapshot({ channelId: ch.id, strictNames: false }).pendingAudit,
      ),
    ).toBe(0);
    await evictDurableObject(stub);
    await call("c");
    // Evicted again with "d" unshipped: its number comes from the pending row.
    await call("d");
    await evictDurableObject(stub);
    await call("e");
    await runDurableObjectAlarm(stub);
    const rows = await env.DB.prepare("SELECT id, seq FROM audit_log WHERE channel_id = ? ORDER BY seq")
      .bind(ch.id)
      .all<{ id: string; seq: number }>();
    expect(rows.results.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.results.map((r) => r.id)).toEqual([1, 2, 3, 4, 5].map((n) => `${ch.id}:${n}`));
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
    const get = async (qs: string) =>
      (await (
        await api(`/api/channels/${ch.id}/audit?${qs}`, { headers: owner(ch.ownerKey) })
      ).json()) as any;
    expect((await get("tool=a")).entries.length).toBe(3);
    expect((await get("status=invalid")).entries.map((e: any) => e.tool)).toEqual(["a"]);
    const first = await get("limit=4");
    const second = await get(`limit=4&cursor=${encodeURIComponent(first.nextCursor)}`);
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
      await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch.agentToken) }),
      401,
      "unauthorized",
    );
  });
});

describe("the audit log's time window", () => {
  it("keeps calls from `since` (inclusive) to `until` (exclusive), in ISO 8601 or epoch ms, across pages", async () => {
    const ch = await createChannel();
    // Rows as the outbox ships them, one an hour, so the window's edges are exact.
    const hour = 3_600_000;
    const base = Date.parse("2026-11-20T00:00:00Z");
    for (let i = 0; i < 6; i++)
      await env.DB.prepare(
        `INSERT INTO audit_log (id, channel_id, seq, tool, arg_bytes, arg_sha256, status, duration_ms, created_at)
         VALUES (?, ?, ?, 'echo', 2, 'x', 'ok', 1, ?)`,
      )
        .bind(`${ch.id}-${i}`, ch.id, i + 1, base + i * hour)
        .run();
    const get = async (qs: string) => {
      const res = await api(`/api/channels/${ch.id}/audit?${qs}`, { headers: owner(ch.ownerKey) });
      expect(res.status).toBe(200);
      return (await res.json()) as { entries: Array<{ at: string }>; nextCursor: string | null };
    };
    const hours = (body: { entries: Array<{ at: string }> }) =>
      body.entries.map((e) => (Date.parse(e.at) - base) / hour);

    expect(hours(await get(`since=${base + 2 * hour}`))).toEqual([5, 4, 3, 2]);
    expect(hours(await get("until=2026-11-20T02:00:00Z"))).toEqual([1, 0]);
    expect(hours(await get("since=2026-11-20T02:00:00%2B01:00&until=2026-11-20T04:00:00Z"))).toEqual([
      3, 2, 1,
    ]);

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
