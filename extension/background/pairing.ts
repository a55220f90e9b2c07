// Pairing the browser with one channel: a pairing code from the popup, or from the hub's own
// /extension/connect page (where the signed-in user made one), traded at the hub for a provider token. A new
// pairing replaces the old one; unpairing, or the hub refusing the pairing, drops every socket and every
// waiting approval, and the popup says why.
import { CLOSE_CODES } from "../../src/protocol/relay-socket.js";
import type { UiResponse } from "../messages.js";
import { isRecord } from "../content/page-channel.js";
import type { Approvals } from "./approvals.js";
import type { Settings } from "./settings.js";
import type { TabSockets } from "./tab-sockets.js";

/** How the hub lists this pairing among the channel's. */
const PAIR_LABEL = "browser extension";

/** The sender of a runtime message, as far as the connect page's check needs it. */
export interface MessageSender {
  frameId?: number;
  origin?: string;
  url?: string;
}

export class Pairing {
  constructor(
    private readonly settings: Settings,
    private readonly tabSockets: TabSockets,
    private readonly approvals: Approvals,
    /** Matches the sockets to the new pairing (or to none). */
    private readonly reconcile: () => void,
  ) {}

  async pair(code: string): Promise<UiResponse> {
    const hub = this.settings.hubUrl;
    let res: Response;
    try {
      res = await fetch(`${hub}/api/pair`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: code.trim().slice(0, 32), kind: "extension", label: PAIR_LABEL }),
      });
    } catch {
      return { ok: false, error: `Could not reach the hub at ${hub}. Is it running, and is the URL right?` };
    }
    const body: unknown = await res.json().catch(() => null);
    const b = isRecord(body) ? body : {};
    if (
      !res.ok ||
      typeof b.channelId !== "string" ||
      typeof b.providerToken !== "string" ||
      typeof b.relayUrl !== "string"
    ) {
      const message = isRecord(b.error) && typeof b.error.message === "string" ? b.error.message : "";
      return { ok: false, error: message || `Pairing failed (HTTP ${res.status}).` };
    }
    this.tabSockets.closeAll();
    const pairing = {
      hubOrigin: hub,
      channelId: b.channelId,
      channelName: typeof b.channelName === "string" ? b.channelName : null,
      providerToken: b.providerToken,
      relayUrl: b.relayUrl,
      pairedAt: Date.now(),
    };
    await this.settings.setPairing(pairing, "");
    this.reconcile();
    return { ok: true, channelId: b.channelId };
  }

  /**
   * A code from the isolated-world script on the hub's own /extension/connect page, and nowhere else: the top
   * frame of a page the browser says is that page, on the hub the extension is set to.
   */
  async pairFromConnectPage(code: string, sender: MessageSender): Promise<UiResponse> {
    const hub = this.settings.hubUrl;
    const fromHub =
      sender.frameId === 0 &&
      sender.origin === hub &&
      (sender.url ?? "").startsWith(`${hub}/extension/connect`);
    return fromHub ? this.pair(code) : { ok: false, error: "Not the hub's page." };
  }

  /** Forgets the pairing; `problem` is what the popup shows about why ("" for nothing). */
  async unpair(problem = ""): Promise<void> {
    await this.settings.setPairing(null, problem);
    this.tabSockets.closeAll();
    this.approvals.withdrawWhere(() => true);
    this.reconcile();
  }

  /** The hub refused the pairing: forget it, and say why in the popup. */
  async refused(code: number, message: string): Promise<void> {
    if (!this.settings.pairing) return;
    const why =
      code === CLOSE_CODES.forbidden
        ? "The hub does not accept this pairing from this extension (was it paired from another install?)."
        : "The hub no longer accepts this browser's pairing: it was revoked, or the channel was deleted.";
    await this.unpair(`${why} Pair again.${message ? ` (The hub said: ${message})` : ""}`);
  }
}
