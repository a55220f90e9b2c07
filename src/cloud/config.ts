// The runner's settings: its [vars] (wrangler.cloud.toml), parsed once per object, and the time limits of a
// run's steps, each also cut to what is left of the request's timeoutMs.
import * as z from "zod";

const Count = z.coerce.number().int().positive();

export const RunnerVarsSchema = z.object({
  CLOUD_BUDGET_SITE_SECONDS_PER_DAY: Count,
  CLOUD_BUDGET_TOTAL_SECONDS_PER_DAY: Count,
  CLOUD_SITE_CONCURRENCY: Count,
  CLOUD_QUEUE_MAX: z.coerce.number().int().nonnegative(),
});
export type RunnerVars = z.infer<typeof RunnerVarsSchema>;

export interface RunnerConfig {
  siteBudgetMs: number;
  totalBudgetMs: number;
  concurrency: number;
  queueMax: number;
}

export function runnerConfig(env: Record<string, unknown>): RunnerConfig {
  const vars = RunnerVarsSchema.parse(env);
  return {
    siteBudgetMs: vars.CLOUD_BUDGET_SITE_SECONDS_PER_DAY * 1000,
    totalBudgetMs: vars.CLOUD_BUDGET_TOTAL_SECONDS_PER_DAY * 1000,
    concurrency: vars.CLOUD_SITE_CONCURRENCY,
    queueMax: vars.CLOUD_QUEUE_MAX,
  };
}

export const TIMES = {
  /** Loading the page (to its load event). */
  pageLoadMs: 15_000,
  /** From the load event until the page has registered the tool. */
  registerMs: 10_000,
  /** Closing a page or a context before it is given up on (and the next level up closed instead). */
  closeMs: 3_000,
  /** Warm pages and the site's context are closed after this long without a run (the object's alarm). */
  idleMs: 60_000,
  /** How long a deployed browser session lives without a connection (Browser Rendering's maximum, 10 min). */
  keepAliveMs: 600_000,
  /** The hub-wide ledger is read (and this site's time added to it) at most this often. */
  ledgerSyncMs: 10_000,
};

/** Stats kept per site: this many UTC days. */
export const STATS_DAYS = 30;
