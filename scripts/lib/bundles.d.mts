// Types for bundles.mjs.
export const BUNDLES: ReadonlyArray<{ name: string; entry: string; outfile: string }>;
export function buildBundles(options?: {
  log?: (line: string) => void;
  /** Only this group's bundles: "browser", "extension" or "sidecar". */
  group?: string;
}): Promise<{ built: string[]; skipped: string[] }>;
