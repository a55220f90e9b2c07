// A channel's providers inside its ChannelRelay: their WebSockets (hibernation API: an idle tab costs nothing;
// each socket carries the Worker's ProviderAttachment and is tagged by provider and by token), their state in
// memory, and a row each in the object's SQLite, so their tool lists survive eviction. After an eviction the
// rows are read back, keeping only providers whose socket is still open.
import {
  CLOSE_CODES,
  LIMITS,
  RELAY_SUBPROTOCOL,
  type HelloFrame,
  type ProviderAttachment,
  type LiveTool,
} from "../../protocol/index.js";
import { displayText, sameOriginPageUrl } from "./display-text.js";
import type { ProviderState } from "./naming.js";
import { sendFrame } from "./provider-frames.js";

type ProviderRow = Record<string, string | number | null>;

export class ProviderStore {
  private readonly byId = new Map<string, ProviderState>();
  /** Counts activity, to order what happens within one millisecond (ProviderState.activeOrder). */
  private activity = 0;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly sql: SqlStorage,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS providers (
      id TEXT PRIMARY KEY, token_id TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL, origin TEXT,
      page TEXT, tools TEXT NOT NULL, connected_at INTEGER NOT NULL, last_active_at INTEGER NOT NULL)`);
    this.reload();
  }

  get size(): number {
    return this.byId.size;
  }

  list(): ProviderState[] {
    return [...this.byId.values()];
  }

  get(id: string): ProviderState | undefined {
    return this.byId.get(id);
  }

  /** The provider a socket speaks for: undefined for a socket the store does not know (or no longer). */
  ofSocket(ws: WebSocket): ProviderState | undefined {
    const attachment = attachmentOf(ws);
    return attachment ? this.byId.get(attachment.providerId) : undefined;
  }

  /** The open socket of a provider. */
  socketOf(providerId: string): WebSocket | undefined {
    return this.ctx.getWebSockets(providerId)[0];
  }

  /** Each live provider's attachment, by provider id (what the Worker said about it when it connected). */
  attachments(): Map<string, ProviderAttachment> {
    const byId = new Map<string, ProviderAttachment>();
    for (const ws of this.ctx.getWebSockets()) {
      const attachment = attachmentOf(ws);
      // (The extension's control sockets are not providers: page-opener.ts keeps them.)
      if (attachment && attachment.role !== "control") byId.set(attachment.providerId, attachment);
    }
    return byId;
  }

  /**
   * Accepts a provider's upgrade: its socket joins the store and is welcomed. A full channel accepts, explains
   * in an error frame and closes with CLOSE_CODES.channelFull (a browser cannot read the body of a refused upgrade).
   */
  accept(attachment: ProviderAttachment, channelId: string): Response {
    const pair = new WebSocketPair();
    const client = pair[0];
    const server = pair[1];
    const upgraded = () =>
      new Response(null, {
        status: 101,
        webSocket: client,
        headers: { "sec-websocket-protocol": RELAY_SUBPROTOCOL },
      });
    if (this.byId.size >= LIMITS.providersPerChannel) {
      server.accept();
      sendFrame(server, {
        type: "error",
        code: "channel_full",
        message: `This channel already has ${LIMITS.providersPerChannel} providers connected; close a tab or sidecar first.`,
      });
      server.close(CLOSE_CODES.channelFull, "channel full");
      return upgraded();
    }
    this.ctx.acceptWebSocket(server, [attachment.providerId, `token:${attachment.tokenId}`]);
    server.serializeAttachment(attachment);
    const { providerId, ...rest } = attachment;
    const state: ProviderState = {
      ...rest,
      id: providerId,
      page: null,
      lastActiveAt: attachment.connectedAt,
      activeOrder: ++this.activity,
      tools: [],
    };
    this.byId.set(providerId, state);
    this.save(state);
    sendFrame(server, { type: "welcome", providerId, channelId });
    return upgraded();
  }

  /** A hello (on connect, and when the page becomes active again): the provider is the most recent. */
  hello(provider: ProviderState, page: HelloFrame["page"], now: number): void {
    // Untrusted: the URL is kept only on the tab's own origin (never `javascript:` or another site's).
    provider.page = page
      ? {
          url: sameOriginPageUrl(page.url, provider.kind === "tab" ? provider.origin : null),
          title: displayText(page.title, LIMITS.pageTitleMax),
        }
      : null;
    this.active(provider, now);
    this.save(provider);
  }

  /** Replaces a provider's tools; says whether they differ from what it offered before. */
  setTools(provider: ProviderState, tools: LiveTool[], now: number): boolean {
    const before = JSON.stringify(provider.tools);
    provider.tools = tools;
    this.active(provider, now);
    this.save(provider);
    return JSON.stringify(tools) !== before;
  }

  /** An answer from the provider counts as activity (in memory; the next hello or tools frame stores it). */
  touch(provider: ProviderState, now: number): void {
    this.active(provider, now);
  }

  /** Marks activity: its time, and its order among activity of the same millisecond. */
  private active(provider: ProviderState, now: number): void {
    provider.lastActiveAt = now;
    provider.activeOrder = ++this.activity;
  }

  /** Forgets the provider of a socket that closed or failed; returns it (undefined if it was not known). */
  remove(ws: WebSocket): ProviderState | undefined {
    const provider = this.ofSocket(ws);
    if (!provider) return undefined;
    this.byId.delete(provider.id);
    this.sql.exec(`DELETE FROM providers WHERE id = ?`, provider.id);
    return provider;
  }

  /** The open sockets of a provider token (a sidecar's one, or an extension's one per shared tab). */
  socketsOfToken(tokenId: string): WebSocket[] {
    return this.ctx.getWebSockets(`token:${tokenId}`);
  }

  private save(p: ProviderState): void {
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

  /** Rebuilds the in-memory map from storage, keeping only providers whose socket is still open. */
  private reload(): void {
    const live = new Set(this.attachments().keys());
    for (const row of this.sql.exec<ProviderRow>(`SELECT * FROM providers`).toArray()) {
      const id = String(row.id);
      if (!live.has(id)) {
        this.sql.exec(`DELETE FROM providers WHERE id = ?`, id);
        continue;
      }
      this.byId.set(id, {
        id,
        tokenId: String(row.token_id),
        kind: row.kind === "sidecar" ? "sidecar" : "tab",
        label: String(row.label),
        origin: row.origin === null ? null : String(row.origin),
        page: row.page ? (JSON.parse(String(row.page)) as ProviderState["page"]) : null,
        connectedAt: Number(row.connected_at),
        lastActiveAt: Number(row.last_active_at),
        tools: JSON.parse(String(row.tools)) as LiveTool[],
      });
    }
  }
}

/**
 * The attachment of a provider's socket. The object wrote it itself, from the ProviderAttachment it parsed
 * off the Worker's header (relay-contract.ts), so it is read back as that type without parsing it again.
 */
function attachmentOf(ws: WebSocket): ProviderAttachment | null {
  return ws.deserializeAttachment() as ProviderAttachment | null;
}
