// The console's "MCP client" tabs: how to connect each common client to the channel, with its URL and token
// filled in (or a placeholder when this browser has no agent token). The texts are web/shared/snippets.ts's,
// which test/e2e/snippets.test.ts runs with the real clients.
import { codeBlock } from "../../shared/markup.js";
import { clientSnippets } from "../../shared/snippets.js";
import { byId, h, render } from "../lib/dom.js";
import type { KeptChannel } from "../lib/store.js";
import { enhanceTabs } from "../lib/tabs.js";

export { clientSnippets };

/** Fills the `#snippets` tabs. */
export function renderSnippets(ch: KeptChannel, token: string | null): void {
  const box = byId("snippets");
  box.classList.remove("enhanced");
  box.replaceChildren(
    ...clientSnippets(ch, token, location.origin).map(([name, how, code], i) =>
      h(
        "section",
        { "data-tab": name },
        h("h3", {}, name),
        h("p", { class: "meta" }, how),
        render(codeBlock({ id: `snippet-${i}`, label: `${name} configuration`, code })),
      ),
    ),
  );
  if (box.parentElement) enhanceTabs(box.parentElement);
}
