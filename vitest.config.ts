// One vitest config, three projects: Worker tests in workerd (Cloudflare's vitest plugin, D1 migrations
// from migrations/), Node tests (sidecar, bridge units), and browser e2e tests (Chromium against wrangler dev).
import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { startFakeOrigins } from "./test/support/fake-origins.js";

const migrations = await readD1Migrations("./migrations");
const fake = await startFakeOrigins();

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: migrations,
                FAKE_ORIGINS_URL: fake.controlUrl,
                DOH_URL: fake.dohUrl,
                ALLOW_PRIVATE_ORIGINS: "true",
              },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          setupFiles: ["./test/worker/apply-migrations.ts"],
        },
      },
      {
        test: {
          name: "node",
          include: ["test/sidecar/**/*.test.ts", "test/bridge/**/*.test.ts"],
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
