// The publish page's list of the sites this browser keeps: each with its state (key kept, verification
// pending, no key) and what to do next (publish a new version, continue verifying, forget it here).
import { byId, h } from "../lib/dom.js";
import { store } from "../lib/store.js";
import type { PublishPage } from "./steps.js";

/** Sets up the list; returns the function that renders it again (after any change to the kept sites). */
export function setupMySites(page: PublishPage): () => void {
  const section = byId("my-sites");
  const list = byId("my-sites-list");

  function render() {
    const sites = Object.entries(store.sites());
    section.hidden = sites.length === 0;
    list.replaceChildren(
      ...sites.map(([key, s]) =>
        h(
          "li",
          { class: "card" },
          h("strong", {}, key),
          " ",
          s.publisherKey
            ? h("span", { class: "badge ro" }, "publisher key kept here")
            : s.claim
              ? h("span", { class: "badge rw" }, "verification pending")
              : h("span", { class: "badge muted" }, "no key"),
          h(
            "div",
            { class: "actions" },
            s.publisherKey
              ? h(
                  "button",
                  { type: "button", class: "btn small", onclick: () => page.openManifest(key) },
                  "Publish a new version",
                )
              : null,
            !s.publisherKey && s.claim
              ? h(
                  "button",
                  { type: "button", class: "btn small", onclick: () => page.showChallenge(key) },
                  "Continue verification",
                )
              : null,
            s.publisherKey
              ? h("a", { class: "btn small", href: `/sites/${encodeURIComponent(key)}` }, "Site page")
              : null,
            h(
              "button",
              {
                type: "button",
                class: "btn small danger",
                "aria-label": `Forget ${key} in this browser`,
                onclick: () => {
                  if (!confirm(`Forget ${key} and its key in this browser? The site stays published.`))
                    return;
                  store.forgetSite(key);
                  render();
                },
              },
              "Forget",
            ),
          ),
        ),
      ),
    );
  }

  return render;
}
