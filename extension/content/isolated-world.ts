// The extension's ISOLATED-world content script, the go-between of a tab's page and the service worker. In the
// top frame only (the manifest gives it no all_frames, unlike the MAIN-world script): a tab has one line to the
// service worker, and the top document's tool list already holds its frames' tools (page/main-world.ts).
// - takes the private port from the first handshake on its own window (page-channel.ts says why that one is
//   ours) and ignores every later window message from the page;
// - opens its chrome.runtime Port to the service worker only once the page has tools (pages without WebMCP
//   never wake the service worker), forwards tool lists and results up and calls and cancels down;
// - when the service worker stops (Chrome suspends idle workers; a restart), a shared tab reconnects at once,
//   so its tools are back on the hub without the user doing anything; any tab answers the service worker's
//   "say your tools again" when it starts;
// - on the hub's own /extension/connect page only, hands the pairing code the signed-in user made to the
//   service worker (messages.ts: ConnectCodeMessage), and tells the page how it went.
import type { ConnectCodeMessage, ConnectResultMessage } from "../messages.js";
import {
  RESEND_REQUEST,
  TAB_PORT,
  isHandshake,
  isRecord,
  type PageMessage,
  type RunMessage,
  type ToolsMessage,
} from "./page-channel.js";
import { loadHubUrl } from "../background/settings.js";

let pagePort: MessagePort | undefined;
let worker: chrome.runtime.Port | undefined;
let lastTools: ToolsMessage | undefined;
let shared = false;
let retries = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

/** False once the extension was reloaded or removed: this script is an orphan and must stay quiet. */
const alive = () => {
  try {
    return Boolean(chrome.runtime?.id);
  } catch {
    return false;
  }
};

function connect(): chrome.runtime.Port | undefined {
  if (worker || !alive()) return worker;
  try {
    worker = chrome.runtime.connect({ name: TAB_PORT });
  } catch {
    return undefined;
  }
  const port = worker;
  port.onMessage.addListener((m: unknown) => {
    if (!isRecord(m)) return;
    if (m.type === "shared") {
      shared = m.shared === true;
      retries = 0;
    } else if (m.type === "call" || m.type === "cancel" || m.type === "resend") {
      pagePort?.postMessage(m as RunMessage);
    }
  });
  port.onDisconnect.addListener(() => {
    if (worker !== port) return;
    worker = undefined;
    // The service worker went away. A shared tab comes back at once (a few tries, backing off), which starts
    // it again; an unshared one waits until it has something new to say or is asked.
    if (shared && lastTools?.tools.length && alive()) {
      clearTimeout(retryTimer);
      retryTimer = setTimeout(resendTools, Math.min(5_000, 100 * 2 ** retries++));
    }
  });
  return port;
}

function toWorker(message: PageMessage): void {
  if (message.type === "tools") {
    lastTools = message;
    // Nothing to withdraw and nothing to say: stay off the service worker.
    if (!worker && message.tools.length === 0) return;
  }
  try {
    connect()?.postMessage(message);
  } catch {
    worker = undefined; // disconnected meanwhile: the next change or a resend request reconnects
  }
}

function resendTools(): void {
  if (lastTools?.tools.length) toWorker(lastTools);
}

window.addEventListener("message", function onHandshake(event) {
  if (pagePort || event.source !== window || !isHandshake(event.data) || !event.ports[0]) return;
  window.removeEventListener("message", onHandshake);
  pagePort = event.ports[0];
  pagePort.onmessage = (e: MessageEvent) => {
    const m: unknown = e.data;
    if (!isRecord(m)) return;
    if (m.type === "tools" && Array.isArray(m.tools)) toWorker(m as unknown as ToolsMessage);
    else if (m.type === "result" && typeof m.id === "string") toWorker(m as unknown as PageMessage);
  };
});

// The service worker (re)started and asks every tab for its tools.
chrome.runtime.onMessage.addListener((message: unknown) => {
  if (isRecord(message) && message.type === RESEND_REQUEST.type) resendTools();
});

// A page that goes away (navigation, close, bfcache) withdraws its tools at once; the next page sends its own.
window.addEventListener("pagehide", () => {
  if (worker) toWorker({ type: "tools", tools: [] });
});
window.addEventListener("pageshow", (e) => {
  if (e.persisted) pagePort?.postMessage({ type: "resend" } satisfies RunMessage);
});

// ------------------------------------------------------------------------------------------------------------
// The hub's /extension/connect page.

const toPage = (message: ConnectResultMessage) => window.postMessage(message, location.origin);

void loadHubUrl().then((hubUrl) => {
  if (location.origin !== hubUrl || location.pathname !== "/extension/connect") return;
  window.addEventListener("message", (event) => {
    const data: unknown = event.data;
    if (event.source !== window || !isRecord(data)) return;
    const m = data as Partial<ConnectCodeMessage>;
    if (m.source !== "webmcp-hub-connect" || m.type !== "pairing-code" || typeof m.code !== "string") return;
    chrome.runtime
      .sendMessage({ type: "connect-code", code: m.code.slice(0, 32) })
      .then((answer: unknown) => {
        const a = isRecord(answer) ? answer : {};
        if (a.ok === true)
          toPage({
            source: "webmcp-hub-extension",
            type: "connected",
            ...(typeof a.channelId === "string" && { channelId: a.channelId }),
          });
        else
          toPage({
            source: "webmcp-hub-extension",
            type: "connect-failed",
            message: typeof a.error === "string" ? a.error : "The extension could not pair.",
          });
      })
      .catch(() =>
        toPage({
          source: "webmcp-hub-extension",
          type: "connect-failed",
          message: "The extension did not answer. Reload this page and try again.",
        }),
      );
  });
  const present = () => toPage({ source: "webmcp-hub-extension", type: "present" });
  if (document.readyState === "complete") present();
  else window.addEventListener("load", present, { once: true });
});
