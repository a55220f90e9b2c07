// Entry of /assets/extension-connect.js, for /extension/connect: a channel's button makes a fresh pairing
// code (session auth, same origin) and hands it to the browser extension's content script with
// window.postMessage (ConnectCodeMessage, extension/messages.ts), and shows it for typing into the popup when
// no extension picks it up. The extension answers on this window (ConnectResultMessage): present, connected,
// connect-failed. Only messages this window posted to itself count (a frame or another window cannot fake them).
import type { ConnectCodeMessage, ConnectResultMessage } from "../../extension/messages.js";
import type { PairingCodeView } from "../../src/protocol/views.js";
import { api, ApiError } from "./lib/api.js";
import { whileBusy } from "./lib/busy.js";
import { $, byId } from "./lib/dom.js";

/** The channel whose code was last handed over: "connected" without a channelId means this one. */
let pending: { id: string; name: string } | null = null;

function channelName(id: string | undefined): string {
  if (!id) return pending?.name ?? "the channel";
  const button = document.querySelector<HTMLButtonElement>(
    `button[data-action="connect-extension"][data-channel-id="${CSS.escape(id)}"]`,
  );
  return button?.dataset.channelName ?? (pending?.id === id ? pending.name : id);
}

function status(text: string): void {
  byId("connect-result").hidden = false;
  byId("connect-status").textContent = text;
}

function showError(text: string | null): void {
  const el = byId("connect-error");
  el.textContent = text ?? "";
  el.hidden = text === null;
}

async function connect(button: HTMLButtonElement): Promise<void> {
  const id = button.dataset.channelId ?? "";
  const name = button.dataset.channelName ?? id;
  await whileBusy([button], async () => {
    showError(null);
    status(`Making a pairing code for “${name}”…`);
    try {
      const made = await api<PairingCodeView>(`/api/channels/${encodeURIComponent(id)}/pairing-codes`, {
        method: "POST",
      });
      pending = { id, name };
      byId("connect-code").textContent = made.pairingCode;
      byId("connect-code-expiry").textContent =
        `(valid until ${new Date(made.expiresAt).toLocaleTimeString()})`;
      byId("connect-code-row").hidden = false;
      const message: ConnectCodeMessage = {
        source: "webmcp-hub-connect",
        type: "pairing-code",
        code: made.pairingCode,
      };
      window.postMessage(message, location.origin);
      status(`Pairing code for “${name}” handed to the extension. Waiting for it to connect…`);
    } catch (e) {
      status(`No pairing code for “${name}”.`);
      showError(e instanceof ApiError ? e.message : String(e));
    }
  });
}

function isResult(data: unknown): data is ConnectResultMessage {
  if (typeof data !== "object" || data === null) return false;
  const m = data as Record<string, unknown>;
  return (
    m.source === "webmcp-hub-extension" &&
    (m.type === "present" || m.type === "connected" || m.type === "connect-failed") &&
    (m.channelId === undefined || typeof m.channelId === "string") &&
    (m.message === undefined || typeof m.message === "string")
  );
}

function onResult(m: ConnectResultMessage): void {
  const presence = $("extension-presence");
  if (presence) presence.textContent = "Extension detected.";
  if (m.type === "connected") {
    showError(null);
    status(`Connected to ${channelName(m.channelId)}.`);
  } else if (m.type === "connect-failed") {
    status("The extension could not connect.");
    showError(m.message || "The extension could not redeem the pairing code. Make a new one and try again.");
  }
}

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  if (event.source !== window || event.origin !== location.origin) return;
  if (isResult(event.data)) onResult(event.data);
});

document.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const button = target?.closest<HTMLButtonElement>('button[data-action="connect-extension"]');
  if (button && !button.disabled) void connect(button);
});
