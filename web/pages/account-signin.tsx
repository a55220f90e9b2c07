// /signin: sign in with a passkey, or create an account with a new one. The passkey ceremonies need
// JavaScript (WebAuthn is a browser API); /assets/account.js drives them and then goes to `returnTo`. A static
// page (static-pages.tsx): its body is built once; the Worker renders only the two notices that depend on the
// request (SignInNotices).
import { Notice } from "./components.js";
import type { Child } from "hono/jsx";

/**
 * Why a page sent the visitor here, said in words, from where they will return to (`return_to`, already
 * checked to be a path on this hub): a redirect to sign in otherwise looks like the page they asked for broke.
 */
export function signInReason(returnTo: string | undefined): string | undefined {
  const path = returnTo?.replace(/[?#].*$/, "");
  if (path === undefined) return undefined;
  if (path === "/account") return "Sign in to see your account.";
  if (path === "/extension/connect") return "Sign in to connect the browser extension to your account.";
  if (path === "/authorize" || path === "/oauth/authorize")
    return "Sign in to decide whether an app may use one of your channels.";
  if (/^\/sites\/[^/]+\/add$/.test(path)) return "Sign in to add these tools to one of your channels.";
  return undefined;
}

/** The sign-in page's notices that depend on the request: why the visitor was sent here, and the IP-host warning. */
export function SignInNotices(props: { returnTo: string | undefined; localhostUrl?: string | undefined }) {
  const reason = signInReason(props.returnTo);
  return {
    reason: reason ? (
      <p class="lede reason" id="signin-reason">
        <strong>{reason}</strong>
      </p>
    ) : null,
    ipNotice: props.localhostUrl ? (
      <div id="ip-host-notice">
        <Notice kind="info" title="Passkeys need a host name, not an IP address.">
          Browsers refuse passkeys on an address like this one. Open the hub as{" "}
          <a href={props.localhostUrl}>{props.localhostUrl}</a> instead.
        </Notice>
      </div>
    ) : null,
  };
}

/**
 * The body of /signin, a static page (static-pages.tsx): `reason` and `ipNotice` are SignInNotices' markup,
 * `returnTo` the checked path to go back to.
 */
export function SignInBody(props: { returnTo: string; reason: Child; ipNotice: Child }) {
  return (
    <>
      <header class="page-head">
        <h1>Sign in</h1>
        {props.reason}
        <p class="lede">
          Your account keeps your channels and sites, on any device. It uses passkeys only: your device
          unlocks it with its screen lock or a security key. No password, no email.
        </p>
      </header>
      {props.ipNotice}
      <noscript>
        <Notice kind="info" title="Passkeys need JavaScript.">
          Signing in asks your browser for a passkey, which only a script can do. Channels and sites also work
          without an account, through their keys and the API (see the <a href="/docs">docs</a>).
        </Notice>
      </noscript>
      <div id="signin-root" class="grid-2" data-return-to={props.returnTo} data-flow="signin">
        <section aria-labelledby="signin-title" class="panel">
          <h2 id="signin-title">I have an account</h2>
          <form id="signin-form" novalidate>
            <p class="meta">Your browser shows the passkeys it holds for this hub.</p>
            <div id="signin-error" class="alert error" role="alert" hidden></div>
            <button type="submit" class="btn primary" disabled data-needs-js>
              Sign in with a passkey
            </button>
          </form>
        </section>
        <section aria-labelledby="signup-title" class="panel">
          <h2 id="signup-title">Create an account</h2>
          <form id="signup-form" novalidate>
            <div class="field">
              <label for="display-name">Your name</label>
              <input
                id="display-name"
                name="displayName"
                type="text"
                required
                maxlength={64}
                autocomplete="nickname"
                aria-describedby="display-name-hint display-name-error"
              />
              <p class="hint" id="display-name-hint">
                Shown on your account page and in your passkey manager, e.g. “Ada”.
              </p>
              <p class="field-error" id="display-name-error" hidden></p>
            </div>
            <div id="signup-error" class="alert error" role="alert" hidden></div>
            <button type="submit" class="btn primary" disabled data-needs-js>
              Create account with a passkey
            </button>
          </form>
        </section>
      </div>
    </>
  );
}
