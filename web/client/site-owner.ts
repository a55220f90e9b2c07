// Entry of /assets/site-owner.js: the owner's sections of their site's page (web/pages/site.tsx, given only to
// the signed-in account that owns the site). Builds them from the data the page holds (#site-owner's
// data-view; web/shared/site-owner.ts), then makes them work: turns cloud runs of the whole site off or on with
// PUT /api/sites/:host/cloud through the session, and says what changed in the section's live region. The
// manifest source: PUT …/manifest-source with the chosen radio, POST …/manifest/refresh to pull now, and
// POST …/catalog/refresh to read the site's ai-catalog.json again (the page reloads to list what it offers).
import type { PublishResultView, SiteCatalogView, SiteCloudView } from "../../src/protocol/views.js";
import { cloudSwitchText, siteOwnerSections, type SiteOwnerData } from "../shared/site-owner.js";
import { api } from "./lib/api.js";
import { $, messageOf, render } from "./lib/dom.js";

const holder = $("site-owner");
if (holder?.dataset.view) {
  const view = JSON.parse(holder.dataset.view) as SiteOwnerData;
  holder.replaceWith(...siteOwnerSections(view, Date.now()).map(render));
}
const button = $("cloud-switch");
if (button instanceof HTMLButtonElement) setup(button);
const sourceForm = $("source-form");
if (sourceForm instanceof HTMLFormElement) setupSource(sourceForm);

function setupSource(form: HTMLFormElement): void {
  const base = `/api/sites/${encodeURIComponent(form.dataset.host ?? "")}`;
  const status = $("source-status");
  const act = async (what: () => Promise<string>) => {
    const buttons = [...form.querySelectorAll("button")];
    for (const b of buttons) b.disabled = true;
    try {
      if (status) status.textContent = await what();
    } catch (e) {
      if (status) status.textContent = `Not done: ${messageOf(e)}`;
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const url = String(new FormData(form).get("source") ?? "") || null;
    void act(async () => {
      const v = await api<SiteCatalogView>(`${base}/manifest-source`, { method: "PUT", json: { url } });
      return `Refreshes now pull from ${v.manifestSource ?? "/.well-known/webmcp.json"}.`;
    });
  });
  $("manifest-pull")?.addEventListener("click", () =>
    act(async () => {
      const r = await api<PublishResultView>(`${base}/manifest/refresh`, { method: "POST" });
      return r.unchanged
        ? `The manifest is unchanged (version ${r.version}).`
        : `Published version ${r.version} with ${r.toolCount} tools; reload to see it.`;
    }),
  );
  $("catalog-read")?.addEventListener("click", () =>
    act(async () => {
      const v = await api<SiteCatalogView>(`${base}/catalog/refresh`, { method: "POST" });
      location.reload();
      return v.catalog.error ?? "Read.";
    }),
  );
}

function setup(button: HTMLButtonElement): void {
  const host = button.dataset.host ?? "";
  const state = $("cloud-state");
  const status = $("cloud-status");
  const show = (enabled: boolean) => {
    button.dataset.enabled = String(enabled);
    button.textContent = cloudSwitchText(enabled);
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
