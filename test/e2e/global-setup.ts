// Starts the real system once for the e2e tests: D1 migrations into a fresh temporary --persist-to dir,
// `wrangler dev` and the demo site on free ports, and the demo site published through the registry API.
// Tests read the URLs with `inject(...)`; the returned teardown stops everything and removes the dir.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildBundles } from "../../scripts/lib/bundles.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { startStack } from "../../scripts/lib/stack.mjs";
import { ROOT } from "../../scripts/lib/wrangler.mjs";
import { findChromium } from "./browser.js";
import { createTestTls } from "./test-tls.js";

/** Three distinct free ports: the hub, the demo site, wrangler's inspector. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  findChromium(); // Fail before the slow part when the browser is missing.
  await buildBundles({ log: () => {} });

  const persistTo = await mkdtemp(join(tmpdir(), "webmcp-hub-e2e-"));
  const wranglerLog: string[] = [];
  const [port, demoPort, inspectorPort] = (await distinctFreePorts(3)) as [number, number, number];
  const saveLog = async () => {
    const dir = join(ROOT, "test-results");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "e2e-wrangler.log"), wranglerLog.join("\n") + "\n");
  };

  // A throwaway CA that `wrangler dev` trusts (miniflare adds NODE_EXTRA_CA_CERTS to workerd's outbound trust
  // store): test/e2e/oauth.test.ts serves a Client ID Metadata Document over https on localhost with it.
  const tls = createTestTls(persistTo);
  process.env.NODE_EXTRA_CA_CERTS = tls.caFile;

  let stack;
  try {
    stack = await startStack({
      port,
      demoPort,
      inspectorPort,
      persistTo,
      onWranglerLine: (line) => wranglerLog.push(line),
      // The whole run comes from one address, and creates more channels (and pairs more tabs) in a minute than
      // the 30 a client may (ANON_WRITES): four times the limit passes. The limits themselves are tested in
      // test/worker/rate-limits.test.ts.
      vars: { RATE_LIMIT_SCALE: "4" },
    });
  } catch (e) {
    await saveLog();
    await rm(persistTo, { recursive: true, force: true });
    throw e;
  }

  project.provide("hubUrl", stack.hub.url);
  project.provide("demoOrigin", stack.demo.origin);
  project.provide("demoHost", stack.seeded.host);
  project.provide("demoPublisherKey", stack.seeded.publisherKey);
  project.provide("localhostTls", { cert: tls.cert, key: tls.key });
  project.provide("persistTo", persistTo);

  return async () => {
    await stack.stop();
    await saveLog();
    await rm(persistTo, { recursive: true, force: true });
  };
}
