// The sites of bench/extension, served from one local HTTP server that two origins reach
// (http://127.0.0.1:P and http://localhost:P, both secure contexts, so both get WebMCP), and the same
// server on more ports for the memory tabs: the hub groups tabs of one origin (their same-named tools are
// one tool), so each of those tabs is a site of its own (http://localhost:Pi) to count on the channel.
//   /bridge.html  embeds the hub's /bridge.js and registers `echo` and `echo_timed` (the /bridge.js path);
//   /plain.html   has no script of ours and registers the same two tools (the extension's path);
//   /tools.html   a few tools of different shapes, opened 50 times for the service worker's memory.
import { createServer } from "node:http";

/** The same tool on both paths: read-only (no approval), answers its text as MCP content. */
const ECHO = `document.modelContext.registerTool({
  name: "echo",
  description: "Echoes its text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  execute: ({ text }) => ({ content: [{ type: "text", text }] }),
});
document.modelContext.registerTool({
  name: "echo_timed",
  description: "Echoes its text and when it ran (the page's clock, ms since the epoch).",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  execute: ({ text }) => ({
    content: [{ type: "text", text: JSON.stringify({ text, at: performance.timeOrigin + performance.now() }) }],
  }),
});`;

/** Five tools as a shop page might register them: small schemas, one nested, one not read-only. */
export const TOOLS_PER_PAGE = 5;
const TOOLS = `
const ro = { readOnlyHint: true };
document.modelContext.registerTool({
  name: "search_products",
  description: "Finds products by keyword, optionally within a category and a price range.",
  inputSchema: { type: "object", properties: {
    q: { type: "string", description: "Keywords" },
    category: { type: "string", enum: ["shoes", "dresses", "bags", "hats"] },
    maxPrice: { type: "number", minimum: 0 },
  }, required: ["q"] },
  annotations: ro,
  execute: ({ q }) => ({ results: [q] }),
});
document.modelContext.registerTool({
  name: "get_product",
  description: "Returns one product's details.",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  annotations: ro,
  execute: ({ id }) => ({ id, name: "summer dress", price: 49 }),
});
document.modelContext.registerTool({
  name: "list_cart",
  description: "Lists what is in the cart.",
  inputSchema: { type: "object", properties: {} },
  annotations: ro,
  execute: () => ({ items: [] }),
});
document.modelContext.registerTool({
  name: "add_to_cart",
  description: "Adds a product to the cart.",
  inputSchema: { type: "object", properties: {
    id: { type: "string" },
    quantity: { type: "integer", minimum: 1, maximum: 10 },
    options: { type: "object", properties: { size: { type: "string" }, colour: { type: "string" } } },
  }, required: ["id"] },
  execute: ({ id }) => "added " + id,
});
document.modelContext.registerTool({
  name: "store_hours",
  description: "Opening hours of the nearest store.",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
  annotations: ro,
  execute: () => "9-18",
});`;

const page = (title, head) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title>${head}<h1>${title}</h1></html>`;

/**
 * Starts the server on 127.0.0.1 (Chromium resolves localhost to loopback itself), on one port and on
 * `sites` more. `hubUrl` is where /bridge.html loads /bridge.js from. Resolves with the port, the other
 * ports and `close()`.
 */
export async function startPages({ hubUrl, sites = 0 }) {
  const pages = {
    "/bridge.html": page(
      "echo (bridge)",
      `<script src="${hubUrl}/bridge.js"></script><script>${ECHO}</script>`,
    ),
    "/plain.html": page("echo", `<script>${ECHO}</script>`),
    "/tools.html": page("shop", `<script>${TOOLS}</script>`),
  };
  const handle = (req, res) => {
    const body = pages[new URL(req.url ?? "/", "http://x").pathname];
    res.writeHead(body ? 200 : 404, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    });
    res.end(body ?? "not found");
  };
  const servers = [];
  for (let i = 0; i <= sites; i++) {
    const server = createServer(handle);
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
  }
  const [port, ...sitePorts] = servers.map((s) => s.address().port);
  return {
    port,
    sitePorts,
    close: () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))),
  };
}
