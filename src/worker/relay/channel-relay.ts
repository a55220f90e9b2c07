// ChannelRelay: one Durable Object per channel. It holds the providers' WebSockets (hibernation API: an
// idle tab costs nothing), their tool lists (in the object's SQLite, so they survive eviction), the MCP
// sessions of the channel's agents, the calls in flight, and the audit outbox shipped to D1 by an alarm.
import { DurableObject } from "cloudflare:workers";
import type { Schema } from "@cfworker/json-schema";
import {
  CallFrameSchema,
  HubFrameSchema,
  LIMITS,
  LOGGING_LEVELS,
  PING_FRAME_TEXT,
  PONG_FRAME_TEXT,
  ProviderFrameSchema,
  RELAY_SUBPROTOCOL,
  checkObjectSchema,
  compileSchema,
  errorResult,
  exceedsUtf8Bytes,
  jsonDepth,
  utf8ByteLength,
  validateAgainst,
  type AuditStatus,
  type CallFrame,
  type CallToolResult,
  type CompiledSchema,
  type HubFrame,
  type LoggingLevel,
  type ProviderFrame,
  type ToolDescriptor,
} from "../../protocol/index.js";
import { sha256Hex } from "../secrets.js";
import { AuditOutbox, type AuditRow } from "./audit-outbox.js";
import { displayText, sameOriginPageUrl } from "./display-text.js";
import { exposeTools, type ExposedTool, type ProviderState } from "./naming.js";
import { McpSessions, type AgentContext } from "./mcp-sessions.js";
import type { CallOutcome, CallRequest, ChannelTools } from "./channel-tools.js";

export type { CallOutcome, CallRequest } from "./channel-tools.js";

/** What the Worker tells the object about the connecting provider (after authenticating its token). */
export interface ProviderAttachment {
  providerId: string;
  tokenId: string;
  kind: "tab" | "sidecar";
  label: string;
  origin: string | null;
  connectedAt: number;
  /** Whether the token's pairing request came from a browser page (null: not recorded, older tokens). */
  pairedFromPage?: boolean | null;
  /** "extension": a tab the browser extension relays (its token's socket for that tab's origin). */
  via?: "extension";
}

export interface ChannelConfig {
  channelId: string;
  strictNames: boolean;
}

interface PendingCall {
  providerId: string;
  onProgress: CallRequest["onProgress"];
  onLog: CallRequest["onLog"];
  finish: (outcome: CallOutcome) => void;
}

export const HEADER_CHANNEL = "x-webmcp-channel";
export const HEADER_PROVIDER = "x-webmcp-provider";
export const HEADER_AGENT = "x-webmcp-agent";
export const HEADER_AGENT_HASH = "x-webmcp-agent-hash";

const MAX_ALARM_BACKOFF_MS = 60_000;
/** Levels a provider frame adds around its payload (frame → tools → tool → inputSchema; frame → result →
 *  structuredContent), so a payload may itself be LIMITS.jsonDepthMax deep. */
const FRAME_ENVELOPE_DEPTH = 3;
/** The longest agent label a call frame carries (frames.ts `approval.agent`). */
const APPROVAL_AGENT_MAX = 128;

export class ChannelRelay extends DurableObject<Env> implements ChannelTools {
  private readonly sql: SqlStorage;
  private readonly outbox: AuditOutbox;
  private readonly providers = new Map<string, ProviderState>();
  private readonly pending = new Map<string, PendingCall>();
  private readonly validators = new Map<string, CompiledSchema>();
  private readonly mcp: McpSessions;
  private exposedCache: Map<string, ExposedTool> | null = null;
  private config: ChannelConfig | null = null;
  /** True once this instance knows an alarm is set (the audit outbox's shipping); cleared when it runs. */
  private alarmSet = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Keep-alive pings (the extension's, every 20 s a socket) are answered by the runtime, without waking
    // a hibernated object; a ping spelled differently reaches webSocketMessage and is answered there.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME_TEXT, PONG_FRAME_TEXT));
    this.sql.exec(`CREATE TABLE IF NOT EXISTS providers (
      id TEXT PRIMARY KEY, token_id TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL, origin TEXT,
      page TEXT, tools TEXT NOT NULL, connected_at INTEGER NOT NULL, last_active_at INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    this.outbox = new AuditOutbox(this.sql);
    this.mcp = new McpSessions(this, this.sql);
    const saved = this.sql
      .exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'config'`)
      .toArray()[0];
    if (saved) this.config = JSON.parse(saved.value) as ChannelConfig;
    this.loadProviders();
  }

  /** Rebuilds the in-memory provider map from storage, keeping only providers whose socket is still open. */
  private loadProviders(): void {
    const live = new Set(
      this.ctx
        .getWebSockets()
        .map((ws) => (ws.deserializeAttachment() as ProviderAttachment | null)?.providerId),
    );
    for (const row of this.sql
      .exec<Record<string, string | number | null>>(`SELECT * FROM providers`)
      .toArray()) {
      const id = String(row.id);
      if (!live.has(id)) {
        this.sql.exec(`DELETE FROM providers WHERE id = ?`, id);
        continue;
      }
      this.providers.set(id, {
        id,
        tokenId: String(row.token_id),
        kind: row.kind as "tab" | "sidecar",
        label: String(row.label),
        origin: row.origin === null ? null : String(row.origin),
        page: row.page ? (JSON.parse(String(row.page)) as ProviderState["page"]) : null,
        connectedAt: Number(row.connected_at),
        lastActiveAt: Number(row.last_active_at),
        tools: JSON.parse(String(row.tools)) as ToolDescriptor[],
      });
    }
  }

  private configure(config: ChannelConfig): void {
    if (this.config?.channelId === config.channelId && this.config.strictNames === config.strictNames) return;
    const changedNaming = this.config !== null && this.config.strictNames !== config.strictNames;
    this.config = config;
    this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('config', ?)`, JSON.stringify(config));
    if (changedNaming) this.toolsChanged();
  }

  get channelId(): string {
    return this.config?.channelId ?? "unknown";
  }

  // ------------------------------------------------------------------------------------------------------
  // HTTP entry: provider WebSocket upgrades and MCP requests, forwarded by the Worker after authentication.

  override async fetch(request: Request): Promise<Response> {
    // Within an MCP session the Worker sends only the token's hash; the session itself checks it.
    const tokenHash = request.headers.get(HEADER_AGENT_HASH);
    if (tokenHash) return this.mcp.handle(request, { tokenHash });
    const channel = request.headers.get(HEADER_CHANNEL);
    if (!channel) return new Response("missing channel", { status: 400 });
    this.configure(JSON.parse(channel) as ChannelConfig);
    const provider = request.headers.get(HEADER_PROVIDER);
    if (provider) return this.acceptProvider(JSON.parse(provider) as ProviderAttachment);
    const agent = request.headers.get(HEADER_AGENT);
    if (agent) return this.mcp.handle(request, { agent: JSON.parse(agent) as AgentContext });
    return new Response("unknown relay request", { status: 400 });
  }

  private acceptProvider(attachment: ProviderAttachment): Response {
    const pair = new WebSocketPair();
    const client = pair[0];
    const server = pair[1];
    const headers = { "sec-websocket-protocol": RELAY_SUBPROTOCOL };
    if (this.providers.size >= LIMITS.providersPerChannel) {
      // Accept, explain and close: a browser cannot read the body of a refused upgrade.
      server.accept();
      send(server, {
        type: "error",
        code: "channel_full",
        message: `This channel already has ${LIMITS.providersPerChannel} providers connected; close a tab or sidecar first.`,
      });
      server.close(4009, "channel full");
      return new Response(null, { status: 101, webSocket: client, headers });
    }
    this.ctx.acceptWebSocket(server, [attachment.providerId, `token:${attachment.tokenId}`]);
    server.serializeAttachment(attachment);
    const { providerId, ...rest } = attachment;
    const state: ProviderState = {
      ...rest,
      id: providerId,
      page: null,
      lastActiveAt: attachment.connectedAt,
      tools: [],
    };
    this.providers.set(providerId, state);
    this.saveProvider(state);
    send(server, { type: "welcome", providerId: attachment.providerId, channelId: this.channelId });
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  private saveProvider(p: ProviderState): void {
    this.sql.exec(
      `INSERT OR REPLACE INTO providers (id, token_id, kind, label, origin, page, tools, connected_at, last_active_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      p.id,
      p.tokenId,
      p.kind,
      p.label,
      p.origin,
      p.page ? JSON.stringify(p.page) : null,
      JSON.stringify(p.tools),
      p.connectedAt,
      p.lastActiveAt,
    );
  }

  // ------------------------------------------------------------------------------------------------------
  // WebSocket events (hibernation API).

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const attachment = ws.deserializeAttachment() as ProviderAttachment | null;
    const provider = attachment ? this.providers.get(attachment.providerId) : undefined;
    if (!attachment || !provider) {
      ws.close(4000, "unknown provider");
      return;
    }
    if (typeof message !== "string") {
      send(ws, {
        type: "error",
        code: "binary_frame",
        message: "Frames are JSON text; binary frames are not accepted.",
      });
      return;
    }
    // The limit is in bytes of UTF-8, as the frame travels (a string's length counts UTF-16 units).
    if (exceedsUtf8Bytes(message, LIMITS.frameBytes)) {
      send(ws, {
        type: "error",
        code: "frame_too_large",
        message: `A frame may be at most ${LIMITS.frameBytes} bytes of UTF-8; this one has ${utf8ByteLength(message)}.`,
      });
      ws.close(1009, "frame too large");
      return;
    }
    let frame: ProviderFrame;
    try {
      const json: unknown = JSON.parse(message);
      if (jsonDepth(json, LIMITS.jsonDepthMax + FRAME_ENVELOPE_DEPTH) === Number.POSITIVE_INFINITY) {
        send(ws, {
          type: "error",
          code: "frame_too_deep",
          message: `Frame refused: its JSON nests deeper than ${LIMITS.jsonDepthMax} levels inside the frame.`,
        });
        return;
      }
      const parsed = ProviderFrameSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue ? `${issue.path.join(".") || "(frame)"}: ${issue.message}` : "invalid frame";
        console.warn(`channel ${this.channelId}: provider ${provider.id} sent an invalid frame: ${where}`);
        send(ws, { type: "error", code: "invalid_frame", message: `Frame refused: ${where}.` });
        return;
      }
      frame = parsed.data;
    } catch {
      send(ws, { type: "error", code: "invalid_json", message: "Frame refused: not valid JSON." });
      return;
    }
    this.onFrame(ws, provider, frame);
  }

  private onFrame(ws: WebSocket, provider: ProviderState, frame: ProviderFrame): void {
    const now = Date.now();
    switch (frame.type) {
      case "ping":
        // Keep-alive only: not activity (it must not make this tab the "most recently active").
        send(ws, { type: "pong" });
        return;
      case "hello":
        // A hello (sent on connect and when the page becomes active again) marks the provider most recent.
        // Untrusted: the URL is kept only on the tab's own origin (never `javascript:` or another site's).
        provider.page = frame.page
          ? {
              url: sameOriginPageUrl(frame.page.url, provider.kind === "tab" ? provider.origin : null),
              title: displayText(frame.page.title, LIMITS.pageTitleMax),
            }
          : null;
        provider.lastActiveAt = now;
        this.saveProvider(provider);
        this.toolsChanged({ notify: false });
        return;
      case "tools": {
        const accepted: ToolDescriptor[] = [];
        const refused: string[] = [];
        const seen = new Set<string>();
        for (const tool of frame.tools) {
          const problems = [
            ...checkObjectSchema(tool.inputSchema),
            ...(tool.outputSchema ? checkObjectSchema(tool.outputSchema) : []),
          ];
          if (seen.has(tool.name)) refused.push(`${tool.name}: duplicate name`);
          else if (problems.length)
            refused.push(`${tool.name}: ${problems[0]!.path || "schema"} ${problems[0]!.message}`);
          else accepted.push(tool);
          seen.add(tool.name);
        }
        if (refused.length)
          send(ws, {
            type: "error",
            code: "invalid_tools",
            message: `Tools refused: ${refused.join("; ")}.`,
          });
        const before = JSON.stringify(provider.tools);
        provider.tools = accepted;
        provider.lastActiveAt = now;
        this.saveProvider(provider);
        if (JSON.stringify(accepted) !== before) this.toolsChanged();
        return;
      }
      case "result": {
        const call = this.pending.get(frame.id);
        if (!call || call.providerId !== provider.id) return; // late (timed out / cancelled) or foreign: ignore
        provider.lastActiveAt = now;
        const status: AuditStatus = frame.denied ? "denied" : frame.result.isError ? "error" : "ok";
        call.finish({ result: frame.result, status });
        return;
      }
      case "progress": {
        const call = this.pending.get(frame.id);
        if (call && call.providerId === provider.id) {
          call.onProgress?.({
            progress: frame.progress,
            ...(frame.total !== undefined ? { total: frame.total } : {}),
            ...(frame.message ? { message: frame.message } : {}),
          });
        }
        return;
      }
      case "log": {
        const log = {
          level: frame.level,
          ...(frame.logger ? { logger: frame.logger } : {}),
          data: frame.data,
        };
        const call = frame.id ? this.pending.get(frame.id) : undefined;
        if (call && call.providerId === provider.id) call.onLog?.(log);
        else this.mcp.broadcastLog(log);
        return;
      }
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.dropProvider(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.dropProvider(ws);
  }

  private dropProvider(ws: WebSocket): void {
    const attachment = ws.deserializeAttachment() as ProviderAttachment | null;
    if (!attachment) return;
    const provider = this.providers.get(attachment.providerId);
    if (!provider) return;
    this.providers.delete(provider.id);
    this.sql.exec(`DELETE FROM providers WHERE id = ?`, provider.id);
    const who = provider.kind === "tab" ? `The tab (${provider.origin})` : `The sidecar "${provider.label}"`;
    for (const call of [...this.pending.values()]) {
      if (call.providerId === provider.id) {
        call.finish({
          status: "disconnected",
          result: errorResult(
            `${who} disconnected before answering; the call did not complete. Try again once it is back.`,
          ),
        });
      }
    }
    if (provider.tools.length) this.toolsChanged();
  }

  // ------------------------------------------------------------------------------------------------------
  // Tools and calls.

  exposedTools(): Map<string, ExposedTool> {
    if (!this.exposedCache)
      this.exposedCache = exposeTools([...this.providers.values()], this.config?.strictNames ?? false);
    return this.exposedCache;
  }

  private toolsChanged(options: { notify?: boolean } = {}): void {
    const before = this.exposedCache ? signature(this.exposedCache) : null;
    this.exposedCache = null;
    this.validators.clear();
    if (options.notify === false) return;
    if (before !== signature(this.exposedTools())) this.mcp.notifyToolsChanged();
  }

  /** Runs one call end to end and audits it. Never throws for the tool's own failures. */
  async callTool(req: CallRequest): Promise<CallOutcome> {
    const started = Date.now();
    const args = req.arguments ?? {};
    // Measured without recursion first: JSON.stringify and the validator recurse, and would overflow.
    const tooDeep = jsonDepth(args, LIMITS.jsonDepthMax) === Number.POSITIVE_INFINITY;
    const argText = tooDeep ? "" : JSON.stringify(args);
    const exposed = this.exposedTools().get(req.name);
    let providerId: string | null = null;
    let outcome: CallOutcome;
    if (!exposed) {
      const names = [...this.exposedTools().keys()];
      outcome = {
        unknownTool: true,
        status: "invalid",
        result: errorResult(
          `Unknown tool: ${req.name}. ${names.length ? `Tools in this channel: ${names.slice(0, 20).join(", ")}.` : "No tools are connected to this channel right now."}`,
        ),
      };
    } else if (tooDeep) {
      outcome = invalid(
        `The arguments for ${req.name} nest objects and arrays deeper than ${LIMITS.jsonDepthMax} levels, the most the hub relays (LIMITS.jsonDepthMax); nothing was sent. Flatten them and call again.`,
      );
    } else {
      const frame = this.callFrame(req, exposed, args);
      const checked = CallFrameSchema.safeParse(frame);
      const text = JSON.stringify(frame);
      const target = exposed.providerIds.map((id) => this.providers.get(id)).find((p) => p !== undefined);
      const socket = target ? this.ctx.getWebSockets(target.id)[0] : undefined;
      if (!checked.success) {
        const issue = checked.error.issues[0];
        outcome = invalid(
          `The call to ${req.name} cannot be sent: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid call frame"}.`,
        );
      } else if (exceedsUtf8Bytes(text, LIMITS.frameBytes)) {
        outcome = invalid(
          `The call to ${req.name} would be a ${utf8ByteLength(text)}-byte relay frame; a frame may be at most ${LIMITS.frameBytes} bytes (LIMITS.frameBytes), so nothing was sent. Send smaller arguments.`,
        );
      } else {
        const problems = this.validate(exposed, "input", args);
        if (problems.length) {
          const detail = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
          outcome = invalid(
            `Invalid arguments for ${req.name}: ${detail}. Fix them to match the tool's inputSchema and call again.`,
          );
        } else if (!target || !socket) {
          outcome = {
            status: "disconnected",
            result: errorResult(`The provider of ${req.name} is not connected right now.`),
          };
        } else {
          providerId = target.id;
          outcome = await this.dispatch(req, exposed, target.id, socket, frame, text);
          if (outcome.status === "ok") outcome = this.checkOutput(exposed, outcome);
        }
      }
    }
    await this.audit(req, exposed, providerId, argText, outcome, started);
    return outcome;
  }

  /** The call frame for `req`; what an agent or client names itself is capped before it goes in. */
  private callFrame(req: CallRequest, exposed: ExposedTool, args: Record<string, unknown>): CallFrame {
    const timeoutMs = Math.min(
      Math.max(1, Math.floor(req.timeoutMs ?? LIMITS.callTimeoutDefaultMs)),
      LIMITS.callTimeoutMaxMs,
    );
    const client = req.clientName ? displayText(req.clientName, LIMITS.clientNameMax) : "";
    return {
      type: "call",
      id: crypto.randomUUID(),
      name: exposed.originalName,
      arguments: args,
      timeoutMs,
      ...(exposed.readOnly
        ? {}
        : {
            approval: {
              agent: displayText(req.agentLabel, APPROVAL_AGENT_MAX) || "agent",
              ...(client ? { client } : {}),
            },
          }),
    };
  }

  /** Validates once, with the tool's compiled schema (kept until the tools change). */
  private validate(exposed: ExposedTool, which: "input" | "output", value: unknown) {
    const key = `${which}:${exposed.name}`;
    let validator = this.validators.get(key);
    if (!validator) {
      const schema = which === "input" ? exposed.descriptor.inputSchema : exposed.descriptor.outputSchema;
      validator = compileSchema((schema ?? {}) as Schema);
      this.validators.set(key, validator);
    }
    return validateAgainst(validator, value);
  }

  /** A tool that declares an outputSchema must return matching structuredContent (MCP requires it). */
  // (The result itself was parsed with CallToolResultSchema from src/protocol when its frame arrived.)
  private checkOutput(exposed: ExposedTool, outcome: CallOutcome): CallOutcome {
    if (!exposed.descriptor.outputSchema || outcome.result.isError) return outcome;
    if (outcome.result.structuredContent === undefined) {
      return {
        status: "error",
        result: errorResult(`${exposed.name} declares an outputSchema but returned no structuredContent.`),
      };
    }
    const problems = this.validate(exposed, "output", outcome.result.structuredContent);
    if (problems.length) {
      return {
        status: "error",
        result: errorResult(
          `${exposed.name} returned structuredContent that does not match its outputSchema (${problems[0]!.path}: ${problems[0]!.message}).`,
        ),
      };
    }
    return outcome;
  }

  private dispatch(
    req: CallRequest,
    exposed: ExposedTool,
    providerId: string,
    socket: WebSocket,
    frame: CallFrame,
    text: string,
  ): Promise<CallOutcome> {
    const { id, timeoutMs } = frame;
    return new Promise<CallOutcome>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        this.sendCancel(socket, id, "The agent cancelled the call.");
        finish({ status: "cancelled", result: errorResult("The call was cancelled.") });
      };
      const finish = (outcome: CallOutcome) => {
        if (!this.pending.delete(id)) return;
        if (timer !== undefined) clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      this.pending.set(id, { providerId, onProgress: req.onProgress, onLog: req.onLog, finish });
      timer = setTimeout(() => {
        this.sendCancel(socket, id, `Timed out after ${timeoutMs} ms.`);
        finish({
          status: "timeout",
          result: errorResult(
            `${req.name} did not answer within ${Math.round(timeoutMs / 100) / 10} s${exposed.readOnly ? "" : " (it may be waiting for the user's approval)"}.`,
          ),
        });
      }, timeoutMs);
      if (req.signal?.aborted) return onAbort();
      req.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        socket.send(text);
      } catch {
        finish({
          status: "disconnected",
          result: errorResult(`The provider of ${req.name} disconnected before the call could be sent.`),
        });
      }
    });
  }

  private sendCancel(socket: WebSocket, id: string, reason: string): void {
    try {
      send(socket, { type: "cancel", id, reason });
    } catch {
      // the provider is gone; its close handler settles the rest
    }
  }

  private async audit(
    req: CallRequest,
    exposed: ExposedTool | undefined,
    providerId: string | null,
    argText: string,
    outcome: CallOutcome,
    started: number,
  ): Promise<void> {
    const now = Date.now();
    const seq = this.outbox.nextSeq();
    const firstText = outcome.result.content.find((c) => c.type === "text");
    const row: AuditRow = {
      id: `${this.channelId}:${seq}`,
      channelId: this.channelId,
      seq,
      agentTokenId: req.agentTokenId,
      agentLabel: req.agentLabel.slice(0, 200),
      providerId,
      providerLabel: exposed?.label ?? null,
      origin: exposed?.origin ?? null,
      tool: req.name.slice(0, 200),
      argBytes: utf8ByteLength(argText),
      argSha256: await sha256Hex(argText),
      status: outcome.status,
      durationMs: now - started,
      message:
        outcome.status === "ok"
          ? null
          : firstText && "text" in firstText
            ? firstText.text.slice(0, 500)
            : null,
      createdAt: started,
    };
    this.outbox.record(row);
    // One storage round trip per alarm, not per call: remember that an alarm is set until it runs.
    if (!this.alarmSet) {
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + 250);
      this.alarmSet = true;
    }
  }

  override async alarm(): Promise<void> {
    this.alarmSet = false;
    try {
      let remaining = await this.outbox.ship(this.env.DB);
      for (let i = 0; remaining > 0 && i < 10; i++) remaining = await this.outbox.ship(this.env.DB);
      this.sql.exec(`DELETE FROM meta WHERE key = 'audit_backoff'`);
      if (remaining > 0) await this.setAlarm(Date.now());
    } catch (e) {
      const row = this.sql
        .exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'audit_backoff'`)
        .toArray()[0];
      const backoff: number = Math.min(MAX_ALARM_BACKOFF_MS, row ? Number(row.value) * 2 : 1000);
      this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('audit_backoff', ?)`, String(backoff));
      console.warn(
        `channel ${this.channelId}: shipping audit rows failed (${String(e)}); retrying in ${backoff} ms`,
      );
      await this.setAlarm(Date.now() + backoff);
    }
  }

  private async setAlarm(at: number): Promise<void> {
    await this.ctx.storage.setAlarm(at);
    this.alarmSet = true;
  }

  // ------------------------------------------------------------------------------------------------------
  // RPC for the Worker.

  /** Runs a call for a plain HTTP agent. */
  async callOnce(
    config: ChannelConfig,
    call: {
      name: string;
      arguments: Record<string, unknown>;
      agentTokenId: string;
      agentLabel: string;
      clientName?: string;
      timeoutMs?: number;
    },
  ): Promise<CallOutcome> {
    this.configure(config);
    return this.callTool(call);
  }

  /** Live providers and the tools agents see. */
  snapshot(config: ChannelConfig) {
    this.configure(config);
    const exposed = [...this.exposedTools().values()];
    // Whether each provider was paired from a browser page, and whether the extension relays it: kept on
    // its socket's attachment (which survives hibernation and eviction with the socket).
    const attachments = new Map(
      this.ctx.getWebSockets().map((ws) => {
        const a = ws.deserializeAttachment() as ProviderAttachment | null;
        return [a?.providerId, a] as const;
      }),
    );
    return {
      providers: [...this.providers.values()].map((p) => ({
        id: p.id,
        tokenId: p.tokenId,
        kind: p.kind,
        label: p.label,
        origin: p.origin,
        pairedFromPage: attachments.get(p.id)?.pairedFromPage ?? null,
        via: attachments.get(p.id)?.via ?? null,
        page: p.page,
        connectedAt: new Date(p.connectedAt).toISOString(),
        lastActiveAt: new Date(p.lastActiveAt).toISOString(),
        tools: p.tools.map((t) => t.name),
      })),
      tools: exposed.map((t) => ({
        name: t.name,
        originalName: t.originalName,
        title: t.descriptor.title ?? null,
        description: t.descriptor.description,
        readOnly: t.readOnly,
        label: t.label,
        origin: t.origin,
        providers: t.providerIds.length,
        inputSchema: t.descriptor.inputSchema,
      })),
      sessions: this.mcp.size,
      pendingCalls: this.pending.size,
      pendingAudit: this.outbox.pending(),
    };
  }

  /** Ships pending audit rows now (the audit API calls this so a reader sees every finished call). */
  async flushAudit(): Promise<number> {
    try {
      let remaining = await this.outbox.ship(this.env.DB);
      for (let i = 0; remaining > 0 && i < 10; i++) remaining = await this.outbox.ship(this.env.DB);
      return remaining;
    } catch {
      return this.outbox.pending();
    }
  }

  /** Closes every live connection of a revoked provider token. */
  revokeProvider(tokenId: string): number {
    const sockets = this.ctx.getWebSockets(`token:${tokenId}`);
    for (const ws of sockets) {
      this.dropProvider(ws);
      ws.close(4001, "token revoked");
    }
    return sockets.length;
  }

  /** Ends every MCP session opened with a revoked agent token. */
  async revokeAgent(agentTokenId: string): Promise<number> {
    return this.mcp.closeAgent(agentTokenId);
  }
}

/** Sends a hub frame; its schema is enforced on what the hub sends, not only on what it receives. */
function send(ws: WebSocket, frame: HubFrame): void {
  ws.send(JSON.stringify(HubFrameSchema.parse(frame)));
}

function signature(exposed: Map<string, ExposedTool>): string {
  return JSON.stringify(
    [...exposed.values()].map((t) => [
      t.name,
      t.descriptor.description,
      t.descriptor.title,
      t.descriptor.inputSchema,
      t.descriptor.outputSchema,
      t.descriptor.annotations,
    ]),
  );
}

function invalid(text: string): CallOutcome {
  return { status: "invalid", result: errorResult(text) };
}

export { LOGGING_LEVELS };
