// Entry of /assets/site-owner.js: the owner's controls on their site's page (web/pages/site.tsx, shown only to
// the signed-in account that owns the site). Turns cloud runs of the whole site off or on with
// PUT /api/sites/:host/cloud through the session, and says what changed in the section's live region.
import type { SiteCloudView } from "../../src/protocol/views.js";
import { api } from "./lib/api.js";
import { $, messageOf } from "./lib/dom.js";

const button = $("cloud-switch");
if (button instanceof HTMLButtonElement) setup(button);

function setup(button: HTMLButtonElement): void {
  const host = button.dataset.host ?? "";
  const state = $("cloud-state");
  const status = $("cloud-status");
  const show = (enabled: boolean) => {
    button.dataset.enabled = String(enabled);
    button.textContent = enabled ? "Turn cloud runs off" : "Turn cloud runs on";
    if (state) state.textContent = enabled ? "on" : "off";
  };
  button.addEventListener("click", async () => {
    const enabled = button.dataset.enabled !== "true";
    button.disabled = true;
    try {
      const answer = await api<SiteCloudView>(`/api/sites/${encodeURIComponent(host)}/cloud`, {
        method: "PUT",
        json: { enabled },
      });
      show(answer.site.cloudEnabled);
      if (status)
        status.textContent = answer.site.cloudEnabled
          ? "Cloud runs are on: agents can call this site's cloud tools with no tab open."
          : "Cloud runs are off: the hub runs none of this site's tools in its browser until you turn them on.";
    } catch (e) {
      if (status) status.textContent = `Not changed: ${messageOf(e)}`;
    } finally {
      button.disabled = false;
    }
  });
}
