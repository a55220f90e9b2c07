// Cloud runs in a channel: a marketplace tool added to the channel, called while no tab offers it, runs in
// the hub's browser when its site lets it, before any page is opened on demand; agents see its provider as
// `cloud` (`_meta["webmcp-hub/provider"].kind`) and its audit rows name the provider `cloud`. A tool its
// site marks cloud that cannot run there now (cloud runs off hub-wide or by the site's owner, the day's
// budget spent, the site's queue full, no runner) has its page opened on demand instead when a browser
// extension is connected to the channel; otherwise the caller is told why it did not run.
import { META_PROVIDER, errorResult, type CloudFailure } from "../../protocol/index.js";
import { database } from "../db/client.js";
import { CLOUD_CAPABLE_SQL, cloudRunsOn } from "../registry/cloud.js";
import type { CallOutcome, CallRequest } from "../relay/channel-port.js";
import type { ExposedTool } from "../relay/naming.js";
import { callInCloud, lookupCloudTool } from "./call.js";

/** Failures after which the page is opened on demand instead, when an extension can. */
const OPEN_INSTEAD: ReadonlySet<CloudFailure> = new Set(["disabled", "budget", "busy"]);

/**
 * Runs an added tool no tab offers in the cloud; null when it does not run there: its site does not mark it
 * cloud, or the cloud cannot take it now and `canOpen` (the caller opens its page on demand instead).
 */
export async function callAddedInCloud(
  env: Env,
  exposed: ExposedTool,
  req: CallRequest,
  canOpen: boolean,
): Promise<CallOutcome | null> {
  const host = exposed.registry?.site;
  if (!host) return null;
  const db = database(env.DB);
  const found = await lookupCloudTool(env, db, host, exposed.originalName);
  // `disabled` is the only refusal of a tool its site marks cloud (off hub-wide, or by the site's owner).
  if (!found.ok && found.reason !== "disabled") return null;
  if (!found.ok) {
    if (canOpen) return null;
    return {
      status: "denied",
      result: errorResult(
        `${exposed.name} did not run: ${found.message} No browser with the webmcp-hub extension is connected to this channel to open its page instead.`,
      ),
    };
  }
  const outcome = await callInCloud(
    env,
    db,
    {
      site: host,
      name: exposed.originalName,
      arguments: req.arguments ?? {},
      via: "channel",
      timeoutMs: req.timeoutMs,
      signal: req.signal,
    },
    found,
  );
  if (canOpen && outcome.failure && OPEN_INSTEAD.has(outcome.failure)) return null;
  return { status: outcome.status, result: outcome.result };
}

/** Which added tools (by site and name) run in the cloud now, for their listing; read at most every TTL. */
export class CloudListing {
  private names = new Set<string>();
  private at = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly env: Env,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 60_000,
  ) {}

  /** The tool as agents see it: an added tool that runs in the cloud names its provider `cloud`. */
  present(tool: ExposedTool): ExposedTool {
    const site = tool.registry?.site;
    if (!site || !cloudRunsOn(this.env) || !this.names.has(`${site}\n${tool.originalName}`)) return tool;
    const provider = tool.descriptor._meta[META_PROVIDER] as Record<string, unknown> | undefined;
    return {
      ...tool,
      descriptor: {
        ...tool.descriptor,
        _meta: { ...tool.descriptor._meta, [META_PROVIDER]: { ...provider, kind: "cloud" } },
      },
    };
  }

  /** Re-reads when older than the TTL. Never throws: on a D1 failure the last set is kept. */
  async refresh(channelId: string | null): Promise<void> {
    if (!channelId || !cloudRunsOn(this.env) || this.now() - this.at < this.ttlMs) return;
    this.at = this.now();
    try {
      const { results } = await this.env.DB.prepare(
        `SELECT ct.host AS host, ct.tool_name AS name FROM channel_tools ct
         JOIN sites s ON s.host = ct.host JOIN tools t ON t.host = ct.host AND t.name = ct.tool_name
         WHERE ct.channel_id = ? AND ${CLOUD_CAPABLE_SQL}`,
      )
        .bind(channelId)
        .all<{ host: string; name: string }>();
      this.names = new Set(results.map((r) => `${r.host}\n${r.name}`));
    } catch (e) {
      console.warn(`channel ${channelId}: reading its cloud tools failed (${String(e)})`);
    }
  }
}
