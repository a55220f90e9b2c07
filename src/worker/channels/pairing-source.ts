// Where a pairing request came from: a tab's Origin (parsed, only http(s) origins, stored serialized), the
// browser extension's Origin (chrome-extension:// or moz-extension://, its id), and whether a browser page sent
// it (Fetch Metadata), so the channel console can mark providers paired by a script. Also the tab origin an
// extension's relay socket names (`?origin=`), which must already be serialized exactly.
import { HubError } from "../http/errors.js";

export interface PairingSource {
  /** The request's Origin header as received; a tab's is checked and serialized by {@link tabOrigin}. */
  origin: string | undefined;
  /** Whether the request is a browser page's fetch, by {@link requestFromPage}. */
  fromPage: boolean;
}

export function pairingSource(headers: Headers, hubOrigin: string): PairingSource {
  return { origin: headers.get("origin") ?? undefined, fromPage: requestFromPage(headers, hubOrigin) };
}

/** Longest host name DNS allows. */
const MAX_HOST = 253;

/**
 * The serialized origin (`scheme://host[:port]`, lower case, default port dropped) a tab pairs from. Only an
 * http(s) origin is a page a tab can be: `null` (the opaque origin of sandboxed frames and file pages), `javascript:`, `data:`,
 * extension schemes, and anything with a path, query, fragment or credentials are refused with 400
 * `invalid_origin` before the pairing code is looked at, so the code stays usable.
 */
export function tabOrigin(raw: string | undefined): string {
  if (!raw) {
    throw new HubError(
      "bad_request",
      "A tab pairs from its page: the request must carry the page's Origin header.",
    );
  }
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (
    !url ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.username !== "" ||
    url.password !== "" ||
    url.pathname !== "/" ||
    url.search !== "" ||
    url.hash !== "" ||
    url.hostname.length > MAX_HOST
  ) {
    const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
    throw new HubError(
      "invalid_origin",
      `The Origin ${JSON.stringify(shown)} is not an http(s) origin. A tab pairs from its web page, whose ` +
        "Origin is a scheme, host and optional port, like https://shop.example.",
    );
  }
  return url.origin;
}

/** Chrome's and Edge's extension ids: 32 letters a–p. Firefox's: a UUID (per installation). */
const EXTENSION_ORIGIN = [
  /^chrome-extension:\/\/[a-p]{32}$/,
  /^moz-extension:\/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
];

/**
 * The browser extension's origin (`chrome-extension://<id>` in Chrome and Edge, `moz-extension://<uuid>` in
 * Firefox, lower case) that an extension's pairing request carries, or 400 `invalid_origin` before the pairing
 * code is looked at (the code stays usable). Its relay sockets must then carry the same Origin.
 */
export function extensionOrigin(raw: string | undefined): string {
  const origin = raw?.toLowerCase();
  if (origin && EXTENSION_ORIGIN.some((re) => re.test(origin))) return origin;
  const shown = !raw
    ? "no Origin"
    : `the Origin ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)}`;
  throw new HubError(
    "invalid_origin",
    `An extension pairing must come from the extension itself (Origin chrome-extension://<id> or ` +
      `moz-extension://<id>); this request had ${shown}. Pair from the extension's popup, or choose ` +
      `"tab" or "sidecar" as the kind.`,
  );
}

/**
 * The tab origin an extension's relay socket names in `?origin=`: an http(s) origin exactly as
 * `new URL(x).origin` serializes it (lower case, no default port, no trailing slash), else 400
 * `invalid_origin`. The extension reports the origin the browser gives for the tab, never what a page says.
 */
export function relayTabOrigin(raw: string | undefined): string {
  let url: URL | null = null;
  try {
    url = raw ? new URL(raw) : null;
  } catch {
    url = null;
  }
  if (
    !raw ||
    !url ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.origin !== raw ||
    url.hostname.length > MAX_HOST
  ) {
    const shown = !raw ? "none" : JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
    throw new HubError(
      "invalid_origin",
      `An extension's relay socket names its tab's origin in ?origin=, serialized like new URL(url).origin ` +
        `(e.g. https://shop.example); got ${shown}.`,
    );
  }
  return raw;
}

/**
 * Whether a request is a browser page's fetch() (or XMLHttpRequest), judged by the Fetch Metadata headers
 * that browsers set themselves (a page can neither set nor drop them) and every current browser sends:
 * - `Sec-Fetch-Dest: empty`: a fetch or XHR, not a navigation, frame, image or script load;
 * - `Sec-Fetch-Mode: cors` or `same-origin`: what a page's fetch() sends (not navigate, no-cors, websocket);
 * - `Sec-Fetch-Site: cross-site`, `same-site` or `same-origin` (not `none`, which is the user's own action),
 *   and `same-origin` exactly when the Origin is the hub's own.
 * False therefore means that no page of a current browser sent it: a script, the sidecar, curl (or a browser
 * older than Chrome 76, Firefox 90, Safari 16.4). True is a hint, not proof: a program can send these
 * headers too, with any Origin it likes.
 */
export function requestFromPage(headers: Headers, hubOrigin: string): boolean {
  const dest = headers.get("sec-fetch-dest");
  const mode = headers.get("sec-fetch-mode");
  const site = headers.get("sec-fetch-site");
  if (dest !== "empty") return false;
  if (mode !== "cors" && mode !== "same-origin") return false;
  if (site !== "cross-site" && site !== "same-site" && site !== "same-origin") return false;
  return (site === "same-origin") === (headers.get("origin") === hubOrigin);
}
