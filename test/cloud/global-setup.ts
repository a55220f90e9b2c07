// The cloud tests' setup (vitest project "cloud"): the capture script built, a fresh wrangler cache whose
// "Chrome for Testing" is the system's Chromium (scripts/lib/browser-cache.mjs; XDG_CACHE_HOME is where the
// pool's miniflare looks), and the test site served. Afterwards every browser started from that cache is
// killed and the cache removed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  CLOUD_BROWSER_FLAGS,
  prepareBrowserCache,
  writeBrowserFlags,
} from "../../scripts/lib/browser-cache.mjs";
import { buildCaptureScript } from "../../scripts/lib/capture-script.mjs";
import { startCloudSite } from "./site-server.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildCaptureScript({ log: () => {} });
  const cacheHome = await mkdtemp(join(tmpdir(), "webmcp-hub-cloud-"));
  const cache = prepareBrowserCache({ cacheHome });
  const previous = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cacheHome;
  const site = await startCloudSite({
    setNativeWebMcp: (on) =>
      writeBrowserFlags(
        cacheHome,
        on ? CLOUD_BROWSER_FLAGS : CLOUD_BROWSER_FLAGS.filter((f) => !f.includes("WebMCP")),
      ),
  });
  project.provide("cloudSite", { origin: site.origin, other: site.other });
  return async () => {
    await site.close();
    cache.cleanup();
    if (previous === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previous;
    await rm(cacheHome, { recursive: true, force: true });
  };
}
