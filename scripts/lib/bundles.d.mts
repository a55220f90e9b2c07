// Types for bundles.mjs.
export const BUNDLES: ReadonlyArray<{ name: string; entry: string; outfile: string }>;
export function buildBundles(options?: {
  log?: (line: string) => void;
}): Promise<{ built: string[]; skipped: string[] }>;
