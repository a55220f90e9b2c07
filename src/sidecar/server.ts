// The stdio MCP server of `webmcp-hub sidecar`: the SDK's low-level Server (McpServer would turn an unknown
// tool into an isError result; seed 001 §3.1 wants a JSON-RPC error), one tool, tools.listChanged false.
// Errors: unknown tool, a request whose arguments break the inputSchema's shape, or an internal failure →
// JSON-RPC error; a value the agent can correct (dates, range, bounds, root, path, cursor) → isError.
// Both protocol eras are served (ARCHITECTURE "MCP protocol eras"): the SDK's serveStdio decides a
// connection's era from its opening message, as the stdio binding does — `initialize` (2025-11-25 and earlier)
// pins the connection to a 2025-era instance, a request carrying the 2026-07-28 `_meta` envelope (or
// `server/discover`) to a 2026-07-28 one — and the same handlers serve both. A request that claims the
// other era on a connection already pinned is refused, never answered in the wrong era's shape (the SDK
// refuses `initialize` and envelope-less requests on a 2026 connection; this file refuses enveloped ones on
// a 2025 connection).
import {
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CacheHint,
  type CallToolResult,
  type McpRequestContext,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Readable, Writable } from "node:stream";
import { InvalidArgumentsError } from "./errors.js";
import type { SearchRoot } from "./roots.js";
import type { ScanPool } from "./scan-pool.js";
import type { SearchLimits, SearchProgress } from "./search.js";
import { LineTransport } from "./stdio-transport.js";
import { TOOL_NAME, toolDescriptor } from "./tool.js";
import { callSearchTool } from "./tool-call.js";

export interface SidecarOptions {
  roots: readonly SearchRoot[];
  pool: ScanPool | null;
  limits?: Partial<SearchLimits>;
  version: string;
}

/**
 * 2026-07-28 cache hints for tools/list and server/discover. Nothing changes while the process lives (the
 * roots come from the command line), but a client may key its cache by the server's name and version, which
 * a later run with other --root flags shares: five minutes bounds how long it could show old root names.
 * Private: the description names this user's folders.
 */
const LIST_CACHE: CacheHint = { ttlMs: 5 * 60_000, cacheScope: "private" };

/**
 * On a connection that opened with `initialize`, a request carrying the 2026-07-28 envelope's version claim
 * is refused with -32600: its sender expects the other era's results. (On a 2026 connection the SDK does the
 * mirror image.)
 */
function refuseOtherEra(era: McpRequestContext["era"], ctx: ServerContext): void {
  if (era !== "legacy") return;
  const envelope: unknown = ctx.mcpReq.envelope;
  if (typeof envelope !== "object" || envelope === null || !(PROTOCOL_VERSION_META_KEY in envelope)) return;
  const claimed: unknown = envelope[PROTOCOL_VERSION_META_KEY];
  throw new ProtocolError(
    ProtocolErrorCode.InvalidRequest,
    `This connection opened with initialize and speaks MCP 2025-11-25 or earlier; a request for ${typeof claimed === "string" ? claimed : "another revision"} needs a connection that opens with server/discover (on stdio a connection keeps the era it opened with).`,
  );
}

export function createSidecarServer(
  options: SidecarOptions,
  era: McpRequestContext["era"] = "legacy",
): Server {
  const { roots, pool, limits } = options;
  const server = new Server(
    { name: "webmcp-hub-sidecar", title: "webmcp-hub sidecar", version: options.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: `Use ${TOOL_NAME} to find files by modified or created time in the user's allowed folders (roots: ${roots.map((r) => r.name).join(", ")}).`,
      cacheHints: { "tools/list": LIST_CACHE, "server/discover": LIST_CACHE },
    },
  );
  const tool = toolDescriptor(roots) as Tool;

  server.setRequestHandler("tools/list", (_request, ctx) => {
    refuseOtherEra(era, ctx);
    return { tools: [tool] };
  });

  // The Server checks the request against the tools/call schema first and answers a broken one with -32602.
  server.setRequestHandler("tools/call", async (request, ctx: ServerContext): Promise<CallToolResult> => {
    refuseOtherEra(era, ctx);
    const { name, arguments: args } = request.params;
    if (name !== TOOL_NAME) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${name}. This server has one tool: ${TOOL_NAME}.`,
      );
    }
    const { signal } = ctx.mcpReq;
    const progressToken = request.params._meta?.progressToken;
    const onProgress =
      progressToken === undefined
        ? undefined
        : (p: SearchProgress) => {
            ctx.mcpReq
              .notify({
                method: "notifications/progress",
                params: { progressToken, progress: p.progress, message: p.message },
              })
              .catch(() => {}); // the client went away; the call's own answer reports the rest
          };
    try {
      const result = await callSearchTool(roots, args, { signal, onProgress, limits, pool });
      return server.projectCallToolResult(result as CallToolResult, tool.outputSchema);
    } catch (e) {
      if (e instanceof InvalidArgumentsError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message);
      if (signal.aborted) throw e; // cancelled: the SDK sends no response
      const message = e instanceof Error ? e.message : String(e);
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `${TOOL_NAME} failed inside the server: ${message}`,
      );
    }
  });
  return server;
}

/**
 * Serves MCP over `stdin`/`stdout` until stdin ends. Lines that are not JSON, or not JSON-RPC, are answered
 * with -32700 / -32600 (id null) by the LineTransport.
 */
export async function runStdioServer(
  options: SidecarOptions,
  io: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<void> {
  const transport = new LineTransport(io.stdin, io.stdout);
  const handle = serveStdio(({ era }) => createSidecarServer(options, era), {
    transport,
    onerror: (error) => process.stderr.write(`webmcp-hub sidecar: ${error.message}\n`),
  });
  await transport.closed;
  await handle.close();
}
