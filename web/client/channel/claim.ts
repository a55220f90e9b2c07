// "Add to my account" in the console's "This browser" section: a channel opened with an owner key (created
// anonymously, or by `npm start`) while someone is signed in can be claimed in one click, so OAuth apps can
// then be allowed to use it. Shown only when the page says a session came with the request (no 401 asked for)
// and the account does not own the channel yet.
import { api } from "../lib/api.js";
import { byId, messageOf } from "../lib/dom.js";
import type { KeptChannel } from "../lib/store.js";

export async function offerClaim(ch: KeptChannel): Promise<void> {
  if (byId("console-head").dataset.signedIn !== "true" || !ch.ownerKey) return;
  let owned: Array<{ id: string }>;
  try {
    owned = (await api<{ channels: Array<{ id: string }> }>("/api/account/channels")).channels;
  } catch {
    return; // the session ended meanwhile: nothing to offer
  }
  if (owned.some((c) => c.id === ch.id)) return;
  const box = byId("claim-box");
  const button = byId("claim-channel", HTMLButtonElement);
  const status = byId("claim-status");
  box.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Adding…";
    try {
      await api("/api/account/channels/claim", { method: "POST", json: { ownerKey: ch.ownerKey } });
      button.hidden = true;
      status.textContent =
        "Added to your account: open it on any device, and allow OAuth apps to use it from their consent page.";
    } catch (e) {
      status.textContent = `Not added: ${messageOf(e)}`;
      button.disabled = false;
    }
  });
}
