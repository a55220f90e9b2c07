// The channel's MCP sessions, held inside its ChannelRelay: one low-level SDK `Server` and one
// WebStandardStreamableHTTPServerTransport per session (revision 2025-11-25, sessionful, SSE responses).
// `McpServer` is not used: it turns unknown tools into isError results, which the spec forbids.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { LOGGING_LEVELS, type LoggingLevel } from "../../protocol/index.js";
import type { ChannelRelay } from "./channel-relay.js";

export interface AgentContext {
  agentTokenId: string;
  agentLabel: string;
}

interface Session {
  id: string | undefined;
  agent: AgentContext;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  level: LoggingLevel;
  lastUsedAt: number;
}

/** Past this many open sessions in one channel, the least recently used is closed. */
const MAX_SESSIONS = 64;
/** Clients may pass a per-call timeout in `params._meta` under this key (milliseconds, ≤ 300 s). */
export const META_TIMEOUT = "webmcp-hub/timeoutMs";

const INSTRUCTIONS =
  "These tools run live in the user's own browser tabs and on their computer (sidecar). Tools that are not read-only wait for the user to approve each call in their browser; a declined call returns an error saying so.";

export class McpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly relay: ChannelRelay) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request, agent: AgentContext): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      if (!session || session.agent.agentTokenId !== agent.agentTokenId) {
        return Response.json(
          {
            jsonrpc: "2.0",
            error: {
              code: -32001,
              message: "Session not found: it ended or expired. Initialize a new session.",
            },
            id: null,
          },
          { status: 404 },
        );
      }
      session.lastUsedAt = Date.now();
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return Response.json(
        {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message: "Bad Request: Mcp-Session-Id header is required. Initialize with a POST first.",
          },
          id: null,
        },
        { status: 400 },
      );
    }
    const session = this.open(agent);
    return session.transport.handleRequest(request);
  }

  private open(agent: AgentContext): Session {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.values()].sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (oldest) void this.close(oldest);
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id;
        this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const server = new Server(
      { name: "webmcp-hub-channel", title: "webmcp-hub channel", version: "0.1.0" },
      { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: INSTRUCTIONS },
    );
    const session: Session = {
      id: undefined,
      agent,
      server,
      transport,
      level: "info",
      lastUsedAt: Date.now(),
    };
    transport.onclose = () => {
      if (session.id) this.sessions.delete(session.id);
    };

    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...this.relay.exposedTools().values()].map((t) => t.descriptor as Tool),
    }));

    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      session.level = request.params.level;
      return {};
    });

    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args = {}, _meta } = request.params;
      const progressToken = _meta?.progressToken;
      const timeout = _meta?.[META_TIMEOUT];
      const client = server.getClientVersion();
      const outcome = await this.relay.callTool({
        name,
        arguments: args,
        agentTokenId: agent.agentTokenId,
        agentLabel: client?.title ?? client?.name ?? agent.agentLabel,
        timeoutMs: typeof timeout === "number" ? timeout : undefined,
        signal: extra.signal,
        onProgress:
          progressToken === undefined
            ? undefined
            : (p) =>
                void extra
                  .sendNotification({ method: "notifications/progress", params: { progressToken, ...p } })
                  .catch(() => {}),
        onLog: (log) => {
          if (!passes(log.level, session.level)) return;
          void extra.sendNotification({ method: "notifications/message", params: log }).catch(() => {});
        },
      });
      if (outcome.unknownTool) {
        throw new McpError(
          ErrorCode.InvalidParams,
          outcome.result.content[0]?.type === "text"
            ? outcome.result.content[0].text
            : `Unknown tool: ${name}`,
        );
      }
      return outcome.result;
    });

    void server.connect(transport);
    return session;
  }

  /** Tells every session's GET stream that the tool list changed. */
  notifyToolsChanged(): void {
    for (const session of this.sessions.values()) {
      void session.server.sendToolListChanged().catch(() => {});
    }
  }

  /** A provider's log not tied to a call goes to every session at or above its level. */
  broadcastLog(log: { level: LoggingLevel; logger?: string; data: unknown }): void {
    for (const session of this.sessions.values()) {
      if (passes(log.level, session.level))
        void session.server.notification({ method: "notifications/message", params: log }).catch(() => {});
    }
  }

  async closeAgent(agentTokenId: string): Promise<number> {
    const doomed = [...this.sessions.values()].filter((s) => s.agent.agentTokenId === agentTokenId);
    await Promise.all(doomed.map((s) => this.close(s)));
    return doomed.length;
  }

  private async close(session: Session): Promise<void> {
    if (session.id) this.sessions.delete(session.id);
    await session.transport.close().catch(() => {});
  }
}

function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);
}
