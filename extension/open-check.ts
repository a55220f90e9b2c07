// The extension's own check of a hub's request to open a page (issue 16, "Open on demand"), before the user
// is asked: pure (no chrome.*), so test/web checks it. The hub already checked the page against the site's
// published manifest; the extension trusts none of that and checks again what it is about to open.
//
// Decisions where the issue is silent:
// - The URL must parse, be http(s), carry no credentials (`user:pass@`, which a prompt could not show
//   honestly), and its origin must equal `origin` (the site's verified origin): else `invalid`.
// - A site the user never shares is refused without a prompt (`blocked`), with a message saying how to change
//   it; "always" and undecided sites are asked about (the open itself is always asked for).
import type { OpenFailure, OpenFrame } from "../src/protocol/control-frames.js";

export type OpenCheck =
  | { ok: true; url: string; origin: string }
  | { ok: false; reason: Extract<OpenFailure, "invalid" | "blocked">; message: string };

/** What the hub is told when the user never shares the site. */
export const neverSharedMessage = (origin: string): string =>
  `The user never shares ${origin} in the webmcp-hub extension. To let agents open it, change the site's ` +
  "decision in the extension's popup (Sites), or open the page and allow the site there.";

export function checkOpen(
  frame: Pick<OpenFrame, "url" | "origin">,
  sites: Readonly<Record<string, "always" | "never">>,
): OpenCheck {
  let url: URL;
  try {
    url = new URL(frame.url);
  } catch {
    return { ok: false, reason: "invalid", message: "The page's address is not a URL." };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, reason: "invalid", message: "Only http(s) pages are opened." };
  if (url.username || url.password)
    return { ok: false, reason: "invalid", message: "A page address with credentials is not opened." };
  if (url.origin !== frame.origin)
    return {
      ok: false,
      reason: "invalid",
      message: `The page ${url.href.slice(0, 300)} is not on the site's origin ${frame.origin.slice(0, 300)}.`,
    };
  if (sites[url.origin] === "never")
    return { ok: false, reason: "blocked", message: neverSharedMessage(url.origin) };
  return { ok: true, url: url.href, origin: url.origin };
}
