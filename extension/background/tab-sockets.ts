// The shared tabs' sockets: one TabSocket per tab that is shared, paired and has tools, opened and closed to
// match them (reconcile), with the tabs' titles for their hello. What a socket carries in is not theirs: calls
// and cancels go to the calls, a refused pairing to the pairing. A tab origin the hub refuses to relay
// (invalid_origin: the browser reported an origin the hub cannot label) is left out until the service worker
// restarts, so the tab is not retried once a minute.
import type { CallFrame } from "../../src/protocol/frames.js";
import type { SharedMessage } from "../content/page-channel.js";
import type { Badge } from "./badge.js";
import type { StoredPairing } from "./settings.js";
import { TabSocket } from "./tab-socket.js";
import type { TabToolStore, TabTools } from "./tab-tools.js";

/** Where a tab socket's calls, cancels, close and refused pairing go. */
export interface TabSocketRoutes {
  call(tabId: number, socket: TabSocket, frame: CallFrame): void;
  cancel(tabId: number, id: string, reason: string): void;
  closed(tabId: number, socket: TabSocket): void;
  /** The hub refused the pairing itself (4001, 4003). */
  refused(code: number, message: string): void;
}

export class TabSockets {
  readonly #sockets = new Map<number, TabSocket>();
  readonly #titles = new Map<number, string>();
  readonly #refusedOrigins = new Set<string>();

  constructor(
    private readonly store: TabToolStore,
    private readonly badge: Badge,
    private readonly routes: TabSocketRoutes,
  ) {}

  get(tabId: number): TabSocket | undefined {
    return this.#sockets.get(tabId);
  }

  list(): TabSocket[] {
    return [...this.#sockets.values()];
  }

  title(tabId: number): string | undefined {
    return this.#titles.get(tabId);
  }

  setTitle(tabId: number, title: string): void {
    this.#titles.set(tabId, title);
  }

  /** The tab has no tools any more (closed, navigated, its page went away). */
  tabGone(tabId: number): void {
    this.#titles.delete(tabId);
  }

  /**
   * Opens, updates and closes the sockets to match the tabs, their sharing (`shared`) and the pairing, and
   * tells each tab whether it is shared.
   */
  reconcile(pairing: StoredPairing | null, shared: (tab: TabTools) => boolean): void {
    for (const tab of this.store.list()) {
      const isShared = shared(tab);
      let socket = this.#sockets.get(tab.tabId);
      if (socket && (socket.origin !== tab.origin || !isShared || !pairing)) {
        this.close(tab.tabId);
        socket = undefined;
      }
      if (!socket && isShared && pairing && tab.tools.length > 0 && !this.#refusedOrigins.has(tab.origin)) {
        socket = this.#open(pairing, tab);
      }
      socket?.toolsChanged();
      this.store.line(tab.tabId)?.postMessage({ type: "shared", shared: isShared } satisfies SharedMessage);
    }
    for (const tabId of this.#sockets.keys()) if (!this.store.get(tabId)) this.close(tabId);
  }

  close(tabId: number): void {
    const socket = this.#sockets.get(tabId);
    if (!socket) return;
    this.#sockets.delete(tabId);
    socket.close();
    this.badge.tabUnshared(tabId);
  }

  closeAll(): void {
    for (const tabId of [...this.#sockets.keys()]) this.close(tabId);
  }

  /** The keepalive alarm: a socket waiting to reconnect tries now. */
  retryNow(): void {
    for (const socket of this.#sockets.values()) socket.retryNow();
  }

  #open(pairing: StoredPairing, tab: TabTools): TabSocket {
    const { tabId } = tab;
    const socket: TabSocket = new TabSocket(pairing, tabId, tab.origin, {
      describe: () => {
        const now = this.store.get(tabId);
        return { tools: now?.tools ?? [], url: now?.url ?? tab.url, title: this.#titles.get(tabId) ?? "" };
      },
      call: (frame) => this.routes.call(tabId, socket, frame),
      cancel: (id, reason) => this.routes.cancel(tabId, id, reason),
      closed: () => this.routes.closed(tabId, socket),
      refused: (code, errorCode, message) => {
        if (errorCode === "invalid_origin") {
          // Only this tab's origin was refused (the browser reported one the hub cannot label): leave it out.
          console.warn(`webmcp-hub: the hub refused to relay ${tab.origin}: ${message}`);
          this.#refusedOrigins.add(tab.origin);
          this.close(tabId);
          this.badge.changed();
        } else this.routes.refused(code, message);
      },
      statusChanged: () => this.badge.changed(),
      warn: (message) => console.warn(`webmcp-hub (${tab.origin}): ${message}`),
    });
    this.#sockets.set(tabId, socket);
    socket.connect();
    void chrome.tabs
      .get(tabId)
      .then((t) => {
        if (t.title) this.#titles.set(tabId, t.title);
        socket.hello();
      })
      .catch(() => {});
    return socket;
  }
}
