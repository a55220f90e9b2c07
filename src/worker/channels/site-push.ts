// A site changed in the registry (published, refreshed, delisted, relisted, verified again, or lapsed at
// re-verification): the channels that added its tools hear it now, not when their objects' 60 s caches
// expire. Each such channel's object re-reads its added tools and forgets what it checked live tools against
// (relay/channel-relay.ts siteChanged), so its agents hear list_changed at once and a delisted site's tool is
// not opened on demand in the meantime.
//
// Exact for channels that added the site's tools (channel_tools knows them). A channel that only has a tab of
// the site's origin open is not indexed by origin anywhere; its check of that tab's tools catches up within
// the verifier's 60 s cache, as before. Best effort: a channel object that fails to answer is logged and
// still catches up through its cache. At most PUSH_MAX channels are told per change (the rest catch up).
import { configOf, relayOf } from "./relay-stub.js";

const PUSH_MAX = 500;
const PUSH_CONCURRENCY = 20;

interface PushedChannel {
  id: string;
  strictNames: number;
  verificationPolicy: "all" | "warn" | "verified" | null;
}

export async function pushSiteChange(env: Env, host: string): Promise<number> {
  const { results } = await env.DB.prepare(
    `SELECT DISTINCT c.id AS id, c.strict_names AS strictNames, c.verification_policy AS verificationPolicy
     FROM channel_tools ct JOIN channels c ON c.id = ct.channel_id
     WHERE ct.host = ? LIMIT ${PUSH_MAX}`,
  )
    .bind(host.toLowerCase())
    .all<PushedChannel>();
  for (let i = 0; i < results.length; i += PUSH_CONCURRENCY) {
    await Promise.all(
      results.slice(i, i + PUSH_CONCURRENCY).map(async (row) => {
        const config = configOf({
          id: row.id,
          strictNames: row.strictNames === 1,
          verificationPolicy: row.verificationPolicy ?? "all",
        });
        try {
          await relayOf(env, row).siteChanged(config);
        } catch (e) {
          console.warn(`telling channel ${row.id} that ${host} changed failed: ${String(e)}`);
        }
      }),
    );
  }
  return results.length;
}
