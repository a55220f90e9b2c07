// The one list of bundles (scripts/lib/bundles.mjs) against what the sidecar really loads: `webmcp-hub` (bin/
// webmcp-hub.mjs) runs the "sidecar" bundle and, in a checkout, rebuilds the whole "sidecar" group when any
// of its outputs is missing or older than the sources; the CLI starts its scan threads from the file next
// to it (scan-pool.ts DEFAULT_WORKER_URL). So the group must hold exactly those two files, and a stale scan
// worker alone must make the real command rebuild.
import { execFileSync } from "node:child_process";
import { statSync, utimesSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { BUNDLES } from "../../scripts/lib/bundles.mjs";
import { DEFAULT_WORKER_URL } from "../../src/sidecar/scan-pool.js";
import { BIN, ensureBuilt, REPO } from "./helpers.js";

const sidecar = BUNDLES.filter((b) => b.group === "sidecar");
const cli = sidecar.find((b) => b.name === "sidecar");

beforeAll(() => ensureBuilt());

describe("the sidecar's bundles", () => {
  it("are the CLI and the scan worker it loads from its own directory", () => {
    expect(cli).toMatchObject({ entry: "src/sidecar/cli.ts", outfile: "dist/sidecar/cli.mjs" });
    const worker = join(dirname(cli!.outfile), basename(fileURLToPath(DEFAULT_WORKER_URL)));
    expect(sidecar.map((b) => b.outfile).sort()).toEqual([cli!.outfile, worker].sort());
    expect(sidecar.find((b) => b.outfile === worker)?.entry).toBe("src/sidecar/scan-worker.ts");
  });

  it("are all rebuilt by the command when only the scan worker is stale", () => {
    const worker = join(REPO, sidecar.find((b) => b !== cli)!.outfile);
    const old = new Date("2020-01-01T00:00:00Z");
    utimesSync(worker, old, old);
    const output = execFileSync(process.execPath, [BIN, "--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output.trim()).toMatch(/\d+\.\d+\.\d+/);
    expect(statSync(worker).mtimeMs).toBeGreaterThan(old.getTime());
  });
});
