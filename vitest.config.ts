// One vitest config, its projects: Worker tests in workerd (Cloudflare's Workers pool, D1 migrations
// from migrations/), the cloud runner in workerd with a real browser, Node tests (sidecar, bridge units), and
// browser e2e tests (Chromium against wrangler dev).
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { startFakeOrigins } from "./test/support/fake-origins.js";
import { cimdOutbound } from "./test/support/cimd-outbound.js";

const migrations = await readD1Migrations("./migrations");
const deployedLimits = deployedRateLimits();
const fake = await startFakeOrigins();

/**
 * The Workers runtime pool: wrangler.toml's bindings, plus the test-only ones. AGENT_CALLS is raised: tests
 * (the 1,000-call chaos test, fuzzing) make calls at a rate no agent would; test/worker/rate-limits.test.ts runs
 * the app on AGENT_CALLS_AS_DEPLOYED instead. ANON_WRITES stays as deployed (requests without
 * CF-Connecting-IP are not counted per client).
 */
function workersPool(extra: { outboundService?: typeof cimdOutbound } = {}) {
  return cloudflareTest({
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      ...extra,
      // The hub's CLOUD service (wrangler.toml) is the cloud runner Worker, which this pool does not run: the
      // binding is a stand-in whose `run` throws as an unreachable runner's does, so a cloud run that passes
      // the hub's checks ends "not available" here. test/e2e/cloud.test.ts runs the real runner and browser.
      workers: [
        {
          name: "cloud-runner-absent",
          modules: true,
          script: `import { WorkerEntrypoint } from "cloudflare:workers";
            export default class extends WorkerEntrypoint {
              run() { throw new Error("cloud runs are not available in the Worker tests"); }
              fetch() { return new Response("cloud runs are not available in the Worker tests", { status: 503 }); }
            }`,
          compatibilityDate: "2026-04-20",
        },
      ],
      serviceBindings: { CLOUD: "cloud-runner-absent" },
      ratelimits: {
        // Each binding is its own namespace here (miniflare 4 keys them by name).
        AGENT_CALLS: { simple: { limit: 1_000_000, period: 10 } },
        AGENT_CALLS_AS_DEPLOYED: { simple: deployedLimits.AGENT_CALLS! },
      },
      bindings: {
        TEST_MIGRATIONS: migrations,
        FAKE_ORIGINS_URL: fake.controlUrl,
        DOH_URL: fake.dohUrl,
        ALLOW_PRIVATE_ORIGINS: "true",
        DEPLOYED_RATE_LIMITS: JSON.stringify(deployedLimits),
        // Cases per fuzz property (test/worker/fuzz-*.test.ts); `npm run fuzz` raises it.
        FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
      },
    },
  });
}

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [workersPool()],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          // Their own project: they need the outbound hook below.
          exclude: ["test/worker/oauth*.test.ts"],
          setupFiles: ["./test/worker/apply-migrations.ts"],
          // Room for a loaded machine (vitest's default is 5 s); a test waits on events, not on this.
          testTimeout: 30_000,
        },
      },
      {
        // OAuth (src/worker/oauth): like "worker", plus an outbound hook that serves Client ID Metadata
        // Documents at https://<port>.cimd.test/… from the fake origin on that loopback port (the library
        // fetches only https client ids; see test/support/cimd-outbound.ts).
        plugins: [workersPool({ outboundService: cimdOutbound })],
        test: {
          name: "worker-oauth",
          include: ["test/worker/oauth*.test.ts"],
          setupFiles: ["./test/worker/apply-migrations.ts"],
          testTimeout: 30_000,
        },
      },
      {
        // The cloud runner (src/cloud, its own Worker: wrangler.cloud.toml) in workerd with its [browser]
        // binding, miniflare's local Browser Rendering; its Chromium is the system's, through the wrangler cache
        // the global setup prepares (scripts/lib/browser-cache.mjs), which also serves the test site.
        // Its D1 (the hub's database, for the usage rollups) gets migrations/ as the Worker tests' does.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.cloud.toml" },
            miniflare: { bindings: { TEST_MIGRATIONS: migrations } },
          }),
        ],
        test: {
          name: "cloud",
          include: ["test/cloud/**/*.test.ts"],
          setupFiles: ["./test/worker/apply-migrations.ts"],
          globalSetup: ["./test/cloud/global-setup.ts"],
          testTimeout: 30_000,
          // One file at a time: browsers are heavy on a 2-core machine, and polyfill.test.ts changes the flags
          // of the browsers launched while it starts.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "node",
          include: [
            "test/sidecar/**/*.test.ts",
            "test/bridge/**/*.test.ts",
            "test/web/**/*.test.ts",
            "test/arch/**/*.test.ts",
          ],
          environment: "node",
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

/** wrangler.toml's [[ratelimits]] (name → its one-line `simple` table), so the tests know the deployed limits. */
function deployedRateLimits(): Record<string, { limit: number; period: 10 | 60 }> {
  const toml = readFileSync(new URL("./wrangler.toml", import.meta.url), "utf8");
  const found: Record<string, { limit: number; period: 10 | 60 }> = {};
  const block =
    /\[\[ratelimits\]\]\s*name\s*=\s*"(\w+)"[^[]*?simple\s*=\s*\{\s*limit\s*=\s*(\d+),\s*period\s*=\s*(10|60)\s*\}/g;
  for (const m of toml.matchAll(block))
    found[m[1]!] = { limit: Number(m[2]), period: Number(m[3]) as 10 | 60 };
  if (!found.AGENT_CALLS || !found.ANON_WRITES)
    throw new Error(
      "wrangler.toml: expected [[ratelimits]] ANON_WRITES and AGENT_CALLS with `simple = { limit, period }`",
    );
  return found;
}
