// The 2025-11-25 era of a channel's MCP endpoint: sessionful Streamable HTTP, one SDK v2
// WebStandardStreamableHTTPServerTransport and one channel server per session, held inside the channel's
// object (SSE responses, a GET stream for notifications/tools/list_changed, logging/setLevel).
//
// Sessions outlive the object's memory: each is also a row of the object's SQLite (`mcp_sessions`: the agent,
// the sha256 of its token, the client's `initialize` request, the log level). A request naming a session that
// is stored but not in memory (the object was evicted, restarted or redeployed) rebuilds it: a new transport
// that reuses the session id, fed the stored `initialize` before the request. A session unused for
// SESSION_IDLE_MS is forgotten; its client gets 404 and initializes again, as the spec asks.
import { WebStandardStreamableHTTPServerTransport, type Server } from "@modelcontextprotocol/server";
import {
  AgentContextSchema,
  LoggingLevelSchema,
  type AgentContext,
  type LoggingLevel,
} from "../../protocol/index.js";
import type { ChannelTools } from "../relay/channel-port.js";
import { createChannelServer, passes } from "./channel-server.js";
import { jsonRpcError } from "./json-rpc.js";

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
/** A session unused this long is forgotten. */
export const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
/** lastUsedAt reaches storage at most this often per session (memory has it exactly). */
const TOUCH_EVERY_MS = 60_000;

type StoredSession = {
  id: string;
  agent: string;
  init: string;
  level: string;
  last_used_at: number;
};

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  /**
   * Rebuilds under way, so concurrent requests of one evicted session (its GET stream and a POST) share one
   * rebuild: two would leave the stream on a transport the object no longer holds.
   */
  private readonly restoring = new Map<string, Promise<Session | undefined>>();

  constructor(
    private readonly tools: ChannelTools,
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS mcp_sessions (
      id TEXT PRIMARY KEY, agent TEXT NOT NULL, init TEXT NOT NULL, level TEXT NOT NULL,
      last_used_at INTEGER NOT NULL)`);
    sql.exec(`DELETE FROM mcp_sessions WHERE last_used_at < ?`, now() - SESSION_IDLE_MS);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The session a request names, if it exists (in memory or stored) and not idle too long. */
  async find(id: string): Promise<Session | undefined> {
    const session = this.sessions.get(id) ?? (await this.restoreOnce(id));
    if (session) this.touch(session);
    return session;
  }

  /** Serves a request within `session` (already checked to be the caller's). */
  serve(session: Session, request: Request, parsedBody: unknown): Promise<Response> {
    return session.transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  }

  /** A request outside any session: an `initialize` POST opens one; anything else is refused. */
  async open(
    agent: AgentContext,
    request: Request,
    init: string | undefined,
    parsedBody: unknown,
  ): Promise<Response> {
    if (request.method !== "POST" || init === undefined) {
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: Mcp-Session-Id header is required. Initialize with a POST first.",
      );
    }
    const session = this.create(agent, undefined, init);
    return session.transport.handleRequest(request, { parsedBody });
  }

  /** Tells every session's GET stream (or only `agentTokenId`'s sessions') that the tool list changed. */
  notifyToolsChanged(agentTokenId?: string): void {
    for (const session of this.sessions.values()) {
      if (agentTokenId !== undefined && session.agent.agentTokenId !== agentTokenId) continue;
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

  private touch(session: Session): void {
    const now = this.now();
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
    if (row.last_used_at < this.now() - SESSION_IDLE_MS) {
      this.forget(id);
      return undefined;
    }
    const agent = parseAgent(row.agent);
    if (!agent) {
      this.forget(id);
      return undefined;
    }
    const session = this.create(agent, id, row.init);
    session.level = LoggingLevelSchema.catch("info").parse(row.level);
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
  private create(agent: AgentContext, restoring: string | undefined, init: string): Session {
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
    const server = createChannelServer({
      tools: this.tools,
      agent: () => agent,
      era: "legacy",
      logLevel: () => session.level,
      setLogLevel: (level) => {
        session.level = level;
        if (session.id) this.sql.exec(`UPDATE mcp_sessions SET level = ? WHERE id = ?`, level, session.id);
      },
    });
    const session: Session = {
      id: undefined,
      agent,
      server,
      transport,
      level: "info",
      lastUsedAt: this.now(),
    };
    transport.onclose = () => {
      if (session.id) this.sessions.delete(session.id);
    };
    void server.connect(transport);
    return session;
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

function parseAgent(text: string): AgentContext | undefined {
  try {
    const parsed = AgentContextSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
