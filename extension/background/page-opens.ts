// Opening a tool's page when the hub asks ("Open on demand"; src/protocol/control-frames.ts): the control
// socket while paired (control-socket.ts carries the frames), and the opens it carries while they wait for the
// user. Each open is checked (open-check.ts), asked about in the approval window, and answered exactly once,
// unless the hub withdrew it first; the page opens in a visible tab, shared as "Allow once" unless the site
// is always shared.
import type { OpenFrame } from "../../src/protocol/control-frames.js";
import type { Approvals } from "./approvals.js";
import { ControlSocket } from "./control-socket.js";
import type { SocketStatus } from "./hub-socket.js";
import { checkOpen, neverSharedMessage } from "./open-check.js";
import type { Settings, StoredPairing } from "./settings.js";

/** What the opens tell the rest of the service worker. */
export interface PageOpenRoutes {
  /** The hub refused the pairing itself (4001, 4003). */
  refused(code: number, message: string): void;
  changed(): void;
  /** A page opened and is shared "once": its tab's socket should follow. */
  opened(): void;
}

export class PageOpens {
  #control: ControlSocket | null = null;
  /** The opens waiting for the user, by the hub's id, with the socket to answer on and their prompt. */
  readonly #opens = new Map<string, { socket: ControlSocket; approvalId: string }>();

  constructor(
    private readonly settings: Settings,
    private readonly approvals: Approvals,
    private readonly routes: PageOpenRoutes,
  ) {}

  /** The control socket's status (null: none, as when not paired). */
  get status(): SocketStatus | null {
    return this.#control?.status ?? null;
  }

  /** The hub's ids of the opens waiting for the user. */
  waiting(): string[] {
    return [...this.#opens.keys()];
  }

  /** One control socket while paired, for this pairing; none while not. */
  reconcile(pairing: StoredPairing | null): void {
    if (this.#control && this.#control.pairing !== pairing) this.#closeControl();
    if (!this.#control && pairing) this.#openControl(pairing);
  }

  /** The keepalive alarm: a socket waiting to reconnect tries now. */
  retryNow(): void {
    this.#control?.retryNow();
  }

  #openControl(pairing: StoredPairing): void {
    const socket: ControlSocket = new ControlSocket(pairing, {
      open: (frame) => void this.#openPage(socket, frame),
      cancel: (id) => this.#withdraw(id),
      closed: () => {
        // The hub stops waiting for the opens of a closed socket: their prompts go.
        for (const [id, open] of [...this.#opens]) if (open.socket === socket) this.#withdraw(id);
      },
      refused: (code, errorCode, message) => {
        // A hub without control sockets takes it for a tab socket with no origin: only opening pages is off.
        if (errorCode === "invalid_origin") console.warn(`webmcp-hub: the hub opens no pages: ${message}`);
        else this.routes.refused(code, message);
        this.routes.changed();
      },
      statusChanged: () => this.routes.changed(),
      warn: (message) => console.warn(`webmcp-hub (opening pages): ${message}`),
    });
    this.#control = socket;
    socket.connect();
  }

  #closeControl(): void {
    const socket = this.#control;
    this.#control = null;
    socket?.close();
  }

  /** The hub no longer waits for this open (cancelled, timed out, the socket closed): withdraw its prompt. */
  #withdraw(id: string): void {
    const open = this.#opens.get(id);
    if (!open) return;
    this.#opens.delete(id);
    this.approvals.withdraw(open.approvalId);
  }

  /**
   * One `open` from the hub, answered exactly once (unless the hub withdrew it first): checks the page, asks
   * the user, opens a visible new tab and shares it as "Allow once" unless the site is always shared. A site
   * the user never shares is refused without asking.
   */
  async #openPage(socket: ControlSocket, frame: OpenFrame): Promise<void> {
    if (this.#opens.has(frame.id)) return; // one prompt per open id
    const checked = checkOpen(frame, this.settings.sites);
    if (!checked.ok) return socket.openFailed(frame.id, checked.reason, checked.message);
    const { origin } = checked;
    const url = new URL(checked.url);
    const blocked = () => socket.openFailed(frame.id, "blocked", neverSharedMessage(origin));
    const never = () => this.settings.sites[origin] === "never";
    const approvalId = crypto.randomUUID();
    const entry = { socket, approvalId };
    this.#opens.set(frame.id, entry);
    // The hub sends open-cancel when it stops waiting; this is the fallback if that frame never comes.
    const expire = setTimeout(() => this.approvals.withdraw(approvalId), frame.timeoutMs);
    const outcome = await this.approvals.ask({
      id: approvalId,
      kind: "open",
      channelId: socket.pairing.channelId,
      channelName: socket.pairing.channelName,
      agent: frame.agent,
      client: frame.client ?? null,
      tabId: -1,
      origin,
      site: frame.site,
      url: url.href,
      tool: frame.tool,
      title: frame.title ?? null,
      readOnly: frame.readOnly,
      arguments: {},
      deadline: Date.now() + frame.timeoutMs,
    });
    clearTimeout(expire);
    if (this.#opens.get(frame.id) !== entry) return; // the hub withdrew it: it waits for no answer
    this.#opens.delete(frame.id);
    if (never()) return blocked(); // decided "never" meanwhile
    if (outcome === "withdrawn")
      return socket.openFailed(frame.id, "declined", "The user did not answer in time.");
    if (outcome === "deny")
      return socket.openFailed(frame.id, "declined", "The user chose not to open the page.");
    let tabId: number | undefined;
    try {
      tabId = await openVisibleTab(url.href, this.settings.incognito);
    } catch (e) {
      return socket.openFailed(frame.id, "failed", `The browser could not open the page: ${String(e)}`);
    }
    if (tabId === undefined)
      return socket.openFailed(frame.id, "failed", "The browser could not open the page.");
    // Shared for this tab while it stays on the site ("Allow once"), unless the user always shares the site.
    if (this.settings.sites[origin] !== "always") await this.settings.allowOnce(tabId, origin);
    socket.opened(frame.id);
    this.routes.opened();
  }
}

/**
 * Opens `url` in a new active tab of the browser window the user used last (a normal window, not the
 * approval popup that just closed, and not an incognito one unless the user shares incognito tabs), brought
 * to the front; with no such window, in a new one. Resolves with the tab's id.
 */
async function openVisibleTab(url: string, incognito: boolean): Promise<number | undefined> {
  const windows = await chrome.windows.getAll({ windowTypes: ["normal"] });
  const usable = windows.filter((w) => w.id !== undefined && (incognito || !w.incognito));
  const target = usable.find((w) => w.focused) ?? usable.at(-1);
  if (target?.id === undefined) {
    const created = await chrome.windows.create({ url, focused: true });
    return created?.tabs?.[0]?.id;
  }
  const tab = await chrome.tabs.create({ url, active: true, windowId: target.id });
  await chrome.windows.update(target.id, { focused: true }).catch(() => {});
  return tab.id;
}
