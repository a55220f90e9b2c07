// Applies migrations/ (the same files wrangler applies) to the test D1 database before the tests run.
import { applyD1Migrations, env } from "cloudflare:test";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
