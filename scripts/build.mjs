// `npm run build` (also run by `npm start`, `npm test`, `npm run deploy` and the e2e setup). Bundles with
// esbuild, as listed in scripts/lib/bundles.mjs:
//   - src/bridge/index.ts → web/assets/bridge.js  (one browser file, served from the Worker's assets at /bridge.js)
//   - src/sidecar/cli.ts  → dist/sidecar/cli.mjs   (the Node sidecar that bin/webmcp-hub.mjs runs)
// A bundle whose entry does not exist yet is skipped with a one-line note, so the build succeeds before
// the bridge and the sidecar are written. The Worker itself is bundled by wrangler, not here.
import { buildBundles } from "./lib/bundles.mjs";

buildBundles().catch((e) => {
  console.error(`build failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
