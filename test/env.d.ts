// Bindings that exist only in the Worker test pool (see vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    FAKE_ORIGINS_URL: string;
  }
}
