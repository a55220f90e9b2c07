// What test/e2e/global-setup.ts provides to the e2e tests (read them with `inject`).
declare module "vitest" {
  export interface ProvidedContext {
    /** The hub under `wrangler dev`, like `http://127.0.0.1:41234` (no trailing slash). */
    hubUrl: string;
    /** The demo site's origin, like `http://127.0.0.1:41235`. */
    demoOrigin: string;
    /** The demo site's registry key (host:port), verified and published on the hub. */
    demoHost: string;
    /** The demo site's publisher key (for its owner's switches, like cloud runs off and on). */
    demoPublisherKey: string;
    /** A certificate for localhost/127.0.0.1 signed by a CA the e2e hub trusts (PEM), for https test servers. */
    localhostTls: { cert: string; key: string };
    /** wrangler dev's --persist-to dir (its local D1), for tests that fill tables directly. */
    persistTo: string;
  }
}

export {};
