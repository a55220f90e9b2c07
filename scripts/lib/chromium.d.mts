// Types for chromium.mjs (plain JS for the scripts and benches; test/e2e/browser.ts imports it).
export declare const CHROMIUM_ARGS: string[];
export declare function chromiumOnPath(): string | undefined;
export declare function requireChromium(who: string): string;
