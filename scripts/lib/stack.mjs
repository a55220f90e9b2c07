// The whole local system in one call, shared by `npm start` and the e2e global setup: migrate the local
// D1 database, serve the demo site, start `wrangler dev`, and publish the demo site through the real API.
import { startDemoSite } from "./demo-site.mjs";
import { seedDemoSite } from "./seed.mjs";
import { applyMigrations, startWranglerDev } from "./wrangler.mjs";

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
}) {
  log("Applying D1 migrations to the local database…");
  await applyMigrations({ persistTo, onLine: onWranglerLine });

  log(`Starting the demo site on http://${host}:${demoPort}…`);
  const demo = await startDemoSite({ host, port: demoPort });
  const stops = [() => demo.close()];
  const stopAll = async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
  };
  try {
    log(`Starting wrangler dev on http://${host}:${port}…`);
    const hub = await startWranglerDev({
      host,
      port,
      persistTo,
      inspectorPort,
      onLine: onWranglerLine,
      vars,
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
