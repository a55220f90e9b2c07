// /bridge.js: what a site adds to its pages with one script tag. Installs WebMCP (both API generations, one
// registry; install.ts), connects the registry's tools to the user's channel on the hub this script was
// loaded from, defines <webmcp-hub-widget>, and exposes window.webmcpHub: pair(code) → Promise<{channelId}>,
// disconnect(), status ("unpaired" | "connecting" | "connected", or "extension" when the webmcp-hub browser
// extension relays the page and the bridge stands aside) and a `statuschange` event. Only in secure
// contexts, and only once per page. The WebMCP API is all here, so the script's text also works inlined
// (without a src; the hub is then the page's own origin). The relay (relay-client.ts) loads from the same hub
// when the page is paired or pairs (/bridge-relay.js; relay-loader.ts), the widget's face and the approval
// dialog when first shown (/bridge-ui.js; ui-loader.ts).
//
// Frames (frames.ts): where the polyfill is document.modelContext, it spans the tab's frames. Only the
// top-level document's bridge relays, its own tools and the frames' tools visible to it; a subframe's bridge
// connects only when the top-level document has no bridge: it knows by the top's answer to its hello (or the
// top's own hello, if that bridge loads later, which makes it stand aside), and waits for its load event.
import { extensionPresent } from "./extension-mark.js";
import { RelayTools } from "./frames.js";
import { installWebMcp, nativeFrames } from "./install.js";
import { modelContext, shareAcrossFrames } from "./model-context.js";
import { registry } from "./registry.js";
import { RelayHub } from "./relay-loader.js";
import { defineWidget, uiLoader } from "./ui-loader.js";

declare global {
  interface Window {
    webmcpHub?: RelayHub;
  }
}

/** The hub is where this script came from: `<script src="https://HUB/bridge.js">`. */
function hubOrigin(): string {
  const own = document.currentScript as HTMLScriptElement | null;
  const src = own?.src || [...document.scripts].find((s) => /\/bridge\.js([?#]|$)/.test(s.src))?.src;
  return new URL(src || location.href).origin;
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // opaque origins and some privacy settings forbid it
  }
}

if (!window.isSecureContext) {
  console.warn(
    "webmcp-hub: WebMCP needs a secure context (https or localhost); the bridge is not installed.",
  );
} else if (!window.webmcpHub) {
  installWebMcp();
  // A native document.modelContext spans the frames itself (install.ts relays their tools); the protocol
  // then only tells a subframe whether the top-level document has a bridge.
  const polyfilled = (document as unknown as { modelContext?: unknown }).modelContext === modelContext;
  const frames = polyfilled ? shareAcrossFrames() : nativeFrames();
  const subframe = window !== window.top;
  const origin = hubOrigin();
  const ui = uiLoader(origin);
  const hub = new RelayHub({
    hubOrigin: origin,
    registry: polyfilled && !subframe ? new RelayTools(registry, frames) : registry,
    relayedByTop: () => subframe && frames.topHasBridge,
    storage: storage(),
    // The webmcp-hub extension installed WebMCP before this script and relays the page itself.
    viaExtension: extensionPresent(),
    ui,
  });
  window.webmcpHub = hub;
  defineWidget(hub, ui);
  if (subframe) {
    frames.addEventListener("hi", () => frames.topHasBridge && hub.standAside());
    if (document.readyState === "complete") hub.start();
    else addEventListener("load", () => hub.start(), { once: true });
  } else hub.start();
}
