// A public, stateless MCP server over Streamable HTTP for both protocol eras, chosen per request (SDK v2
// `createMcpHandler`: 2026-07-28 natively; a 2025-era request answered by a fresh low-level server on a
// stateless transport, GET and DELETE, which need a session, answered 405 by the transport). JSON responses:
// the servers served this way send nothing before a result. Used by /mcp/registry and /mcp/sites/<host>.
import {
  Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import { LIMITS } from "../../protocol/index.js";

export async function serveStatelessMcp(request: Request, createServer: () => Server): Promise<Response> {
  if (await isLegacyRequest(request, undefined, { maxRequestBodySize: LIMITS.mcpRequestBytes })) {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = createServer();
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      // JSON responses are complete once handleRequest resolves.
      void server.close();
    }
  }
  // No `responseMode: "json"`: the SDK warns on every handler built with it (a `▲ [WARNING]` line per request
  // under `npm start`). The default, "auto", answers one JSON body unless a handler sends something before its
  // result, and these servers never do (no progress, no logging).
  const handler = createMcpHandler(createServer, {
    legacy: "reject",
    maxRequestBodySize: LIMITS.mcpRequestBytes,
  });
  return handler.fetch(request);
}
