// Text the extension's pages show, computed without the DOM or chrome.* so test/web can check it: the
// approval countdown, arguments as readable JSON, a channel's and a tab's labels, the hub URL setting.
import type { PairingState, SiteDecision, TabState } from "../messages.js";

/** "m:ss" (or "h:mm:ss") left until a deadline; "0:00" once it has passed. */
export function formatCountdown(msLeft: number): string {
  const total = Number.isFinite(msLeft) ? Math.max(0, Math.ceil(msLeft / 1000)) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Arguments shown in the approval window, beyond which the rest is cut (the whole call is still what runs). */
export const MAX_ARGUMENTS_CHARS = 50_000;

/**
 * The tool call's arguments as indented JSON, for a <pre> (set as text, never as HTML). Text beyond `max`
 * characters is cut with a note saying how much was left out, so a huge argument cannot hide the buttons.
 */
export function prettyArguments(args: unknown, max = MAX_ARGUMENTS_CHARS): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    text = String(args);
  }
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters not shown)`;
}

/** How the pages name a channel: the name the hub gave when pairing, else its id. */
export const channelLabel = (c: Pick<PairingState, "channelId" | "channelName">): string =>
  c.channelName?.trim() || c.channelId;

/** A hub origin as the popup shows it: its host (with port), or the text itself when it is no URL. */
export function hubLabel(hubOrigin: string): string {
  try {
    return new URL(hubOrigin).host || hubOrigin;
  } catch {
    return hubOrigin;
  }
}

/** Whether the extension works on this URL: only http(s) pages carry its content scripts. */
export function isWebUrl(url: string | undefined): url is string {
  if (!url) return false;
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** The hub URL typed in Settings, as the origin the service worker keeps, or what is wrong with it. */
export function parseHubUrl(text: string): { ok: true; origin: string } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, error: "Type the hub's URL, like https://hub.example." };
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { ok: false, error: `"${trimmed}" is not a URL: type it whole, like https://hub.example.` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, error: "The hub's URL must start with https:// (or http:// for a local hub)." };
  return { ok: true, origin: url.origin };
}

/** "1 tool", "3 tools". */
export const toolCountText = (n: number): string => `${n} tool${n === 1 ? "" : "s"}`;

/** What a decision means, in a few words. */
export function decisionText(decision: SiteDecision | null): string {
  switch (decision) {
    case "once":
      return "Allowed for this tab only";
    case "always":
      return "Always allowed";
    case "never":
      return "Never shared";
    default:
      return "Not decided yet";
  }
}

/** Whether a tab is shared and how its connection to the hub is, in a sentence. */
export function sharingText(tab: Pick<TabState, "sharing" | "connection">, paired: boolean): string {
  switch (tab.sharing) {
    case "shared":
      if (!paired) return "Allowed, but not relayed: this browser is not paired with a channel.";
      return `Shared with the channel (${connectionText(tab.connection)}).`;
    case "ask":
      return "Not shared: nothing reaches the channel until you allow this site.";
    case "never":
      return "Not shared: you chose never for this site.";
    case "incognito":
      return "Not shared: sharing incognito tabs is off (see Settings).";
  }
}

/** A shared tab's connection to the hub, in a word or two. */
export function connectionText(connection: TabState["connection"]): string {
  switch (connection) {
    case "connected":
      return "connected";
    case "connecting":
      return "connecting…";
    case "offline":
      return "offline, retrying";
    default:
      return "not connected";
  }
}
