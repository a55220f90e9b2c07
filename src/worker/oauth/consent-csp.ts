// The consent page's form is answered by a redirect to the OAuth client (its redirect_uri), and browsers hold
// a form's redirects to the page's CSP `form-action`: on /authorize that directive also names the origin of
// the request's redirect_uri (http or https only; the page shows a form only once the library validated it).
import type { Context } from "hono";
import { AUTHORIZE_PATH } from "./authorization-server.js";

/** A CSP source for `form-action` (security-headers.ts): the client's redirect origin on /authorize, else "". */
export function consentFormAction(c: Context): string {
  if (c.req.path !== AUTHORIZE_PATH) return "";
  const target = c.req.query("redirect_uri");
  if (!target) return "";
  try {
    const url = new URL(target);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : "";
  } catch {
    return "";
  }
}
