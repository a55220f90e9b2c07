// The bench's local D1: migrated by wrangler, seeded once (a marker records what was seeded) and copied
// afresh for every run, so the publishes a run makes never leak into the next run's numbers.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { generateSeed, writeSeedSql } from "./seed.mjs";
import { run, WRANGLER_ENV } from "./harness.mjs";

/** The D1 binding's id in the bench config: wrangler names the local SQLite file after it. */
function databaseId(config) {
  const match = /database_id\s*=\s*"([^"]+)"/.exec(readFileSync(config, "utf8"));
  if (!match) throw new Error(`${config} has no d1 database_id`);
  return match[1];
}

/**
 * Loads statements into the local D1 the way `wrangler d1 execute --local --file` does (Miniflare's D1
 * `batch`, wrangler's own Miniflare), minus wrangler's SQL splitter, which walks the file one character
 * at a time: 62 s of the 74 s `wrangler d1 execute` took on this 111 MB seed. Our statements are split already.
 */
async function loadStatements(root, persistTo, config, statements) {
  const requireFromWrangler = createRequire(join(root, "node_modules/wrangler/package.json"));
  const { Miniflare } = await import(requireFromWrangler.resolve("miniflare"));
  const mf = new Miniflare({
    modules: true,
    script: "",
    d1Persist: join(persistTo, "v3", "d1"),
    d1Databases: { DATABASE: databaseId(config) },
  });
  try {
    const db = await mf.getD1Database("DATABASE");
    // Each batch is one transaction; a few hundred statements keep each request to some 10 MB.
    for (let i = 0; i < statements.length; i += 200) {
      await db.batch(statements.slice(i, i + 200).map((s) => db.prepare(s)));
    }
  } finally {
    await mf.dispose();
  }
}

/** Migration 0003's backfill statement (the INSERT INTO tool_terms … SELECT over the current tools). */
function termsBackfill(root) {
  const migration = readdirSync(join(root, "migrations")).find((f) => f.startsWith("0003_"));
  const statement = readFileSync(join(root, "migrations", migration), "utf8")
    .split("--> statement-breakpoint")
    .find((s) => s.includes("INSERT INTO `tool_terms`"));
  if (!statement) throw new Error(`no tool_terms backfill in migrations/${migration}`);
  return statement;
}

/** What the seed depends on: if any of it changes, the database is seeded again. */
function seedKey(root, options) {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(options));
  for (const file of ["bench/registry/seed.mjs", "bench/registry/vocabulary.mjs"])
    hash.update(readFileSync(join(root, file)));
  const migrations = join(root, "migrations");
  for (const file of readdirSync(migrations)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    hash.update(file).update(readFileSync(join(migrations, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Makes sure `dataDir/seed` holds a migrated, seeded database for `options`, then copies it to
 * `dataDir/run` and returns that directory (for `wrangler dev --persist-to`) with the seed's stats.
 */
export async function prepareDatabase({ root, dataDir, config, options, log }) {
  const seedDir = join(dataDir, "seed");
  const marker = join(seedDir, "seeded.json");
  const key = seedKey(root, options);
  let stats;
  if (existsSync(marker) && JSON.parse(readFileSync(marker, "utf8")).key === key) {
    stats = JSON.parse(readFileSync(marker, "utf8"));
    log(`reusing the seeded database in ${seedDir} (${stats.tools} tools)`);
  } else {
    rmSync(seedDir, { recursive: true, force: true });
    mkdirSync(seedDir, { recursive: true });
    let t = performance.now();
    await run(
      "npx",
      ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", seedDir, "-c", config],
      {
        cwd: root,
        env: { ...process.env, ...WRANGLER_ENV },
      },
    );
    log(`migrations applied (${ms(t)})`);
    t = performance.now();
    const seed = generateSeed(options);
    await writeSeedSql(join(dataDir, "seed.sql"), seed.statements);
    log(
      `generated ${seed.tools} tools on ${seed.sites} sites: ${seed.statements.length} statements (${ms(t)})`,
    );
    t = performance.now();
    await loadStatements(root, seedDir, config, seed.statements);
    // The seed writes no tool_terms: migration 0003's backfill derives them from the seeded tools, exactly as
    // publish would for this ASCII vocabulary (test/worker/search-terms.test.ts checks that equivalence, and
    // the bench Worker's /bench/check-words checks a sample of this database against toolTerms()).
    await loadStatements(root, seedDir, config, [termsBackfill(root)]);
    stats = { key, sites: seed.sites, tools: seed.tools, seededIn: ms(t) };
    log(`seeded in ${stats.seededIn}`);
    writeFileSync(marker, JSON.stringify(stats, null, 2));
  }
  const runDir = join(dataDir, "run");
  rmSync(runDir, { recursive: true, force: true });
  cpSync(seedDir, runDir, { recursive: true });
  return { persistTo: runDir, stats };
}

function ms(since) {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
