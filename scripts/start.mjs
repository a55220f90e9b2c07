// `npm start`: the whole system on this machine. Migrates the local D1 database, builds the browser and
// sidecar bundles, starts `wrangler dev` on localhost:${PORT:-8787} and the demo site on PORT+1 (its pages
// embed this hub's /bridge.js), publishes the demo site through the real registry API, opens the demo
// channel (the one kept in .wrangler/ from the last start, else a new one) with a fresh pairing code, and
// prints where everything is (scripts/lib/start-banner.ts). Ctrl-C stops it all.
//
// One host name throughout, localhost: passkeys need a host name (not an IP address), and a browser keeps
// channels per origin, so a URL printed with 127.0.0.1 would open a console that knows none of them.
import { join, relative } from "node:path";
import { buildBundles } from "./lib/bundles.mjs";
import { isPortFree, parsePort } from "./lib/ports.mjs";
import { demoChannel } from "./lib/seed.mjs";
import { startStack } from "./lib/stack.mjs";
import { ROOT } from "./lib/wrangler.mjs";

const HOST = "localhost";
/** The demo channel's id and secrets, kept between starts (.wrangler/ is wrangler's local state; gitignored). */
const STATE_FILE = join(ROOT, ".wrangler", "webmcp-hub-demo-channel.json");

/**
 * The banner module (TypeScript: it shares web/shared/snippets.ts with the console and the docs), bundled in
 * memory by esbuild and imported from a data: URL, so nothing is written.
 */
async function loadStartBanner() {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(ROOT, "scripts/lib/start-banner.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    logLevel: "warning",
  });
  const code = Buffer.from(result.outputFiles[0].contents).toString("base64");
  return import(`data:text/javascript;base64,${code}`);
}

function fail(message) {
  console.error(`\n✗ npm start failed: ${message}\n`);
  process.exit(1);
}

let port;
try {
  port = parsePort(process.env.PORT, "PORT", 8787);
} catch (e) {
  fail(e.message);
}
const demoPort = port + 1;

for (const [p, who] of [
  [port, "the hub (wrangler dev)"],
  [demoPort, "the demo site"],
]) {
  if (!(await isPortFree(p, HOST))) {
    fail(
      `port ${p} on ${HOST} is already in use, and ${who} needs it. Stop whatever listens there ` +
        `(another \`npm start\`?), or choose other ports: PORT=9000 npm start (the demo site then uses 9001).`,
    );
  }
}

const log = (line) => console.log(`• ${line}`);
let stack;
let stopping = false;
let stoppingSince = 0;

async function shutdown(code) {
  if (stopping) {
    // `npm start` forwards the terminal's Ctrl-C, so one keypress arrives twice; only a later one forces.
    if (Date.now() - stoppingSince < 1500) return;
    console.log("Stopping at once.");
    process.exit(code || 130);
  }
  stopping = true;
  stoppingSince = Date.now();
  console.log("\nStopping wrangler dev and the demo site…");
  // Before the stack is up there is nothing to stop gracefully: exiting kills wrangler's process group
  // (scripts/lib/processes.mjs) and closes the demo site's server.
  if (stack) await stack.stop();
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

// Until the hub is up, wrangler's output is kept and shown only if it fails; afterwards it streams.
let streamWrangler = false;
const onWranglerLine = (line) => {
  if (streamWrangler && line.trim()) console.log(`  wrangler │ ${line}`);
};

let channel;
let startBanner;
try {
  await buildBundles({ log });
  ({ startBanner } = await loadStartBanner());
  stack = await startStack({ host: HOST, port, demoPort, log, onWranglerLine });
  log("Opening the demo channel…");
  channel = await demoChannel({ hubUrl: stack.hub.url, stateFile: STATE_FILE, name: "Demo channel" });
} catch (e) {
  if (stack) await stack.stop();
  fail(e instanceof Error ? e.message : String(e));
}

stack.hub.exited.then((exit) => {
  if (stopping) return;
  console.error(`\n✗ wrangler dev stopped unexpectedly (exit ${exit.code ?? exit.signal}).`);
  void shutdown(1);
});

console.log(
  startBanner({
    hub: stack.hub.url,
    demoOrigin: stack.demo.origin,
    site: stack.seeded,
    channel,
    stateFile: relative(process.cwd(), STATE_FILE) || STATE_FILE,
  }),
);
streamWrangler = true;
