// `npm run build` (also run by `npm start`, `npm test`, `npm run deploy` and the e2e setup). Bundles with
// esbuild every entry of the one list in scripts/lib/bundles.mjs:
//   - src/bridge/index.ts     → web/assets/bridge.js            (one browser file, served at /bridge.js)
//   - web/client/<name>.ts    → web/assets/assets/<name>.js     (the dashboard's page scripts, /assets/<name>.js)
//   - extension/<name>.ts     → dist/extension/<name>.js        (the browser extension, with its manifest.json)
//   - src/sidecar/cli.ts      → dist/sidecar/cli.mjs            (the Node sidecar that bin/webmcp-hub.mjs runs)
//   - src/sidecar/scan-worker.ts → dist/sidecar/scan-worker.mjs (its scan worker thread)
// A bundle whose entry does not exist yet is skipped with a one-line note. The Worker itself is bundled by
// wrangler, not here.
// After the extension's bundles, dist/extension/ is zipped into dist/webmcp-hub-extension.zip for the Chrome
// Web Store (scripts/lib/extension-zip.mjs).
import { buildBundles } from "./lib/bundles.mjs";
import { zipExtension } from "./lib/extension-zip.mjs";

const EXTENSION_DIR = new URL("../dist/extension/", import.meta.url);
const EXTENSION_ZIP = new URL("../dist/webmcp-hub-extension.zip", import.meta.url);

async function build() {
  const { built } = await buildBundles();
  if (!built.includes("extension:manifest")) return;
  const { files, zip } = await zipExtension(EXTENSION_DIR, EXTENSION_ZIP);
  console.log(
    `build: dist/extension/ → dist/webmcp-hub-extension.zip (${files.length} files, ${Math.ceil(zip.length / 1024)} kB)`,
  );
}

build().catch((e) => {
  console.error(`build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
