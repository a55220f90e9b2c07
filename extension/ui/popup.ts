// The toolbar popup: pairing, the current tab's site decision, shared tabs, calls waiting for approval, the
// site list and settings. It renders the service worker's ExtensionState (ui:state) and asks again on every
// STATE_CHANGED broadcast; every action is a UiRequest (extension/messages.ts). The forms stay in the page
// between renders, so a broadcast never wipes what the user is typing.
import { byId, fill, h, showError } from "../../web/client/lib/dom.js";
import type { ExtensionState, SiteDecision, TabState, UiRequest } from "../messages.js";
import {
  channelLabel,
  connectionText,
  decisionText,
  hubLabel,
  parseHubUrl,
  sharingText,
  toolCountText,
} from "./format.js";
import { NOT_RESPONDING, isExtensionState } from "./responses.js";
import { act, ask, onStateChanged } from "./runtime.js";
import { currentSite, siteActions, type ActiveTab } from "./site.js";

const input = (id: string) => byId(id, HTMLInputElement);
const button = (id: string) => byId(id, HTMLButtonElement);

let active: ActiveTab | null = null;
let hubDirty = false; // the user edited the hub URL field: renders leave it alone

/** The tab the popup was opened over (the popup itself when it is opened as a page in a tab). */
async function activeTab(): Promise<ActiveTab | null> {
  try {
    const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
    if (!tab || tab.id === undefined) return null;
    return { id: tab.id, url: tab.url, title: tab.title, incognito: tab.incognito };
  } catch {
    return null;
  }
}

let asked = 0; // answers to older ui:state requests than the latest are dropped

async function refresh(): Promise<void> {
  const mine = ++asked;
  const answer = await ask(active ? { type: "ui:state", tabId: active.id } : { type: "ui:state" });
  if (mine !== asked) return;
  byId("loading").hidden = true;
  if (!isExtensionState(answer)) {
    byId("unreachable-text").textContent = NOT_RESPONDING;
    byId("unreachable").hidden = false;
    byId("app").hidden = true;
    return;
  }
  byId("unreachable").hidden = true;
  byId("app").hidden = false;
  render(answer);
}

function render(state: ExtensionState): void {
  const paired = state.pairing !== null;
  byId("status-text").textContent = state.pairing
    ? `Paired with the channel “${channelLabel(state.pairing)}” on ${hubLabel(state.pairing.hubOrigin)}.`
    : `Not paired. Pair this browser with a channel on ${hubLabel(state.hubUrl)} to relay the sites you allow.`;
  const control = byId("control-text");
  control.textContent = state.pairing ? controlText(state.control ?? null) : "";
  control.hidden = !state.pairing;
  showError(byId("problem"), state.problem);
  byId("pair-section").hidden = paired;
  byId("paired-section").hidden = !paired;

  renderSite(state);
  renderSharedTabs(state);
  renderApprovals(state);
  renderSites(state);

  const hub = input("hub-url");
  if (!hubDirty && document.activeElement !== hub) hub.value = state.hubUrl;
  byId("hub-help").textContent =
    (paired ? "Saving a different hub unpairs this browser. " : "") + `Default: ${state.defaultHubUrl}`;
  input("incognito").checked = state.incognito;
}

/** Whether agents can ask this browser to open a marketplace tool's page (the control socket), in a sentence. */
function controlText(status: ExtensionState["control"]): string {
  return status === "connected"
    ? "Agents on this channel can ask this browser to open a tool's page; you are asked first."
    : `Opening tools' pages for agents: ${connectionText(status ?? null)}.`;
}

function renderSite(state: ExtensionState): void {
  const site = currentSite(active, state);
  const box = byId("site");
  if (site.kind === "none") return fill(box, h("p", { class: "muted" }, "No tab is open here."));
  if (site.kind === "not-web")
    return fill(
      box,
      h(
        "p",
        { class: "muted" },
        "The extension works only on web pages (http:// and https://), not on this one.",
      ),
    );
  const tab = site.tab;
  fill(
    box,
    h("p", { class: "origin" }, tab.origin),
    tab.toolCount === 0
      ? h("p", { class: "muted" }, "This page has registered no WebMCP tools.")
      : h(
          "details",
          null,
          h("summary", null, `Registered ${toolCountText(tab.toolCount)}`),
          h("ul", { class: "tools" }, ...tab.tools.map((name) => h("li", null, h("code", null, name)))),
        ),
    h("p", null, sharingText(tab, state.pairing !== null)),
    h("p", { class: "muted" }, decisionText(tab.decision)),
    h(
      "div",
      { class: "actions" },
      ...siteActions(tab).map((a) =>
        h(
          "button",
          { type: "button", onclick: () => void decide(tab.origin, a.decision, tab.tabId) },
          a.label,
        ),
      ),
    ),
  );
}

function renderSharedTabs(state: ExtensionState): void {
  const shared = state.tabs.filter((t) => t.sharing === "shared");
  byId("shared-empty").hidden = shared.length > 0;
  fill(
    byId("shared-tabs"),
    ...shared.map((t: TabState) =>
      h(
        "li",
        null,
        h("span", { class: "title" }, t.title || t.origin),
        h(
          "span",
          { class: "muted" },
          `${t.origin} · ${toolCountText(t.toolCount)} · ${state.pairing ? connectionText(t.connection) : "not paired"}`,
        ),
      ),
    ),
  );
}

function renderApprovals(state: ExtensionState): void {
  byId("approvals-section").hidden = state.approvals.length === 0;
  fill(
    byId("approvals"),
    ...state.approvals.map((a) =>
      h(
        "li",
        null,
        h(
          "span",
          { class: "title" },
          a.kind === "open" ? "Open a page for " : "",
          h("code", null, a.tool),
          ` on ${a.origin}`,
        ),
        h("span", { class: "muted" }, `asked by ${a.agent}`),
      ),
    ),
  );
}

function renderSites(state: ExtensionState): void {
  byId("sites-empty").hidden = state.sites.length > 0;
  fill(
    byId("sites"),
    ...state.sites.map((s) => {
      const select = h(
        "select",
        {
          "aria-label": `Decision for ${s.origin}`,
          onchange: (e: Event) =>
            void decide(s.origin, (e.currentTarget as HTMLSelectElement).value as SiteDecision),
        },
        h("option", { value: "always", selected: s.decision === "always" }, "Always allow"),
        h("option", { value: "never", selected: s.decision === "never" }, "Never"),
      );
      return h(
        "li",
        { class: "site-row" },
        h("span", { class: "origin" }, s.origin),
        select,
        h(
          "button",
          { type: "button", "aria-label": `Forget ${s.origin}`, onclick: () => void decide(s.origin, "ask") },
          "Forget",
        ),
      );
    }),
  );
}

/** Sends an action; shows its error in `box` (the section's notice by default), then renders again. */
async function run(request: UiRequest, box = byId("notice")): Promise<boolean> {
  const answer = await act(request);
  showError(box, answer.ok ? "" : answer.error);
  await refresh();
  return answer.ok;
}

const decide = (origin: string, decision: SiteDecision | "ask", tabId?: number) =>
  run(
    tabId === undefined
      ? { type: "ui:site", origin, decision }
      : { type: "ui:site", origin, decision, tabId },
  );

/** Disables a control while its request runs (aria-busy says so), whatever the outcome. */
async function busy<T>(control: HTMLButtonElement | HTMLInputElement, work: () => Promise<T>): Promise<T> {
  control.disabled = true;
  control.setAttribute("aria-busy", "true");
  try {
    return await work();
  } finally {
    control.disabled = false;
    control.removeAttribute("aria-busy");
  }
}

byId("pair-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const code = input("pair-code");
  const error = byId("pair-error");
  if (!code.value.trim()) return showError(error, "Type the pairing code from your channel's page.", code);
  void busy(button("pair"), async () => {
    const ok = await run({ type: "ui:pair", code: code.value.trim() }, error);
    showError(error, error.textContent ?? "", code); // marks the field invalid while an error shows
    if (ok) code.value = "";
  });
});

byId("connect-account").addEventListener("click", (e) => {
  void busy(e.currentTarget as HTMLButtonElement, () => run({ type: "ui:connect-account" }));
});

byId("unpair").addEventListener("click", (e) => {
  void busy(e.currentTarget as HTMLButtonElement, () => run({ type: "ui:unpair" }));
});

input("hub-url").addEventListener("input", () => (hubDirty = true));
byId("hub-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const field = input("hub-url");
  const error = byId("hub-error");
  const parsed = parseHubUrl(field.value);
  if (!parsed.ok) return showError(error, parsed.error, field);
  showError(error, "", field);
  void busy(button("save-hub"), async () => {
    if (await run({ type: "ui:set-hub", url: parsed.origin }, error)) {
      hubDirty = false;
      field.value = parsed.origin;
    }
  });
});

input("incognito").addEventListener("change", (e) => {
  const box = e.currentTarget as HTMLInputElement;
  void busy(box, () => run({ type: "ui:incognito", on: box.checked }));
});

byId("forget-always").addEventListener("click", (e) => {
  void busy(e.currentTarget as HTMLButtonElement, () => run({ type: "ui:forget-always" }));
});

byId("retry").addEventListener("click", () => void refresh());

onStateChanged(() => void refresh());
void activeTab().then((tab) => {
  active = tab;
  return refresh();
});
