// A site's usage aggregator: one Durable Object per site host (SITE_USAGE, idFromName(host)), the
// one writer of the site's channel usage to D1. Channels' flushes add their counters here by RPC (`add`,
// answered once stored); the alarm writes D1 at most every ROLLUP_FLUSH_MS (UsageWriter, src/usage/rollup.ts).
import { DurableObject } from "cloudflare:workers";
import { UsageWriter, type ErrorCount, type PendingRow } from "../../usage/rollup.js";

export class SiteUsage extends DurableObject<Env> {
  readonly usage = new UsageWriter(this.ctx.storage, this.env.DB);

  /** A channel's pending counters and messages, with its hash; stored when this answers. */
  async add(rows: PendingRow[], errors: ErrorCount[], hash: string): Promise<void> {
    if (this.usage.merge(rows, errors, hash, Date.now())) await this.schedule();
  }

  /** Sets the alarm at the next write unless one is set (`force`: the alarm handler, whose own alarm is spent). */
  private async schedule(force = false) {
    const at = this.usage.nextFlushAt();
    if (at !== null && (force || (await this.ctx.storage.getAlarm()) === null))
      await this.ctx.storage.setAlarm(at);
  }

  override async alarm(): Promise<void> {
    await this.usage.onAlarm(Date.now());
    await this.schedule(true);
  }
}
