// What test/e2e/global-setup.ts provides to the e2e tests (read them with `inject`).
declare module "vitest" {
  export interface ProvidedContext {
    /** The hub under `wrangler dev`, like `http://127.0.0.1:41234` (no trailing slash). */
    hubUrl: string;
    /** The demo site's origin, like `http://127.0.0.1:41235`. */
    demoOrigin: string;
    /** The demo site's registry key (host:port), verified and published on the hub. */
    demoHost: string;
  }
}

export {};
