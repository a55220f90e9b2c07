// Step 2 of /publish: the challenge (an HTTP file or a DNS TXT record) and its check
// (POST /api/sites/:host/verify with the claim secret), which issues the publisher key.
import type { PublisherKeyView } from "../../../src/protocol/views.js";
import { ApiError, api } from "../lib/api.js";
import { whileBusy } from "../lib/busy.js";
import { byId, h, messageOf, showError } from "../lib/dom.js";
import { store } from "../lib/store.js";
import { focusStep, note, reveal, setCopy, stepState, type PublishPage } from "./steps.js";

/** What to do after each failure the verify endpoint reports. */
const VERIFY_HELP: Record<string, string> = {
  verification_failed: "Check the value, then press Verify again.",
  challenge_expired: "Register the origin again for a new challenge.",
  rate_limited: "Register the origin again for a new challenge.",
  conflict: "Register the origin again for a new challenge.",
  forbidden: "Register the origin again for a new challenge.",
};

/** Sets up the step; returns showChallenge (PublishPage.showChallenge). */
export function setupVerify(page: PublishPage): PublishPage["showChallenge"] {
  const origin = byId("origin", HTMLInputElement);
  const box = byId("verify-error");
  const verifyHttp = byId("verify-http", HTMLButtonElement);
  const verifyDns = byId("verify-dns", HTMLButtonElement);

  function showChallenge(which: string, focus = true) {
    page.host = which;
    const site = store.sites()[which];
    const c = site?.claim?.challenge;
    if (!site || !c) return;
    store.set("publish-current", which);
    origin.value = site.origin ?? "";
    byId("v-origin").textContent = site.origin ?? which;
    byId("v-expires").textContent = new Date(c.expiresAt).toLocaleString();
    setCopy("v-http-url", c.http.url);
    setCopy("v-http-body", c.http.body);
    setCopy("v-dns-name", c.dns.name);
    setCopy("v-dns-value", c.dns.value);
    showError(box, "");
    reveal("verify");
    reveal("key", false);
    reveal("manifest", false);
    reveal("done", false);
    stepState("verify", ["register"]);
    if (focus) focusStep("verify");
  }

  async function verify(method: "http" | "dns", button: HTMLButtonElement) {
    if (!page.host) return;
    const which = page.host;
    const site = store.sites()[which];
    if (!site?.claim) return;
    const claimSecret = site.claim.claimSecret;
    showError(box, "");
    await whileBusy([button], async () => {
      const label = button.textContent;
      button.textContent = "Checking…";
      try {
        const body = await api<PublisherKeyView>(`/api/sites/${encodeURIComponent(which)}/verify`, {
          method: "POST",
          token: claimSecret,
          json: { method },
        });
        store.saveSite(which, { publisherKey: body.publisherKey, claim: undefined, verifiedBy: method });
        page.renderMySites();
        page.showKey(body.publisherKey);
        page.openManifest(which, { keepKey: true, focus: false });
        note(
          "verify",
          `Verified: you control ${site.origin} (${method === "http" ? "HTTP file" : "DNS record"}).`,
        );
        focusStep("key");
      } catch (e) {
        box.replaceChildren(
          h("strong", {}, method === "http" ? "The file check failed. " : "The DNS check failed. "),
          messageOf(e),
          " ",
          (e instanceof ApiError ? VERIFY_HELP[e.code] : undefined) ?? "",
        );
        box.hidden = false;
        box.setAttribute("tabindex", "-1");
        box.focus();
      } finally {
        button.textContent = label;
      }
    });
  }

  verifyHttp.addEventListener("click", () => void verify("http", verifyHttp));
  verifyDns.addEventListener("click", () => void verify("dns", verifyDns));
  byId("cancel-claim").addEventListener("click", () => {
    store.set("publish-current", null);
    reveal("verify", false);
    stepState("register");
    origin.value = "";
    origin.focus();
  });

  return showChallenge;
}
