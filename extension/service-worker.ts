// The extension's service worker: keeps, per tab, the tools the tab's page registered (tab-tools.ts), with the
// tab's origin as the browser reports it. `self.webmcpHubExtension.tabs()` shows them (the e2e tests read it
// through the worker; the popup and the relay to the hub come next).
import { TabToolStore, type TabTools } from "./tab-tools.js";

const store = new TabToolStore();

chrome.runtime.onMessage.addListener((message, sender) => {
  store.receive(message, sender);
});
chrome.tabs.onRemoved.addListener((tabId) => store.removeTab(tabId));
chrome.webNavigation.onCommitted.addListener(({ tabId, frameId, documentId }) => {
  if (frameId === 0) store.navigated(tabId, documentId);
});

declare global {
  var webmcpHubExtension: { tabs(): TabTools[] };
}
globalThis.webmcpHubExtension = { tabs: () => store.list() };
