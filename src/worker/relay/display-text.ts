// Text that providers and agents give about themselves (a page's title and URL, an MCP client's name) is
// untrusted: before the hub keeps or shows it, control and bidirectional-override characters go, whitespace
// collapses, and the length is capped; a page URL is kept only if it is an http(s) URL on the tab's origin.

// C0/C1 controls, zero-width and bidi controls, line/paragraph separators.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `text` without invisible characters, whitespace collapsed, cut to `max` code points (with "…"). */
export function displayText(text: string, max: number): string {
  const clean = text.replace(INVISIBLE, " ").replace(/\s+/g, " ").trim();
  const points = Array.from(clean);
  return points.length <= max
    ? clean
    : `${points
        .slice(0, max - 1)
        .join("")
        .trimEnd()}…`;
}

/**
 * The page URL a tab reported, if it is an http(s) URL without credentials on `origin` (the Origin the tab
 * paired from and connects with); otherwise null, and the console shows no URL.
 */
export function sameOriginPageUrl(url: string, origin: string | null): string | null {
  if (!origin) return null;
  let page: URL;
  let own: URL;
  try {
    page = new URL(url);
    own = new URL(origin);
  } catch {
    return null;
  }
  if (page.protocol !== "https:" && page.protocol !== "http:") return null;
  if (page.username || page.password) return null;
  if (page.origin !== own.origin) return null;
  return page.href;
}
