// Tool usage (ARCHITECTURE.md "Where call records live"): what the channels' objects and the cloud runners add
// up per (site, tool, UTC day) and flush to D1 in batches, and what the analytics API and the public usage
// signals answer. Latency is a fixed logarithmic histogram (mergeable by adding): bucket i counts calls that
// took less than LATENCY_BUCKET_MS[i] ms (the last is open-ended); p50/p95 are read from it, to within a
// factor of √2.
import * as z from "zod";

/** Bucket upper bounds, ms: 2^(i/2) rounded up, from 1 ms to about 92 s, then everything longer. */
export const LATENCY_BUCKET_MS: readonly number[] = Array.from({ length: 34 }, (_, i) =>
  Math.ceil(2 ** (i / 2)),
);
/** How many latency buckets (columns d0…d34 of tool_usage_daily; the last counts calls of at least the last bound). */
export const LATENCY_BUCKETS = LATENCY_BUCKET_MS.length + 1;

/** The bucket a call of `ms` falls in. */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BUCKET_MS.findIndex((bound) => ms < bound);
  return i < 0 ? LATENCY_BUCKET_MS.length : i;
}

/** The q-quantile (0 < q < 1) of a histogram, as its bucket's upper bound (null: no calls). */
export function latencyQuantile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i]!;
    if (seen >= q * total)
      return LATENCY_BUCKET_MS[i] ?? LATENCY_BUCKET_MS[LATENCY_BUCKET_MS.length - 1]! * 2;
  }
  return null;
}

/** Days of rollups kept in D1 (and the widest analytics range). */
export const USAGE_DAYS = 90;
/** K of the distinct-channels sketch (tool_usage_channels): exact below K. */
export const USAGE_KMV_K = 16;
/** Public usage shows only where at least this many distinct channels called in the window. */
export const PUBLIC_USAGE_MIN_CHANNELS = 5;
/** The public usage window, days. */
export const PUBLIC_USAGE_DAYS = 30;
/** Error messages kept in rollups are cut to this many characters. */
export const USAGE_MESSAGE_MAX = 120;

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** One tool's figures for one day (analytics API). */
export const UsageDaySchema = z.object({
  day: Day,
  tool: z.string(),
  calls: z.number().int(),
  ok: z.number().int(),
  error: z.number().int(),
  denied: z.number().int(),
  timeout: z.number().int(),
  invalid: z.number().int(),
  other: z.number().int(),
  verified: z.number().int(),
  changed: z.number().int(),
  unpublished: z.number().int(),
  cloud: z.number().int(),
  channels: z.number().int(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});

/** GET /api/sites/:host/analytics?from=&to=&tool= */
export const SiteAnalyticsSchema = z.object({
  host: z.string(),
  from: Day,
  to: Day,
  tool: z.string().nullable(),
  /** Days each row covers, oldest first, per tool. */
  days: z.array(UsageDaySchema),
  /** Per tool over the whole range. */
  tools: z.array(
    z.object({
      tool: z.string(),
      calls: z.number().int(),
      errorRate: z.number(),
      changed: z.number().int(),
      p50Ms: z.number().nullable(),
      p95Ms: z.number().nullable(),
      /** Distinct channels over the range (exact below USAGE_KMV_K, else estimated). */
      channels: z.number().int(),
    }),
  ),
  /** The commonest error messages over the range, most frequent first. */
  errors: z.array(z.object({ tool: z.string(), message: z.string(), count: z.number().int() })),
});
export type SiteAnalytics = z.infer<typeof SiteAnalyticsSchema>;

/** Public usage of a tool (or a site: its tools together), shown only past PUBLIC_USAGE_MIN_CHANNELS. */
export const PublicUsageSchema = z
  .object({ calls30d: z.number().int(), channels30d: z.number().int() })
  .nullable();
export type PublicUsage = z.infer<typeof PublicUsageSchema>;
