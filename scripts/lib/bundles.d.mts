// Types for bundles.mjs.
export const BUNDLES: ReadonlyArray<{
  name: string;
  /** "browser", "extension" or "sidecar" (bin/webmcp-hub.mjs builds and checks the "sidecar" group). */
  group: string;
  entry: string;
  outfile: string;
  copy?: boolean;
}>;
export function buildBundles(options?: {
  log?: (line: string) => void;
  /** Only this group's bundles: "browser", "extension" or "sidecar". */
  group?: string;
}): Promise<{ built: string[]; skipped: string[] }>;
