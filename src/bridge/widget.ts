// <webmcp-hub-widget>: the pairing widget a site places in its page (the bridge adds one when the page has
// none and a dialog must be shown). Open shadow root, plain form controls so the keyboard works as usual:
// type the pairing code and press Enter; the status line is a live region; Disconnect forgets the token.
// The approval dialog (approval.ts) is shown in this shadow root too.
import type { HubStatus } from "./relay-client.js";

export const WIDGET_TAG = "webmcp-hub-widget";

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

/** Defines <webmcp-hub-widget> for `hub` (once per page). */
export function defineWidget(hub: WidgetHub): void {
  if (customElements.get(WIDGET_TAG)) return;

  class WebMcpHubWidget extends HTMLElement {
    private readonly root = this.attachShadow({ mode: "open" });
    private readonly render = () => this.update();
    private pairing = false;

    constructor() {
      super();
      this.root.innerHTML = HTML;
      const form = this.root.querySelector("form")!;
      const input = this.root.querySelector("input")!;
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        if (this.pairing) return;
        this.pairing = true;
        this.update();
        hub
          .pair(input.value)
          .then(() => (input.value = ""))
          .catch(() => input.focus())
          .finally(() => {
            this.pairing = false;
            this.update();
          });
      });
      this.root.querySelector(".d")!.addEventListener("click", () => {
        hub.disconnect();
        input.focus();
      });
    }

    connectedCallback(): void {
      hub.addEventListener("statuschange", this.render);
      hub.addEventListener("toolschange", this.render);
      this.update();
    }

    disconnectedCallback(): void {
      hub.removeEventListener("statuschange", this.render);
      hub.removeEventListener("toolschange", this.render);
    }

    private update(): void {
      const $ = (s: string) => this.root.querySelector<HTMLElement>(s)!;
      const host = new URL(hub.hubOrigin).host;
      const n = hub.toolCount;
      $(".s").textContent = this.pairing
        ? `Pairing with ${host}…`
        : hub.status === "extension"
          ? "This page's tools are shared through the webmcp-hub browser extension: pair and allow sites in its popup."
          : hub.status === "connected"
            ? `Connected to ${host}: your agent can use ${n} tool${n === 1 ? "" : "s"} of this page.`
            : hub.status === "connecting"
              ? `Connecting to ${host}…`
              : `Not connected. Enter a pairing code from ${host} to let your agent use this page's tools.`;
      $("form").hidden = hub.status !== "unpaired";
      $(".d").hidden = hub.status === "unpaired" || hub.status === "extension";
      this.root.querySelector("form button")!.toggleAttribute("disabled", this.pairing);
      $(".err").textContent = hub.problem;
    }
  }

  customElements.define(WIDGET_TAG, WebMcpHubWidget);
}

/** The shadow root of the page's first widget; one is added at the end of <body> if there is none. */
export function widgetRoot(): ShadowRoot {
  let widget = document.querySelector(WIDGET_TAG);
  if (!widget?.shadowRoot) {
    widget = document.createElement(WIDGET_TAG);
    document.body.append(widget);
  }
  return widget.shadowRoot!;
}
