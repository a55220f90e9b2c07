// A channel's tool usage rollup (src/usage/rollup.ts does the counting): which of the channel's finished calls
// count, and under which (site host, tool). Its flush sends each site's counters and error messages, with the
// channel's hash, by RPC to that site's SiteUsage aggregator (src/worker/usage/site-usage.ts), the one object
// writing the site's rows to D1; the counters are taken off only once the aggregator answered.
//
// - A tab's tool counts under the host of the verified, listed site its origin is (the verification's `site`,
//   which the verifier read from the registry anyway for that call): a tab of an origin that is no registered
//   site is not counted. Rows for any origin would cost D1 rows nobody can read (analytics answer only a
//   site's owner) and would make the table unbounded by sites × tools × days.
// - An added marketplace tool (ran in the cloud, or its page could not be opened) counts under its site;
//   cloud runs with cloud = 1 (the runner does not count runs a channel asked for). A cloud run checks the
//   page's live tool against the published digest: a run that reached the tool counts `verified`, one refused
//   for a differing definition `changed` (as the runner counts public runs).
// - Sidecar tools have no site: not counted. Calls of a name the channel has no tool for: not counted.
// - The tool is the name the site publishes (originalName), never the channel's prefixed name.
import type { FinishedCall } from "./call-dispatch.js";
import type { SiteUsage } from "../usage/site-usage.js";
import {
  ROLLUP_FLUSH_MS,
  UsageRollupCore,
  sha256Hex,
  type ErrorCount,
  type PendingRow,
  type UsageEvent,
} from "../../usage/rollup.js";

/** The (host, tool) a finished call counts under, or null when it does not count. */
export function usageKeyOf(call: FinishedCall): { host: string; tool: string; cloud: boolean } | null {
  const t = call.exposed;
  if (!t) return null;
  const cloud = call.providerId === "cloud";
  const host = t.registry?.site ?? (t.group.startsWith("tab:") ? call.verification?.site : undefined);
  return host ? { host, tool: t.originalName, cloud } : null;
}

export class UsageRollup extends UsageRollupCore {
  constructor(
    storage: DurableObjectStorage,
    private readonly sites: DurableObjectNamespace<SiteUsage>,
    private readonly channel: () => string | null,
  ) {
    super(storage, ROLLUP_FLUSH_MS);
  }

  /** Counts a finished call (if it counts); true when an alarm is needed for the first pending key. */
  add(call: FinishedCall, now: number): boolean {
    const key = usageKeyOf(call);
    if (!key) return false;
    const text = call.outcome.result.content.find((c) => c.type === "text");
    const event: UsageEvent = {
      ...key,
      status: call.outcome.status,
      verification: key.cloud ? cloudVerification(call) : call.verification?.status,
      durationMs: now - call.started,
      message: text && "text" in text ? text.text : null,
      at: call.started,
    };
    return this.record(event, now);
  }

  protected async send(rows: PendingRow[]) {
    const id = this.channel();
    if (!id) return; // no channel, no counts (never pending: calls need a configured channel)
    // All the host's messages (keys past this flush's: their messages go now all the same).
    const errors = this.sql
      .exec<ErrorCount & { id: number }>(
        `SELECT rowid id, * FROM usage_errors_pending WHERE host = ?`,
        rows[0]!.host,
      )
      .toArray();
    const site = this.sites.get(this.sites.idFromName(rows[0]!.host));
    await site.add(rows, errors, await sha256Hex(id));
    return () => {
      for (const e of errors)
        this.sql.exec(`UPDATE usage_errors_pending SET count = count - ? WHERE rowid = ?`, e.count, e.id);
      this.sql.exec(`DELETE FROM usage_errors_pending WHERE count <= 0`);
    };
  }
}

/** A cloud run's check of the live tool: `changed` when refused for it, `verified` when the tool ran. */
function cloudVerification(call: FinishedCall): "verified" | "changed" | null {
  const failure = (call.outcome as { failure?: string }).failure;
  if (failure === "changed") return "changed";
  return !failure && (call.outcome.status === "ok" || call.outcome.status === "error") ? "verified" : null;
}
