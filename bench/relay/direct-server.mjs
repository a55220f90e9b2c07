// The relay bench's peer: a plain MCP SDK (v2) server in Node with the same `echo` tool, shaped like the
// hub's channel endpoint: a low-level `Server` (an unknown tool is a JSON-RPC error), both protocol eras on
// one URL, chosen per request with the SDK's `isLegacyRequest`:
// - 2025-11-25: sessionful Streamable HTTP, one WebStandardStreamableHTTPServerTransport and one Server per
//   session, SSE responses;
// - 2026-07-28: `createMcpHandler` (stateless, `server/discover`, a fresh Server per request).
// The SDK's transports are web-standard (Request → Response); a few lines below adapt node:http to them
// (@modelcontextprotocol/node would do the same, and is not a dependency). Run as its own process so that,
// as with `wrangler dev`, the server does not share the bench client's event loop. Prints `{"url": …}` once
// it listens; stops on SIGTERM.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from "@modelcontextprotocol/server";

const ECHO = {
  name: "echo",
  description: "Echoes its text.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
};

/** The `echo` tool, as the bench's relay provider serves it, on a low-level server. */
function echoServer() {
  const server = new Server({ name: "bench-direct", version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: [ECHO] }));
  server.setRequestHandler("tools/call", (request) => {
    const { name, arguments: args } = request.params;
    if (name !== ECHO.name) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (typeof args?.text !== "string") {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "echo: `text` must be a string");
    }
    return { content: [{ type: "text", text: args.text }] };
  });
  return server;
}

/** 2026-07-28: stateless, one server per request; 2025 traffic is served by the sessions below. */
const modern = createMcpHandler(() => echoServer(), { legacy: "reject" });

/** 2025-11-25: open sessions by id. */
const sessions = new Map();

function jsonRpcError(status, message) {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status });
}

async function serveLegacy(request) {
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId) {
    const transport = sessions.get(sessionId);
    return transport ? transport.handleRequest(request) : jsonRpcError(404, "Session not found");
  }
  if (request.method !== "POST") return jsonRpcError(400, "Mcp-Session-Id header is required");
  // The transport answers a first request that is not `initialize` with its own 400.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
    onsessionclosed: (id) => sessions.delete(id),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await echoServer().connect(transport);
  return transport.handleRequest(request);
}

/** node:http's request as a web Request (the body read whole: MCP POST bodies are small). */
async function toWebRequest(req, signal) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  let body;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    body = Buffer.concat(chunks);
  }
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
    method: req.method,
    headers,
    body,
    signal,
  });
}

/** A web Response written to node:http's response, streamed (SSE) until it ends or the client goes. */
async function writeWebResponse(response, res) {
  const headers = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } finally {
    res.end();
  }
}

const http = createServer(async (req, res) => {
  const aborted = new AbortController();
  res.on("close", () => aborted.abort());
  try {
    if (!req.url?.startsWith("/mcp")) return writeWebResponse(jsonRpcError(404, "not found"), res);
    const request = await toWebRequest(req, aborted.signal);
    const response = (await isLegacyRequest(request))
      ? await serveLegacy(request)
      : await modern.fetch(request);
    await writeWebResponse(response, res);
  } catch (e) {
    if (!res.headersSent) {
      await writeWebResponse(jsonRpcError(500, e instanceof Error ? e.message : String(e)), res);
    } else res.end();
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
