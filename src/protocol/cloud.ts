// Cloud runs: the hub asks its runner Worker (src/cloud, bound to the hub as the service CLOUD) to run a
// published tool in Cloudflare's browser, on the tool's published page, with no user signed in. One call of
// the runner's RPC method `run` per tool call (CloudRunner below; also POST https://cloud.internal/run with the
// same JSON, for tools and tests); the runner routes it to the site's SiteRunner Durable Object. The hub has already checked everything it knows from D1 (verified, listed, cloud allowed, arguments
// valid against the published inputSchema); the runner checks what only the page can show.
import * as z from "zod";
import { LIMITS } from "./limits.js";

export const CloudRunRequestSchema = z
  .object({
    /** The site's host as the registry keys it (`shop.example.com`, `localhost:8788`). */
    site: z.string().min(1).max(261),
    /** The site's origin: the only origin the page may load or navigate to. */
    origin: z.string().url(),
    /** The tool's first published page, absolute, on `origin`. */
    page: z.string().url(),
    /** The tool's published name (as the page registers it). */
    tool: z.string().min(1).max(128),
    arguments: z.record(z.string(), z.unknown()),
    /** The published definition digest (protocol/digest.ts): a live tool with another digest is `changed`. */
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    /** How long the whole run may take: page load, registration and the call. */
    timeoutMs: z.number().int().min(1).max(LIMITS.callTimeoutMaxMs),
    /** Who asked, for the runner's own counts: the public endpoint, a channel, or a page's Try it. */
    via: z.enum(["public", "channel", "try"]),
  })
  .strict();
export type CloudRunRequest = z.infer<typeof CloudRunRequestSchema>;

/** Why a run produced no result of the tool's own. */
export const CloudFailureSchema = z.enum([
  "disabled", // cloud runs are off (hub-wide or for this site)
  "budget", // the day's browser time is spent (site or total)
  "busy", // the site's queue is full
  "load", // the page did not load (status, network, time)
  "navigation", // the page or a redirect went off the site's origin
  "unregistered", // the page never registered the tool in time
  "changed", // the live definition differs from the published one
  "timeout", // the tool did not answer in time
  "too_large", // the result exceeds the frame limit
  "crashed", // the page or the browser went away mid-run
]);
export type CloudFailure = z.infer<typeof CloudFailureSchema>;

export const CloudRunResponseSchema = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    /** The tool's CallToolResult as the page returned it (content, structuredContent, isError). */
    result: z.record(z.string(), z.unknown()),
    /** Browser time this run used, counted against the budgets. */
    browserMs: z.number().int().nonnegative(),
    /** Whether a warm page served it (for the benchmark and the audit). */
    warm: z.boolean(),
  }),
  z.object({
    ok: z.literal(false),
    failure: CloudFailureSchema,
    /** A message an LLM and a person can act on; never page content beyond a short, cleaned excerpt. */
    message: z.string().max(2000),
    browserMs: z.number().int().nonnegative(),
  }),
]);
export type CloudRunResponse = z.infer<typeof CloudRunResponseSchema>;

/**
 * The runner's entrypoint as the hub calls it over the service binding (Workers RPC: no HTTP request, JSON or
 * second parse on the way, measured at about a millisecond of a warm call). The runner validates `request`
 * with CloudRunRequestSchema; the hub validates the answer with CloudRunResponseSchema.
 */
export interface CloudRunner {
  run(request: CloudRunRequest): Promise<CloudRunResponse>;
}
