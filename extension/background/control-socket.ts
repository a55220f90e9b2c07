// The extension's control socket ("Open on demand"; the contract is src/protocol/control-frames.ts):
// while the browser is paired, ONE WebSocket to `<relayUrl>?control=1`, beside the per-tab sockets, over which
// the hub asks the extension to open an added marketplace tool's page. It authenticates as a tab socket does
// (the provider token as a subprotocol), pings every 20 s (which keeps the service worker alive while paired,
// as a shared tab's socket does), and reconnects with backoff when the hub goes away. It only carries frames:
// what an `open` means (checks, the user's prompt, the tab) is page-opens.ts's.
//
// Decisions:
// - Frames are read by hand to exactly the contract's schemas (open-check.ts): a malformed `open` that still
//   has an id is answered `open-failed` invalid at once, so the hub does not wait for a prompt that never comes.
// - Close codes 4001/4003 are the hub refusing the pairing (hub-socket.ts): no retry, the service worker
//   is told. 4008 is the hub keeping a newer browser's control socket instead of this one: no retry either
//   (retrying would push the other browser out in turn); the next pairing or worker start tries again.
// - When the socket closes, every open it carried is over (the hub stops waiting for them): `closed()` lets
//   the service worker withdraw their prompts.
import type {
  CONTROL_QUERY,
  ControlFrame,
  OpenFailure,
  OpenFrame,
} from "../../src/protocol/control-frames.js";
import { CLOSE_CODES } from "../../src/protocol/relay-socket.js";
import { HubSocket, type HubSocketEvents } from "./hub-socket.js";
import { readOpenCancel, readOpenFrame } from "./open-check.js";
import type { StoredPairing } from "./settings.js";

/** The relay URL's query that makes the socket a control socket (the contract's CONTROL_QUERY; type-checked). */
const CONTROL: typeof CONTROL_QUERY = "control";

export interface ControlSocketEvents extends HubSocketEvents {
  /** The hub asks to open a page (read to OpenFrameSchema by open-check.ts). */
  open(frame: OpenFrame): void;
  /** The hub no longer waits for that open: withdraw its prompt (no answer is needed). */
  cancel(id: string, reason: string): void;
}

export class ControlSocket extends HubSocket {
  constructor(
    pairing: StoredPairing,
    private readonly on: ControlSocketEvents,
  ) {
    super(pairing, on);
  }

  protected url(): URL {
    const url = new URL(this.pairing.relayUrl);
    url.searchParams.set(CONTROL, "1");
    return url;
  }

  protected welcomed(): void {}

  protected override finalClose(code: number): boolean {
    if (code !== CLOSE_CODES.replaced) return false;
    this.on.warn("the hub keeps a newer browser's connection for opening pages instead of this one.");
    return true;
  }

  /** Closes for good (unpaired, or paired again with another channel). */
  override close(reason = "unpaired"): void {
    super.close(reason);
  }

  opened(id: string): void {
    this.send({ type: "opened", id });
  }

  openFailed(id: string, reason: OpenFailure, message?: string): void {
    this.send({ type: "open-failed", id, reason, ...(message ? { message: message.slice(0, 512) } : {}) });
  }

  private send(frame: ControlFrame): void {
    this.sendText(JSON.stringify(frame));
  }

  protected frame(frame: Record<string, unknown>): void {
    switch (frame.type) {
      case "open": {
        const open = readOpenFrame(frame);
        if (open) this.on.open(open);
        else if (typeof frame.id === "string" && frame.id.length > 0 && frame.id.length <= 64)
          this.openFailed(frame.id, "invalid", "The extension could not read this request to open a page.");
        return;
      }
      case "open-cancel": {
        const cancel = readOpenCancel(frame);
        if (cancel) this.on.cancel(cancel.id, cancel.reason);
        return;
      }
    }
  }
}
