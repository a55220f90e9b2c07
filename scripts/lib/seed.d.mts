// Types for seed.mjs.
import type { DemoSite } from "./demo-site.mjs";

export interface SeededSite {
  host: string;
  origin: string;
  /** Shown once by the hub; every seed issues a new one and revokes the previous. */
  publisherKey: string;
  version: number;
  toolCount: number;
  /** True when the hub already had this exact manifest as the current version. */
  unchanged: boolean;
}

export function seedDemoSite(options: {
  hubUrl: string;
  demo: Pick<DemoSite, "origin" | "setVerifyToken" | "manifest">;
}): Promise<SeededSite>;
