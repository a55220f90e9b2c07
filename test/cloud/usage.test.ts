// The runner's usage rollup: a site's public and Try it runs are added up per (tool, UTC day) in its
// SiteRunner and flushed to the hub's D1 (the same database as the hub's, binding DB) in one batch when due;
// runs a channel asked for are the channel's to count. Time is driven by passing `now` to the alarm part.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ROLLUP_FLUSH_MS } from "../../src/usage/rollup.js";
import type { SiteRunner } from "../../src/cloud/site-runner.js";
import { run, runnerOf } from "./helpers.js";
import { ADD_TOOL } from "./tools.js";

const SITE = "usage.test";

describe("cloud runs in the usage rollups", () => {
  it("counts public and Try it runs (ok, changed) with cloud = 1, not a channel's, and flushes them to D1", async () => {
    expect(await run(SITE, "/provide.html")).toMatchObject({ ok: true });
    expect(await run(SITE, "/provide.html", { via: "try" })).toMatchObject({ ok: true });
    expect(await run(SITE, "/provide.html", { via: "channel" })).toMatchObject({ ok: true });
    // The page registers the tool with an outputSchema the published definition lacks: refused, `changed`.
    expect(await run(SITE, "/output.html", { definition: ADD_TOOL })).toMatchObject({ failure: "changed" });
    const read = () =>
      env.DB.prepare(
        `SELECT tool, calls, ok, denied, error, verified, changed, cloud FROM tool_usage_daily WHERE host = ?`,
      )
        .bind(SITE)
        .all();
    expect((await read()).results).toEqual([]);
    const flushed = await runInDurableObject(runnerOf(SITE), async (o: SiteRunner) => {
      await o.rollup.onAlarm(Date.now() + ROLLUP_FLUSH_MS + 1000);
      return { pending: o.rollup.pending(), rowsWritten: o.rollup.lastRowsWritten };
    });
    expect(flushed.pending).toBe(0);
    expect((await read()).results).toEqual([
      { tool: ADD_TOOL.name, calls: 3, ok: 2, denied: 1, error: 0, verified: 2, changed: 1, cloud: 3 },
    ]);
    // No channel: no distinct-channel rows; the refusal's message is kept.
    const channels = await env.DB.prepare(`SELECT count(*) AS n FROM tool_usage_channels WHERE host = ?`)
      .bind(SITE)
      .first<{ n: number }>();
    expect(channels?.n).toBe(0);
    const errors = await env.DB.prepare(`SELECT count FROM tool_usage_errors WHERE host = ?`)
      .bind(SITE)
      .all();
    expect(errors.results).toEqual([{ count: 1 }]);
  });
});
