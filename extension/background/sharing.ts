// Whether a tab is shared with the channel: the user's decision for its site, "allow once" for that tab while
// it stays on the site, and incognito tabs only when the user turned sharing them on. Nothing is shared
// until the user allows the site; "never" wins over everything.
import type { SiteDecision, TabSharing } from "../messages.js";

export interface SharingRules {
  /** Sites decided "always" or "never", by origin. */
  sites: Record<string, "always" | "never">;
  /** "Allow once": tabId → the origin allowed in that tab. */
  once: ReadonlyMap<number, string>;
  /** Share incognito tabs. */
  incognito: boolean;
}

export function sharingOf(
  rules: SharingRules,
  origin: string,
  tabId: number,
  incognito: boolean,
): TabSharing {
  if (incognito && !rules.incognito) return "incognito";
  const decision = rules.sites[origin];
  if (decision === "never") return "never";
  if (decision === "always" || rules.once.get(tabId) === origin) return "shared";
  return "ask";
}

/** The decision that applies to the tab's site ("once" only for that tab), if any. */
export function decisionOf(rules: SharingRules, origin: string, tabId: number): SiteDecision | null {
  return rules.sites[origin] ?? (rules.once.get(tabId) === origin ? "once" : null);
}
