// The whole local system in one call, shared by `npm start` and the e2e global setup: migrate the local
// D1 database, serve the demo site, start `wrangler dev` with the hub and its cloud runner
// (wrangler.cloud.toml; its browser is the system's Chromium through a prepared wrangler cache,
// browser-cache.mjs), and publish the demo site through the real API. Stopping it also kills the browsers
// the runner started, which wrangler does not reliably do; so does this process exiting without stop().
import { join } from "node:path";
import { cleanupBrowsers, prepareBrowserCache } from "./browser-cache.mjs";
import { buildCaptureScript } from "./capture-script.mjs";
import { startDemoSite } from "./demo-site.mjs";
import { seedDemoSite } from "./seed.mjs";
import { applyMigrations, ROOT, startWranglerDev } from "./wrangler.mjs";

/**
 * Starts the stack. On any failure, whatever already started is stopped before the error propagates.
 * `log` receives progress lines; `onWranglerLine` every line wrangler prints.
 */
export async function startStack({
  host = "127.0.0.1",
  port,
  demoPort,
  persistTo,
  inspectorPort,
  log = () => {},
  onWranglerLine = () => {},
  vars = {},
  browserCache = join(persistTo ?? join(ROOT, ".wrangler"), "cloud-browser"),
}) {
  log("Applying D1 migrations to the local database…");
  await applyMigrations({ persistTo, onLine: onWranglerLine });
  await buildCaptureScript({ log: () => {} });
  // Without Chromium the hub still starts; only its cloud runs fail (the runner cannot launch a browser).
  let cache = { env: {} };
  try {
    cache = prepareBrowserCache({ cacheHome: browserCache });
  } catch (e) {
    log(`Cloud runs will fail locally: ${e instanceof Error ? e.message : String(e)}`);
  }
  const killBrowsers = () => cleanupBrowsers(browserCache);
  process.once("exit", killBrowsers);

  log(`Starting the demo site on http://${host}:${demoPort}…`);
  const demo = await startDemoSite({ host, port: demoPort });
  const stops = [() => demo.close()];
  const stopAll = async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
    killBrowsers();
    process.off("exit", killBrowsers);
  };
  try {
    log(`Starting wrangler dev on http://${host}:${port} (the hub and its cloud runner)…`);
    const hub = await startWranglerDev({
      host,
      port,
      persistTo,
      inspectorPort,
      onLine: onWranglerLine,
      vars,
      configs: ["wrangler.cloud.toml"],
      env: cache.env,
    });
    stops.push(() => hub.stop());

    log(`Publishing the demo site's manifest through ${hub.url}/api/sites…`);
    const seeded = await seedDemoSite({ hubUrl: hub.url, demo });
    return {
      hub,
      demo,
      seeded,
      urls: {
        dashboard: `${hub.url}/`,
        demoSite: `${demo.origin}/`,
        demoSitePage: `${hub.url}/sites/${encodeURIComponent(seeded.host)}`,
        registryMcp: `${hub.url}/mcp/registry`,
      },
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
