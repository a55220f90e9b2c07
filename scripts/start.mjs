// `npm start`: the whole system on this machine. Migrates the local D1 database, builds the browser and
// sidecar bundles, starts `wrangler dev` on 127.0.0.1:${PORT:-8787} and the demo site on PORT+1 (its pages
// embed this hub's /bridge.js), publishes the demo site through the real registry API, creates a channel
// to pair the demo pages with, and prints where everything is. Ctrl-C stops it all.
import { buildBundles } from "./lib/bundles.mjs";
import { isPortFree, parsePort } from "./lib/ports.mjs";
import { seedChannel } from "./lib/seed.mjs";
import { startStack } from "./lib/stack.mjs";

const HOST = "127.0.0.1";

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
try {
  await buildBundles({ log });
  stack = await startStack({ host: HOST, port, demoPort, log, onWranglerLine });
  log("Creating a channel for the demo pages…");
  channel = await seedChannel({ hubUrl: stack.hub.url, name: "Demo channel" });
} catch (e) {
  if (stack) await stack.stop();
  fail(e instanceof Error ? e.message : String(e));
}

stack.hub.exited.then((exit) => {
  if (stopping) return;
  console.error(`\n✗ wrangler dev stopped unexpectedly (exit ${exit.code ?? exit.signal}).`);
  void shutdown(1);
});

const { urls, seeded } = stack;
const status = seeded.unchanged ? "already current" : "published";
const demo = (path) => new URL(path, urls.demoSite).href;
// OAuth clients sign in through the browser; passkeys need a host name (not 127.0.0.1), so the URL to paste
// uses localhost, where the consent page's session lives too.
const localhost = (url) => url.replace("//127.0.0.1:", "//localhost:");
console.log(`
webmcp-hub is running.

  Paste into an OAuth MCP client (Claude, ChatGPT, VS Code, Claude Code, mcp-remote):
    ${localhost(channel.mcpUrl)}
    The client opens ${localhost(urls.dashboard)}authorize: sign in with a passkey, then Allow. That channel is
    anonymous: claim it on ${localhost(urls.dashboard)}account with its owner key below first, or create your
    own channel while signed in (${localhost(urls.dashboard)}channels) and paste its MCP URL instead.

  Dashboard          ${localhost(urls.dashboard)}  (sign in at ${localhost(urls.dashboard)}signin: passkeys need a host name, not 127.0.0.1)
  Demo site on hub   ${urls.demoSitePage}  (verified over HTTP; manifest v${seeded.version}, ${seeded.toolCount} tools, ${status})
  Registry MCP URL   ${urls.registryMcp}  (MCP Streamable HTTP, public, tools: search_tools, get_site, propose_tools)
  Publisher key      ${seeded.publisherKey}  (for ${seeded.host}; a new one is issued on every start)

  Demo pages (each embeds ${stack.hub.url}/bridge.js; pair one with the code below, the others of the site follow)
    ${demo("/")}                greet
    ${demo("/stamps.html")}     add-stamp
    ${demo("/shop.html")}       get-dresses, buyProduct
    ${demo("/templates.html")}  filter-templates, edit-design (while the editor is open)
    ${demo("/reading.html")}    list-books, add-book, mark-book-read (document.modelContext)
    ${demo("/booking.html")}    book-table (a declarative <form toolname>)

  Channel "${channel.name}" (${channel.channelId})
    Pairing code     ${channel.pairingCode}  (type it into a demo page's widget; single use, valid until ${channel.pairingCodeExpiresAt})
    MCP URL          ${channel.mcpUrl}
    Agent token      ${channel.agentToken}  (send as Authorization: Bearer …)
    Capability URL   ${channel.mcpCapabilityUrl}  (for clients that take only a URL)
    Owner key        ${channel.ownerKey}  (new pairing codes: POST ${stack.hub.url}/api/channels/${channel.channelId}/pairing-codes)

  Browser extension  load dist/extension/ unpacked (chrome://extensions, Developer mode, Load unpacked). Its hub is
                     http://localhost:8787 unless built with WEBMCP_HUB_URL${localhost(urls.dashboard) === "http://localhost:8787/" ? "" : `: set Hub URL to ${localhost(urls.dashboard).slice(0, -1)} in its popup`};
                     pair it with a code (above, or a new one in the channel console) or at ${localhost(urls.dashboard)}extension/connect.

  The secrets above are shown once; a new channel is created on every start.

Press Ctrl-C to stop. Requests are logged below.
`);
streamWrangler = true;
