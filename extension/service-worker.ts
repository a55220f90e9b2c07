// The extension's service worker: pairs the browser with one channel, keeps each tab's tools (tab-tools.ts,
// labelled with the origin the browser reports), decides which tabs are shared (the user's per-site
// decisions, incognito off unless turned on), gives each shared tab its own connection to the hub
// (tab-socket.ts), asks for approval before a call that is not read-only reaches the page (approvals.ts),
// keeps one control socket while paired over which the hub asks to open a tool's page (control-socket.ts;
// "Open on demand": the user is asked first, in the same approval window), answers the popup and the
// approval window (messages.ts), and keeps the toolbar badge current.
//
// Chrome stops an idle service worker and starts it again on the next event; all state that must outlive it
// is in chrome.storage (settings.ts). When it starts it asks every tab for its tools again, and shared tabs
// reconnect on their own (isolated-world.ts), so the hub sees them back without a second pairing. A `keepalive`
// alarm wakes it once a minute to reconcile, and open sockets ping every 20 s (which keeps it running while
// something is shared).
import { errorResult } from "../src/bridge/results.js";
import type { OpenFrame } from "../src/protocol/control-frames.js";
import type { CallFrame } from "../src/protocol/frames.js";
import { readVerification } from "../src/protocol/verification-text.js";
import type { CallToolResult } from "../src/protocol/results.js";
import { Approvals } from "./approvals.js";
import { ControlSocket } from "./control-socket.js";
import { checkOpen, neverSharedMessage } from "./open-check.js";
import {
  STATE_CHANGED,
  isExtensionPage,
  type ExtensionState,
  type SiteDecision,
  type TabState,
  type UiRequest,
  type UiResponse,
} from "./messages.js";
import { RESEND_REQUEST, TAB_PORT, isRecord, type RunMessage, type SharedMessage } from "./page-channel.js";
import {
  defaultHubUrl,
  hubOriginOf,
  loadOnce,
  loadSettings,
  saveOnce,
  saveSettings,
  type Stored,
  type StoredPairing,
} from "./settings.js";
import { decisionOf, sharingOf, type SharingRules } from "./sharing.js";
import { TabToolStore, type TabTools } from "./tab-tools.js";
import type { SocketStatus } from "./hub-socket.js";
import { TabSocket } from "./tab-socket.js";

const KEEPALIVE_ALARM = "keepalive";
const PAIR_LABEL = "browser extension";

let settings: Stored;
let once = new Map<number, string>();
const ready: Promise<void> = (async () => {
  settings = await loadSettings();
  once = await loadOnce();
})();

const sockets = new Map<number, TabSocket>();
/** Calls in flight, by `${tabId}:${callId}`: the tab they run in and their approval request while waiting. */
const calls = new Map<string, { tabId: number; socket: TabSocket; approvalId?: string }>();
const titles = new Map<number, string>();
/** The control socket while paired (control-socket.ts), and the opens it carries waiting for the user. */
let control: ControlSocket | null = null;
const opens = new Map<string, { socket: ControlSocket; approvalId: string }>();
/** Tab origins the hub refused to relay (invalid_origin): not retried until the service worker restarts. */
const refusedOrigins = new Set<string>();

const store = new TabToolStore(({ tabId, tab }) => {
  if (!tab) titles.delete(tabId);
  void ready.then(reconcile);
});

const approvals = new Approvals(() => changed());

// ------------------------------------------------------------------------------------------------------------
// Sharing.

const rules = (): SharingRules => ({ sites: settings.sites, once, incognito: settings.incognito });
const sharing = (origin: string, tabId: number, incognito: boolean) =>
  sharingOf(rules(), origin, tabId, incognito);

/** Opens, updates and closes tab sockets to match the tabs, the decisions and the pairing. */
function reconcile(): void {
  const pairing = settings.pairing;
  for (const tab of store.list()) {
    const shared = sharing(tab.origin, tab.tabId, tab.incognito) === "shared";
    let socket = sockets.get(tab.tabId);
    if (socket && (socket.origin !== tab.origin || !shared || !pairing)) {
      closeSocket(tab.tabId);
      socket = undefined;
    }
    if (!socket && shared && pairing && tab.tools.length > 0 && !refusedOrigins.has(tab.origin)) {
      socket = openSocket(pairing, tab);
    }
    socket?.toolsChanged();
    store.line(tab.tabId)?.postMessage({ type: "shared", shared } satisfies SharedMessage);
  }
  for (const tabId of sockets.keys()) if (!store.get(tabId)) closeSocket(tabId);
  if (control && control.pairing !== pairing) closeControl();
  if (!control && pairing) openControl(pairing);
  changed();
}

function openSocket(pairing: StoredPairing, tab: TabTools): TabSocket {
  const { tabId } = tab;
  const socket: TabSocket = new TabSocket(pairing, tabId, tab.origin, {
    describe: () => {
      const now = store.get(tabId);
      return { tools: now?.tools ?? [], url: now?.url ?? tab.url, title: titles.get(tabId) ?? "" };
    },
    call: (frame) => void runCall(tabId, socket, frame),
    cancel: (id, reason) => cancelCall(tabId, id, reason),
    closed: () => endCalls(tabId, socket),
    refused: (code, errorCode, message) => {
      if (errorCode === "invalid_origin") {
        // Only this tab's origin was refused (the browser reported one the hub cannot label): leave it out.
        console.warn(`webmcp-hub: the hub refused to relay ${tab.origin}: ${message}`);
        refusedOrigins.add(tab.origin);
        closeSocket(tabId);
        changed();
      } else void refused(code, message);
    },
    statusChanged: () => changed(),
    warn: (message) => console.warn(`webmcp-hub (${tab.origin}): ${message}`),
  });
  sockets.set(tabId, socket);
  socket.connect();
  void chrome.tabs
    .get(tabId)
    .then((t) => {
      if (t.title) titles.set(tabId, t.title);
      socket.hello();
    })
    .catch(() => {});
  return socket;
}

function closeSocket(tabId: number): void {
  const socket = sockets.get(tabId);
  if (!socket) return;
  sockets.delete(tabId);
  socket.close();
  void chrome.action.setBadgeText({ tabId, text: null as unknown as string }).catch(() => {});
}

// ------------------------------------------------------------------------------------------------------------
// Opening a tool's page when the hub asks (issue 16, "Open on demand"; src/protocol/control-frames.ts).

function openControl(pairing: StoredPairing): void {
  const socket: ControlSocket = new ControlSocket(pairing, {
    open: (frame) => void openPage(socket, frame),
    cancel: (id) => withdrawOpen(id),
    closed: () => {
      // The hub stops waiting for the opens of a closed socket: their prompts go.
      for (const [id, open] of [...opens]) if (open.socket === socket) withdrawOpen(id);
    },
    refused: (code, errorCode, message) => {
      // A hub without control sockets takes it for a tab socket with no origin: only opening pages is off.
      if (errorCode === "invalid_origin") console.warn(`webmcp-hub: the hub opens no pages: ${message}`);
      else void refused(code, message);
      changed();
    },
    statusChanged: () => changed(),
    warn: (message) => console.warn(`webmcp-hub (opening pages): ${message}`),
  });
  control = socket;
  socket.connect();
}

function closeControl(): void {
  const socket = control;
  control = null;
  socket?.close();
}

/** The hub no longer waits for this open (cancelled, timed out, the socket closed): withdraw its prompt. */
function withdrawOpen(id: string): void {
  const open = opens.get(id);
  if (!open) return;
  opens.delete(id);
  approvals.withdraw(open.approvalId);
}

/**
 * One `open` from the hub, answered exactly once (unless the hub withdrew it first): checks the page
 * (open-check.ts), asks the user in the approval window, opens a visible new tab and shares it as "Allow
 * once" unless the site is always shared. A site the user never shares is refused without asking.
 */
async function openPage(socket: ControlSocket, frame: OpenFrame): Promise<void> {
  if (opens.has(frame.id)) return; // one prompt per open id
  const checked = checkOpen(frame, settings.sites);
  if (!checked.ok) return socket.openFailed(frame.id, checked.reason, checked.message);
  const { origin } = checked;
  const url = new URL(checked.url);
  const blocked = () => socket.openFailed(frame.id, "blocked", neverSharedMessage(origin));
  const never = () => settings.sites[origin] === "never";
  const approvalId = crypto.randomUUID();
  const entry = { socket, approvalId };
  opens.set(frame.id, entry);
  // The hub sends open-cancel when it stops waiting; this is the fallback if that frame never comes.
  const expire = setTimeout(() => approvals.withdraw(approvalId), frame.timeoutMs);
  const outcome = await approvals.ask({
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
  if (opens.get(frame.id) !== entry) return; // the hub withdrew it: it waits for no answer
  opens.delete(frame.id);
  if (never()) return blocked(); // decided "never" meanwhile
  if (outcome === "withdrawn")
    return socket.openFailed(frame.id, "declined", "The user did not answer in time.");
  if (outcome === "deny")
    return socket.openFailed(frame.id, "declined", "The user chose not to open the page.");
  let tabId: number | undefined;
  try {
    tabId = await openVisibleTab(url.href);
  } catch (e) {
    return socket.openFailed(frame.id, "failed", `The browser could not open the page: ${String(e)}`);
  }
  if (tabId === undefined)
    return socket.openFailed(frame.id, "failed", "The browser could not open the page.");
  // Shared for this tab while it stays on the site ("Allow once"), unless the user always shares the site.
  if (settings.sites[origin] !== "always") {
    once.set(tabId, origin);
    await saveOnce(once);
  }
  socket.opened(frame.id);
  reconcile();
}

/**
 * Opens `url` in a new active tab of the browser window the user used last (a normal window, not the
 * approval popup that just closed, and not an incognito one unless the user shares incognito tabs), brought
 * to the front; with no such window, in a new one. Resolves with the tab's id.
 */
async function openVisibleTab(url: string): Promise<number | undefined> {
  const windows = await chrome.windows.getAll({ windowTypes: ["normal"] });
  const usable = windows.filter((w) => w.id !== undefined && (settings.incognito || !w.incognito));
  const target = usable.find((w) => w.focused) ?? usable.at(-1);
  if (target?.id === undefined) {
    const created = await chrome.windows.create({ url, focused: true });
    return created?.tabs?.[0]?.id;
  }
  const tab = await chrome.tabs.create({ url, active: true, windowId: target.id });
  await chrome.windows.update(target.id, { focused: true }).catch(() => {});
  return tab.id;
}

/** The hub refused the pairing: forget it, and say why in the popup. */
async function refused(code: number, message: string): Promise<void> {
  if (!settings.pairing) return;
  const why =
    code === 4003
      ? "The hub does not accept this pairing from this extension (was it paired from another install?)."
      : "The hub no longer accepts this browser's pairing: it was revoked, or the channel was deleted.";
  await unpair(`${why} Pair again.${message ? ` (The hub said: ${message})` : ""}`);
}

// ------------------------------------------------------------------------------------------------------------
// Calls.

const callKey = (tabId: number, id: string) => `${tabId}:${id}`;

async function runCall(tabId: number, socket: TabSocket, frame: CallFrame): Promise<void> {
  const key = callKey(tabId, frame.id);
  const tab = store.get(tabId);
  if (!tab || sockets.get(tabId) !== socket) {
    socket.result(frame.id, errorResult("The tab closed before the call could run."));
    return;
  }
  const entry: { tabId: number; socket: TabSocket; approvalId?: string } = { tabId, socket };
  calls.set(key, entry);
  const channelId = settings.pairing?.channelId ?? "";
  if (frame.approval && !alwaysAllowed(channelId, tab.origin, frame.name)) {
    const approvalId = crypto.randomUUID();
    entry.approvalId = approvalId;
    const tool = tab.tools.find((t) => t.name === frame.name);
    const verification = readVerification(frame.approval.verification);
    const decision = await approvals.ask({
      id: approvalId,
      channelId,
      channelName: settings.pairing?.channelName ?? null,
      agent: String(frame.approval.agent).slice(0, 128),
      client: typeof frame.approval.client === "string" ? frame.approval.client.slice(0, 64) : null,
      tabId,
      origin: tab.origin,
      ...(tool?.frameOrigin !== undefined && { frameOrigin: tool.frameOrigin }),
      tool: frame.name,
      title: tool?.title ?? null,
      arguments: frame.arguments,
      ...(verification && { verification }),
      deadline: Date.now() + frame.timeoutMs,
    });
    if (calls.get(key) !== entry || decision === "withdrawn") return;
    delete entry.approvalId;
    if (decision === "deny") {
      calls.delete(key);
      socket.result(frame.id, errorResult(`The user declined to run ${frame.name}.`), true);
      return;
    }
    if (decision === "always") await allowAlways(channelId, tab.origin, frame.name);
  }
  const line = store.line(tabId);
  if (!line || store.get(tabId)?.origin !== tab.origin) {
    calls.delete(key);
    socket.result(frame.id, errorResult(`The tab left ${tab.origin} before ${frame.name} could run.`));
    return;
  }
  line.postMessage({
    type: "call",
    id: frame.id,
    name: frame.name,
    arguments: frame.arguments,
  } satisfies RunMessage);
}

function cancelCall(tabId: number, id: string, reason: string): void {
  const entry = calls.get(callKey(tabId, id));
  if (!entry) return;
  calls.delete(callKey(tabId, id));
  if (entry.approvalId) approvals.withdraw(entry.approvalId);
  else store.line(tabId)?.postMessage({ type: "cancel", id, reason } satisfies RunMessage);
}

/** A tab's socket closed: the hub has answered its calls' agents; stop what still runs in the page. */
function endCalls(tabId: number, socket: TabSocket): void {
  for (const [key, entry] of [...calls]) {
    if (entry.tabId !== tabId || entry.socket !== socket) continue;
    cancelCall(tabId, key.slice(key.indexOf(":") + 1), "The connection to the hub closed.");
  }
}

function resultFromTab(tabId: number, id: string, result: CallToolResult): void {
  const entry = calls.get(callKey(tabId, id));
  if (!entry || entry.approvalId) return; // not ours, or already over
  calls.delete(callKey(tabId, id));
  entry.socket.result(id, result);
}

function alwaysAllowed(channelId: string, origin: string, tool: string): boolean {
  return settings.always[channelId]?.[origin]?.includes(tool) ?? false;
}

async function allowAlways(channelId: string, origin: string, tool: string): Promise<void> {
  const forChannel = { ...settings.always[channelId] };
  forChannel[origin] = [...new Set([...(forChannel[origin] ?? []), tool])];
  settings.always = { ...settings.always, [channelId]: forChannel };
  await saveSettings({ always: settings.always });
}

// ------------------------------------------------------------------------------------------------------------
// Pairing.

async function pair(code: string): Promise<UiResponse> {
  const hub = settings.hubUrl;
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
  for (const tabId of [...sockets.keys()]) closeSocket(tabId);
  settings.pairing = {
    hubOrigin: hub,
    channelId: b.channelId,
    channelName: typeof b.channelName === "string" ? b.channelName : null,
    providerToken: b.providerToken,
    relayUrl: b.relayUrl,
    pairedAt: Date.now(),
  };
  settings.problem = "";
  await saveSettings({ pairing: settings.pairing, problem: "" });
  reconcile();
  return { ok: true, channelId: b.channelId };
}

async function unpair(problem = ""): Promise<void> {
  settings.pairing = null;
  settings.problem = problem;
  await saveSettings({ pairing: null, problem });
  for (const tabId of [...sockets.keys()]) closeSocket(tabId);
  approvals.withdrawWhere(() => true);
  reconcile();
}

// ------------------------------------------------------------------------------------------------------------
// The popup and the approval window.

async function tabState(tabId: number): Promise<TabState | null> {
  const known = store.get(tabId);
  let origin = known?.origin;
  let title = titles.get(tabId) ?? "";
  let incognito = known?.incognito ?? false;
  try {
    const tab = await chrome.tabs.get(tabId);
    title = tab.title ?? title;
    incognito = tab.incognito;
    if (!origin && tab.url) {
      const url = new URL(tab.url);
      if (url.protocol === "http:" || url.protocol === "https:") origin = url.origin;
    }
  } catch {
    if (!known) return null;
  }
  if (!origin) return null;
  const socket = sockets.get(tabId);
  return {
    tabId,
    origin,
    title,
    toolCount: known?.tools.length ?? 0,
    tools: known?.tools.map((t) => t.name) ?? [],
    sharing: sharing(origin, tabId, incognito),
    decision: decisionOf(rules(), origin, tabId),
    connection: socket ? socket.status : null,
    incognito,
  };
}

async function state(currentTabId?: number): Promise<ExtensionState> {
  const tabs = (await Promise.all(store.list().map((t) => tabState(t.tabId)))).filter(
    (t): t is TabState => t !== null,
  );
  const p = settings.pairing;
  return {
    hubUrl: settings.hubUrl,
    defaultHubUrl: await defaultHubUrl(),
    pairing: p && {
      hubOrigin: p.hubOrigin,
      channelId: p.channelId,
      channelName: p.channelName,
      pairedAt: p.pairedAt,
    },
    problem: settings.problem,
    incognito: settings.incognito,
    sites: Object.entries(settings.sites)
      .map(([origin, decision]) => ({ origin, decision }))
      .sort((a, b) => a.origin.localeCompare(b.origin)),
    tabs: tabs.reverse(),
    current: currentTabId === undefined ? null : await tabState(currentTabId),
    approvals: approvals.list(),
    control: p && control ? control.status : null,
  };
}

async function setSite(origin: string, decision: SiteDecision | "ask", tabId?: number): Promise<UiResponse> {
  let parsed: string;
  try {
    parsed = new URL(origin).origin;
  } catch {
    return { ok: false, error: "That is not a site's origin." };
  }
  const sites = { ...settings.sites };
  if (decision === "always" || decision === "never") sites[parsed] = decision;
  else delete sites[parsed];
  for (const [tab, o] of [...once]) if (o === parsed) once.delete(tab);
  if (decision === "once") {
    if (tabId === undefined)
      return { ok: false, error: "Allow once applies to a tab: open the popup on it." };
    once.set(tabId, parsed);
  }
  settings.sites = sites;
  await Promise.all([saveSettings({ sites }), saveOnce(once)]);
  if (decision === "never" || decision === "ask")
    approvals.withdrawWhere((a) =>
      a.kind === "open"
        ? a.origin === parsed && decision === "never" // an open prompt of that site is answered `blocked`
        : a.origin === parsed && sharing(parsed, a.tabId, false) !== "shared",
    );
  reconcile();
  return { ok: true };
}

async function handleUi(m: UiRequest): Promise<ExtensionState | UiResponse | unknown> {
  switch (m.type) {
    case "ui:state":
      return state(m.tabId);
    case "ui:set-hub": {
      const origin = hubOriginOf(String(m.url));
      if (!origin) return { ok: false, error: "Give the hub's address as an http or https URL." };
      if (origin !== settings.hubUrl) {
        settings.hubUrl = origin;
        await saveSettings({ hubUrl: origin });
        if (settings.pairing) await unpair("");
      }
      return { ok: true };
    }
    case "ui:pair":
      return pair(String(m.code));
    case "ui:unpair":
      await unpair("");
      return { ok: true };
    case "ui:connect-account":
      await chrome.tabs.create({ url: `${settings.hubUrl}/extension/connect` });
      return { ok: true };
    case "ui:site":
      return setSite(String(m.origin), m.decision, m.tabId);
    case "ui:incognito":
      settings.incognito = m.on === true;
      await saveSettings({ incognito: settings.incognito });
      reconcile();
      return { ok: true };
    case "ui:approval-get":
      return approvals.get(String(m.id));
    case "ui:approval":
      if (approvals.get(String(m.id))?.kind === "open" && m.decision === "always")
        return { ok: false, error: "Opening a page is asked for each time." };
      return approvals.decide(String(m.id), m.decision)
        ? { ok: true }
        : { ok: false, error: "This request is no longer waiting." };
    case "ui:forget-always":
      settings.always = {};
      await saveSettings({ always: {} });
      return { ok: true };
    default:
      return { ok: false, error: "Unknown request." };
  }
}

chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
  if (!isRecord(message) || typeof message.type !== "string") return;
  if (message.type.startsWith("ui:") && message.type !== STATE_CHANGED.type) {
    if (!isExtensionPage(sender)) return;
    void ready
      .then(() => handleUi(message as unknown as UiRequest))
      .then(sendResponse, (e: unknown) => sendResponse({ ok: false, error: String(e) }));
    return true;
  }
  if (message.type === "connect-code" && typeof message.code === "string") {
    // From the isolated-world script on the hub's own /extension/connect page, and nowhere else.
    void ready.then(async () => {
      const fromHub =
        sender.frameId === 0 &&
        sender.origin === settings.hubUrl &&
        (sender.url ?? "").startsWith(`${settings.hubUrl}/extension/connect`);
      sendResponse(
        fromHub ? await pair(message.code as string) : { ok: false, error: "Not the hub's page." },
      );
    });
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
          resultFromTab(tabId, message.id, message.result as unknown as CallToolResult);
      }
    });
  });
  port.onDisconnect.addListener(() => store.lineClosed(sender.tab?.id, port));
});

chrome.tabs.onRemoved.addListener((tabId) => {
  store.removeTab(tabId);
  approvals.withdrawWhere((a) => a.tabId === tabId);
  if (once.delete(tabId)) void saveOnce(once);
});

chrome.webNavigation.onCommitted.addListener(({ tabId, frameId, documentId, url }) => {
  if (frameId !== 0) return;
  store.navigated(tabId, documentId);
  approvals.withdrawWhere((a) => a.tabId === tabId);
  // "Allow once" ends when the tab leaves the site.
  const allowed = once.get(tabId);
  if (allowed !== undefined && hubOriginOf(url) !== allowed) {
    once.delete(tabId);
    void saveOnce(once);
  }
});

chrome.tabs.onActivated.addListener(({ tabId }) => sockets.get(tabId)?.hello());
chrome.tabs.onUpdated.addListener((tabId, info) => {
  if (info.title === undefined) return;
  titles.set(tabId, info.title);
});

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== KEEPALIVE_ALARM) return;
  void ready.then(() => {
    for (const socket of sockets.values()) socket.retryNow();
    control?.retryNow();
    reconcile();
  });
});

// ------------------------------------------------------------------------------------------------------------
// The badge and the UI pages.

let changeTimer: ReturnType<typeof setTimeout> | undefined;

function changed(): void {
  clearTimeout(changeTimer);
  changeTimer = setTimeout(() => {
    updateBadge();
    chrome.runtime.sendMessage(STATE_CHANGED).catch(() => {}); // no UI page open: nobody to tell
  }, 0);
}

function updateBadge(): void {
  const waiting = approvals.size;
  const p = settings?.pairing;
  const shared = [...sockets.values()];
  const text = waiting ? String(waiting) : !p ? (settings?.problem ? "!" : "off") : "";
  const color = waiting ? "#b45309" : p ? "#15803d" : "#6b7280";
  void chrome.action.setBadgeBackgroundColor({ color }).catch(() => {});
  void chrome.action.setBadgeText({ text }).catch(() => {});
  for (const socket of shared) {
    void chrome.action
      .setBadgeText({ tabId: socket.tabId, text: waiting ? String(waiting) : "on" })
      .catch(() => {});
  }
  const title = !p
    ? `webmcp-hub: not paired${settings?.problem ? ` (${settings.problem})` : ""}`
    : `webmcp-hub: paired with ${p.channelName ?? p.channelId}; ${shared.length} tab${shared.length === 1 ? "" : "s"} shared` +
      (waiting ? `; ${waiting} waiting for your approval` : "");
  void chrome.action.setTitle({ title }).catch(() => {});
}

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
  state: async (tabId) => (await ready, state(tabId)),
  ui: async (request) => (await ready, handleUi(request)),
  control: () => control?.status ?? null,
  opens: () => [...opens.keys()],
};
