// <webmcp-hub-widget>'s face: the pairing widget a site places in its page (the bridge adds one when the page
// has none and a dialog must be shown). Open shadow root, plain form controls so the keyboard works as usual:
// type the pairing code and press Enter; the status line is a live region; Disconnect forgets the token.
// The approval dialog (approval.ts) is shown in this shadow root too, styled by this widget's <style>.
// This module is part of /bridge-ui.js (ui.ts), loaded when a widget first connects; /bridge.js defines the
// element itself at once (ui-loader.ts), so the tag and its open shadow root exist synchronously.
import type { HubStatus } from "./relay-client.js";

/** What the widget needs from the bridge (window.webmcpHub plus a tool count and the last problem). */
export interface WidgetHub extends EventTarget {
  readonly status: HubStatus;
  readonly hubOrigin: string;
  readonly toolCount: number;
  readonly problem: string;
  pair(code: string): Promise<{ channelId: string }>;
  disconnect(): void;
}

const STYLE = `:host{display:block;font:14px/1.4 system-ui,sans-serif;color:#1b1b1f}
.w{border:1px solid #c9c9d1;border-radius:8px;padding:8px 10px;background:#fff;max-width:26rem}
p{margin:0 0 6px}form{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
input{font:inherit;padding:4px 6px;width:9em;text-transform:uppercase;border:1px solid #888;border-radius:4px}
button{font:inherit;padding:4px 10px;border-radius:4px;border:1px solid #555;background:#f3f3f6;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #3b6fd8;outline-offset:1px}
.err{color:#b00020}[hidden]{display:none!important}
dialog{border:1px solid #888;border-radius:10px;max-width:34rem;padding:16px}
dialog::backdrop{background:#0006}h2{font-size:16px;margin:0 0 8px}
pre{background:#f3f3f6;padding:8px;max-height:12rem;overflow:auto;font-size:12px;white-space:pre-wrap}
.actions{display:flex;gap:8px;justify-content:flex-end;flex-wrap:wrap}
[data-action=approve]{background:#1f5fd1;color:#fff;border-color:#1f5fd1}`;

const HTML = `<style>${STYLE}</style><div class="w" role="group" aria-label="webmcp-hub">
<p class="s" role="status" aria-live="polite"></p>
<form><label for="c">Pairing code</label><input id="c" name="code" autocomplete="off" spellcheck="false"
 autocapitalize="characters" maxlength="16" placeholder="ABCD-EFGH" required><button>Pair</button></form>
<button type="button" class="d">Disconnect</button><p class="err" role="alert"></p></div>`;

/** What a widget element does when it joins or leaves the document. */
export interface WidgetView {
  connect(): void;
  disconnect(): void;
}

/**
 * Renders the widget into `root` (once per element). Its nodes go before whatever the root holds already:
 * an approval dialog may have been put there first.
 */
export function widgetView(root: ShadowRoot, hub: WidgetHub): WidgetView {
  const template = document.createElement("template");
  template.innerHTML = HTML;
  root.prepend(template.content);
  const $ = (s: string) => root.querySelector<HTMLElement>(s)!;
  const form = $("form");
  const input = root.querySelector("input")!;
  let pairing = false;

  const update = (): void => {
    const host = new URL(hub.hubOrigin).host;
    const n = hub.toolCount;
    $(".s").textContent = pairing
      ? `Pairing with ${host}…`
      : hub.status === "extension"
        ? "This page's tools are shared through the webmcp-hub browser extension: pair and allow sites in its popup."
        : hub.status === "connected"
          ? `Connected to ${host}: your agent can use ${n} tool${n === 1 ? "" : "s"} of this page.`
          : hub.status === "connecting"
            ? `Connecting to ${host}…`
            : `Not connected. Enter a pairing code from ${host} to let your agent use this page's tools.`;
    form.hidden = hub.status !== "unpaired";
    $(".d").hidden = hub.status === "unpaired" || hub.status === "extension";
    $("form button").toggleAttribute("disabled", pairing);
    $(".err").textContent = hub.problem;
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (pairing) return;
    pairing = true;
    update();
    hub
      .pair(input.value)
      .then(() => (input.value = ""))
      .catch(() => input.focus())
      .finally(() => {
        pairing = false;
        update();
      });
  });
  $(".d").addEventListener("click", () => {
    hub.disconnect();
    input.focus();
  });

  return {
    connect() {
      hub.addEventListener("statuschange", update);
      hub.addEventListener("toolschange", update);
      update();
    },
    disconnect() {
      hub.removeEventListener("statuschange", update);
      hub.removeEventListener("toolschange", update);
    },
  };
}
