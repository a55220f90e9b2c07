// A site's cloud calls and failures per day, as the runner Worker counts them (GET https://cloud.internal/stats
// through the hub's CLOUD service binding), for the owner's view of the site page. Best effort: no binding, a
// slow or failing runner, or an answer of another shape shows as "not available", never as a failed page.
import * as z from "zod";

const CloudStatsSchema = z.object({
  site: z.string(),
  days: z
    .array(
      z.object({
        day: z.string(),
        calls: z.number().int().nonnegative(),
        ok: z.number().int().nonnegative(),
        failures: z.record(z.string(), z.number().int().nonnegative()),
        browserMs: z.number().nonnegative(),
      }),
    )
    .max(31),
});
export type CloudDayStats = z.infer<typeof CloudStatsSchema>["days"][number];

/** How long the site page waits for the runner's counts. */
const STATS_TIMEOUT_MS = 2000;

/** The last `days` days of the site's cloud runs, newest first; null when they cannot be read now. */
export async function cloudStats(env: object, host: string, days = 7): Promise<CloudDayStats[] | null> {
  const cloud = (env as { CLOUD?: Fetcher }).CLOUD;
  if (!cloud) return null;
  try {
    const url = `https://cloud.internal/stats?site=${encodeURIComponent(host)}&days=${days}`;
    const res = await cloud.fetch(url, { signal: AbortSignal.timeout(STATS_TIMEOUT_MS) });
    if (!res.ok) return null;
    const parsed = CloudStatsSchema.safeParse(await res.json());
    return parsed.success ? parsed.data.days : null;
  } catch {
    return null;
  }
}
