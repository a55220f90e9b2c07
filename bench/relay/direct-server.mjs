// The relay bench's peer: a plain MCP SDK server in Node (McpServer, Streamable HTTP, sessionful, SSE
// responses, as the hub's channel endpoint) with the same `echo` tool. Run as its own process so that, as
// with `wrangler dev`, the server does not share the bench client's event loop. Prints `{"url": …}` once
// it listens; stops on SIGTERM.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** The `echo` tool, as the bench's relay provider serves it. */
function echoServer() {
  const server = new McpServer({ name: "bench-direct", version: "0.1.0" });
  server.registerTool(
    "echo",
    {
      description: "Echoes its text.",
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

const transports = new Map();

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

function jsonError(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

const http = createServer(async (req, res) => {
  try {
    if (!req.url?.startsWith("/mcp")) return jsonError(res, 404, "not found");
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) return jsonError(res, 404, "Session not found");
      if (req.method !== "POST" || !isInitializeRequest(body)) {
        return jsonError(res, 400, "Mcp-Session-Id header is required");
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await echoServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) jsonError(res, 500, e instanceof Error ? e.message : String(e));
  }
});

http.keepAliveTimeout = 60_000;
http.listen(0, "127.0.0.1", () => {
  const address = http.address();
  console.log(JSON.stringify({ url: `http://127.0.0.1:${address.port}/mcp` }));
});
process.on("SIGTERM", () => {
  http.close();
  http.closeAllConnections();
  process.exit(0);
});
