// `wrangler dev` for bench/relay/wrangler.toml through wrangler's own dev-server API (`unstable_startWorker`,
// what the CLI's `dev` command runs) with one difference: `dev.inspector: false`. The CLI always enables the
// DevTools inspector, and wrangler then relays a Network event for every subrequest (each D1 query, each
// Durable Object call) to its Node process; this shows the relay's cost without that local-only tax.
// argv: PORT PERSIST_DIR [CONFIG] (default: bench/relay/wrangler.toml; bench/registry passes its built
// config). Prints `{"url": …}` once ready; stops on SIGTERM.
import { unstable_startWorker } from "wrangler";

const [port, persistTo, config = new URL("./wrangler.toml", import.meta.url).pathname] =
  process.argv.slice(2);
const worker = await unstable_startWorker({
  config,
  dev: {
    inspector: false,
    server: { hostname: "127.0.0.1", port: Number(port) },
    persist: persistTo,
    logLevel: "warn",
  },
});
await worker.ready;
console.log(JSON.stringify({ url: (await worker.url).origin }));
process.on("SIGTERM", async () => {
  await worker.dispose();
  process.exit(0);
});
