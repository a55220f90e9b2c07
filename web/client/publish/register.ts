// Step 1 of /publish: register the site's origin (POST /api/sites), which keeps the claim and its challenge in
// this browser and opens the verification step.
import type { RegisteredSiteView } from "../../../src/protocol/views.js";
import { api } from "../lib/api.js";
import { whileBusy } from "../lib/busy.js";
import { byId, messageOf, showError } from "../lib/dom.js";
import { store } from "../lib/store.js";
import { submitter, type PublishPage } from "./steps.js";

export function setupRegister(page: PublishPage) {
  const form = byId("register-form", HTMLFormElement);
  const input = byId("origin", HTMLInputElement);
  const error = byId("origin-error");

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let origin = input.value.trim();
    if (!origin) {
      showError(error, "Enter your site's origin, like https://shop.example.", input);
      input.focus();
      return;
    }
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(origin)) origin = `https://${origin}`;
    showError(error, "", input);
    await whileBusy([submitter(event, form, "button")], async () => {
      try {
        const body = await api<RegisteredSiteView>("/api/sites", { method: "POST", json: { origin } });
        const host = body.site.host;
        page.host = host;
        store.saveSite(host, {
          origin: body.site.origin,
          claim: { claimSecret: body.claimSecret, challenge: body.challenge },
        });
        store.set("publish-current", host);
        page.renderMySites();
        page.showChallenge(host);
      } catch (e) {
        showError(error, messageOf(e), input);
        input.focus();
      }
    });
  });
}
