// The one list of esbuild bundles the project ships besides the Worker (which wrangler bundles itself), used
// by scripts/build.mjs (`npm run build`, `npm start`, `npm test`, `npm run deploy`, the e2e setup) and by
// bin/webmcp-hub.mjs (the sidecar's bundles, built on first run in a checkout). An entry that does not exist
// yet is skipped with a one-line note. After them, the downloads made of them (buildDownloads).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { noJsonSchemaFormats } from "./esbuild-plugins.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The dashboard's page scripts: web/client/<name>.ts → web/assets/assets/<name>.js (generated, gitignored),
 * served from the Worker's assets as /assets/<name>.js and loaded by web/pages/layout.tsx (`scripts`; every
 * page loads "common"). Each is one self-contained ES module. One name a line: add a page's script here.
 */
export const DASHBOARD_SCRIPTS = [
  "common", // every page: copy buttons, tabs, the theme switch
  "channels", // /channels and the channel console /channels/:id
  "publish", // /publish
  "tool", // a tool's page: "Try it"
  "add-to-channel", // the tool, site and /sites/:host/add pages: add marketplace tools to a channel
  "site-owner", // a site's page, for its owner: the cloud runs switch
  "analytics", // /sites/:host/analytics: the owner's usage charts and tables
  "account", // /signin and /account: passkeys, sign out, claiming, keys
  "extension-connect", // /extension/connect: hands a fresh pairing code to the browser extension
];

/**
 * The browser extension (extension/, Manifest V3), loadable unpacked from dist/extension/. Its sources sit in
 * one folder per context (background/, content/, page/, ui/), but dist/extension/ stays flat: the manifest,
 * the approval window's URL and every installed copy name the files by their base name, so
 * extension/<folder>/<name>.ts → dist/extension/<name>.js, with its manifest copied next to them.
 */
export const EXTENSION_SCRIPTS = [
  "page/main-world", // MAIN-world content script: the WebMCP registry of src/bridge, no relay
  "content/isolated-world", // ISOLATED-world content script: the private port → the service worker
  "background/service-worker", // background: each tab's tools
  "ui/popup", // the toolbar popup: pairing, this site's decision, shared tabs, settings
  "ui/approval", // the approval window of a tool call (approval.html#<id>)
];

/**
 * The extension's files copied as they are into dist/extension/ (next to manifest.json), by their path in
 * extension/; the pages and their style sheet leave ui/ for the root, as the scripts do.
 */
export const EXTENSION_FILES = [
  "ui/popup.html",
  "ui/approval.html",
  "ui/ui.css",
  "icons/icon-16.png", // made by scripts/make-icons.mjs
  "icons/icon-32.png",
  "icons/icon-48.png",
  "icons/icon-128.png",
];

/** Where an extension file lands in dist/extension/: flat, but for the icons' folder. */
const extensionOut = (path) => path.replace(/^(background|content|page|ui)\//, "");

const browser = { platform: "browser", target: ["es2022"], minify: true };

/** The browser bundles that carry src/bridge's WebMCP registry (/bridge.js, the extension's MAIN world). */
const bridgeBrowser = { ...browser, plugins: [noJsonSchemaFormats] };
const node = { platform: "node", format: "esm", target: ["node20"], packages: "external" };
/**
 * Node bundles that carry their dependencies. `ws` is CommonJS and requires Node's modules, which an ES module
 * can do only through a `require` of its own (the banner); its optional native helpers stay out (it runs
 * without them).
 */
const nodeStandalone = {
  platform: "node",
  format: "esm",
  target: ["node20"],
  minify: true,
  external: ["bufferutil", "utf-8-validate"],
  banner: {
    js: 'import { createRequire as __webmcpHubRequire } from "node:module"; const require = __webmcpHubRequire(import.meta.url);',
  },
};

export const BUNDLES = [
  {
    name: "bridge",
    group: "browser",
    entry: "src/bridge/index.ts",
    outfile: "web/assets/bridge.js",
    options: { ...bridgeBrowser, format: "iife" },
  },
  // The bridge's UI (the widget's face, the approval dialog): imported by /bridge.js from the same hub when
  // first shown, so /bridge.js stays within 15 KiB gzipped (scripts/check-bridge-size.mjs).
  {
    name: "bridge-ui",
    group: "browser",
    entry: "src/bridge/ui.ts",
    outfile: "web/assets/bridge-ui.js",
    options: { ...bridgeBrowser, format: "esm" },
  },
  // The bridge's relay (pairing, the WebSocket, calls): imported by /bridge.js from the same hub when the page
  // is paired or pairs (src/bridge/relay-loader.ts). It gets the page's registry by injection: a copy of these
  // modules in it would be a second registry, so the build fails if one is bundled (`without`).
  {
    name: "bridge-relay",
    group: "browser",
    entry: "src/bridge/relay.ts",
    outfile: "web/assets/bridge-relay.js",
    options: { ...browser, format: "esm" },
    without: ["src/bridge/registry.ts", "src/bridge/model-context.ts", "src/bridge/frames.ts"],
  },
  ...DASHBOARD_SCRIPTS.map((name) => ({
    name: `dashboard:${name}`,
    group: "browser",
    entry: `web/client/${name}.ts`,
    outfile: `web/assets/assets/${name}.js`,
    options: { ...browser, format: "esm" },
  })),
  ...EXTENSION_SCRIPTS.map((path) => ({
    name: `extension:${extensionOut(path)}`,
    group: "extension",
    entry: `extension/${path}.ts`,
    outfile: `dist/extension/${extensionOut(path)}.js`,
    options: {
      ...(path === "page/main-world" ? bridgeBrowser : browser),
      format: "iife",
      // The hub the extension starts with (the popup changes it): WEBMCP_HUB_URL, else `npm start`'s.
      define: {
        "process.env.WEBMCP_HUB_URL": JSON.stringify(process.env.WEBMCP_HUB_URL ?? "http://localhost:8787"),
      },
    },
  })),
  {
    name: "extension:manifest",
    group: "extension",
    entry: "extension/manifest.json",
    outfile: "dist/extension/manifest.json",
    copy: true, // not bundled: copied as it is
  },
  ...EXTENSION_FILES.map((path) => ({
    name: `extension:${extensionOut(path)}`,
    group: "extension",
    entry: `extension/${path}`,
    outfile: `dist/extension/${extensionOut(path)}`,
    copy: true,
  })),
  // The sidecar: the CLI and its scan worker thread (loaded next to it). Dependencies stay in node_modules;
  // the bundle only joins the project's own modules.
  {
    name: "sidecar",
    group: "sidecar",
    entry: "src/sidecar/cli.ts",
    outfile: "dist/sidecar/cli.mjs",
    options: node,
  },
  {
    name: "scan-worker",
    group: "sidecar",
    entry: "src/sidecar/scan-worker.ts",
    outfile: "dist/sidecar/scan-worker.mjs",
    options: node,
  },
  // The same two with every dependency bundled in: the files of the slim npm package the hub serves at
  // /downloads/webmcp-hub-sidecar.tgz (scripts/lib/sidecar-package.mjs packs them), which needs only Node.
  {
    name: "sidecar-package:cli",
    group: "sidecar-package",
    entry: "src/sidecar/cli.ts",
    outfile: "dist/sidecar-package/cli.mjs",
    options: { ...nodeStandalone, banner: { js: `#!/usr/bin/env node\n${nodeStandalone.banner.js}` } },
  },
  {
    name: "sidecar-package:scan-worker",
    group: "sidecar-package",
    entry: "src/sidecar/scan-worker.ts",
    outfile: "dist/sidecar-package/scan-worker.mjs",
    options: nodeStandalone,
  },
];

/**
 * Builds every bundle (of `group`, when given) whose entry exists; resolves with the names built and skipped.
 * Each output is written whole, then renamed into place, so a running server or CLI never reads half a file.
 */
export async function buildBundles({ log = (line) => console.log(line), group } = {}) {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error("esbuild is not installed: run `npm install` in the checkout first.");
  }
  const built = [];
  const skipped = [];
  for (const bundle of BUNDLES) {
    if (group && bundle.group !== group) continue;
    const entry = join(ROOT, bundle.entry);
    if (!existsSync(entry)) {
      log(`build: skipping ${bundle.name} (${bundle.entry} does not exist yet)`);
      skipped.push(bundle.name);
      continue;
    }
    const started = Date.now();
    const out = join(ROOT, bundle.outfile);
    let contents;
    if (bundle.copy) contents = readFileSync(entry);
    else {
      const result = await esbuild.build({
        entryPoints: [entry],
        outfile: out,
        bundle: true,
        legalComments: "none",
        logLevel: "warning",
        write: false,
        metafile: Boolean(bundle.without),
        ...bundle.options,
      });
      const carried = (bundle.without ?? []).filter((path) => path in result.metafile.inputs);
      if (carried.length)
        throw new Error(`${bundle.outfile} must not bundle ${carried.join(", ")} (scripts/lib/bundles.mjs).`);
      contents = result.outputFiles[0].contents;
    }
    mkdirSync(dirname(out), { recursive: true });
    const temp = `${out}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, contents);
      renameSync(temp, out);
    } finally {
      rmSync(temp, { force: true });
    }
    log(`build: ${bundle.entry} → ${bundle.outfile} (${Date.now() - started} ms)`);
    built.push(bundle.name);
  }
  if (!group || group === "pages") {
    await buildPageFragments(esbuild, log);
    built.push("pages");
  }
  built.push(...(await buildDownloads(built, log)));
  return { built, skipped };
}

const dist = (path) => join(ROOT, "dist", path);
/** The downloads the hub serves from its static files (src/worker/routes/downloads.ts stamps each with its origin). */
export const DOWNLOADS_DIR = join(ROOT, "web/assets/downloads");

/**
 * The two downloads, made from bundles built just now (`built`):
 *   - dist/extension/ → dist/webmcp-hub-extension.zip (also for the Chrome Web Store; its hub.json names
 *     WEBMCP_HUB_URL, else `npm start`'s hub) → web/assets/downloads/webmcp-hub-extension.zip
 *   - dist/sidecar-package/ → web/assets/downloads/webmcp-hub-sidecar.tgz (scripts/lib/sidecar-package.mjs)
 */
async function buildDownloads(built, log) {
  const made = [];
  const kB = (bytes) => `${Math.ceil(bytes.length / 1024)} kB`;
  if (built.includes("extension:manifest")) {
    const { zipExtension } = await import("./extension-zip.mjs");
    const zipFile = dist("webmcp-hub-extension.zip");
    const hub = process.env.WEBMCP_HUB_URL ?? "http://localhost:8787";
    const { files, zip } = await zipExtension(dist("extension/"), zipFile, { hub });
    mkdirSync(DOWNLOADS_DIR, { recursive: true });
    copyFileSync(zipFile, join(DOWNLOADS_DIR, "webmcp-hub-extension.zip"));
    log(
      `build: dist/extension/ → dist/webmcp-hub-extension.zip, web/assets/downloads/ (${files.length} files, ${kB(zip)})`,
    );
    made.push("download:extension");
  }
  if (built.includes("sidecar-package:cli") && built.includes("sidecar-package:scan-worker")) {
    const { packSidecar } = await import("./sidecar-package.mjs");
    const tgz = await packSidecar({
      cli: dist("sidecar-package/cli.mjs"),
      scanWorker: dist("sidecar-package/scan-worker.mjs"),
      outFile: join(DOWNLOADS_DIR, "webmcp-hub-sidecar.tgz"),
    });
    log(`build: dist/sidecar-package/ → web/assets/downloads/webmcp-hub-sidecar.tgz (${kB(tgz)})`);
    made.push("download:sidecar");
  }
  return made;
}

/**
 * The static pages' bodies (web/pages/static-pages.tsx says why): web/pages/static-bodies.tsx is bundled for
 * Node into a temporary module, which renders each body with placeholders into
 * web/assets/fragments/<name>.html (generated, gitignored), served to the Worker from its static files.
 */
async function buildPageFragments(esbuild, log) {
  const started = Date.now();
  const tmpDir = join(ROOT, "dist", ".page-bodies");
  mkdirSync(tmpDir, { recursive: true });
  const module = join(tmpDir, `bodies.${process.pid}.mjs`);
  try {
    await esbuild.build({
      entryPoints: [join(ROOT, "web/pages/static-bodies.tsx")],
      outfile: module,
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "warning",
    });
    const { renderFragments } = await import(pathToFileURL(module).href);
    const fragments = await renderFragments();
    const outDir = join(ROOT, "web/assets/fragments");
    mkdirSync(outDir, { recursive: true });
    for (const [name, html] of Object.entries(fragments)) writeFileSync(join(outDir, `${name}.html`), html);
    log(`build: web/pages/static-bodies.tsx → web/assets/fragments/*.html (${Date.now() - started} ms)`);
  } finally {
    rmSync(module, { force: true });
  }
}
