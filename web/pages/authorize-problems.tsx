// The problems the OAuth authorize endpoint shows instead of redirecting (src/worker/oauth/routes.tsx), as the
// bodies of static pages (static-pages.tsx): built once into fragments, the Worker fills in the request's
// values (the app's name, the channel's, the error's text), escaped. A problem that comes after the request
// was validated offers the way back to the app without access (`denyUrl`). Imported by the build and the
// tests (static-bodies.tsx), never by the Worker.
import type { Child } from "hono/jsx";
import { pageTitle, type AuthorizeProblem, type StaticPageVars } from "./static-pages.js";

type Vars = Required<StaticPageVars>;

/** Each problem's text, and whether it offers the way back to the app (its request was valid). */
const PROBLEMS: Record<AuthorizeProblem, { deny?: true; body: (v: Vars) => Child }> = {
  "authorize-invalid": {
    body: (v) => (
      <p>
        {v.detail} ({v.errorCode}). The app sent a request the hub cannot answer; nothing was granted. Try
        connecting again from the app, or tell its makers.
      </p>
    ),
  },
  "authorize-unreadable-client": {
    body: (v) => (
      <p>
        The app names itself by a web address (<code>{v.clientId}</code>) whose description could not be read
        or is not valid, so the hub cannot tell who it is. Nothing was granted.
      </p>
    ),
  },
  "authorize-refused-client": {
    body: (v) => (
      <p>
        The app names itself by a web address (<code>{v.clientId}</code>) that the hub does not read:{" "}
        {v.detail} Nothing was fetched and nothing was granted.
      </p>
    ),
  },
  "authorize-no-channel": {
    deny: true,
    body: (v) => (
      <p>
        {v.clientName} asks to use one of your channels, and your account has none. Create one on the{" "}
        <a href="/channels">Channels</a> page (or claim one you made before on{" "}
        <a href="/account">your account</a>
        ), then connect again from the app.
      </p>
    ),
  },
  "authorize-unclaimed": {
    deny: true,
    body: (v) => (
      <p>
        {v.clientName} asks to use channel <strong>{v.channelName}</strong>, which no account owns yet. Only
        the account that owns a channel can let apps use it. Claim it with its owner key (<code>who_…</code>)
        on <a href="/account">your account</a> page, then connect again from the app.
      </p>
    ),
  },
  "authorize-not-yours": {
    deny: true,
    body: (v) => (
      <p>
        {v.clientName} asks to use a channel that your account ({v.name}) does not own. Sign in with the
        account that owns it, or use one of your own channels' MCP URLs.
      </p>
    ),
  },
  "authorize-signed-out": {
    body: () => (
      <p>Your session ended before you decided. Nothing was granted; connect again from the app.</p>
    ),
  },
  "authorize-unreadable": {
    body: () => (
      <p>
        A decision must be the hub's consent form (<code>application/x-www-form-urlencoded</code>). Nothing
        was granted; use Allow or Deny on the consent page.
      </p>
    ),
  },
  "authorize-expired": {
    body: () => (
      <p>
        This consent page was already used, is older than ten minutes, or was opened in another browser.
        Nothing was granted; connect again from the app.
      </p>
    ),
  },
  "authorize-not-grantable": {
    deny: true,
    body: () => (
      <p>
        Only the account that owns a channel can let an app use it, and this one is not yours (any more).
        Nothing was granted.
      </p>
    ),
  },
};

/** A problem page's body: its title, its text and, when its request was valid, the way back to the app. */
export function AuthorizeProblemBody(props: { problem: AuthorizeProblem; vars: Vars }) {
  const { deny, body } = PROBLEMS[props.problem];
  return (
    <>
      <header class="page-head">
        <h1>{pageTitle(props.problem)}</h1>
      </header>
      <section class="panel" id="authorize-problem">
        {body(props.vars)}
        {deny ? (
          <p class="actions">
            <a class="btn" href={props.vars.denyUrl} id="problem-deny">
              Return to the app without access
            </a>
          </p>
        ) : null}
      </section>
    </>
  );
}
