// The extension's service worker: pairs the browser with one channel (pairing.ts), keeps each tab's tools
// (tab-tools.ts, labelled with the origin the browser reports), decides which tabs are shared (settings.ts,
// sharing.ts: the user's per-site decisions, incognito off unless turned on), gives each shared tab its own
// connection to the hub (tab-sockets.ts), asks for approval before a call that is not read-only reaches the
// page (calls.ts, approvals.ts), keeps one control socket while paired over which the hub asks to open a tool's
// page (page-opens.ts: the user is asked first, in the same approval window), answers the popup and the
// approval window (ui-answers.ts), and keeps the toolbar badge current (badge.ts). This file builds those
// parts, matches the sockets to the tabs, the decisions and the pairing (reconcile), and routes Chrome's
// events to them.
//
// Chrome stops an idle service worker and starts it again on the next event; all state that must outlive it
// is in chrome.storage (settings.ts). When it starts it asks every tab for its tools again, and shared tabs
// reconnect on their own (content/isolated-world.ts), so the hub sees them back without a second pairing. A
// `keepalive` alarm wakes it once a minute to reconcile, and open sockets ping every 20 s (which keeps it
// running while something is shared).
import type { CallToolResult } from "../../src/protocol/results.js";
import { RESEND_REQUEST, TAB_PORT, isRecord } from "../content/page-channel.js";
import { STATE_CHANGED, isExtensionPage, type ExtensionState, type UiRequest } from "../messages.js";
import { Approvals } from "./approvals.js";
import { Badge } from "./badge.js";
import { Calls } from "./calls.js";
import type { SocketStatus } from "./hub-socket.js";
import { PageOpens } from "./page-opens.js";
import { Pairing } from "./pairing.js";
import { Settings } from "./settings.js";
import { TabSockets } from "./tab-sockets.js";
import { TabToolStore, type TabTools } from "./tab-tools.js";
import { UiAnswers } from "./ui-answers.js";

const KEEPALIVE_ALARM = "keepalive";

// The parts, each the owner of its state. Their callbacks into each other run only on later events, after
// every part below exists.
const settings = new Settings();
const ready: Promise<void> = settings.load();
const badge = new Badge(() => ({
  waiting: approvals.size,
  pairing: settings.pairing,
  problem: settings.problem,
  sharedTabIds: tabSockets.list().map((socket) => socket.tabId),
}));
const approvals = new Approvals(() => badge.changed());
const store = new TabToolStore(({ tabId, tab }) => {
  if (!tab) tabSockets.tabGone(tabId);
  void ready.then(reconcile);
});
const tabSockets: TabSockets = new TabSockets(store, badge, {
  call: (tabId, socket, frame) => void calls.run(tabId, socket, frame),
  cancel: (tabId, id, reason) => calls.cancel(tabId, id, reason),
  closed: (tabId, socket) => calls.socketClosed(tabId, socket),
  refused: (code, message) => void pairing.refused(code, message),
});
const calls = new Calls(store, (tabId) => tabSockets.get(tabId), settings, approvals);
const pageOpens = new PageOpens(settings, approvals, {
  refused: (code, message) => void pairing.refused(code, message),
  changed: () => badge.changed(),
  opened: () => reconcile(),
});
const pairing = new Pairing(settings, tabSockets, approvals, () => reconcile());
const ui = new UiAnswers({ settings, store, tabSockets, approvals, pageOpens, pairing, reconcile });

/** Opens, updates and closes the sockets to match the tabs, the decisions and the pairing. */
function reconcile(): void {
  const paired = settings.pairing;
  tabSockets.reconcile(paired, (tab) => settings.sharing(tab.origin, tab.tabId, tab.incognito) === "shared");
  pageOpens.reconcile(paired);
  badge.changed();
}

// ------------------------------------------------------------------------------------------------------------
// The popup, the approval window and the hub's connect page.

chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
  if (!isRecord(message) || typeof message.type !== "string") return;
  if (message.type.startsWith("ui:") && message.type !== STATE_CHANGED.type) {
    if (!isExtensionPage(sender)) return;
    void ready
      .then(() => ui.answer(message as unknown as UiRequest))
      .then(sendResponse, (e: unknown) => sendResponse({ ok: false, error: String(e) }));
    return true;
  }
  if (message.type === "connect-code" && typeof message.code === "string") {
    // From the isolated-world script on the hub's own /extension/connect page, and nowhere else.
    void ready.then(async () =>
      sendResponse(await pairing.pairFromConnectPage(message.code as string, sender)),
    );
    return true;
  }
  return;
});

// ------------------------------------------------------------------------------------------------------------
// Tabs.

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== TAB_PORT) return;
  const sender = port.sender ?? {};
  port.onMessage.addListener((message: unknown) => {
    void ready.then(() => {
      if (!isRecord(message)) return;
      if (message.type === "tools") store.receive(message, sender, port);
      else if (message.type === "result" && typeof message.id === "string" && isRecord(message.result)) {
        const tabId = store.speaker(sender);
        if (tabId !== undefined && store.line(tabId) === port)
          calls.result(tabId, message.id, message.result as unknown as CallToolResult);
      }
    });
  });
  port.onDisconnect.addListener(() => store.lineClosed(sender.tab?.id, port));
});

chrome.tabs.onRemoved.addListener((tabId) => {
  store.removeTab(tabId);
  approvals.withdrawWhere((a) => a.tabId === tabId);
  settings.tabClosed(tabId);
});

chrome.webNavigation.onCommitted.addListener(({ tabId, frameId, documentId, url }) => {
  if (frameId !== 0) return;
  store.navigated(tabId, documentId);
  approvals.withdrawWhere((a) => a.tabId === tabId);
  settings.tabNavigated(tabId, url);
});

chrome.tabs.onActivated.addListener(({ tabId }) => tabSockets.get(tabId)?.hello());
chrome.tabs.onUpdated.addListener((tabId, info) => {
  if (info.title === undefined) return;
  tabSockets.setTitle(tabId, info.title);
});

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== KEEPALIVE_ALARM) return;
  void ready.then(() => {
    tabSockets.retryNow();
    pageOpens.retryNow();
    reconcile();
  });
});

// ------------------------------------------------------------------------------------------------------------
// Start (every time Chrome starts this worker).

void ready.then(async () => {
  reconcile(); // the control socket, while paired (tab sockets follow their tabs' tools)
  await chrome.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 1 });
  // Tabs that registered tools before this worker (re)started say them again.
  for (const tab of await chrome.tabs.query({ url: ["http://*/*", "https://*/*"] })) {
    if (tab.id !== undefined) chrome.tabs.sendMessage(tab.id, RESEND_REQUEST).catch(() => {});
  }
});

declare global {
  var webmcpHubExtension: {
    tabs(): TabTools[];
    state(tabId?: number): Promise<ExtensionState>;
    ui(request: UiRequest): Promise<unknown>;
    /** The control socket's status (null: not paired), and the opens waiting for the user, by the hub's id. */
    control(): SocketStatus | null;
    opens(): string[];
  };
}
// For the e2e tests and for debugging from the service worker's console.
globalThis.webmcpHubExtension = {
  tabs: () => store.list(),
  state: async (tabId) => (await ready, ui.state(tabId)),
  ui: async (request) => (await ready, ui.answer(request)),
  control: () => pageOpens.status,
  opens: () => pageOpens.waiting(),
};
