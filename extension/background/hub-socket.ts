// What every WebSocket of the extension to the hub shares (a shared tab's, tab-socket.ts, and the browser's
// control socket, control-socket.ts): it authenticates with the pairing's provider token as a subprotocol,
// pings every 20 s once welcomed (Chrome keeps a service worker alive while WebSocket traffic flows, 116+),
// reconnects with jittered backoff when the hub goes away, remembers the hub's last error frame, and stops for
// good when the hub refuses the pairing in band (4001, 4003) or when a subclass says a close code is final.
// Subclasses say where it connects, what a welcome starts, and what their other frames mean.
import type { ProviderFrame } from "../../src/protocol/frames.js";
import { CLOSE_CODES, RELAY_SUBPROTOCOL } from "../../src/protocol/relay-socket.js";
import { backoffMs } from "../../src/bridge/relay-frames.js";
import { isRecord } from "../content/page-channel.js";
import type { StoredPairing } from "./settings.js";

/** Chrome suspends a service worker idle for 30 s; WebSocket traffic counts as activity (Chrome 116+). */
export const PING_INTERVAL_MS = 20_000;
const PING = JSON.stringify({ type: "ping" } satisfies ProviderFrame);

export type SocketStatus = "connecting" | "connected" | "offline";

export interface HubSocketEvents {
  /** The socket closed: what was in flight on it is over (the hub has answered or dropped it). */
  closed(): void;
  /**
   * The hub refused the socket in band: 4001 the token is unknown or revoked; 4003 `forbidden` the token is
   * not this extension's, or `invalid_origin` (only what this socket asked for). `errorCode` is the code of
   * the hub's error frame before it closed.
   */
  refused(code: number, errorCode: string, message: string): void;
  statusChanged(): void;
  warn(message: string): void;
}

export abstract class HubSocket {
  status: SocketStatus = "connecting";
  protected ws: WebSocket | null = null;
  protected stopped = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private lastError = "";
  private lastErrorCode = "";

  constructor(
    readonly pairing: StoredPairing,
    private readonly events: HubSocketEvents,
  ) {}

  /** Where this socket connects (the pairing's relay URL and its query). */
  protected abstract url(): URL;
  /** The hub welcomed this connection (pings start after this returns). */
  protected abstract welcomed(): void;
  /** A frame other than `welcome` and `error`. */
  protected abstract frame(frame: Record<string, unknown>): void;
  /** A close code after which this socket must not retry (besides the refusals 4001 and 4003). */
  protected finalClose(_code: number): boolean {
    return false;
  }
  /** What the warning for a hub error frame says. */
  protected errorWarning(message: string): string {
    return `the hub said: ${message}`;
  }

  connect(): void {
    clearTimeout(this.retryTimer);
    if (this.stopped) return;
    this.setStatus("connecting");
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url(), [RELAY_SUBPROTOCOL, this.pairing.providerToken]);
    } catch {
      this.stopped = true;
      this.setStatus("offline");
      this.events.refused(CLOSE_CODES.unauthorized, "", "The stored pairing is not usable.");
      return;
    }
    this.ws = ws;
    this.opening();
    ws.onmessage = (e) => this.onMessage(e.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      this.events.closed();
      if (e.code === CLOSE_CODES.unauthorized || e.code === CLOSE_CODES.forbidden) {
        this.stopped = true;
        this.setStatus("offline");
        this.events.refused(e.code, this.lastErrorCode, this.lastError);
        return;
      }
      if (this.finalClose(e.code)) {
        this.stopped = true;
        this.setStatus("offline");
        return;
      }
      if (this.stopped) return;
      this.setStatus("offline");
      this.retryTimer = setTimeout(() => this.connect(), backoffMs(this.attempt++));
    };
  }

  /** A new connection is being opened (subclasses reset what they sent on the last one). */
  protected opening(): void {}

  /** Closes for good. */
  close(reason: string): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.close(CLOSE_CODES.normal, reason);
      this.events.closed();
    }
  }

  /** Reconnects now if waiting to retry (the hub is back, or the service worker woke up). */
  retryNow(): void {
    if (!this.ws && !this.stopped) {
      this.attempt = 0;
      this.connect();
    }
  }

  /** Sends text if the socket is open (else drops it: the next connection starts afresh). */
  protected sendText(text: string): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  private onMessage(data: unknown): void {
    let frame: unknown;
    try {
      frame = JSON.parse(String(data));
    } catch {
      return;
    }
    if (!isRecord(frame)) return;
    if (frame.type === "welcome") {
      this.attempt = 0;
      this.welcomed();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ws?.send(PING), PING_INTERVAL_MS);
      this.setStatus("connected");
    } else if (frame.type === "error") {
      this.lastError = String(frame.message ?? "");
      this.lastErrorCode = String(frame.code ?? "");
      this.events.warn(this.errorWarning(this.lastError));
    } else this.frame(frame);
  }

  private setStatus(status: SocketStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.events.statusChanged();
  }
}
