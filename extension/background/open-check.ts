// The extension's own check of a hub's request to open a page ("Open on demand"), before the user
// is asked: pure (no chrome.*), so test/web checks it. The hub already checked the page against the site's
// published manifest; the extension trusts none of that and checks again what it is about to open.
//
// Decisions:
// - The URL must parse, be http(s), carry no credentials (`user:pass@`, which a prompt could not show
//   honestly), and its origin must equal `origin` (the site's verified origin): else `invalid`.
// - A site the user never shares is refused without a prompt (`blocked`), with a message saying how to change
//   it; "always" and undecided sites are asked about (the open itself is always asked for).
import type { OpenFailure, OpenFrame } from "../../src/protocol/control-frames.js";
import { LIMITS } from "../../src/protocol/limits.js";

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

const str = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max;
const HTTP_ORIGIN = /^https?:\/\/[^/?#\s]+$/;

/**
 * A hub `open` frame read by hand: exactly what OpenFrameSchema (src/protocol/control-frames.ts) accepts,
 * or null. By hand, as the tab sockets read their frames, so the service worker does not carry zod (~100 KB);
 * test/web/extension-open-check.test.ts holds it to the schema.
 */
export function readOpenFrame(f: Record<string, unknown>): OpenFrame | null {
  const ok =
    f.type === "open" &&
    str(f.id, 1, 64) &&
    str(f.url, 0, 2048) &&
    /^https?:\/\//.test(f.url) &&
    str(f.origin, 0, 2048) &&
    HTTP_ORIGIN.test(f.origin) &&
    str(f.site, 1, 253) &&
    str(f.tool, 1, LIMITS.toolNameMax) &&
    (f.title === undefined || str(f.title, 0, LIMITS.titleMax)) &&
    typeof f.readOnly === "boolean" &&
    str(f.agent, 1, 128) &&
    (f.client === undefined || str(f.client, 0, LIMITS.clientNameMax)) &&
    Number.isInteger(f.timeoutMs) &&
    (f.timeoutMs as number) > 0 &&
    (f.timeoutMs as number) <= LIMITS.callTimeoutMaxMs;
  if (!ok) return null;
  const { type: _type, ...rest } = f;
  return {
    type: "open",
    id: rest.id as string,
    url: rest.url as string,
    origin: rest.origin as string,
    site: rest.site as string,
    tool: rest.tool as string,
    ...(rest.title !== undefined && { title: rest.title as string }),
    readOnly: rest.readOnly as boolean,
    agent: rest.agent as string,
    ...(rest.client !== undefined && { client: rest.client as string }),
    timeoutMs: rest.timeoutMs as number,
  };
}

/** A hub `open-cancel` frame read by hand (OpenCancelFrameSchema), or null. */
export function readOpenCancel(f: Record<string, unknown>): { id: string; reason: string } | null {
  return f.type === "open-cancel" && str(f.id, 1, 64) && str(f.reason, 0, 512)
    ? { id: f.id, reason: f.reason }
    : null;
}
