// The channel's MCP endpoint inside its ChannelRelay, for both protocol eras, chosen per request by the SDK's
// own classifier (`isLegacyRequest`): 2025-11-25 and earlier go to the sessionful wiring
// (legacy-sessions.ts), 2026-07-28 to the stateless handler (modern-endpoint.ts). The object calls only this
// class: handle, notifyToolsChanged, broadcastLog, closeAgent, size; the MCP layer sees the channel only
// through its port (relay/channel-port.ts), never the Durable Object.
//
// Each request body is parsed here once (JSON.parse) and handed to the SDK as `parsedBody`, so the SDK reads
// no body; the Worker has already held it to LIMITS.mcpRequestBytes as it arrived (routes/relay.ts).
//
// Authentication is the Worker's, and kept cheap: the Worker checks a token in D1 (or OAuth) and sends the
// agent (`who.agent`); this object then remembers the token's sha256 for VERIFIED_TTL_MS. Later requests
// carry only the hash (`who.tokenHash`), and are answered when the hash names a session opened with that
// token (2025) or a token verified within the TTL (both eras); anything else goes back to the Worker for the
// full check (REAUTH_HEADER). Revoking a token (closeAgent) drops its sessions, its remembered hash, its
// listen streams and its tasks at once, so revocation never waits for a TTL.
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { RELAY_HEADER, type AgentContext, type LoggingLevel } from "../../protocol/index.js";
import type { ChannelTools } from "../relay/channel-port.js";
import { jsonRpcError, requestIdOf } from "./json-rpc.js";
import { LegacySessions } from "./legacy-sessions.js";
import { ModernEndpoint } from "./modern-endpoint.js";

/** A request the object cannot answer for this token hash: the Worker checks the token in full. */
export const REAUTH_HEADER = RELAY_HEADER.reauth;
/** How long a token the Worker verified is trusted by its hash alone. */
export const VERIFIED_TTL_MS = 60_000;
/** Token hashes remembered per channel. */
const MAX_VERIFIED = 256;

export class ChannelEndpoint {
  private readonly legacy: LegacySessions;
  private readonly modern: ModernEndpoint;
  private readonly verified = new Map<string, { agent: AgentContext; until: number }>();

  constructor(
    tools: ChannelTools,
    sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {
    this.legacy = new LegacySessions(tools, sql, now);
    this.modern = new ModernEndpoint(tools, sql, now);
  }

  /** Open 2025 sessions in memory (the console shows it). */
  get size(): number {
    return this.legacy.size;
  }

  /**
   * A request the Worker authenticated in full (`agent`), or one that carries only its token's hash
   * (`tokenHash`): that one is answered only for a session opened with the same token, or a token
   * verified within VERIFIED_TTL_MS.
   */
  async handle(request: Request, who: { agent: AgentContext } | { tokenHash: string }): Promise<Response> {
    const text = request.method === "POST" ? await request.text() : undefined;
    let parsed: unknown;
    let parsedOk = false;
    if (text !== undefined) {
      try {
        parsed = JSON.parse(text);
        parsedOk = true;
      } catch {
        // Left to the SDK, which answers a parse error in the right era's shape.
      }
    }
    if (Array.isArray(parsed)) {
      // JSON-RPC batching left MCP in 2025-06-18; neither era this endpoint serves has it.
      return jsonRpcError(
        400,
        -32600,
        "Invalid Request: batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); send one message per request.",
      );
    }
    // A parsed body reaches the SDK as `parsedBody` (it reads no body then), so the request goes on as it is;
    // one that did not parse is rebuilt with its text, for the SDK to answer the parse error.
    const req =
      text === undefined || parsedOk
        ? request
        : new Request(request.url, { method: request.method, headers: request.headers, body: text });
    const legacy = parsedOk ? await isLegacyRequest(req, parsed) : await isLegacyRequest(req);
    const body = parsedOk ? parsed : undefined;
    const sessionId = request.headers.get("mcp-session-id");

    if ("agent" in who) this.remember(who.agent);
    if (legacy && sessionId) {
      const session = await this.legacy.find(sessionId);
      const same =
        session &&
        ("agent" in who
          ? session.agent.agentTokenId === who.agent.agentTokenId
          : session.agent.tokenHash === who.tokenHash);
      if (same) return this.legacy.serve(session, req, body);
      if (!("agent" in who)) return reauth();
      return jsonRpcError(
        404,
        -32001,
        "Session not found: it ended or expired. Initialize a new session.",
        requestIdOf(body),
      );
    }
    const agent = "agent" in who ? who.agent : this.recall(who.tokenHash);
    if (!agent) return reauth();
    if (legacy) return this.legacy.open(agent, req, text, body);
    return this.modern.serve(req, agent, body);
  }

  /** Tells every 2025 session's GET stream and every 2026 listen stream that the tool list changed. */
  notifyToolsChanged(): void {
    this.legacy.notifyToolsChanged();
    this.modern.notifyToolsChanged();
  }

  /** Tells one agent's 2025 sessions and 2026 listen streams (and nobody else's) that its tool list changed:
   *  the owner changed its policy. */
  notifyAgentToolsChanged(agentTokenId: string): void {
    this.legacy.notifyToolsChanged(agentTokenId);
    this.modern.notifyToolsChanged(agentTokenId);
  }

  /** A provider's log not tied to a call goes to every 2025 session at or above its level (2026-07-28 has
   *  no channel for logs outside a request). */
  broadcastLog(log: { level: LoggingLevel; logger?: string; data: unknown }): void {
    this.legacy.broadcastLog(log);
  }

  /** Revokes an agent token here: its sessions, remembered hash, listen streams and tasks. Returns how many
   *  sessions and streams were open. */
  async closeAgent(agentTokenId: string): Promise<number> {
    for (const [hash, entry] of this.verified) {
      if (entry.agent.agentTokenId === agentTokenId) this.verified.delete(hash);
    }
    const streams = this.modern.closeAgent(agentTokenId);
    return (await this.legacy.closeAgent(agentTokenId)) + streams;
  }

  private remember(agent: AgentContext): void {
    this.verified.delete(agent.tokenHash);
    if (this.verified.size >= MAX_VERIFIED) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(agent.tokenHash, { agent, until: this.now() + VERIFIED_TTL_MS });
  }

  private recall(tokenHash: string): AgentContext | undefined {
    const entry = this.verified.get(tokenHash);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.verified.delete(tokenHash);
      return undefined;
    }
    return entry.agent;
  }
}

function reauth(): Response {
  return new Response(null, { status: 401, headers: { [REAUTH_HEADER]: "1" } });
}
