// Bindings that exist only in the Worker test pool (see vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    FAKE_ORIGINS_URL: string;
    /** wrangler.toml's rate limits, {NAME: {limit, period}} (vitest.config.ts). */
    DEPLOYED_RATE_LIMITS: string;
    /** A limiter configured as AGENT_CALLS is deployed (the pool's AGENT_CALLS is raised for other tests). */
    AGENT_CALLS_AS_DEPLOYED: RateLimit;
    FUZZ_RUNS: string;
  }
}
