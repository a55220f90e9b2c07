// Types for stack.mjs.
import type { DemoSite } from "./demo-site.mjs";
import type { LineHandler } from "./processes.mjs";
import type { SeededSite } from "./seed.mjs";
import type { WranglerDev } from "./wrangler.mjs";

export interface StackUrls {
  dashboard: string;
  demoSite: string;
  demoSitePage: string;
  registryMcp: string;
}

export interface Stack {
  hub: WranglerDev;
  demo: DemoSite;
  seeded: SeededSite;
  urls: StackUrls;
  stop(): Promise<void>;
}

export function startStack(options: {
  host?: string;
  port: number;
  demoPort: number;
  persistTo?: string;
  inspectorPort?: number;
  log?: (message: string) => void;
  onWranglerLine?: LineHandler;
  /** Extra `--var NAME:value` for this run (e.g. RATE_LIMIT_SCALE for a bench). */
  vars?: Record<string, string>;
  /** The XDG_CACHE_HOME of the runner's local browser (default: <persistTo or .wrangler>/cloud-browser). */
  browserCache?: string;
}): Promise<Stack>;
