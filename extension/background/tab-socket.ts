// One shared tab's connection to the hub: its own WebSocket to /relay/:channelId?origin=<the tab's origin>,
// authenticated with the extension's provider token, so the hub sees each tab as a provider of its own
// (labelled, routed, limited and withdrawn per tab, as a /bridge.js tab is). It says hello, sends the tab's
// tools on every change, hands calls and cancels to the service worker (which asks for approval and reaches
// the page) and sends results back; pings, reconnection and the hub's refusals are hub-socket.ts's.
import type { CallFrame, HelloFrame, ProviderFrame } from "../../src/protocol/frames.js";
import type { CallToolResult } from "../../src/protocol/results.js";
import { frameText, toolsFrameText, type ToolDefinition } from "../../src/bridge/relay-frames.js";
import { HubSocket, type HubSocketEvents } from "./hub-socket.js";
import type { StoredPairing } from "./settings.js";

export const EXTENSION_VERSION = "extension/0.1.0";

export interface TabSocketEvents extends HubSocketEvents {
  /** The tab's tools and page, read when they are sent. */
  describe(): { tools: ToolDefinition[]; url: string; title: string };
  call(frame: CallFrame): void;
  cancel(id: string, reason: string): void;
}

export class TabSocket extends HubSocket {
  private isWelcomed = false;
  private lastTools = "";

  constructor(
    pairing: StoredPairing,
    readonly tabId: number,
    readonly origin: string,
    private readonly on: TabSocketEvents,
  ) {
    super(pairing, on);
  }

  protected url(): URL {
    const url = new URL(this.pairing.relayUrl);
    url.searchParams.set("origin", this.origin);
    return url;
  }

  protected override opening(): void {
    this.isWelcomed = false;
    this.lastTools = "";
  }

  protected welcomed(): void {
    this.isWelcomed = true;
    this.hello();
    this.toolsChanged();
  }

  protected override errorWarning(message: string): string {
    return `the hub refused a frame: ${message}`;
  }

  /** Closes for good (the tab went away, stopped being shared, or the extension unpaired). */
  override close(reason = "tab no longer shared"): void {
    this.isWelcomed = false;
    super.close(reason);
  }

  /** The tab's tools changed: sends the new list (only if it differs from the last one sent). */
  toolsChanged(): void {
    if (!this.isWelcomed || !this.ws) return;
    const { text, warnings } = toolsFrameText(this.on.describe().tools);
    if (text === this.lastTools) return;
    for (const w of warnings) this.on.warn(w);
    this.lastTools = text;
    this.sendText(text);
  }

  /** Tells the hub about the page (again): also marks this tab as the most recently active one. */
  hello(): void {
    if (!this.isWelcomed || !this.ws) return;
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

  protected frame(frame: Record<string, unknown>): void {
    switch (frame.type) {
      case "call":
        if (typeof frame.id === "string" && typeof frame.name === "string")
          this.on.call(frame as unknown as CallFrame);
        return;
      case "cancel":
        if (typeof frame.id === "string") this.on.cancel(frame.id, String(frame.reason ?? "Cancelled."));
        return;
    }
  }
}
