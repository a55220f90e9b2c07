// The runner's limits as a caller meets them: a body that is not a CloudRunRequest, a site whose queue is
// full, a site's or the hub's daily browser time spent, and the idle alarm that closes a site's pages.
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, RUNNER, run, runnerOf, site } from "./helpers.js";

const today = () => new Date().toISOString().slice(0, 10);

describe("the runner's limits", () => {
  it("answers 400 to a body that is not a CloudRunRequest, and runs nothing", async () => {
    const res = await SELF.fetch(`${RUNNER}/run`, {
      method: "POST",
      body: JSON.stringify({ site: "bad.test", origin: site().origin, tool: "add" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Not a CloudRunRequest: page: /);
    expect(await inspect("bad.test")).toMatchObject({ connected: false, pages: 0, running: 0 });
  });

  it("refuses a page that is not on the site's origin without opening it", async () => {
    const res = await SELF.fetch(`${RUNNER}/run`, {
      method: "POST",
      body: JSON.stringify({
        site: "elsewhere.test",
        origin: site().origin,
        page: `${site().other}/seed.html`,
        tool: "add",
        arguments: {},
        digest: "0".repeat(64),
        timeoutMs: 5_000,
        via: "channel",
      }),
    });
    expect(await res.json()).toMatchObject({ ok: false, failure: "navigation", browserMs: 0 });
    expect(await inspect("elsewhere.test")).toMatchObject({ connected: false, pages: 0 });
  });

  it("refuses a call beyond the site's slots and queue (2 running, 16 waiting) as busy", async () => {
    const calls = Array.from({ length: 19 }, () =>
      run("queue.test", "/hang-call.html", { timeoutMs: 2_500 }),
    );
    const results = await Promise.all(calls);
    const failures = results.map((r) => (r.ok ? "ok" : r.failure));
    expect(failures.filter((f) => f === "busy")).toHaveLength(1);
    // The others ran out of time: waiting for a slot, or on the page (a slot freed just before their deadline).
    expect(failures.filter((f) => f !== "busy").every((f) => f === "timeout" || f === "load")).toBe(true);
    const busy = results.find((r) => !r.ok && r.failure === "busy");
    expect(busy && !busy.ok && busy.message).toMatch(/all busy \(2 running, 16 waiting\)/);
    expect(await inspect("queue.test")).toMatchObject({ pages: 0, busy: 0, running: 0, queued: 0 });
  });

  it("refuses calls once the site's browser time for the day is spent, saying when it resets", async () => {
    const name = "budget-site.test";
    await runInDurableObject(runnerOf(name), (_, state) => {
      state.storage.sql.exec(`INSERT INTO daily (day, browser_ms) VALUES (?, ?)`, today(), 600_000);
    });
    const res = await run(name, "/seed.html");
    expect(res).toMatchObject({ ok: false, failure: "budget", browserMs: 0 });
    expect(res.ok || res.message).toMatch(
      /budget-site\.test has used today's browser time .*600 s a day.*resume at 00:00 UTC \(in \d+ h \d+ min\)/,
    );
    expect(await inspect(name)).toMatchObject({ connected: false, pages: 0 });
  });

  it("refuses calls of every site once the hub's browser time for the day is spent", async () => {
    const ledger = env.CLOUD_LEDGER.get(env.CLOUD_LEDGER.idFromName("total"));
    const spend = (ms: number) =>
      runInDurableObject(ledger, (_, state) => {
        state.storage.sql.exec(
          `INSERT INTO totals (day, ms) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET ms = ms + excluded.ms`,
          today(),
          ms,
        );
      });
    const spent = 36_000_000;
    await spend(spent);
    try {
      const res = await run("budget-total.test", "/seed.html");
      expect(res).toMatchObject({ ok: false, failure: "budget" });
      expect(res.ok || res.message).toMatch(/The hub has used today's browser time/);
    } finally {
      await spend(-spent);
    }
  });

  it("closes a site's pages and context when it has been idle, and opens them again on the next call", async () => {
    const name = "idle.test";
    expect(await run(name, "/seed.html")).toMatchObject({ ok: true });
    expect(await inspect(name)).toMatchObject({ pages: 1, warm: 1 });
    // As if TIMES.idleMs had passed since the last run.
    await runInDurableObject(runnerOf(name), (instance) => {
      (instance as unknown as { lastRunEnded: number }).lastRunEnded = 0;
    });
    expect(await runDurableObjectAlarm(runnerOf(name))).toBe(true);
    expect(await inspect(name)).toMatchObject({ connected: false, contexts: 0, pages: 0, warm: 0 });
    expect(await run(name, "/seed.html")).toMatchObject({ ok: true, warm: false });
  });
});
