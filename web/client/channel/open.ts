// Keeping a channel in this browser: the record of one just created, and opening one with its owner key.
import type { ChannelSnapshot, CreatedChannel } from "../../../src/protocol/views.js";
import { api } from "../lib/api.js";
import { messageOf, showError } from "../lib/dom.js";
import { store, type KeptChannel } from "../lib/store.js";

/** What the console keeps of a channel created in this browser (the hub shows its secrets once). */
export function channelRecord(created: CreatedChannel): KeptChannel {
  return {
    id: created.channel.id,
    name: created.channel.name,
    strictNames: created.channel.strictNames,
    createdAt: created.channel.createdAt,
    ownerKey: created.ownerKey,
    mcpUrl: created.mcpUrl,
    agentToken: created.agentToken,
    agentTokenId: created.agentTokenId,
    tokens: created.agentToken
      ? [{ id: created.agentTokenId, label: "default", token: created.agentToken }]
      : [],
    pairingCode: created.pairingCode,
    pairingCodeExpiresAt: created.pairingCodeExpiresAt,
  };
}

/** Checks the owner key with the hub, keeps the channel in this browser and opens its console. */
export async function openWithKey(
  id: string,
  key: string,
  errorBox: HTMLElement,
  field: HTMLElement,
): Promise<void> {
  showError(errorBox, "", field);
  if (!id || !key) {
    showError(errorBox, "Enter the channel ID and its owner key (who_…).", field);
    return;
  }
  try {
    const body = await api<ChannelSnapshot>(`/api/channels/${encodeURIComponent(id)}`, { token: key });
    store.saveChannel({
      id: body.channel.id,
      name: body.channel.name,
      strictNames: body.channel.strictNames,
      createdAt: body.channel.createdAt,
      ownerKey: key,
      mcpUrl: body.mcpUrl,
      tokens: [],
    });
    location.href = `/channels/${encodeURIComponent(body.channel.id)}`;
  } catch (e) {
    showError(errorBox, messageOf(e), field);
    errorBox.setAttribute("tabindex", "-1");
    errorBox.focus();
  }
}
