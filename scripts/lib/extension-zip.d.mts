// Types for extension-zip.mjs.
export const HUB_FILE: string;
export function zipExtension(
  dir: string | URL,
  outFile: string | URL,
  options?: { hub?: string },
): Promise<{ files: string[]; zip: Uint8Array }>;
