// The mark the webmcp-hub extension's MAIN-world script leaves on `window` (document_start, before any page
// script): /bridge.js, embedded by the same page, then mirrors the extension's registry and leaves relaying to
// the extension: no second socket, no widget, one relay. A page could set it itself, which only stops its own
// bridge from relaying.
export const EXTENSION_MARK = Symbol.for("webmcp-hub.extension");

export const extensionPresent = (): boolean =>
  (window as unknown as Record<symbol, unknown>)[EXTENSION_MARK] === true;
