// Approvals the page cannot forge: a call to a tool that is not read-only waits here, in the service worker,
// before it reaches the page. Each waiting call gets its own small browser window showing approval.html, an
// extension page (no web page can script it, frame it or draw over it; no web_accessible_resources), which
// answers through chrome.runtime messages the service worker takes only from the extension's own pages
// (messages.ts isExtensionPage). Closing the window is a denial. The hub's timeout, a cancel, the tab closing
// or the socket dropping withdraw the request and close its window. A request to open a page for an agent
// (kind "open", page-opens.ts) waits here the same way: "deny" is "Don't open", and the hub's
// open-cancel, its deadline or the control socket closing withdraw it.
import type { ApprovalDecision, ApprovalState } from "../messages.js";

export type ApprovalOutcome = ApprovalDecision | "withdrawn";

interface Waiting {
  state: ApprovalState;
  resolve(outcome: ApprovalOutcome): void;
  windowId?: number;
}

const WINDOW = { type: "popup", width: 460, height: 620, focused: true } as const;

export class Approvals {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly changed: () => void) {
    chrome.windows.onRemoved.addListener((windowId) => {
      for (const [id, w] of this.waiting) if (w.windowId === windowId) this.settle(id, "deny", false);
    });
  }

  /** Opens the request's window and resolves with the user's decision, or "withdrawn". */
  ask(state: ApprovalState): Promise<ApprovalOutcome> {
    return new Promise<ApprovalOutcome>((resolve) => {
      const waiting: Waiting = { state, resolve };
      this.waiting.set(state.id, waiting);
      this.changed();
      chrome.windows
        .create({ ...WINDOW, url: chrome.runtime.getURL(`approval.html#${encodeURIComponent(state.id)}`) })
        .then((win) => {
          if (this.waiting.get(state.id) !== waiting) {
            if (win?.id !== undefined) void chrome.windows.remove(win.id).catch(() => {});
          } else waiting.windowId = win?.id;
        })
        .catch(() => this.settle(state.id, "deny", false));
    });
  }

  get(id: string): ApprovalState | null {
    return this.waiting.get(id)?.state ?? null;
  }

  list(): ApprovalState[] {
    return [...this.waiting.values()].map((w) => w.state);
  }

  get size(): number {
    return this.waiting.size;
  }

  /** The user decided in the approval window. Returns false when the request is no longer waiting. */
  decide(id: string, decision: ApprovalDecision): boolean {
    return this.settle(id, decision, true);
  }

  /** The call is over before anyone decided (cancelled, timed out, the tab or the socket went away). */
  withdraw(id: string): void {
    this.settle(id, "withdrawn", true);
  }

  /** Withdraws every request that matches. */
  withdrawWhere(match: (state: ApprovalState) => boolean): void {
    for (const w of [...this.waiting.values()]) if (match(w.state)) this.withdraw(w.state.id);
  }

  private settle(id: string, outcome: ApprovalOutcome, closeWindow: boolean): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.waiting.delete(id);
    if (closeWindow && w.windowId !== undefined) void chrome.windows.remove(w.windowId).catch(() => {});
    w.resolve(outcome);
    this.changed();
    return true;
  }
}
