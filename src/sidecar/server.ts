// The stdio MCP server of `webmcp-hub sidecar`: the SDK's low-level Server (McpServer would turn an unknown
// tool into an isError result; seed 001 §3.1 wants a JSON-RPC error), one tool, tools.listChanged false.
// Errors: unknown tool, a request whose arguments break the inputSchema's shape, or an internal failure →
// JSON-RPC error; a value the agent can correct (dates, range, bounds, root, path, cursor) → isError.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Readable, Writable } from "node:stream";
import { z } from "zod";
import { InvalidArgumentsError } from "./arguments.js";
import type { SearchRoot } from "./roots.js";
import type { ScanPool } from "./scan-pool.js";
import type { SearchLimits, SearchProgress } from "./search.js";
import { TOOL_NAME, toolDescriptor } from "./tool.js";
import { callSearchTool } from "./tool-call.js";

export interface SidecarOptions {
  roots: readonly SearchRoot[];
  pool: ScanPool | null;
  limits?: Partial<SearchLimits>;
  version: string;
}

/**
 * A JSON-RPC error as the SDK's Protocol sends it (its `code` and `message`). McpError would prefix the
 * message with "MCP error -32602:", which clients prefix again.
 */
function rpcError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * tools/call as the SDK's Protocol first parses it: only the method. The Server's own tools/call wrapper
 * then checks the request against CallToolRequestSchema and answers a broken one with -32602 (Invalid
 * params); with the strict schema here, the Protocol's parse would fail first and answer -32603.
 */
const ToolsCallEnvelope = z.object({ method: z.literal("tools/call"), params: z.unknown() });

export function createSidecarServer(options: SidecarOptions): Server {
  const { roots, pool, limits } = options;
  const server = new Server(
    { name: "webmcp-hub-sidecar", title: "webmcp-hub sidecar", version: options.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: `Use ${TOOL_NAME} to find files by modified or created time in the user's allowed folders (roots: ${roots.map((r) => r.name).join(", ")}).`,
    },
  );
  const tool = toolDescriptor(roots) as Tool;

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));

  server.setRequestHandler(ToolsCallEnvelope, async (envelope, extra): Promise<CallToolResult> => {
    const request = CallToolRequestSchema.parse(envelope); // already checked by the Server's wrapper
    const { name, arguments: args } = request.params;
    if (name !== TOOL_NAME) {
      throw rpcError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${name}. This server has one tool: ${TOOL_NAME}.`,
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const onProgress =
      progressToken === undefined
        ? undefined
        : (p: SearchProgress) => {
            extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken, progress: p.progress, message: p.message },
              })
              .catch(() => {}); // the client went away; the call's own answer reports the rest
          };
    try {
      const result = await callSearchTool(roots, args, {
        signal: extra.signal,
        onProgress,
        limits,
        pool,
      });
      return result as CallToolResult;
    } catch (e) {
      if (e instanceof InvalidArgumentsError) throw rpcError(ErrorCode.InvalidParams, e.message);
      if (extra.signal.aborted) throw e; // cancelled: the SDK sends no response
      const message = e instanceof Error ? e.message : String(e);
      throw rpcError(ErrorCode.InternalError, `${TOOL_NAME} failed inside the server: ${message}`);
    }
  });
  return server;
}

/**
 * Serves MCP over `stdin`/`stdout` until stdin ends. Lines that are not JSON, or not JSON-RPC, are answered
 * with -32700 / -32600 (id null), which the SDK's transport would only log.
 */
export async function runStdioServer(
  options: SidecarOptions,
  io: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<void> {
  const server = createSidecarServer(options);
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  const sdkOnError = transport.onerror;
  transport.onerror = (error: Error) => {
    const code = error instanceof SyntaxError ? -32700 : error.name === "ZodError" ? -32600 : null;
    if (code !== null) {
      const reply = {
        jsonrpc: "2.0",
        id: null,
        error: {
          code,
          message:
            code === -32700
              ? "Parse error: each line on stdin must be one JSON-RPC message in JSON."
              : "Invalid Request: the line is JSON but not a JSON-RPC 2.0 request, notification or response.",
        },
      };
      void transport.send(reply as unknown as JSONRPCMessage);
    }
    sdkOnError?.(error);
  };
  io.stdin.once("end", () => void server.close());
  io.stdin.once("close", () => void server.close());
  await closed;
}
