// SiteRunner: the Durable Object of one site (idFromName(host)) that runs its cloud tools. It owns the site's
// browser (site-browser.ts), its run slots and queue (site-queue.ts), its daily stats and browser-time budget
// (daily-stats.ts), and its share of the hub-wide budget (ledger.ts). A run: budgets checked, a slot taken,
// a warm page of the tool's page URL or a new one (page-run.ts), the tool awaited, its definition checked,
// the tool called (on a warm page still holding the registration checked before: called at once, one step in
// the page); any failure closes the page. The browser time a run used is counted against both budgets.
import { DurableObject } from "cloudflare:workers";
import type { CloudFailure, CloudRunRequest, CloudRunResponse } from "../protocol/index.js";
import { runnerConfig, TIMES, type RunnerConfig } from "./config.js";
import { DailyStats, untilNextDay, utcDay, type DayStats } from "./daily-stats.js";
import { RunFailure } from "./failure.js";
import { awaitTool, callTool, checkDefinition, openPage, type SitePage } from "./page-run.js";
import { SiteBrowser } from "./site-browser.js";
import { SiteQueue } from "./site-queue.js";
import { UsageWriter, type UsageEvent } from "../usage/rollup.js";

/** How many times a run checks a tool the page registers again between its check and its call. */
const RECHECKS = 3;

export class SiteRunner extends DurableObject<Env> {
  private readonly config: RunnerConfig;
  private readonly stats: DailyStats;
  private readonly queue: SiteQueue;
  private readonly browser: SiteBrowser;
  /**
   * The site's public and Try it runs added up per (tool, day) and flushed to the hub's D1 (usage/rollup.ts);
   * runs a channel asked for are counted by the channel. No channel: no distinct-channel rows.
   */
  readonly rollup: UsageWriter;
  /** The hub-wide total as last read from the ledger, and this site's time not yet added to it. */
  private ledger = { day: "", total: 0, at: 0 };
  private readonly pending = new Map<string, number>();
  private lastRunEnded = 0;
  /** An alarm is set (by this instance): alarm() itself moves it on while runs keep coming. */
  private alarmSet = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = runnerConfig(env as unknown as Record<string, unknown>);
    this.stats = new DailyStats(ctx.storage.sql);
    this.queue = new SiteQueue(this.config.concurrency, this.config.queueMax);
    this.browser = new SiteBrowser(env.BROWSER, ctx.storage, this.config.concurrency);
    this.rollup = new UsageWriter(ctx.storage, env.DB);
  }

  async run(request: CloudRunRequest): Promise<CloudRunResponse> {
    const started = Date.now();
    const deadline = started + request.timeoutMs;
    const day = utcDay(started);
    let browserMs = 0;
    try {
      const origin = new URL(request.origin).origin;
      if (new URL(request.page).origin !== origin)
        throw new RunFailure(
          "navigation",
          `The page ${request.page} is not on the site's origin, ${origin}.`,
        );
      await this.checkBudgets(request.site, day, started);
      const release = await this.queue.acquire(deadline);
      const slotStarted = Date.now();
      try {
        if (slotStarted >= deadline)
          throw new RunFailure(
            "timeout",
            "The call's time ran out while it waited for one of the site's cloud run slots.",
          );
        const { result, warm } = await this.runOnPage({ ...request, origin }, deadline);
        browserMs = Date.now() - slotStarted;
        this.count(day, { browserMs });
        this.countUsage(request, started, result.isError === true ? "error" : "ok");
        return { ok: true, result, browserMs, warm };
      } finally {
        browserMs = Date.now() - slotStarted;
        release();
        this.lastRunEnded = Date.now();
        if (!this.alarmSet) {
          await this.ctx.storage.setAlarm(this.lastRunEnded + TIMES.idleMs);
          this.alarmSet = true;
        }
      }
    } catch (e) {
      const failure: CloudFailure = e instanceof RunFailure ? e.failure : "crashed";
      const message =
        e instanceof RunFailure
          ? e.message
          : `The cloud run failed unexpectedly (${String((e as Error)?.message ?? e).slice(0, 300)}).`;
      if (!(e instanceof RunFailure)) console.error("cloud run:", e);
      this.count(day, { failure, browserMs });
      this.countUsage(request, started, failure, message);
      if (!this.alarmSet) {
        await this.ctx.storage.setAlarm(Date.now() + TIMES.idleMs);
        this.alarmSet = true;
      }
      return { ok: false, failure, message: message.slice(0, 2000), browserMs };
    }
  }

  private async runOnPage(
    request: CloudRunRequest,
    deadline: number,
  ): Promise<{ result: Record<string, unknown>; warm: boolean }> {
    let p: SitePage | undefined = this.browser.takeWarm(request.page);
    const warm = Boolean(p);
    try {
      if (!p) {
        const context = await this.browser.openContext();
        p = await openPage(context, request.origin, request.page, deadline, (opened) => {
          p = opened;
          this.browser.adopt(opened);
        });
      }
      // A warm page whose registration of the tool was checked before: one step. Otherwise (or if the page
      // registered the tool again since) wait for it, check it, call it; a page that keeps re-registering it
      // between the check and the call is refused after a few tries.
      let result = warm
        ? await callTool(p, request.tool, request.digest, request.arguments, deadline)
        : undefined;
      for (let tries = 0; !result; tries++) {
        if (tries === RECHECKS)
          throw new RunFailure(
            "changed",
            `The page ${p.url} kept registering the tool ${request.tool} again while the hub checked it, so the hub did not call it.`,
          );
        await awaitTool(p, request.tool, deadline);
        await checkDefinition(p, request.tool, request.digest, deadline);
        result = await callTool(p, request.tool, request.digest, request.arguments, deadline);
      }
      this.browser.giveBack(p);
      return { result, warm };
    } catch (e) {
      if (p) await this.browser.close(p);
      throw e;
    }
  }

  private count(day: string, outcome: { failure?: CloudFailure; browserMs: number }): void {
    this.stats.record(day, outcome);
    if (outcome.browserMs > 0) this.pending.set(day, (this.pending.get(day) ?? 0) + outcome.browserMs);
  }

  /** Adds a public or Try it run to the usage rollup (statuses as the hub's audit maps them: cloud/run.ts). */
  private countUsage(
    request: CloudRunRequest,
    started: number,
    outcome: "ok" | "error" | CloudFailure,
    message?: string,
  ): void {
    if (request.via === "channel") return;
    const now = Date.now();
    const ran = outcome === "ok" || outcome === "error";
    const status: UsageEvent["status"] = ran
      ? outcome
      : outcome === "timeout"
        ? "timeout"
        : ["disabled", "budget", "changed", "unregistered"].includes(outcome)
          ? "denied"
          : "error";
    this.rollup.record(
      {
        host: request.site,
        tool: request.tool,
        status,
        verification: ran ? "verified" : outcome === "changed" ? "changed" : null,
        cloud: true,
        durationMs: now - started,
        message: ran ? null : message,
        at: started,
      },
      now,
    );
  }

  /** Throws `budget` when the site's or the hub's browser time for `day` is spent. */
  private async checkBudgets(site: string, day: string, now: number): Promise<void> {
    const resets = () => {
      const ms = untilNextDay(now);
      const h = Math.floor(ms / 3_600_000);
      const m = Math.ceil((ms % 3_600_000) / 60_000);
      return `Cloud runs resume at 00:00 UTC (in ${h} h ${m} min).`;
    };
    if (this.stats.browserMs(day) >= this.config.siteBudgetMs)
      throw new RunFailure(
        "budget",
        `${site} has used today's browser time for cloud runs (${this.config.siteBudgetMs / 1000} s a day). ${resets()}`,
      );
    await this.syncLedger(day, now);
    if (this.ledger.total >= this.config.totalBudgetMs)
      throw new RunFailure(
        "budget",
        `The hub has used today's browser time for cloud runs (${this.config.totalBudgetMs / 1000} s a day for all sites). ${resets()}`,
      );
  }

  /** Adds this site's pending time to the ledger and reads the day's total, at most every TIMES.ledgerSyncMs. */
  private async syncLedger(day: string, now: number, force = false): Promise<void> {
    if (!force && this.ledger.day === day && now - this.ledger.at < TIMES.ledgerSyncMs) return;
    const ledger = this.env.CLOUD_LEDGER.get(this.env.CLOUD_LEDGER.idFromName("total"));
    for (const [d, ms] of [...this.pending]) {
      if (d === day) continue;
      await ledger.add(d, ms);
      this.pending.delete(d);
    }
    const ms = this.pending.get(day) ?? 0;
    this.pending.delete(day);
    const total = await ledger.add(day, ms);
    this.ledger = { day, total, at: now };
  }

  override async alarm(): Promise<void> {
    this.alarmSet = false;
    const now = Date.now();
    // The usage rollup's flush when due; then the next alarm at the earlier of the idle check and the flush.
    await this.rollup.onAlarm(now);
    const flushAt = this.rollup.nextFlushAt();
    if (this.queue.counts.running > 0 || now - this.lastRunEnded < TIMES.idleMs) {
      const idleAt = Math.max(this.lastRunEnded, now) + TIMES.idleMs;
      await this.ctx.storage.setAlarm(Math.min(idleAt, flushAt ?? idleAt));
      this.alarmSet = true;
      return;
    }
    await this.browser.rest();
    if (this.pending.size) await this.syncLedger(utcDay(now), now, true);
    if (flushAt !== null) {
      await this.ctx.storage.setAlarm(flushAt);
      this.alarmSet = true;
    }
  }

  /** The site's stats, newest day first. */
  statsFor(days: number): DayStats[] {
    return this.stats.list(days);
  }

  /** What is open and waiting now (tests, the benchmark). */
  async inspect() {
    return { ...(await this.browser.counts()), ...this.queue.counts };
  }
}
