// The extension's control socket (issue 16, "Open on demand"; the contract is src/protocol/control-frames.ts):
// while the browser is paired, ONE WebSocket to `<relayUrl>?control=1`, beside the per-tab sockets, over which
// the hub asks the extension to open an added marketplace tool's page. It authenticates as a tab socket does
// (the provider token as a subprotocol), pings every 20 s (which keeps the service worker alive while paired,
// as a shared tab's socket does), and reconnects with backoff when the hub goes away. It only carries frames:
// what an `open` means (checks, the user's prompt, the tab) is the service worker's.
//
// Decisions where the issue is silent:
// - Frames are checked with the contract's zod schemas here (OpenFrameSchema): a malformed `open` that still
//   has an id is answered `open-failed` invalid at once, so the hub does not wait for a prompt that never comes.
// - Close codes 4001/4003 are the hub refusing the pairing (as for TabSocket): no retry, the service worker
//   is told. 4008 is the hub keeping a newer browser's control socket instead of this one: no retry either
//   (retrying would push the other browser out in turn); the next pairing or worker start tries again.
// - When the socket closes, every open it carried is over (the hub stops waiting for them): `closed()` lets
//   the service worker withdraw their prompts.
import {
  CONTROL_QUERY,
  OpenCancelFrameSchema,
  OpenFrameSchema,
  type ControlFrame,
  type OpenFailure,
  type OpenFrame,
} from "../src/protocol/control-frames.js";
import {
  CLOSE_ORIGIN_REFUSED,
  CLOSE_TOKEN_REFUSED,
  RELAY_SUBPROTOCOL,
  backoffMs,
} from "../src/bridge/relay-frames.js";
import { isRecord } from "./page-channel.js";
import type { StoredPairing } from "./settings.js";
import { PING_INTERVAL_MS, type SocketStatus } from "./tab-socket.js";

/** The hub's close code for a control socket replaced by a newer one (page-opener.ts). */
export const CLOSE_REPLACED = 4008;
const PING = JSON.stringify({ type: "ping" } satisfies ControlFrame);

export interface ControlSocketEvents {
  /** The hub asks to open a page (already checked against OpenFrameSchema). */
  open(frame: OpenFrame): void;
  /** The hub no longer waits for that open: withdraw its prompt (no answer is needed). */
  cancel(id: string, reason: string): void;
  /** The socket closed: every open it carried is over. */
  closed(): void;
  /** The hub refused the pairing in band (4001/4003); `errorCode` is its last error frame's code. */
  refused(code: number, errorCode: string, message: string): void;
  statusChanged(): void;
  warn(message: string): void;
}

export class ControlSocket {
  status: SocketStatus = "connecting";
  private ws: WebSocket | null = null;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private lastError = "";
  private lastErrorCode = "";

  constructor(
    readonly pairing: StoredPairing,
    private readonly on: ControlSocketEvents,
  ) {}

  connect(): void {
    clearTimeout(this.retryTimer);
    if (this.stopped) return;
    this.setStatus("connecting");
    let ws: WebSocket;
    try {
      const url = new URL(this.pairing.relayUrl);
      url.searchParams.set(CONTROL_QUERY, "1");
      ws = new WebSocket(url, [RELAY_SUBPROTOCOL, this.pairing.providerToken]);
    } catch {
      this.stopped = true;
      this.setStatus("offline");
      this.on.refused(CLOSE_TOKEN_REFUSED, "", "The stored pairing is not usable.");
      return;
    }
    this.ws = ws;
    ws.onmessage = (e) => this.onFrame(e.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      this.on.closed();
      if (e.code === CLOSE_TOKEN_REFUSED || e.code === CLOSE_ORIGIN_REFUSED) {
        this.stopped = true;
        this.setStatus("offline");
        this.on.refused(e.code, this.lastErrorCode, this.lastError);
        return;
      }
      if (e.code === CLOSE_REPLACED) {
        this.stopped = true;
        this.setStatus("offline");
        this.on.warn("the hub keeps a newer browser's connection for opening pages instead of this one.");
        return;
      }
      if (this.stopped) return;
      this.setStatus("offline");
      this.retryTimer = setTimeout(() => this.connect(), backoffMs(this.attempt++));
    };
  }

  /** Closes for good (unpaired, or paired again with another channel). */
  close(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.close(1000, "unpaired");
      this.on.closed();
    }
  }

  /** Reconnects now if waiting to retry (the keepalive alarm woke the worker, or the hub is back). */
  retryNow(): void {
    if (!this.ws && !this.stopped) {
      this.attempt = 0;
      this.connect();
    }
  }

  opened(id: string): void {
    this.send({ type: "opened", id });
  }

  openFailed(id: string, reason: OpenFailure, message?: string): void {
    this.send({ type: "open-failed", id, reason, ...(message ? { message: message.slice(0, 512) } : {}) });
  }

  private send(frame: ControlFrame): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
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
        this.attempt = 0;
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.ws?.send(PING), PING_INTERVAL_MS);
        this.setStatus("connected");
        return;
      case "open": {
        const parsed = OpenFrameSchema.safeParse(frame);
        if (parsed.success) this.on.open(parsed.data);
        else if (typeof frame.id === "string" && frame.id.length > 0 && frame.id.length <= 64)
          this.openFailed(frame.id, "invalid", "The extension could not read this request to open a page.");
        return;
      }
      case "open-cancel": {
        const parsed = OpenCancelFrameSchema.safeParse(frame);
        if (parsed.success) this.on.cancel(parsed.data.id, parsed.data.reason);
        return;
      }
      case "error":
        this.lastError = String(frame.message ?? "");
        this.lastErrorCode = String(frame.code ?? "");
        this.on.warn(`the hub said: ${this.lastError}`);
        return;
    }
  }

  private setStatus(status: SocketStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.on.statusChanged();
  }
}
