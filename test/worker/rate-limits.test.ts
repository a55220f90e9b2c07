// Rate limits: anonymous writes per client (IPv6 by /64) on the Rate Limiting binding, agent requests per token,
// pairing failures per /64 and hub-wide (D1), and at most a few live challenges per site and codes per channel.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/protocol/index.js";
import { createApp } from "../../src/worker/app.js";
import { database } from "../../src/worker/db/client.js";
import { sha256Hex } from "../../src/worker/secrets.js";
import { assertUnderLimit, pairingRules, recordFailure } from "../../src/worker/channels/rate-limit.js";
import { api, expectError, fakeOrigin, register, verify } from "./helpers.js";
import { createChannel, newPairingCode, pair, type TestChannel } from "./relay-helpers.js";

const deployed = JSON.parse(env.DEPLOYED_RATE_LIMITS) as Record<string, { limit: number; period: 10 | 60 }>;
const ANON = deployed.ANON_WRITES!;
const AGENT = deployed.AGENT_CALLS!;

let clients = 0;
/** A fresh client address, so tests (and reruns in one window) never share a counter. */
function freshIp(): string {
  return `198.51.${100 + Math.floor(Math.random() * 100)}.${clients++ % 250}`;
}

/**
 * Runs `burst` (which sends `n` requests and returns their statuses) inside one window of `period` seconds:
 * the binding's windows are fixed, so a burst that straddles a boundary is run again (with fresh keys).
 */
async function inOneWindow(period: number, burst: () => Promise<number[]>): Promise<number[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = Math.floor(Date.now() / (period * 1000));
    const statuses = await burst();
    if (Math.floor(Date.now() / (period * 1000)) === before) return statuses;
  }
  throw new Error("three bursts in a row straddled a window boundary");
}

async function post(path: string, json: unknown, ip: string): Promise<Response> {
  return api(path, { method: "POST", json, headers: { "cf-connecting-ip": ip } });
}

describe("anonymous writes", () => {
  it("refuses a client's channel creation past the limit with 429, Retry-After and the error body", async () => {
    let last: Response | undefined;
    const ip = { current: "" };
    const statuses = await inOneWindow(ANON.period, async () => {
      ip.current = freshIp();
      const out: number[] = [];
      for (let i = 0; i <= ANON.limit; i++) {
        last = await post("/api/channels", { name: `flood ${i}` }, ip.current);
        out.push(last.status);
        if (i < ANON.limit) await last.body?.cancel();
      }
      return out;
    });
    expect(statuses.slice(0, ANON.limit).every((s) => s === 201)).toBe(true);
    const err = await expectError(last!, 429, "rate_limited");
    expect(err.message).toContain(`Wait ${ANON.period} seconds`);
    expect(last!.headers.get("retry-after")).toBe(String(ANON.period));
    // Nothing was stored for the refused request; another client is not affected.
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM channels WHERE name = ?")
      .bind(`flood ${ANON.limit}`)
      .first<{ n: number }>())!;
    expect(n).toBe(0);
    expect((await post("/api/channels", { name: "other" }, freshIp())).status).toBe(201);
  });

  it("counts every address of one IPv6 /64 as one client", async () => {
    const statuses = await inOneWindow(ANON.period, async () => {
      const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:7`;
      const out: number[] = [];
      for (let i = 0; i <= ANON.limit; i++) {
        const res = await post("/api/sites", { origin: "https://rotating.example" }, `${prefix}::${i + 1}`);
        out.push(res.status);
        await res.body?.cancel();
      }
      return out;
    });
    expect(statuses.at(-1)).toBe(429);
    // The neighbouring /64 is another client.
    const other = await post(
      "/api/sites",
      { origin: "https://rotating.example" },
      `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:8::1`,
    );
    expect(other.status).toBe(200);
  });

  it("limits verification and pairing attempts per client too", async () => {
    for (const [path, body] of [
      ["/api/sites/unknown.example/verify", { method: "http" }],
      ["/api/pair", { code: "ZZZZ-ZZZZ", kind: "sidecar" }],
    ] as const) {
      const statuses = await inOneWindow(ANON.period, async () => {
        const ip = freshIp();
        const out: number[] = [];
        for (let i = 0; i <= ANON.limit; i++) {
          const res = await post(path, body, ip);
          out.push(res.status);
          await res.body?.cancel();
        }
        return out;
      });
      // Pairing failures meet their own, lower limit first (below); verification the binding's.
      expect(statuses.at(-1), path).toBe(429);
      expect(statuses.slice(0, Math.min(ANON.limit, LIMITS.pairFailuresPerClient)), path).not.toContain(429);
    }
  });
});

describe("agent requests", () => {
  // The pool raises AGENT_CALLS for the other tests; this runs the same app on a limiter configured as deployed.
  const app = createApp();
  const deployedEnv = { ...env, AGENT_CALLS: env.AGENT_CALLS_AS_DEPLOYED };
  async function send(url: string, init: RequestInit): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(url, init), deployedEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  it("refuses an agent token's MCP requests past the limit, and not another token's", async () => {
    const ch = await createChannel();
    const token = { current: "" };
    const statuses = await inOneWindow(AGENT.period, async () => {
      // A token that is well-formed but unknown: counted (before the D1 check) like a real one.
      token.current = `wha_${"x".repeat(11)}${crypto.randomUUID().replaceAll("-", "")}`;
      return Promise.all(
        Array.from({ length: AGENT.limit + 1 }, async () => {
          const res = await send(`http://127.0.0.1:8787/mcp/${ch.id}`, {
            method: "GET",
            headers: { authorization: `Bearer ${token.current}`, accept: "text/event-stream" },
          });
          if (res.status !== 429) {
            await res.body?.cancel();
            return res.status;
          }
          expect(res.headers.get("retry-after")).toBe(String(AGENT.period));
          await expectError(res, 429, "rate_limited");
          return res.status;
        }),
      );
    });
    // The first AGENT.limit were counted and answered (401: unknown token); exactly one was refused.
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(AGENT.limit);
    // The channel's real token has its own budget.
    const own = await send(`http://127.0.0.1:8787/api/channels/${ch.id}/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${ch.agentToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "nothing", arguments: {} }),
    });
    expect(own.status).toBe(200);
  });

  it("counts each call of a plain-call batch", async () => {
    const batch = (ch: TestChannel, n: number) =>
      send(`http://127.0.0.1:8787/api/channels/${ch.id}/calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${ch.agentToken}`, "content-type": "application/json" },
        body: JSON.stringify({
          text: JSON.stringify(Array.from({ length: n }, () => ({ function: "nothing", arguments: {} }))),
        }),
      });
    const statuses = await inOneWindow(AGENT.period, async () => {
      const ch = await createChannel();
      const key = `agent:${await sha256Hex(ch.agentToken)}`;
      // Most of the token's budget used up by earlier requests (counted on the same limiter, same key) ...
      for (let i = 0; i < AGENT.limit - 20; i++)
        expect((await env.AGENT_CALLS_AS_DEPLOYED.limit({ key })).success).toBe(true);
      // ... leaves room for one batch of 20 calls, and then for no single call more.
      const full = await batch(ch, 20);
      const over = await batch(ch, 1);
      await full.body?.cancel();
      await over.body?.cancel();
      return [full.status, over.status];
    });
    expect(statuses).toEqual([200, 429]);
  });
});

describe("pairing failures", () => {
  it("stops guesses from rotating addresses of one IPv6 /64 after the per-client limit", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:9`;
    let refusedAt = -1;
    for (let i = 0; i < 40 && refusedAt < 0; i++) {
      // One request a second address; the binding (30 a minute) is not what stops them here.
      const res = await post("/api/pair", { code: "ZZZZ-ZZZZ", kind: "sidecar" }, `${prefix}:${i}::${i + 1}`);
      if (res.status === 429) {
        refusedAt = i;
        const err = await expectError(res, 429, "rate_limited");
        expect(err.message).toContain("from your network");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      } else await expectError(res, 404, "not_found");
    }
    expect(refusedAt).toBe(LIMITS.pairFailuresPerClient);
  });

  it("stops guesses from many networks with the hub-wide budget", async () => {
    const db = database(env.DB);
    // A window of its own, far from the clock the routes use.
    const now = Date.UTC(2100, 0, 1, 12, 0, 0);
    const start = now - (now % LIMITS.pairFailureWindowMs);
    await env.DB.prepare(
      "INSERT INTO rate_limits (key, window_start, count) VALUES ('pair:*', ?, ?) ON CONFLICT(key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count",
    )
      .bind(start, LIMITS.pairFailuresHubWide - 1)
      .run();
    // One more failure from a network never seen before uses up the budget ...
    await assertUnderLimit(db, pairingRules("203.0.113.1"), now);
    await recordFailure(db, pairingRules("203.0.113.1"), now);
    // ... and the next attempt, from yet another network, is refused.
    const refused = await assertUnderLimit(db, pairingRules("2001:db8:5:5::/64"), now).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: "rate_limited" });
    expect((refused as Error).message).toContain("on this hub");
    // The next window starts afresh.
    await assertUnderLimit(db, pairingRules("2001:db8:5:5::/64"), now + LIMITS.pairFailureWindowMs);
  });

  it("keeps at most a few live pairing codes per channel, the oldest superseded", async () => {
    const ch = await createChannel();
    const codes = [ch.pairingCode];
    for (let i = 0; i < LIMITS.livePairingCodesPerChannel + 3; i++) codes.push(await newPairingCode(ch));
    const { n } = (await env.DB.prepare(
      "SELECT count(*) AS n FROM pairing_codes WHERE channel_id = ? AND used_at IS NULL",
    )
      .bind(ch.id)
      .first<{ n: number }>())!;
    expect(n).toBe(LIMITS.livePairingCodesPerChannel);
    await expectError(await pair(codes[0]!, "sidecar"), 404, "not_found");
    expect((await pair(codes.at(-1)!, "sidecar")).status).toBe(201);
  });
});

describe("challenges", () => {
  it("keeps at most a few live challenges per site when an origin is registered again and again", async () => {
    const origin = await fakeOrigin();
    const registrations = [];
    for (let i = 0; i < 12; i++) registrations.push(await register(origin.origin));
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM challenges WHERE host = ?")
      .bind(origin.host)
      .first<{ n: number }>())!;
    expect(n).toBe(LIMITS.liveChallengesPerSite);
    // A superseded claim is gone; the newest still verifies.
    await expectError(await verify(origin.host, registrations[0]!.claimSecret), 403, "forbidden");
    const newest = registrations.at(-1)!;
    await origin.setRoutes({
      "/.well-known/webmcp-hub-verify": { body: newest.challenge.token },
    });
    expect((await verify(origin.host, newest.claimSecret)).status).toBe(200);
  });
});

describe("RATE_LIMIT_SCALE", () => {
  it("raises every limit n-fold for local benches", async () => {
    const app = createApp();
    const scaledEnv = { ...env, RATE_LIMIT_SCALE: "2" };
    const statuses = await inOneWindow(ANON.period, async () => {
      const ip = freshIp();
      const out: number[] = [];
      for (let i = 0; i <= 2 * ANON.limit; i++) {
        const ctx = createExecutionContext();
        const res = await app.fetch(
          new Request("http://hub.test/api/channels", {
            method: "POST",
            headers: { "content-type": "application/json", "cf-connecting-ip": ip },
            body: JSON.stringify({ name: `scaled ${i}` }),
          }),
          scaledEnv,
          ctx,
        );
        await waitOnExecutionContext(ctx);
        out.push(res.status);
        await res.body?.cancel();
      }
      return out;
    });
    expect(statuses.slice(0, 2 * ANON.limit).every((s) => s === 201)).toBe(true);
    expect(statuses[2 * ANON.limit]).toBe(429);
  });
});
