// One low-level SDK v2 `Server` for a channel's MCP endpoint, the same handlers for both protocol eras
// (2025-11-25 sessions and 2026-07-28 per-request instances). `McpServer` is not used: it turns an unknown
// tool into an isError result, and the spec wants a JSON-RPC error (-32602).
//
// Cache hints (2026-07-28 `ttlMs` / `cacheScope`):
// - `tools/list`: ttlMs 5 s, cacheScope "private". A channel's tools come and go as tabs open, close and
//   navigate, so a long lifetime would hand agents tools that are gone; clients that hold a
//   `subscriptions/listen` stream are told at once (notifications/tools/list_changed) and may refetch
//   sooner. "private": the list is one channel's, behind its bearer token; a shared cache must never hand it
//   to another caller.
// - `server/discover`: ttlMs 1 h, cacheScope "private". What the endpoint supports changes only with a
//   deploy; it is still a per-channel, authenticated answer.
import {
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { LOGGING_LEVELS, type AgentContext, type LoggingLevel } from "../../protocol/index.js";
import type { ChannelTools } from "../relay/channel-port.js";
import { TASKS_EXTENSION, type ChannelTasks } from "./tasks.js";

/** Clients may pass a per-call timeout in `params._meta` under this key (milliseconds, ≤ 300 s). */
export const META_TIMEOUT = "webmcp-hub/timeoutMs";

export const TOOLS_LIST_TTL_MS = 5_000;
export const DISCOVER_TTL_MS = 60 * 60 * 1000;

const INSTRUCTIONS =
  "These tools run live in the user's own browser tabs and on their computer (sidecar). Tools that are not read-only wait for the user to approve each call in their browser; a declined call returns an error saying so.";

export interface ChannelServerOptions {
  tools: ChannelTools;
  /** The agent a request comes from: a 2025 session's own, or (2026, one server serving many agents in turn)
   *  the one the object passed with the request. */
  agent: (ctx: ServerContext) => AgentContext;
  era: "legacy" | "modern";
  /** The session's log level (2025 era; `logging/setLevel` changes it through `setLogLevel`). */
  logLevel?: () => LoggingLevel;
  setLogLevel?: (level: LoggingLevel) => void;
  /** The tasks extension (2026 era only). */
  tasks?: ChannelTasks;
}

/**
 * The one place the channel reaches past the SDK's public API. A tools/call that starts a task (tasks
 * extension, 2026-07-28) answers a CreateTaskResult (`resultType: "task"`), which the SDK's tools/call wrapper
 * would validate as a CallToolResult (and give `content: []`); the SDK has no public hook for it (2.4.0), so
 * this subclass routes such calls around the wrapper before it runs, through the protected `_wrapHandler`
 * the SDK documents for subclasses. Every other request takes the SDK's own path. The task route sees the
 * raw request, so it takes only a well-formed call (a string name, object arguments); anything else falls
 * through to the SDK, which answers it as it answers any invalid tools/call.
 */
class ChannelServer extends Server {
  /** Set by createChannelServer; returns the task's result, or undefined for an ordinary call. */
  taskRoute: ((request: JSONRPCRequest, ctx: ServerContext) => Result | undefined) | undefined;

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== "tools/call") return wrapped;
    return (request, ctx) => {
      const task = this.taskRoute?.(request, ctx);
      return task ? Promise.resolve(task) : wrapped(request, ctx);
    };
  }
}

export function createChannelServer(options: ChannelServerOptions): Server {
  const { tools, era, tasks } = options;
  const server = new ChannelServer(
    { name: "webmcp-hub-channel", title: "webmcp-hub channel", version: "0.1.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
      instructions: INSTRUCTIONS,
      cacheHints: {
        "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" },
        "server/discover": { ttlMs: DISCOVER_TTL_MS, cacheScope: "private" },
      },
    },
  );

  server.setRequestHandler("tools/list", async (_request, ctx) => ({
    tools: await listTools(tools, options.agent(ctx).agentTokenId),
  }));

  if (era === "legacy") {
    server.setRequestHandler("logging/setLevel", (request) => {
      options.setLogLevel?.(request.params.level);
      return {};
    });
  }

  /** What every call of this request carries: who calls, with which client, its timeout. */
  const callOf = (name: string, args: Record<string, unknown>, meta: unknown, ctx: ServerContext) => {
    const agent = options.agent(ctx);
    const timeout = (meta as Record<string, unknown> | undefined)?.[META_TIMEOUT];
    const client = era === "legacy" ? server.getClientVersion() : clientInfoOf(ctx);
    return {
      name,
      arguments: args,
      agentTokenId: agent.agentTokenId,
      // The owner's label for the token names the agent; what the client calls itself is only secondary.
      agentLabel: agent.agentLabel,
      clientName: client?.title ?? client?.name,
      timeoutMs: typeof timeout === "number" ? timeout : undefined,
    };
  };

  if (tasks) {
    // A call that waits for a person's approval runs as a task: the client polls tasks/get instead of holding
    // this HTTP stream open for minutes.
    server.taskRoute = (request, ctx) => {
      const { name, arguments: args = {}, _meta } = (request.params ?? {}) as Record<string, unknown>;
      if (typeof name !== "string" || typeof args !== "object" || args === null || Array.isArray(args))
        return undefined;
      const agent = options.agent(ctx);
      const exposed = tools.exposedTools(agent.agentTokenId).get(name);
      if (!exposed || exposed.readOnly || !tasks.declared(ctx)) return undefined;
      return tasks.start(agent, callOf(name, args as Record<string, unknown>, _meta, ctx));
    };
  }

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args = {}, _meta } = request.params;
    const progressToken = _meta?.progressToken;
    const level = era === "legacy" ? options.logLevel?.() : modernLogLevel(ctx);
    const call = callOf(name, args, _meta, ctx);
    const outputSchema = tools.exposedTools(call.agentTokenId).get(name)?.descriptor.outputSchema;
    const outcome = await tools.callTool({
      ...call,
      signal: ctx.mcpReq.signal,
      onProgress:
        progressToken === undefined
          ? undefined
          : (p) =>
              void ctx.mcpReq
                .notify({ method: "notifications/progress", params: { progressToken, ...p } })
                .catch(() => {}),
      onLog: (log) => {
        if (level === undefined || !passes(log.level, level)) return;
        void ctx.mcpReq.notify({ method: "notifications/message", params: log }).catch(() => {});
      },
    });
    if (outcome.unknownTool) throw unknownToolError(outcome.result, name);
    return server.projectCallToolResult(
      outcome.result as CallToolResult,
      outputSchema as Record<string, unknown> | undefined,
    );
  });

  tasks?.register(server, options.agent);
  return server;
}

/**
 * The tools an agent sees (its owner-set policy), in a deterministic order (by exposed name), whatever order providers came in, each
 * tab tool with its verification in `_meta` (and a warning in its description, by the channel's policy).
 */
export async function listTools(tools: ChannelTools, agentTokenId: string | null): Promise<Tool[]> {
  return [...(await tools.listedTools(agentTokenId)).values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => t.descriptor as Tool);
}

/** An unknown tool is a JSON-RPC error -32602 (Invalid params), its message saying which tools exist. */
export function unknownToolError(result: { content: Array<{ type: string; text?: string }> }, name: string) {
  const first = result.content[0];
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    first?.type === "text" && first.text ? first.text : `Unknown tool: ${name}`,
  );
}

/** The request's 2026-07-28 `_meta` envelope (the SDK types it as an empty object). */
export function envelopeOf(ctx: ServerContext): Record<string, unknown> {
  const envelope: unknown = ctx.mcpReq.envelope;
  return typeof envelope === "object" && envelope !== null ? (envelope as Record<string, unknown>) : {};
}

function clientInfoOf(ctx: ServerContext): { name?: string; title?: string } | undefined {
  const info = envelopeOf(ctx)[CLIENT_INFO_META_KEY];
  if (typeof info !== "object" || info === null) return undefined;
  const { name, title } = info as Record<string, unknown>;
  return {
    ...(typeof name === "string" ? { name } : {}),
    ...(typeof title === "string" ? { title } : {}),
  };
}

/** 2026-07-28: a request gets log messages only when its envelope names a level. */
function modernLogLevel(ctx: ServerContext): LoggingLevel | undefined {
  const level = envelopeOf(ctx)[LOG_LEVEL_META_KEY];
  return typeof level === "string" && (LOGGING_LEVELS as readonly string[]).includes(level)
    ? (level as LoggingLevel)
    : undefined;
}

export function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);
}
