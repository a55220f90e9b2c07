// Step 3 of /publish: the publisher key, shown once when issued (this browser keeps a copy, which the owner can
// remove), and the rotation form (POST /api/sites/:host/keys with the current key).
import type { PublisherKeyView } from "../../../src/protocol/views.js";
import { api } from "../lib/api.js";
import { announce, byId, messageOf, showError } from "../lib/dom.js";
import { store } from "../lib/store.js";
import { reveal, setCopy, stepState, type PublishPage } from "./steps.js";

/** Sets up the step and the rotation form; returns showKey (PublishPage.showKey). */
export function setupKey(page: PublishPage): PublishPage["showKey"] {
  const keyBody = byId("key-body");

  function showKey(key: string) {
    setCopy("publisher-key", key);
    reveal("key");
    stepState("manifest", ["register", "verify", "key"]);
  }

  byId("forget-key").addEventListener("click", () => {
    if (!page.host) return;
    if (!confirm("Remove the publisher key from this browser? Make sure you saved a copy.")) return;
    store.saveSite(page.host, { publisherKey: undefined });
    page.renderMySites();
    announce("The key was removed from this browser.");
  });

  const rotateHost = byId("rotate-host", HTMLInputElement);
  const rotateKey = byId("rotate-key", HTMLInputElement);
  const rotatedKey = byId("rotated-key");
  const box = byId("rotate-error");
  const fillRotateKey = () => {
    const key = store.sites()[rotateHost.value.trim()]?.publisherKey;
    if (key) rotateKey.value = key;
  };
  rotateHost.addEventListener("change", fillRotateKey);
  rotateHost.addEventListener("input", fillRotateKey);

  byId("rotate-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const which = rotateHost.value.trim().toLowerCase();
    const key = rotateKey.value.trim();
    showError(box, "");
    if (!which || !key) {
      showError(box, "Enter the site's host and its current publisher key.");
      (which ? rotateKey : rotateHost).focus();
      return;
    }
    try {
      const body = await api<PublisherKeyView>(`/api/sites/${encodeURIComponent(which)}/keys`, {
        method: "POST",
        token: key,
      });
      store.saveSite(which, { publisherKey: body.publisherKey });
      rotatedKey.textContent = body.publisherKey;
      byId("rotate-result").hidden = false;
      rotateKey.value = "";
      if (which === page.host && !keyBody.hidden) setCopy("publisher-key", body.publisherKey);
      page.renderMySites();
      announce("A new publisher key was issued; the previous one no longer works.");
      rotatedKey.closest(".copy-value")?.querySelector("button")?.focus();
    } catch (e) {
      showError(box, messageOf(e));
      box.setAttribute("tabindex", "-1");
      box.focus();
    }
  });

  return showKey;
}
