// `npm run build` (also run by `npm start`, `npm test`, `npm run deploy`; the e2e setup calls buildBundles
// itself). Bundles with esbuild every entry of the one list in scripts/lib/bundles.mjs:
//   - src/bridge/index.ts     → web/assets/bridge.js            (one browser file, served at /bridge.js)
//   - web/client/<name>.ts    → web/assets/assets/<name>.js     (the dashboard's page scripts, /assets/<name>.js)
//   - extension/<folder>/<name>.ts → dist/extension/<name>.js  (the browser extension, with its manifest.json)
//   - src/sidecar/cli.ts      → dist/sidecar/cli.mjs            (the Node sidecar that bin/webmcp-hub.mjs runs)
//   - src/sidecar/scan-worker.ts → dist/sidecar/scan-worker.mjs (its scan worker thread)
//   - the same two with their dependencies → dist/sidecar-package/ (the downloadable sidecar's files)
// A bundle whose entry does not exist yet is skipped with a one-line note. The Workers themselves are bundled by
// wrangler, not here; but the cloud runner's capture script (src/cloud/page/capture.ts), which the runner
// injects into a site's page, is built here into a module it imports (scripts/lib/capture-script.mjs).
// Then the downloads the hub serves, each stamped with the hub's origin when served
// (src/worker/routes/downloads.ts): dist/extension/ zipped into dist/webmcp-hub-extension.zip (also for the
// Chrome Web Store) and web/assets/downloads/webmcp-hub-extension.zip; dist/sidecar-package/ packed into
// web/assets/downloads/webmcp-hub-sidecar.tgz (scripts/lib/sidecar-package.mjs).
import { buildBundles } from "./lib/bundles.mjs";
import { buildCaptureScript } from "./lib/capture-script.mjs";

Promise.all([buildBundles(), buildCaptureScript()]).catch((e) => {
  console.error(`build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
