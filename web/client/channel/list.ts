// /channels: the channels this browser keeps, the form that creates one, and opening one with its owner key.
import type { CreatedChannel } from "../../../src/protocol/views.js";
import { ago } from "../../shared/markup.js";
import { api } from "../lib/api.js";
import { byId, h, messageOf, showError } from "../lib/dom.js";
import { store } from "../lib/store.js";
import { channelRecord, openWithKey } from "./open.js";

export function listPage(): void {
  // A channel of the signed-in account is listed once, under the account (rendered by the server); that
  // this browser keeps its keys too is said beside it.
  const accountItems = new Map(
    [...document.querySelectorAll<HTMLElement>("#account-channel-list [data-channel-id]")].map((li) => [
      li.dataset.channelId ?? "",
      li,
    ]),
  );
  const all = store.channels();
  const channels = all.filter((c) => !accountItems.has(c.id));
  for (const c of all) {
    const li = accountItems.get(c.id);
    if (li && !li.querySelector(".kept-here"))
      li.append(h("span", { class: "meta kept-here" }, " · its keys are kept in this browser too"));
  }
  const empty = byId("channel-empty");
  empty.hidden = channels.length > 0;
  if (all.length > 0 && channels.length === 0)
    empty.textContent = "Every channel this browser keeps belongs to your account: see the list above.";
  byId("channel-list").replaceChildren(
    ...channels.map((c) =>
      h(
        "li",
        { class: "card" },
        h("h3", {}, h("a", { href: `/channels/${encodeURIComponent(c.id)}` }, c.name)),
        h(
          "p",
          { class: "meta" },
          "ID ",
          h("code", {}, c.id),
          c.createdAt ? ` · created ${ago(Date.parse(c.createdAt), Date.now())}` : "",
        ),
      ),
    ),
  );

  const form = byId("create-form", HTMLFormElement);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = byId("channel-name", HTMLInputElement);
    const name = input.value.trim();
    const fieldError = byId("channel-name-error");
    showError(fieldError, "", input);
    showError(byId("create-error"), "");
    if (!name) {
      showError(fieldError, "Give the channel a name.", input);
      input.focus();
      return;
    }
    const button = submitButton(event, form);
    button.disabled = true;
    try {
      const created = await api<CreatedChannel>("/api/channels", {
        method: "POST",
        json: { name, strictNames: byId("strict-names", HTMLInputElement).checked },
      });
      if (!store.saveChannel(channelRecord(created)) && !store.channel(created.channel.id)) {
        throw new Error("This browser would not store the channel's keys (local storage is off or full).");
      }
      location.href = `/channels/${encodeURIComponent(created.channel.id)}?new=1`;
    } catch (e) {
      showError(byId("create-error"), messageOf(e));
      button.disabled = false;
    }
  });

  byId("import-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = byId("import-key", HTMLInputElement);
    void openWithKey(
      byId("import-id", HTMLInputElement).value.trim(),
      key.value.trim(),
      byId("import-error"),
      key,
    );
  });
}

/** The button that submitted `form` (or its first submit button). */
export function submitButton(event: SubmitEvent, form: HTMLFormElement): HTMLButtonElement {
  const button = event.submitter ?? form.querySelector("button[type=submit]") ?? form.querySelector("button");
  if (!(button instanceof HTMLButtonElement)) throw new Error(`The form #${form.id} has no submit button.`);
  return button;
}
