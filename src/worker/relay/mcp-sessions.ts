// The channel's MCP sessions, held inside its ChannelRelay: one low-level SDK `Server` and one
// WebStandardStreamableHTTPServerTransport per session (revision 2025-11-25, sessionful, SSE responses).
// `McpServer` is not used: it turns unknown tools into isError results, which the spec forbids.
//
// Sessions outlive the object's memory: each is also a row of the object's SQLite (`mcp_sessions`: the agent,
// the sha256 of its token, the client's `initialize` request, the log level). A request naming a session that
// is stored but not in memory (the object was evicted, restarted or redeployed) rebuilds it: a new transport
// that reuses the session id, fed the stored `initialize` before the request. A session unused for
// SESSION_IDLE_MS is forgotten; its client gets 404 and initializes again, as the spec asks.
//
// The Worker checks an agent's token in D1 only when it opens a session. Requests within a session carry the
// token's sha256 instead, and the session answers them only if it was opened with the same token; anything
// else goes back to the Worker for the full check (revoking a token also closes its sessions here).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { LOGGING_LEVELS, type LoggingLevel } from "../../protocol/index.js";
import type { ChannelTools } from "./channel-tools.js";

export interface AgentContext {
  agentTokenId: string;
  agentLabel: string;
  /** sha256 of the agent token the session was opened with. */
  tokenHash: string;
}

interface Session {
  id: string | undefined;
  agent: AgentContext;
  /** The client's initialize request (JSON text), kept to rebuild the session after eviction. */
  init: string | undefined;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  level: LoggingLevel;
  lastUsedAt: number;
}

/** Past this many open sessions in one channel, the least recently used is closed. */
const MAX_SESSIONS = 64;
/** A session unused this long is forgotten. */
export const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
/** lastUsedAt reaches storage at most this often per session (memory has it exactly). */
const TOUCH_EVERY_MS = 60_000;
/** A request within a session that the session cannot answer for this token: the Worker checks it in full. */
export const REAUTH_HEADER = "x-webmcp-reauth";

type StoredSession = {
  id: string;
  agent: string;
  init: string;
  level: string;
  last_used_at: number;
};
/** Clients may pass a per-call timeout in `params._meta` under this key (milliseconds, ≤ 300 s). */
export const META_TIMEOUT = "webmcp-hub/timeoutMs";

const INSTRUCTIONS =
  "These tools run live in the user's own browser tabs and on their computer (sidecar). Tools that are not read-only wait for the user to approve each call in their browser; a declined call returns an error saying so.";

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /**
   * Rebuilds under way, so concurrent requests of one evicted session (its GET stream and a POST) share one
   * rebuild: two would leave the stream on a transport the object no longer holds. (A rebuild awaits no I/O
   * today, so workerd finishes it before the next request runs; this keeps that true if it ever does.)
   */
  private readonly restoring = new Map<string, Promise<Session | undefined>>();

  constructor(
    private readonly relay: ChannelTools,
    private readonly sql: SqlStorage,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS mcp_sessions (
      id TEXT PRIMARY KEY, agent TEXT NOT NULL, init TEXT NOT NULL, level TEXT NOT NULL,
      last_used_at INTEGER NOT NULL)`);
    sql.exec(`DELETE FROM mcp_sessions WHERE last_used_at < ?`, Date.now() - SESSION_IDLE_MS);
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * A request the Worker authenticated in full (`agent`), or one within a session that carries only its
   * token's hash (`tokenHash`): that one is answered only by a session opened with the same token.
   */
  async handle(request: Request, who: { agent: AgentContext } | { tokenHash: string }): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = this.sessions.get(sessionId) ?? (await this.restoreOnce(sessionId));
      const sameAgent =
        session &&
        ("agent" in who
          ? session.agent.agentTokenId === who.agent.agentTokenId
          : session.agent.tokenHash === who.tokenHash);
      if (!sameAgent) {
        if (!("agent" in who)) return new Response(null, { status: 401, headers: { [REAUTH_HEADER]: "1" } });
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
      this.touch(session);
      return session.transport.handleRequest(request);
    }
    if (!("agent" in who)) return new Response(null, { status: 401, headers: { [REAUTH_HEADER]: "1" } });
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
    const init = await request.text();
    const session = this.open(who.agent, undefined, init);
    return session.transport.handleRequest(
      new Request(request.url, { method: "POST", headers: request.headers, body: init }),
    );
  }

  private touch(session: Session): void {
    const now = Date.now();
    if (session.id && now - session.lastUsedAt > TOUCH_EVERY_MS) {
      this.sql.exec(`UPDATE mcp_sessions SET last_used_at = ? WHERE id = ?`, now, session.id);
    }
    session.lastUsedAt = now;
  }

  private restoreOnce(id: string): Promise<Session | undefined> {
    let pending = this.restoring.get(id);
    if (!pending) {
      pending = this.restore(id).finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    return pending;
  }

  /** Rebuilds a stored session in memory: a transport with its id, initialized by its stored request. */
  private async restore(id: string): Promise<Session | undefined> {
    const row = this.sql.exec<StoredSession>(`SELECT * FROM mcp_sessions WHERE id = ?`, id).toArray()[0];
    if (!row) return undefined;
    if (row.last_used_at < Date.now() - SESSION_IDLE_MS) {
      this.forget(id);
      return undefined;
    }
    const session = this.open(JSON.parse(row.agent) as AgentContext, id, row.init);
    session.level = row.level as LoggingLevel;
    const replay = await session.transport.handleRequest(
      new Request("https://relay.internal/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: row.init,
      }),
    );
    await replay.text();
    if (!replay.ok || session.id !== id) {
      await this.close(session);
      return undefined;
    }
    session.lastUsedAt = row.last_used_at;
    return session;
  }

  private forget(id: string): void {
    this.sessions.delete(id);
    this.sql.exec(`DELETE FROM mcp_sessions WHERE id = ?`, id);
  }

  /** A new session (`restoring` an existing id, or a fresh one once `init` is answered). */
  private open(agent: AgentContext, restoring: string | undefined, init: string): Session {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.values()].sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (oldest) void this.close(oldest);
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => restoring ?? crypto.randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id;
        this.sessions.set(id, session);
        if (restoring) return;
        this.sql.exec(
          `INSERT OR REPLACE INTO mcp_sessions (id, agent, init, level, last_used_at) VALUES (?, ?, ?, ?, ?)`,
          id,
          JSON.stringify(agent),
          init,
          session.level,
          session.lastUsedAt,
        );
        this.trimStored();
      },
      onsessionclosed: (id) => {
        this.forget(id);
      },
    });
    const server = new Server(
      { name: "webmcp-hub-channel", title: "webmcp-hub channel", version: "0.1.0" },
      { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: INSTRUCTIONS },
    );
    const session: Session = {
      id: undefined,
      agent,
      init,
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
      if (session.id)
        this.sql.exec(`UPDATE mcp_sessions SET level = ? WHERE id = ?`, session.level, session.id);
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
        // The owner's label for the token names the agent; what the client calls itself is only secondary.
        agentLabel: agent.agentLabel,
        clientName: client?.title ?? client?.name,
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
        // A plain Error with a code: McpError would prefix "MCP error -32602: ", which clients prefix again.
        throw Object.assign(
          new Error(
            outcome.result.content[0]?.type === "text"
              ? outcome.result.content[0].text
              : `Unknown tool: ${name}`,
          ),
          { code: ErrorCode.InvalidParams },
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

  /** Closes an agent token's sessions, in memory and in storage; returns how many there were. */
  async closeAgent(agentTokenId: string): Promise<number> {
    const live = [...this.sessions.values()].filter((s) => s.agent.agentTokenId === agentTokenId);
    const stored = this.sql
      .exec<{ id: string }>(`SELECT id FROM mcp_sessions WHERE agent ->> 'agentTokenId' = ?`, agentTokenId)
      .toArray()
      .map((r) => r.id);
    await Promise.all(live.map((s) => this.close(s)));
    for (const id of stored) this.forget(id);
    return new Set([...live.map((s) => s.id), ...stored]).size;
  }

  private async close(session: Session): Promise<void> {
    if (session.id) this.forget(session.id);
    await session.transport.close().catch(() => {});
  }

  /** Keeps at most MAX_SESSIONS stored sessions, the most recently used. */
  private trimStored(): void {
    this.sql.exec(
      `DELETE FROM mcp_sessions WHERE id NOT IN (SELECT id FROM mcp_sessions ORDER BY last_used_at DESC LIMIT ?)`,
      MAX_SESSIONS,
    );
  }
}

function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(threshold);
}
