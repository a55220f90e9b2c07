// ChannelRelay: one Durable Object per channel, composed of the parts that do its work: the providers'
// sockets and tool lists (provider-store.ts), the tools agents see (tool-catalog.ts), the calls in flight
// (call-dispatch.ts), the channel's MCP sessions (mcp-sessions.ts), its audit log kept in its own storage
// (audit-log.ts), and each tab tool checked against its origin's published manifest under
// the channel's verification policy (verification.ts). This file wires them to the runtime's entry points: `fetch` (what the
// Worker forwards, read once through the contract in src/protocol/relay-contract.ts), the hibernation API's
// WebSocket events, the alarm, and the RPC methods the Worker calls (channels/relay-stub.ts).
import { DurableObject } from "cloudflare:workers";
import {
  ChannelConfigSchema,
  CLOSE_CODES,
  LIMITS,
  errorResult,
  PING_FRAME_TEXT,
  PONG_FRAME_TEXT,
  RelayContractError,
  readRelayRequest,
  type AgentPolicy,
  type ChannelConfig,
  type ErrorBody,
  type ProviderFrame,
  type RelayRequest,
  type ToolVerification,
  type VerificationPolicy,
} from "../protocol/index.js";
import type { ChannelToolView, ProviderView } from "../protocol/views.js";
import { CloudListing, callAddedInCloud } from "./cloud/channel.js";
import { AddedToolListing } from "./relay/added-tool-listing.js";
import { AgentPolicies } from "./relay/agent-policies.js";
import { AuditLog, type AuditRead, type AuditRows } from "./relay/audit-log.js";
import { settingsOf } from "./env.js";
import { CallDispatch, callArguments, type CallArguments, type FinishedCall } from "./relay/call-dispatch.js";
import { UsageRollup } from "./relay/usage-rollup.js";
import type { CallOutcome, CallRequest, ChannelTools } from "./relay/channel-port.js";
import { ChannelEndpoint } from "./mcp/channel-endpoint.js";
import type { ExposedTool, ProviderState } from "./relay/naming.js";
import { acceptTools, readProviderFrame, sendFrame } from "./relay/provider-frames.js";
import { PageOpener, type OpenResult } from "./relay/page-opener.js";
import { ProviderStore } from "./relay/provider-store.js";
import { ToolCatalog } from "./relay/tool-catalog.js";
import { ToolVerifier, presentTool, refusalText } from "./relay/verification.js";

/** A plain HTTP agent's call (POST /api/channels/:id/calls). */
export type PlainCall = Pick<
  CallRequest,
  "name" | "arguments" | "agentLabel" | "clientName" | "timeoutMs"
> & {
  agentTokenId: string;
};

export class ChannelRelay extends DurableObject<Env> implements ChannelTools {
  private readonly sql: SqlStorage;
  private readonly providers: ProviderStore;
  private readonly catalog: ToolCatalog;
  private readonly calls: CallDispatch;
  private readonly auditLog: AuditLog;
  /** The channel's calls added up per (site, tool, day), flushed to D1 by the alarm (usage-rollup.ts). */
  readonly rollup: UsageRollup;
  /** When the object's one alarm is set (null: none; undefined: not read from storage yet). */
  private alarmAt: number | null | undefined;
  private readonly mcp: ChannelEndpoint;
  /** The owner's per-agent tool policies and pause switch (relay/agent-policies.ts). */
  private readonly policies: AgentPolicies;
  private readonly verifier: ToolVerifier;
  /** The marketplace tools the owner added, listed while no tab offers them (added-tool-listing.ts). */
  private readonly added: AddedToolListing;
  /** Opens an added tool's page through the paired extension when no tab offers it (page-opener.ts). */
  private readonly opener: PageOpener;
  /** Which added tools run in the hub's browser, before any page is opened (cloud/channel.ts). */
  private readonly cloud: CloudListing;
  /** Each tool's verification as last checked (JSON), to tell agents when one changes (a site published). */
  private lastChecked = new Map<string, string>();
  private config: ChannelConfig | null = null;

  /** The object's clock: every part reads time through it, never Date.now() itself (tests may set it). */
  now: () => number = () => Date.now();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Keep-alive pings (the extension's, every 20 s a socket) are answered by the runtime, without waking
    // a hibernated object; a ping spelled differently reaches webSocketMessage and is answered there.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME_TEXT, PONG_FRAME_TEXT));
    this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const saved = this.sql
      .exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'config'`)
      .toArray()[0];
    // Written by configure() below; anything else is forgotten until the Worker's next request sets it.
    const stored = saved ? ChannelConfigSchema.safeParse(JSON.parse(saved.value)) : undefined;
    if (stored?.success) this.config = stored.data;
    this.providers = new ProviderStore(ctx, this.sql);
    const clock = () => this.now();
    this.added = new AddedToolListing(env.DB, () => this.config?.channelId ?? null, clock);
    this.catalog = new ToolCatalog(() => ({
      providers: [...this.providers.list(), ...this.added.providers()],
      strictNames: this.config?.strictNames ?? false,
    }));
    this.calls = new CallDispatch(this.catalog, this.providers);
    this.auditLog = new AuditLog(
      ctx.storage,
      env.DB,
      () => this.channelId,
      settingsOf(env).AUDIT_RETENTION_DAYS * 86_400_000,
      clock,
    );
    this.rollup = new UsageRollup(ctx.storage, env.SITE_USAGE, () => this.config?.channelId ?? null);
    this.policies = new AgentPolicies(this.sql);
    this.mcp = new ChannelEndpoint(this, this.sql, clock);
    this.verifier = new ToolVerifier(env.DB, clock);
    this.cloud = new CloudListing(env);
    this.opener = new PageOpener(
      ctx,
      (origin, originalName) => {
        for (const t of this.catalog.exposed().values())
          if (t.group === `tab:${origin}` && t.originalName === originalName && t.providerIds.length > 0)
            return t.name;
        return undefined;
      },
      clock,
    );
  }

  get channelId(): string {
    return this.config?.channelId ?? "unknown";
  }

  /** The Worker's word on the channel's settings, remembered across eviction; new naming re-lists tools. */
  private configure(config: ChannelConfig): void {
    if (
      this.config?.channelId === config.channelId &&
      this.config.strictNames === config.strictNames &&
      policyOf(this.config) === policyOf(config)
    )
      return;
    const changedNaming = this.config !== null && this.config.strictNames !== config.strictNames;
    // Under `warn` and `verified` descriptions carry notes: a new policy changes what agents read.
    const changedPolicy = this.config !== null && policyOf(this.config) !== policyOf(config);
    this.config = config;
    this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('config', ?)`, JSON.stringify(config));
    if (changedPolicy) this.verifier.forget();
    if (changedNaming) this.toolsChanged();
    else if (changedPolicy) this.mcp.notifyToolsChanged();
  }

  // ------------------------------------------------------------------------------------------------------
  // HTTP entry: provider WebSocket upgrades and MCP requests, forwarded by the Worker after authentication.

  override async fetch(request: Request): Promise<Response> {
    let relayed: RelayRequest;
    try {
      relayed = readRelayRequest(request.headers);
    } catch (e) {
      if (!(e instanceof RelayContractError)) throw e;
      return contractBroken(this.channelId, e);
    }
    switch (relayed.kind) {
      case "agent-hash":
        // Only the token's hash: the MCP layer answers if it can vouch for it, else asks the Worker to check.
        return this.mcp.handle(request, { tokenHash: relayed.tokenHash });
      case "provider":
        this.configure(relayed.config);
        if (relayed.provider.role === "control") return this.opener.accept(relayed.provider, this.channelId);
        return this.providers.accept(relayed.provider, this.channelId);
      case "agent":
        this.configure(relayed.config);
        return this.mcp.handle(request, { agent: relayed.agent });
    }
  }

  // ------------------------------------------------------------------------------------------------------
  // WebSocket events (hibernation API).

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (this.opener.isControl(ws)) return this.opener.message(ws, message);
    const provider = this.providers.ofSocket(ws);
    if (!provider) {
      ws.close(CLOSE_CODES.unknownProvider, "unknown provider");
      return;
    }
    const read = readProviderFrame(message);
    if ("frame" in read) return this.onFrame(ws, provider, read.frame);
    if (read.log) console.warn(`channel ${this.channelId}: provider ${provider.id} ${read.log}`);
    sendFrame(ws, read.refusal);
    if (read.close) ws.close(read.close.code, read.close.reason);
  }

  private onFrame(ws: WebSocket, provider: ProviderState, frame: ProviderFrame): void {
    const now = this.now();
    switch (frame.type) {
      case "ping":
        // Keep-alive only: not activity (it must not make this tab the "most recently active").
        sendFrame(ws, { type: "pong" });
        return;
      case "hello":
        this.providers.hello(provider, frame.page, now);
        // Which tab serves a tool changed; what agents see did not.
        this.catalog.forget();
        return;
      case "tools": {
        const { accepted, refused } = acceptTools(frame.tools);
        if (refused.length)
          sendFrame(ws, {
            type: "error",
            code: "invalid_tools",
            message: `Tools refused: ${refused.join("; ")}.`,
          });
        if (this.providers.setTools(provider, accepted, now)) this.toolsChanged();
        return;
      }
      case "result":
        if (this.calls.settle(provider, frame)) this.providers.touch(provider, now);
        return;
      case "progress":
        this.calls.progress(provider, frame);
        return;
      case "log": {
        const log = {
          level: frame.level,
          ...(frame.logger ? { logger: frame.logger } : {}),
          data: frame.data,
        };
        // A log of no call of this provider's goes to every session that asked for logs.
        if (!this.calls.log(provider, frame.id, log)) this.mcp.broadcastLog(log);
        return;
      }
    }
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.dropProvider(ws);
    try {
      ws.close(
        code === CLOSE_CODES.noStatus || code === CLOSE_CODES.abnormal ? CLOSE_CODES.normal : code,
        reason,
      );
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.dropProvider(ws);
  }

  private dropProvider(ws: WebSocket): void {
    if (this.opener.isControl(ws)) return this.opener.closed(ws);
    const provider = this.providers.remove(ws);
    if (!provider) return;
    this.calls.providerGone(provider);
    if (provider.tools.length) this.toolsChanged();
  }

  /**
   * Remembers what was checked; a tool whose verification changed since it was last checked (its site
   * published, or its verification lapsed) changes what agents read: they are told to list again.
   */
  private noteChecked(checked: Map<string, ToolVerification>): Map<string, ToolVerification> {
    let changed = false;
    for (const [name, v] of checked) {
      const text = JSON.stringify(v);
      const before = this.lastChecked.get(name);
      if (before !== undefined && before !== text) changed = true;
      this.lastChecked.set(name, text);
    }
    if (this.lastChecked.size > 4 * LIMITS.toolsPerProvider) this.lastChecked = new Map();
    if (changed) this.mcp.notifyToolsChanged();
    return checked;
  }

  private toolsChanged(): void {
    if (this.catalog.changed()) this.mcp.notifyToolsChanged();
    // A tab may have just registered a tool whose page is being opened on demand. Asked even when what
    // agents see did not change: the tab's tool can read exactly like the added one it now serves.
    if (this.opener.size) this.opener.toolsChanged();
  }

  // ------------------------------------------------------------------------------------------------------
  // The channel's tools and calls (ChannelTools: what the MCP sessions use).

  exposedTools(agentTokenId: string | null): Map<string, ExposedTool> {
    if (this.policies.paused !== null) return new Map();
    return this.visibleTo(agentTokenId, this.catalog.exposed());
  }

  /** The tools of `tools` that an agent's owner-set policy lets it see. */
  private visibleTo<T extends { name: string; readOnly: boolean }>(
    agentTokenId: string | null,
    tools: Map<string, T>,
  ): Map<string, T> {
    if (this.policies.of(agentTokenId) === "all") return tools;
    return new Map([...tools].filter(([, t]) => this.policies.shows(agentTokenId, t)));
  }

  /** Re-reads the added marketplace tools when due; agents hear list_changed if what they see changed. */
  private async refreshAdded(fresh = false): Promise<void> {
    if (await this.added.refresh({ fresh })) this.toolsChanged();
  }

  async listedTools(agentTokenId: string | null): Promise<Map<string, ExposedTool>> {
    await this.refreshAdded();
    await this.cloud.refresh(this.config?.channelId ?? null);
    const exposed = this.visibleTo(agentTokenId, this.catalog.exposed());
    const checked = this.noteChecked(await this.verifier.check(exposed.values()));
    const policy = policyOf(this.config);
    return new Map(
      [...exposed].map(([name, t]) => [name, presentTool(this.cloud.present(t), checked.get(name), policy)]),
    );
  }

  /**
   * Runs one call end to end, in one pass: the owner's pause switch and the agent's policy first (a refused
   * call reaches no provider); an added marketplace tool no tab offers runs in the hub's browser or gets its
   * page opened; a tab's tool meets the owner's verification policy once; then the call goes to its provider.
   * However it ends, it is audited once, from its own start, with its one argument text.
   */
  async callTool(call: CallRequest): Promise<CallOutcome> {
    let req = call;
    const started = this.now();
    const args = callArguments(req.arguments);
    await this.refreshAdded();
    let exposed = this.catalog.exposed().get(req.name);
    const refusal = this.policies.refusal(req.agentTokenId, exposed, req.name);
    if (refusal !== null) {
      // The owner's choice, made in advance: audited as `denied`, like a call the user declined.
      const outcome: CallOutcome = { status: "denied", result: errorResult(refusal) };
      return this.finish({ req, outcome, exposed, providerId: null, argText: args.text, started });
    }
    if (exposed?.registry) {
      const found = await this.runAdded(exposed, req, args, started);
      if ("finished" in found) return this.finish(found.finished);
      // The tab that opened serves the call, under the name the channel gives its tool.
      exposed = found.exposed;
      req = { ...req, name: exposed.name };
    }
    const decision = exposed ? await this.verificationOf(exposed) : { refused: false as const };
    if (exposed && decision.refused) {
      // Refused by the owner's policy before anything reaches the tab: audited as `denied`, like a call the
      // user declined (it is the user's choice, made in advance), with the verification that decided it.
      const outcome: CallOutcome = {
        status: "denied",
        result: errorResult(refusalText(exposed, decision.verification)),
      };
      return this.finish({
        req,
        outcome,
        exposed,
        providerId: null,
        argText: args.text,
        started,
        verification: decision.verification,
      });
    }
    return this.finish(await this.calls.run(req, exposed, args, started, decision.verification));
  }

  /**
   * An added marketplace tool no tab offers. If its site lets the hub run it, it runs in the hub's browser
   * (cloud/channel.ts), audited with the provider `cloud`. Otherwise the paired extension opens its page
   * (page-opener.ts) and the call goes on to the tab's tool once a tab offers it; if it cannot, the call ends
   * with why (`disconnected`, the user's `denied`, or a `timeout`).
   */
  private async runAdded(
    exposed: ExposedTool,
    req: CallRequest,
    args: CallArguments,
    started: number,
  ): Promise<{ finished: FinishedCall } | { exposed: ExposedTool }> {
    const ended = (outcome: CallOutcome, tool: ExposedTool, providerId: string | null) => ({
      finished: { req, outcome, exposed: tool, providerId, argText: args.text, started },
    });
    const cloud = await callAddedInCloud(this.env, exposed, req, this.opener.connected() > 0);
    if (cloud) return ended(cloud, { ...exposed, label: "cloud" }, "cloud");
    const opened: OpenResult = await this.opener.open(exposed, req);
    if (!opened.ready) return ended(opened.outcome, exposed, null);
    const tab = this.catalog.exposed().get(opened.name);
    if (tab && !tab.registry) return { exposed: tab };
    return ended(
      {
        status: "disconnected",
        result: errorResult(
          `The tab that opened for ${exposed.originalName} closed or stopped offering it before the call could run; call it again.`,
        ),
      },
      exposed,
      null,
    );
  }

  /**
   * The owner's verification policy, decided once for a call: a tab's tool is checked against its origin's
   * published manifest; under "verified", one that is not verified is checked again against what the site
   * publishes now (it may have just published) before it is refused.
   */
  private async verificationOf(
    exposed: ExposedTool,
  ): Promise<{ refused: boolean; verification?: ToolVerification | undefined }> {
    if (!exposed.group.startsWith("tab:")) return { refused: false };
    const verification = (await this.verifier.check([exposed])).get(exposed.name);
    if (policyOf(this.config) !== "verified" || verification?.status === "verified")
      return { refused: false, verification };
    const fresh = this.noteChecked(await this.verifier.check([exposed], { fresh: true })).get(exposed.name);
    return { refused: fresh?.status !== "verified", verification: fresh };
  }

  /** A finished call is audited, then its outcome goes back. */
  private async finish(call: FinishedCall): Promise<CallOutcome> {
    await this.audit(call);
    return call.outcome;
  }

  /** Every finished call goes to the audit log (bench/relay/worker.mjs overrides this to measure it). */
  protected async audit(call: FinishedCall): Promise<void> {
    const at = await this.auditLog.record(call);
    // The row's expiry: an alarm set earlier (for an older row) covers it.
    await this.ensureAlarm(at + this.auditLog.retentionMs);
    if (this.rollup.add(call, this.now())) await this.ensureAlarm(this.rollup.nextFlushAt()!);
  }

  override async alarm(): Promise<void> {
    await this.runAlarm(this.now());
  }

  /**
   * The object's one alarm (tests pass `now`): the audit log's retention, then the usage rollup's flush; the
   * next alarm at the earliest time either needs it. Parts that need it sooner call ensureAlarm.
   */
  async runAlarm(now: number): Promise<void> {
    this.alarmAt = null;
    const auditNext = this.auditLog.prune(now);
    try {
      await this.rollup.onAlarm(now);
    } finally {
      const next = [auditNext, this.rollup.nextFlushAt()].filter((t): t is number => t !== null);
      if (next.length) await this.ensureAlarm(Math.min(...next));
    }
  }

  /** Makes sure the object's alarm fires at `at` or earlier (one storage read per instance, then memory). */
  private async ensureAlarm(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.alarmAt = at;
  }

  // ------------------------------------------------------------------------------------------------------
  // RPC for the Worker.

  /** Runs a call for a plain HTTP agent. */
  async callOnce(config: ChannelConfig, call: PlainCall): Promise<CallOutcome> {
    this.configure(config);
    return this.callTool(call);
  }

  /** The snapshot with each tab tool checked against its origin's published manifest (the owner's console). */
  async checkedSnapshot(config: ChannelConfig) {
    this.configure(config);
    await this.refreshAdded();
    const checked = this.noteChecked(await this.verifier.check(this.catalog.exposed().values()));
    return this.snapshot(config, checked);
  }

  /** Live providers and the tools agents see (`verification`: null unless checked, see checkedSnapshot). */
  snapshot(config: ChannelConfig, checked: Map<string, ToolVerification> = new Map()) {
    this.configure(config);
    const exposed = [...this.catalog.exposed().values()];
    // Whether each provider was paired from a browser page, and whether the extension relays it: kept on
    // its socket's attachment (which survives hibernation and eviction with the socket).
    const attachments = this.providers.attachments();
    return {
      providers: this.providers.list().map((p) => ({
        id: p.id,
        tokenId: p.tokenId,
        // (Only live providers are listed here; "registry" entries are the catalog's, never a socket.)
        kind: p.kind === "sidecar" ? ("sidecar" as const) : ("tab" as const),
        label: p.label,
        origin: p.origin,
        pairedFromPage: attachments.get(p.id)?.pairedFromPage ?? null,
        via: attachments.get(p.id)?.via ?? null,
        page: p.page,
        connectedAt: new Date(p.connectedAt).toISOString(),
        lastActiveAt: new Date(p.lastActiveAt).toISOString(),
        tools: p.tools.map((t) => t.name),
      })) satisfies ProviderView[],
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
        // An added marketplace tool no tab offers is the site's published definition: verified as such.
        verification:
          checked.get(t.name) ??
          (t.registry
            ? { status: "verified" as const, site: t.registry.site, version: t.registry.version }
            : null),
      })) satisfies ChannelToolView[],
      sessions: this.mcp.size,
      // The owner's switches: when the channel was paused (null: it runs), and each agent's policy other
      // than "all", by agent (an agent token's id, or `oauth:<grantId>`).
      paused: this.pausedView(),
      policies: this.policies.all(),
      pendingCalls: this.calls.size,
      // Browsers whose extension can open an added tool's page on demand, and opens under way.
      extensionsConnected: this.opener.connected(),
      pendingOpens: this.opener.size,
    };
  }

  /** The owner changed the channel's added marketplace tools (REST): read them now, tell agents. */
  async addedToolsChanged(config: ChannelConfig): Promise<void> {
    this.configure(config);
    await this.refreshAdded(true);
  }

  /**
   * A site whose tools the channel added changed in the registry (channels/site-push.ts): read the added
   * tools now and check live tools again, so agents hear at once what changed.
   */
  async siteChanged(config: ChannelConfig): Promise<void> {
    this.configure(config);
    this.verifier.forget();
    await this.refreshAdded(true);
    if (this.providers.size) this.mcp.notifyToolsChanged();
  }

  /** Answers an audit query from the channel's own log (channels/audit.ts makes and reads the cursors). */
  async readAudit(config: ChannelConfig, q: AuditRead): Promise<AuditRows> {
    this.configure(config);
    const now = this.now();
    const rows = await this.auditLog.read(q, now);
    // Rows moved in from D1 may expire before the alarm set for newer ones.
    const next = this.auditLog.nextNeed(now);
    if (next !== null) await this.ensureAlarm(next);
    return rows;
  }

  /** Closes every live connection of a revoked provider token. */
  revokeProvider(tokenId: string): number {
    const sockets = this.providers.socketsOfToken(tokenId);
    for (const ws of sockets) {
      this.dropProvider(ws);
      ws.close(CLOSE_CODES.unauthorized, "token revoked");
    }
    return sockets.length;
  }

  /** Ends every MCP session opened with a revoked agent token; its policy goes with it. */
  async revokeAgent(agentTokenId: string): Promise<number> {
    this.policies.forget(agentTokenId);
    return this.mcp.closeAgent(agentTokenId);
  }

  /** An agent's tool policy (`all` unless the owner chose another). */
  async agentPolicy(config: ChannelConfig, agentTokenId: string): Promise<AgentPolicy> {
    this.configure(config);
    return { tools: this.policies.of(agentTokenId) };
  }

  /**
   * Sets an agent's tool policy; an `allow` list may name only tools the channel has now (live or added), or
   * the answer names the unknown ones and nothing changes. The agent (and nobody else) hears list_changed.
   */
  async setAgentPolicy(
    config: ChannelConfig,
    agentTokenId: string,
    policy: AgentPolicy,
  ): Promise<{ policy: AgentPolicy } | { unknown: Array<{ index: number; name: string }> }> {
    this.configure(config);
    const { tools } = policy;
    if (typeof tools === "object") {
      await this.refreshAdded();
      const names = this.catalog.exposed();
      const unknown = tools.allow.flatMap((name, index) => (names.has(name) ? [] : [{ index, name }]));
      if (unknown.length) return { unknown };
    }
    this.policies.set(agentTokenId, tools);
    this.mcp.notifyAgentToolsChanged(agentTokenId);
    return { policy: { tools: this.policies.of(agentTokenId) } };
  }

  /** The owner's pause switch: while paused every agent call is refused at once; providers stay connected. */
  async setPaused(config: ChannelConfig, paused: boolean): Promise<{ paused: string | null }> {
    this.configure(config);
    this.policies.setPaused(paused, this.now());
    return { paused: this.pausedView() };
  }

  private pausedView(): string | null {
    const at = this.policies.paused;
    return at === null ? null : new Date(at).toISOString();
  }
}

function policyOf(config: ChannelConfig | null): VerificationPolicy {
  return config?.verificationPolicy ?? "all";
}

/** The Worker sent what the contract does not allow: its bug, not the client's. Logged; a 500 for the client. */
function contractBroken(channelId: string, e: RelayContractError): Response {
  console.error(`channel ${channelId}: ${e.message}`);
  const body: ErrorBody = {
    error: {
      code: "internal_error",
      message:
        "The hub could not hand this request to the channel (an internal error, logged). Try again later.",
    },
  };
  return Response.json(body, { status: 500 });
}
