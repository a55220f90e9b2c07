// Driving the runner as the hub does: POST /run with a CloudRunRequest through the Worker's fetch, for a
// page of the test site (site-server.ts), and looking into a site's SiteRunner afterwards.
import { env, SELF } from "cloudflare:test";
import { inject } from "vitest";
import { definitionDigest, type DigestedDefinition } from "../../src/protocol/digest.js";
import type { CloudRunResponse } from "../../src/protocol/index.js";
import { ADD_TOOL } from "./tools.js";

export const RUNNER = "https://cloud.internal";
export const site = () => inject("cloudSite");

export interface RunOptions {
  tool?: string;
  arguments?: Record<string, unknown>;
  definition?: DigestedDefinition;
  timeoutMs?: number;
  via?: "public" | "channel" | "try";
}

/** Runs `tool` (default: add) on `path` of the test site, as the site `siteName`. */
export async function run(
  siteName: string,
  path: string,
  options: RunOptions = {},
): Promise<CloudRunResponse> {
  const { origin } = site();
  const definition = options.definition ?? ADD_TOOL;
  const res = await SELF.fetch(`${RUNNER}/run`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      site: siteName,
      origin,
      page: `${origin}${path}`,
      tool: options.tool ?? definition.name,
      arguments: options.arguments ?? { a: 2, b: 3 },
      digest: await definitionDigest(definition),
      timeoutMs: options.timeoutMs ?? 20_000,
      via: options.via ?? "public",
    }),
  });
  if (res.status !== 200) throw new Error(`runner answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CloudRunResponse;
}

export const runnerOf = (siteName: string) => env.SITE_RUNNER.get(env.SITE_RUNNER.idFromName(siteName));

/** What the site's runner has open now: its context's pages, warm and busy ones, running and queued runs. */
export const inspect = (siteName: string) => runnerOf(siteName).inspect();

/** The paths the test site was asked for on its other origin (which the runner must never reach). */
export async function otherOriginHits(): Promise<string[]> {
  const { origin, other } = site();
  const hits = (await (await fetch(`${origin}/__hits`)).json()) as string[];
  const host = new URL(other).host;
  return hits.filter((h) => h.startsWith(host));
}

/** Whether browsers launched from now on get native WebMCP (the flag); the other tests expect it on. */
export async function setNativeWebMcp(on: boolean): Promise<void> {
  const res = await fetch(`${site().origin}/__native?on=${on ? 1 : 0}`, { method: "POST" });
  if (res.status !== 204) throw new Error(`the test site answered ${res.status}`);
}
