// The half of the bridge's UI that lives in /bridge.js: the <webmcp-hub-widget> element, defined at once (so
// the tag, its open shadow root and a widget placed before the script all work as before), and the loader of
// /bridge-ui.js (ui.ts), the widget's face and the approval dialog, imported from the hub this script came
// from the first time a widget connects or a call needs approval. An import that fails is forgotten, so the
// next widget or call tries again. When it fails, a widget stays empty with a console warning, and a call
// that needed approval is not run: the relay answers the agent with the reason (index.ts).
import type * as BridgeUi from "./ui.js";
import type { WidgetHub, WidgetView } from "./widget.js";

export type { BridgeUi };

export const WIDGET_TAG = "webmcp-hub-widget";

/** A function that imports `${hubOrigin}/bridge-ui.js` once (again after a failure). */
export function uiLoader(hubOrigin: string): () => Promise<typeof BridgeUi> {
  const url = `${hubOrigin}/bridge-ui.js`;
  let loading: Promise<typeof BridgeUi> | undefined;
  return () =>
    (loading ??= (import(url) as Promise<typeof BridgeUi>).catch((e: unknown) => {
      loading = undefined;
      throw new Error(`${url} could not load (${e instanceof Error ? e.message : String(e)})`);
    }));
}

/** Defines <webmcp-hub-widget> for `hub` (once per page); each element renders when the UI has loaded. */
export function defineWidget(hub: WidgetHub, ui: () => Promise<typeof BridgeUi>): void {
  if (customElements.get(WIDGET_TAG)) return;
  customElements.define(
    WIDGET_TAG,
    class extends HTMLElement {
      private view: Promise<WidgetView | void> | undefined;

      constructor() {
        super();
        this.attachShadow({ mode: "open" });
      }

      connectedCallback(): void {
        this.view ??= ui().then(
          (m) => m.widgetView(this.shadowRoot!, hub),
          (e: unknown) => console.warn(`webmcp-hub: the widget cannot be shown: ${(e as Error).message}`),
        );
        // Connects and disconnects run in the order they happened: they wait on the same promise.
        void this.view.then((v) => v?.connect());
      }

      disconnectedCallback(): void {
        void this.view?.then((v) => v?.disconnect());
      }
    },
  );
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
