// Where to go after signing in: only a path on the hub itself, so /signin cannot be made an open redirect.

/**
 * `returnTo` as a same-origin path (with its query and fragment), or undefined when it is anything else: an
 * absolute or protocol-relative URL, a backslash trick, a control character, or longer than 2,000 characters.
 */
export function safeReturnTo(returnTo: string | undefined | null, hubOrigin: string): string | undefined {
  if (!returnTo || returnTo.length > 2000) return undefined;
  if (!returnTo.startsWith("/") || returnTo.startsWith("//") || returnTo.includes("\\")) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(returnTo)) return undefined;
  let url: URL;
  try {
    url = new URL(returnTo, hubOrigin);
  } catch {
    return undefined;
  }
  if (url.origin !== hubOrigin) return undefined;
  return url.pathname + url.search + url.hash;
}
