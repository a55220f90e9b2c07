// The runner's plain parts without a browser: the site's run slots and queue, its daily stats, the UTC day.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DailyStats, untilNextDay, utcDay } from "../../src/cloud/daily-stats.js";
import { RunFailure } from "../../src/cloud/failure.js";
import { SiteQueue } from "../../src/cloud/site-queue.js";
import { runnerOf } from "./helpers.js";

describe("SiteQueue", () => {
  it("grants slots up to its concurrency, then queues first in, first out, then refuses as busy", async () => {
    const queue = new SiteQueue(1, 2);
    const far = Date.now() + 60_000;
    const first = await queue.acquire(far);
    const order: string[] = [];
    const second = queue.acquire(far).then((release) => (order.push("second"), release));
    const third = queue.acquire(far).then((release) => (order.push("third"), release));
    await expect(queue.acquire(far)).rejects.toMatchObject({ failure: "busy" });
    expect(queue.counts).toEqual({ running: 1, queued: 2 });
    first();
    first(); // a second release of the same slot frees nothing more
    (await second)();
    (await third)();
    expect(order).toEqual(["second", "third"]);
    expect(queue.counts).toEqual({ running: 0, queued: 0 });
  });

  it("lets a queued call go as timeout when its deadline passes, without taking a slot", async () => {
    const queue = new SiteQueue(1, 4);
    const release = await queue.acquire(Date.now() + 60_000);
    const waited = queue.acquire(Date.now() + 50);
    await expect(waited).rejects.toBeInstanceOf(RunFailure);
    await expect(waited).rejects.toMatchObject({ failure: "timeout" });
    expect(queue.counts).toEqual({ running: 1, queued: 0 });
    release();
    expect(queue.counts).toEqual({ running: 0, queued: 0 });
  });
});

describe("DailyStats", () => {
  it("counts runs, results, failures by kind and browser time per day, and keeps 30 days", async () => {
    await runInDurableObject(runnerOf("units-stats.test"), (_, state) => {
      const stats = new DailyStats(state.storage.sql);
      for (let d = 1; d <= 31; d++) stats.record(`2026-10-${String(d).padStart(2, "0")}`, { browserMs: 10 });
      stats.record("2026-10-31", { failure: "changed", browserMs: 5 });
      stats.record("2026-10-31", { failure: "changed", browserMs: 0 });
      stats.record("2026-10-31", { failure: "busy", browserMs: 0 });
      const days = stats.list(30);
      expect(days).toHaveLength(30);
      expect(days[0]).toEqual({
        day: "2026-10-31",
        calls: 4,
        ok: 1,
        failures: { changed: 2, busy: 1 },
        browserMs: 15,
      });
      expect(days.at(-1)!.day).toBe("2026-10-02"); // the 31st day back is gone
      expect(stats.browserMs("2026-10-31")).toBe(15);
      expect(stats.browserMs("2026-10-01")).toBe(0);
    });
  });

  it("days are UTC days, and the next one starts at 00:00 UTC", () => {
    const now = Date.UTC(2026, 10, 26, 22, 30);
    expect(utcDay(now)).toBe("2026-11-26");
    expect(untilNextDay(now)).toBe(90 * 60_000);
  });
});
