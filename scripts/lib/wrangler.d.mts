// Types for wrangler.mjs.
import type { LineHandler, ProcessExit } from "./processes.mjs";

export const ROOT: string;

export function applyMigrations(options?: { persistTo?: string; onLine?: LineHandler }): Promise<void>;

export interface WranglerDev {
  /** `http://host:port`, no trailing slash. */
  url: string;
  exited: Promise<ProcessExit>;
  stop(graceMs?: number): Promise<void>;
  /** The last lines wrangler printed. */
  output: string[];
}

export function startWranglerDev(options: {
  host?: string;
  port: number;
  persistTo?: string;
  inspectorPort?: number;
  onLine?: LineHandler;
  readyTimeoutMs?: number;
  /** Extra `--var NAME:value` for this run (e.g. RATE_LIMIT_SCALE for a bench). */
  vars?: Record<string, string>;
  /** More Workers' configs to run in the same `wrangler dev` (after wrangler.toml), e.g. wrangler.cloud.toml. */
  configs?: string[];
  /** Extra environment for wrangler (e.g. XDG_CACHE_HOME for the local browser). */
  env?: Record<string, string>;
}): Promise<WranglerDev>;
