// Keeping a channel in this browser: the record of one just created, opening one with its owner key, and the
// one-click console link `npm start` prints (`/channels/<id>#ownerKey=who_…&agentToken=wha_…`): the fragment
// never reaches the server (browsers do not send it, nor put it in a Referer); the page reads it, removes it
// from the address bar and history at once, checks the owner key with the usual owner request (the key as
// `Authorization: Bearer`, nothing else), and keeps the channel as "Open a channel created in another
// browser" does, with the agent token when the link carries one.
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
      ? [{ id: created.agentTokenId, label: created.agentTokenLabel, token: created.agentToken }]
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

/** The owner key and agent token of a one-click console link. */
export interface ConsoleLink {
  ownerKey: string;
  agentToken?: string;
}

/**
 * Reads a console link's fragment and removes it from the address bar (history.replaceState, so Back does not
 * bring it back either); null when the fragment is not one (an anchor like `#audit` stays as it is).
 */
export function takeConsoleLink(): ConsoleLink | null {
  const hash = location.hash.slice(1);
  if (!/(^|&)(ownerKey|agentToken)=/.test(hash)) return null;
  history.replaceState(history.state, "", location.pathname + location.search);
  const params = new URLSearchParams(hash);
  const ownerKey = params.get("ownerKey") ?? "";
  const agentToken = params.get("agentToken") ?? "";
  if (!ownerKey.startsWith("who_")) return null;
  return agentToken.startsWith("wha_") ? { ownerKey, agentToken } : { ownerKey };
}

/**
 * Checks a console link's owner key with the hub and keeps the channel in this browser (merged with what is
 * kept already: its tokens stay; the link's agent token becomes the current one). Throws what the hub answered.
 */
export async function keepFromLink(id: string, link: ConsoleLink): Promise<KeptChannel> {
  const body = await api<ChannelSnapshot>(`/api/channels/${encodeURIComponent(id)}`, {
    token: link.ownerKey,
  });
  const kept = store.channel(body.channel.id);
  const record: KeptChannel = {
    ...kept,
    id: body.channel.id,
    name: body.channel.name,
    strictNames: body.channel.strictNames,
    createdAt: body.channel.createdAt,
    ownerKey: link.ownerKey,
    mcpUrl: body.mcpUrl,
    tokens: kept?.tokens ?? [],
  };
  if (link.agentToken) {
    record.agentToken = link.agentToken;
    const known = record.tokens?.find((t) => t.token === link.agentToken);
    record.agentTokenId = known?.id;
  }
  if (!store.saveChannel(record))
    throw new Error("This browser would not store the channel's keys (local storage is off or full).");
  return record;
}
