// Types for browser-cache.mjs.
export const CLOUD_BROWSER_FLAGS: string[];
export function miniflareBrowserVersions(): string[];
export interface BrowserCache {
  cacheHome: string;
  env: { XDG_CACHE_HOME: string };
  /** Kills the browsers started from this cache; returns how many process groups it killed. */
  cleanup(): number;
}
export function prepareBrowserCache(options: {
  cacheHome: string;
  chromium?: string;
  flags?: string[];
}): BrowserCache;
export function cleanupBrowsers(cacheHome: string): number;
export function writeBrowserFlags(cacheHome: string, flags: string[]): void;
