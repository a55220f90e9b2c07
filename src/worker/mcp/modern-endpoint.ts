// The 2026-07-28 era of a channel's MCP endpoint: stateless, one SDK v2 `createMcpHandler` (legacy traffic
// rejected: the channel's own sessionful 2025 wiring serves that) whose per-request server is the channel
// server, for the agent the Worker authenticated (passed through as `authInfo`, read by the handlers from the
// request's context). The SDK wants an instance that is serving nothing for each request, not a new one:
// an instance whose exchange ended with its result (a JSON answer: no stream still open, no handler still
// running) goes back to an idle pool and serves a later request, so a channel builds about as many servers
// as it has requests in flight at once, not one per request. The SDK validates the
// `_meta` envelope, `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` against the body, answers
// `server/discover`, stamps `resultType`, `ttlMs` and `cacheScope`, and serves `subscriptions/listen`
// streams from an in-memory bus that the object's notifyToolsChanged publishes on.
//
// Listen streams are held by the object (SSE, kept alive by comment frames), on the SDK's event bus: this
// endpoint gives the SDK its own bus (AgentBus), which remembers the agent each stream was opened for (the
// request being served, carried by AsyncLocalStorage into the SDK's subscribe call), so a change to one agent's
// tools (its owner-set policy) reaches that agent's streams and nobody else's. Revoking an agent token aborts
// its streams and drops its tasks. Each agent (token or OAuth grant) keeps at most MAX_LISTENERS_PER_AGENT
// streams: past it its own oldest is closed, never another agent's. When the channel holds MAX_LISTENERS, an
// agent with streams of its own replaces its oldest, and one without is refused (429) rather than end others'.
import { AsyncLocalStorage } from "node:async_hooks";
import {
  createMcpHandler,
  type AuthInfo,
  type McpHttpHandler,
  type Server,
  type ServerEvent,
  type ServerEventBus,
} from "@modelcontextprotocol/server";
import { LIMITS, type AgentContext } from "../../protocol/index.js";
import type { ChannelTools } from "../relay/channel-port.js";
import { createChannelServer } from "./channel-server.js";
import { jsonRpcError, requestIdOf } from "./json-rpc.js";
import { ChannelTasks } from "./tasks.js";

/** Open `subscriptions/listen` streams one channel keeps (the SDK's cap too). */
export const MAX_LISTENERS = 256;
/** Open listen streams one agent keeps; a client needs one, and a few while it reconnects. */
export const MAX_LISTENERS_PER_AGENT = 16;

/**
 * The SDK's event bus (a `ServerEventBus`, createMcpHandler's `bus` option) with each listener tagged by the
 * agent whose request subscribed it, so an event can go to one agent's streams.
 */
class AgentBus implements ServerEventBus {
  private readonly listeners = new Map<(event: ServerEvent) => void, string | undefined>();
  /** The agent of the request being served, across the SDK's awaits. */
  readonly serving = new AsyncLocalStorage<string>();

  publish(event: ServerEvent, agentTokenId?: string): void {
    for (const [listener, agent] of [...this.listeners]) {
      if (agentTokenId !== undefined && agent !== agentTokenId) continue;
      try {
        listener(event);
      } catch {
        // one broken stream must not keep the event from the others
      }
    }
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.set(listener, this.serving.getStore());
    return () => void this.listeners.delete(listener);
  }
}

/** Idle servers a channel keeps for reuse. */
const MAX_IDLE_SERVERS = 16;

type PooledServer = Server & { reusable?: boolean };

export class ModernEndpoint {
  private readonly handler: McpHttpHandler;
  private readonly bus = new AgentBus();
  private readonly idle: PooledServer[] = [];
  /** The server each request got, to return it to the pool when its exchange ends. */
  private readonly servedBy = new WeakMap<Request, PooledServer>();
  private readonly tasks: ChannelTasks;
  /** Open listen streams, by the agent token that opened them (aborting one ends its stream). */
  private readonly listeners = new Map<AbortController, string>();

  constructor(tools: ChannelTools, sql: SqlStorage, now: () => number = Date.now) {
    this.tasks = new ChannelTasks(tools, sql, now);
    const build = (): PooledServer => {
      const server: PooledServer = createChannelServer({
        tools,
        agent: (ctx) => agentOf(ctx.http?.authInfo),
        era: "modern",
        tasks: this.tasks,
      });
      server.onclose = () => this.release(server);
      return server;
    };
    this.handler = createMcpHandler(
      (ctx) => {
        const server = this.idle.pop() ?? build();
        this.servedBy.set(ctx.requestInfo as Request, server);
        return server;
      },
      {
        legacy: "reject",
        maxRequestBodySize: LIMITS.mcpRequestBytes,
        maxSubscriptions: MAX_LISTENERS,
        bus: this.bus,
      },
    );
  }

  get listening(): number {
    return this.listeners.size;
  }

  async serve(request: Request, agent: AgentContext, parsedBody: unknown): Promise<Response> {
    if (request.headers.has("mcp-session-id")) {
      // 2026-07-28 has no sessions: a session id on a request of that revision is a client bug, not
      // something to ignore silently (it may expect session semantics the endpoint does not give).
      return jsonRpcError(
        400,
        -32600,
        "Invalid Request: protocol revision 2026-07-28 has no sessions; send this request without Mcp-Session-Id.",
        requestIdOf(parsedBody),
      );
    }
    const listen = isListen(parsedBody);
    const controller = new AbortController();
    if (listen && !this.track(controller, agent.agentTokenId)) {
      return jsonRpcError(
        429,
        -32603,
        `This channel holds ${MAX_LISTENERS} open subscriptions/listen streams, the most it keeps; close one or try again later.`,
        requestIdOf(parsedBody),
        { "retry-after": "60" },
      );
    }
    const authInfo: AuthInfo = {
      token: agent.tokenHash,
      clientId: agent.agentTokenId,
      scopes: [],
      extra: { agent },
    };
    // A parsed body was already read from `request`: the copy carries none (the SDK reads `parsedBody`).
    const forHandler =
      parsedBody === undefined
        ? new Request(request, { signal: controller.signal })
        : new Request(request.url, {
            method: request.method,
            headers: request.headers,
            signal: controller.signal,
          });
    const response = await this.bus.serving.run(agent.agentTokenId, () =>
      this.handler.fetch(forHandler, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody }),
    );
    const streaming = response.headers.get("content-type")?.includes("text/event-stream") ?? false;
    if (listen && !streaming) this.listeners.delete(controller);
    const server = this.servedBy.get(forHandler);
    if (server && !streaming && response.ok) {
      // Answered in full: its handler is done. Back to the pool once the SDK has closed its exchange.
      server.reusable = true;
      if (server.transport === undefined) this.release(server);
    }
    return response;
  }

  /** Returns a server whose exchange ended to the idle pool, if it ended with its answer. */
  private release(server: PooledServer): void {
    if (!server.reusable || server.transport !== undefined) return;
    server.reusable = false;
    if (this.idle.length < MAX_IDLE_SERVERS) this.idle.push(server);
  }

  /** Tells every listen stream (or only `agentTokenId`'s) that the tool list changed. */
  notifyToolsChanged(agentTokenId?: string): void {
    this.bus.publish({ kind: "tools_list_changed" }, agentTokenId);
  }

  /** Ends an agent token's listen streams and drops its tasks; returns how many streams there were. */
  closeAgent(agentTokenId: string): number {
    let closed = 0;
    for (const [controller, id] of this.listeners) {
      if (id !== agentTokenId) continue;
      controller.abort();
      this.listeners.delete(controller);
      closed++;
    }
    this.tasks.closeAgent(agentTokenId);
    return closed;
  }

  /** Keeps a new stream of `agentTokenId`, closing that agent's oldest if needed; false: refuse it. */
  private track(controller: AbortController, agentTokenId: string): boolean {
    let own = 0;
    let oldestOwn: AbortController | undefined;
    for (const [c, id] of this.listeners) {
      if (c.signal.aborted) this.listeners.delete(c);
      else if (id === agentTokenId) {
        own++;
        oldestOwn ??= c;
      }
    }
    if (oldestOwn && (own >= MAX_LISTENERS_PER_AGENT || this.listeners.size >= MAX_LISTENERS)) {
      oldestOwn.abort();
      this.listeners.delete(oldestOwn);
    }
    if (this.listeners.size >= MAX_LISTENERS) return false;
    this.listeners.set(controller, agentTokenId);
    return true;
  }
}

function isListen(body: unknown): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    (body as Record<string, unknown>).method === "subscriptions/listen"
  );
}

function agentOf(authInfo: AuthInfo | undefined): AgentContext {
  // The object put it there (serve), from a relay request the contract already checked.
  const agent = authInfo?.extra?.agent as AgentContext | undefined;
  if (agent && typeof agent.agentTokenId === "string") return agent;
  // Reaching this is a bug, and no call may run unattributed.
  throw new Error("MCP request without an authenticated agent");
}
