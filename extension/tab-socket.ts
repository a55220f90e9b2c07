// One shared tab's connection to the hub: its own WebSocket to /relay/:channelId?origin=<the tab's origin>,
// authenticated with the extension's provider token, so the hub sees each tab as a provider of its own
// (labelled, routed, limited and withdrawn per tab, as a /bridge.js tab is). It says hello, sends the tab's
// tools on every change, hands calls and cancels to the service worker (which asks for approval and reaches
// the page), sends results back, pings every 20 s (which also keeps the service worker alive while a tab is
// shared) and reconnects with backoff when the hub goes away. Close codes 4001 and 4003 are the hub refusing
// the pairing itself: no retry, the service worker is told.
import type { CallFrame, HelloFrame, ProviderFrame } from "../src/protocol/frames.js";
import type { CallToolResult } from "../src/protocol/results.js";
import {
  CLOSE_ORIGIN_REFUSED,
  CLOSE_TOKEN_REFUSED,
  RELAY_SUBPROTOCOL,
  backoffMs,
  frameText,
  toolsFrameText,
  type ToolDefinition,
} from "../src/bridge/relay-frames.js";
import { isRecord } from "./page-channel.js";
import type { StoredPairing } from "./settings.js";

export const EXTENSION_VERSION = "extension/0.1.0";
/** Chrome suspends a service worker idle for 30 s; WebSocket traffic counts as activity (Chrome 116+). */
export const PING_INTERVAL_MS = 20_000;
const PING = JSON.stringify({ type: "ping" } satisfies ProviderFrame);

export type SocketStatus = "connecting" | "connected" | "offline";

export interface TabSocketEvents {
  /** The tab's tools and page, read when they are sent. */
  describe(): { tools: ToolDefinition[]; url: string; title: string };
  call(frame: CallFrame): void;
  cancel(id: string, reason: string): void;
  /** The socket closed: calls in flight on it are over (the hub has answered their agents). */
  closed(): void;
  /**
   * The hub refused the socket in band: 4001 the token is unknown or revoked; 4003 `forbidden` the token is
   * not this extension's; 4003 `invalid_origin` this tab's origin (only this tab). `errorCode` is the code of
   * the hub's error frame before it closed.
   */
  refused(code: number, errorCode: string, message: string): void;
  statusChanged(): void;
  warn(message: string): void;
}

export class TabSocket {
  status: SocketStatus = "connecting";
  private ws: WebSocket | null = null;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private welcomed = false;
  private stopped = false;
  private lastError = "";
  private lastErrorCode = "";
  private lastTools = "";

  constructor(
    private readonly pairing: StoredPairing,
    readonly tabId: number,
    readonly origin: string,
    private readonly on: TabSocketEvents,
  ) {}

  connect(): void {
    clearTimeout(this.retryTimer);
    if (this.stopped) return;
    this.setStatus("connecting");
    const url = new URL(this.pairing.relayUrl);
    url.searchParams.set("origin", this.origin);
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, [RELAY_SUBPROTOCOL, this.pairing.providerToken]);
    } catch {
      this.on.refused(CLOSE_TOKEN_REFUSED, "", "The stored pairing is not usable.");
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    this.lastTools = "";
    ws.onmessage = (e) => this.onFrame(e.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.welcomed = false;
      clearInterval(this.pingTimer);
      this.on.closed();
      if (e.code === CLOSE_TOKEN_REFUSED || e.code === CLOSE_ORIGIN_REFUSED) {
        this.stopped = true;
        this.setStatus("offline");
        this.on.refused(e.code, this.lastErrorCode, this.lastError);
        return;
      }
      if (this.stopped) return;
      this.setStatus("offline");
      this.retryTimer = setTimeout(() => this.connect(), backoffMs(this.attempt++));
    };
  }

  /** Closes for good (the tab went away, stopped being shared, or the extension unpaired). */
  close(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.close(1000, "tab no longer shared");
      this.on.closed();
    }
  }

  /** Reconnects now if waiting to retry (the hub is back, or the service worker woke up). */
  retryNow(): void {
    if (!this.ws && !this.stopped) {
      this.attempt = 0;
      this.connect();
    }
  }

  /** The tab's tools changed: sends the new list (only if it differs from the last one sent). */
  toolsChanged(): void {
    if (!this.welcomed) return;
    const { text, warnings } = toolsFrameText(this.on.describe().tools);
    if (text === this.lastTools) return;
    for (const w of warnings) this.on.warn(w);
    this.lastTools = text;
    this.ws?.send(text);
  }

  /** Tells the hub about the page (again): also marks this tab as the most recently active one. */
  hello(): void {
    if (!this.welcomed) return;
    const { url, title } = this.on.describe();
    const frame: HelloFrame = {
      type: "hello",
      kind: "tab",
      label: new URL(this.origin).host.slice(0, 64),
      page: { url: url.slice(0, 2048), title: title.slice(0, 256) },
      version: EXTENSION_VERSION,
    };
    this.send(frame);
  }

  result(id: string, result: CallToolResult, denied = false): void {
    this.send({ type: "result", id, result, ...(denied ? { denied: true } : {}) });
  }

  private send(frame: ProviderFrame): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    const text = frameText(frame);
    if (text === null) this.on.warn(`a ${frame.type} frame is over the hub's limit; not sent.`);
    else this.ws.send(text);
  }

  private onFrame(data: unknown): void {
    let frame: unknown;
    try {
      frame = JSON.parse(String(data));
    } catch {
      return;
    }
    if (!isRecord(frame)) return;
    switch (frame.type) {
      case "welcome":
        this.welcomed = true;
        this.attempt = 0;
        this.hello();
        this.toolsChanged();
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.ws?.send(PING), PING_INTERVAL_MS);
        this.setStatus("connected");
        return;
      case "call":
        if (typeof frame.id === "string" && typeof frame.name === "string")
          this.on.call(frame as unknown as CallFrame);
        return;
      case "cancel":
        if (typeof frame.id === "string") this.on.cancel(frame.id, String(frame.reason ?? "Cancelled."));
        return;
      case "error":
        this.lastError = String(frame.message ?? "");
        this.lastErrorCode = String(frame.code ?? "");
        this.on.warn(`the hub refused a frame: ${this.lastError}`);
        return;
    }
  }

  private setStatus(status: SocketStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.on.statusChanged();
  }
}
