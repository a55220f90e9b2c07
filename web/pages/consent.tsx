// The OAuth authorize pages (src/worker/oauth/routes.ts): the consent page (Allow / Deny) and the channel
// picker when the client named no channel (the problems shown instead of redirecting: authorize-problems.tsx).
// Plain forms: they work without JavaScript and by keyboard. Everything the client chose (its name, domain, redirect host) is
// text, escaped by JSX; its name arrives cleaned of bidi and control characters (oauth/routes.tsx), and the
// page says it is the app's own claim. The consent page and the picker are static pages (static-pages.tsx): the
// Worker fills in the request's values, escaped, and renders only the parts that vary in shape.
import type { Child } from "hono/jsx";
import { Notice } from "./components.js";

export interface ConsentClient {
  clientName: string;
  /** The verified domain of a Client ID Metadata Document client; absent for a self-registered client. */
  clientDomain?: string | undefined;
  redirectHost: string;
  redirectIsLoopback: boolean;
}

/** The facts about the client that vary in shape (not just in text), as markup for the static bodies below. */
export function ClientFactSlots(client: ConsentClient): { clientDomain: Child; loopback: Child } {
  return {
    clientDomain: client.clientDomain ? (
      <strong>{client.clientDomain}</strong>
    ) : (
      <>Not verified: this app registered itself, and its name is what it says about itself.</>
    ),
    loopback: client.redirectIsLoopback ? (
      <Notice kind="warn" title="This sends access to an app on your computer.">
        Any program on this computer could be listening there, whatever name it gives. Continue only if you
        just started connecting from that app.
      </Notice>
    ) : null,
  };
}

/** The client as the static bodies take it: its text, and ClientFactSlots' markup. */
interface ClientFactsProps {
  clientName: string;
  redirectHost: string;
  clientDomain: Child;
  loopback: Child;
}

function ClientFacts(props: ClientFactsProps) {
  return (
    <>
      <dl class="fact-rows">
        <dt>App</dt>
        <dd>
          <strong id="consent-client-name">{props.clientName}</strong>
          <small id="consent-name-claim">
            This name is the app's own claim: any app can give itself any name. Check who publishes it and
            where access goes.
          </small>
        </dd>
        <dt>Published by</dt>
        <dd id="consent-client-domain">{props.clientDomain}</dd>
        <dt>Access goes to</dt>
        <dd>
          <strong id="consent-redirect-host">{props.redirectHost}</strong>
        </dd>
      </dl>
      {props.loopback}
    </>
  );
}

/**
 * The consent page's body, a static page (static-pages.tsx): the account's `name`, the channel's `channelName`
 * and `id`, and the consent `handle` the form posts back.
 */
export function ConsentBody(
  props: ClientFactsProps & { channelName: string; id: string; handle: string; name: string },
) {
  return (
    <>
      <header class="page-head">
        <h1>
          Allow <span>{props.clientName}</span> to use your channel?
        </h1>
        <p class="lede">
          Signed in as {props.name}. The app will list and call the tools of the tabs and sidecars paired with
          channel <strong id="consent-channel-name">{props.channelName}</strong> (<code>{props.id}</code>)
          until you disconnect it in the channel console. Calls that are not read-only still wait for your
          approval in the tab.
        </p>
      </header>
      <section class="panel" aria-labelledby="consent-facts-title">
        <h2 id="consent-facts-title">Who is asking</h2>
        <ClientFacts {...props} />
        <form method="post" action="/authorize" id="consent-form">
          <input type="hidden" name="handle" value={props.handle} />
          <p class="actions">
            <button type="submit" name="decision" value="approve" class="btn primary" id="consent-allow">
              Allow
            </button>{" "}
            <button type="submit" name="decision" value="deny" class="btn" id="consent-deny">
              Deny
            </button>
          </p>
        </form>
      </section>
    </>
  );
}

/** The picker's hidden inputs: the same request, to come back to /authorize with a channel as `resource`. */
export function PickerParams(props: { params: Array<[string, string]> }) {
  return (
    <>
      {props.params.map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
    </>
  );
}

/** The picker's choices: the account's channels, the first checked. */
export function PickerChannels(props: { channels: Array<{ id: string; name: string; resource: string }> }) {
  return (
    <>
      {props.channels.map((ch, i) => (
        <p>
          <label>
            <input type="radio" name="resource" value={ch.resource} checked={i === 0} required /> {ch.name}{" "}
            <code>{ch.id}</code>
          </label>
        </p>
      ))}
    </>
  );
}

/**
 * The picker's body, a static page (static-pages.tsx): a GET form back to /authorize; `params` and `channels`
 * are PickerParams' and PickerChannels' markup, `denyUrl` goes back to the app with access_denied.
 */
export function ChannelPickerBody(
  props: ClientFactsProps & { params: Child; channels: Child; denyUrl: string },
) {
  return (
    <>
      <header class="page-head">
        <h1>
          Which channel may <span>{props.clientName}</span> use?
        </h1>
        <p class="lede">
          The app did not say which channel it wants. Choose one; you confirm on the next page.
        </p>
      </header>
      <section class="panel" aria-labelledby="picker-facts-title">
        <h2 id="picker-facts-title">Who is asking</h2>
        <ClientFacts {...props} />
        <form method="get" action="/authorize" id="channel-picker">
          {props.params}
          <fieldset>
            <legend>Your channels</legend>
            {props.channels}
          </fieldset>
          <p class="actions">
            <button type="submit" class="btn primary" id="picker-continue">
              Continue
            </button>{" "}
            <a class="btn" href={props.denyUrl} id="picker-deny">
              Deny
            </a>
          </p>
        </form>
      </section>
    </>
  );
}
