// Types for extension-zip.mjs.
export function zipExtension(
  dir: string | URL,
  outFile: string | URL,
): Promise<{ files: string[]; zip: Uint8Array }>;
