// What the service worker answers, checked before the pages use it: chrome.runtime.sendMessage resolves with
// whatever a listener sent (or undefined, or rejects when nobody listens), so the pages narrow it here and
// turn anything else into one plain message instead of a broken page.
import type { ApprovalState, ExtensionState, UiResponse } from "../messages.js";

/** Shown when the service worker gave no usable answer (not running yet, restarting, or an older build). */
export const NOT_RESPONDING =
  "The extension's background is not responding. Try again in a moment, or reload the extension at chrome://extensions.";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const isTab = (v: unknown): boolean =>
  isRecord(v) &&
  typeof v.tabId === "number" &&
  typeof v.origin === "string" &&
  typeof v.toolCount === "number" &&
  Array.isArray(v.tools) &&
  typeof v.sharing === "string";

/** Whether `v` is an ExtensionState (enough of it for the popup to render without throwing). */
export function isExtensionState(v: unknown): v is ExtensionState {
  return (
    isRecord(v) &&
    typeof v.hubUrl === "string" &&
    typeof v.defaultHubUrl === "string" &&
    (v.pairing === null || (isRecord(v.pairing) && typeof v.pairing.channelId === "string")) &&
    typeof v.problem === "string" &&
    typeof v.incognito === "boolean" &&
    Array.isArray(v.sites) &&
    v.sites.every((s) => isRecord(s) && typeof s.origin === "string") &&
    Array.isArray(v.tabs) &&
    v.tabs.every(isTab) &&
    (v.current === null || v.current === undefined || isTab(v.current)) &&
    Array.isArray(v.approvals) &&
    v.approvals.every(isApprovalState)
  );
}

/** Whether `v` is an ApprovalState. */
export function isApprovalState(v: unknown): v is ApprovalState {
  return (
    isRecord(v) &&
    typeof v.id === "string" &&
    typeof v.channelId === "string" &&
    typeof v.agent === "string" &&
    typeof v.origin === "string" &&
    typeof v.tool === "string" &&
    isRecord(v.arguments) &&
    typeof v.deadline === "number"
  );
}

/** A UiResponse; anything else (no answer, a malformed one) becomes `{ok: false}` saying so. */
export function asUiResponse(v: unknown): UiResponse {
  if (isRecord(v) && v.ok === true)
    return typeof v.channelId === "string" ? { ok: true, channelId: v.channelId } : { ok: true };
  if (isRecord(v) && v.ok === false)
    return { ok: false, error: typeof v.error === "string" && v.error ? v.error : "That did not work." };
  return { ok: false, error: NOT_RESPONDING };
}

/** Whether a runtime message is the service worker's STATE_CHANGED broadcast. */
export const isStateChanged = (m: unknown): boolean => isRecord(m) && m.type === "ui:changed";
