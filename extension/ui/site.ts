// The popup's "This site" section as data: which tab it is about (the service worker's view of the tab, or
// what chrome.tabs says when the tab registered nothing) and which decision buttons it offers.
import type { ExtensionState, SiteDecision, TabState } from "../messages.js";
import { isWebUrl } from "./format.js";

/** The active tab as chrome.tabs.query reports it (url needs the "tabs" permission). */
export interface ActiveTab {
  id: number;
  url?: string;
  title?: string;
  incognito: boolean;
}

/** What the popup says about the active tab. */
export type CurrentSite =
  | { kind: "none" } // no active tab (the popup was opened without a window)
  | { kind: "not-web"; url: string } // a chrome://, file:, extension or blank page
  | { kind: "web"; tab: TabState };

/**
 * The active tab's site: the service worker's TabState when it has one for the tab, else one made from
 * chrome.tabs (no tools yet) with the decision the site list holds for its origin.
 */
export function currentSite(active: ActiveTab | null, state: ExtensionState): CurrentSite {
  const known = state.current && active && state.current.tabId === active.id ? state.current : null;
  if (known) return { kind: "web", tab: known };
  if (!active) return { kind: "none" };
  if (!isWebUrl(active.url)) return { kind: "not-web", url: active.url ?? "" };
  const origin = new URL(active.url).origin;
  const decision = state.sites.find((s) => s.origin === origin)?.decision ?? null;
  const sharing: TabState["sharing"] =
    decision === "never"
      ? "never"
      : active.incognito && !state.incognito
        ? "incognito"
        : decision === "always"
          ? "shared"
          : "ask";
  return {
    kind: "web",
    tab: {
      tabId: active.id,
      origin,
      title: active.title ?? "",
      toolCount: 0,
      tools: [],
      sharing,
      decision,
      connection: null,
      incognito: active.incognito,
    },
  };
}

/** A button of "This site": its label and the decision it sends (`ask` forgets the decision). */
export interface SiteAction {
  label: string;
  decision: SiteDecision | "ask";
}

const ALLOW_ONCE: SiteAction = { label: "Allow once", decision: "once" };
const ALWAYS: SiteAction = { label: "Always allow", decision: "always" };
const NEVER: SiteAction = { label: "Never", decision: "never" };
const STOP: SiteAction = { label: "Stop sharing", decision: "ask" };
const ASK_AGAIN: SiteAction = { label: "Ask again", decision: "ask" };

/** The decisions the popup offers for a tab, given the one that applies now. */
export function siteActions(tab: Pick<TabState, "decision" | "sharing">): SiteAction[] {
  if (tab.sharing === "incognito") return [];
  switch (tab.decision) {
    case "once":
      return [ALWAYS, STOP];
    case "always":
      return [STOP, NEVER];
    case "never":
      return [ASK_AGAIN, ALWAYS];
    default:
      return [ALLOW_ONCE, ALWAYS, NEVER];
  }
}
