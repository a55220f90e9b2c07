// The pages' only line to the service worker: a UiRequest out (extension/messages.ts), its answer back as
// `unknown` for responses.ts to narrow, and the STATE_CHANGED broadcast in — from the service worker or
// another of our pages only, never from a content script (whose sender has a tab).
import { isExtensionPage, type UiRequest } from "../messages.js";
import { asUiResponse, isStateChanged } from "./responses.js";

/** Sends a request; resolves with the raw answer, or undefined when nobody answered. */
export async function ask(request: UiRequest): Promise<unknown> {
  try {
    return await chrome.runtime.sendMessage(request);
  } catch {
    // "Receiving end does not exist" / "message port closed": the service worker did not answer.
    return undefined;
  }
}

/** Sends a request that is answered with a UiResponse. */
export const act = async (request: UiRequest) => asUiResponse(await ask(request));

/** Calls `changed` on every STATE_CHANGED broadcast. The listener never answers, so it never races the worker. */
export function onStateChanged(changed: () => void): void {
  chrome.runtime.onMessage.addListener((message: unknown, sender) => {
    if (!sender.tab && isExtensionPage(sender) && isStateChanged(message)) changed();
    return undefined;
  });
}
