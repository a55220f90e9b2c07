// The OAuth authorize pages (src/worker/oauth/routes.ts): the consent page (Allow / Deny), the channel picker
// when the client named no channel, and the problems shown here instead of redirecting. Plain forms: they
// work without JavaScript and by keyboard. Everything the client chose (its name, domain, redirect host) is
// text, escaped by JSX; its name arrives cleaned of bidi and control characters (oauth/routes.tsx), and the
// page says it is the app's own claim.
import type { Child } from "hono/jsx";
import { Notice } from "./components.js";
import { Layout } from "./layout.js";

export interface ConsentClient {
  clientName: string;
  /** The verified domain of a Client ID Metadata Document client; absent for a self-registered client. */
  clientDomain?: string | undefined;
  redirectHost: string;
  redirectIsLoopback: boolean;
}

function ClientFacts(props: { client: ConsentClient }) {
  const { client } = props;
  return (
    <>
      <dl class="fact-rows">
        <dt>App</dt>
        <dd>
          <strong id="consent-client-name">{client.clientName}</strong>
          <small id="consent-name-claim">
            This name is the app's own claim: any app can give itself any name. Check who publishes it and
            where access goes.
          </small>
        </dd>
        <dt>Published by</dt>
        <dd id="consent-client-domain">
          {client.clientDomain ? (
            <strong>{client.clientDomain}</strong>
          ) : (
            "Not verified: this app registered itself, and its name is what it says about itself."
          )}
        </dd>
        <dt>Access goes to</dt>
        <dd>
          <strong id="consent-redirect-host">{client.redirectHost}</strong>
        </dd>
      </dl>
      {client.redirectIsLoopback ? (
        <Notice kind="warn" title="This sends access to an app on your computer.">
          Any program on this computer could be listening there, whatever name it gives. Continue only if you
          just started connecting from that app.
        </Notice>
      ) : null}
    </>
  );
}

export function ConsentPage(props: {
  client: ConsentClient;
  channel: { id: string; name: string };
  handle: string;
  account: { displayName: string };
}) {
  return (
    <Layout title="Allow access?" description="An app asks to use one of your channels." section="channels">
      <header class="page-head">
        <h1>
          Allow <span>{props.client.clientName}</span> to use your channel?
        </h1>
        <p class="lede">
          Signed in as {props.account.displayName}. The app will list and call the tools of the tabs and
          sidecars paired with channel <strong id="consent-channel-name">{props.channel.name}</strong> (
          <code>{props.channel.id}</code>) until you disconnect it in the channel console. Calls that are not
          read-only still wait for your approval in the tab.
        </p>
      </header>
      <section class="panel" aria-labelledby="consent-facts-title">
        <h2 id="consent-facts-title">Who is asking</h2>
        <ClientFacts client={props.client} />
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
    </Layout>
  );
}

/** The picker: a GET form back to /authorize with the same request and the chosen channel as `resource`. */
export function ChannelPickerPage(props: {
  client: ConsentClient;
  params: Array<[string, string]>;
  channels: Array<{ id: string; name: string; resource: string }>;
  denyUrl: string;
}) {
  return (
    <Layout
      title="Choose a channel"
      description="An app asks to use one of your channels."
      section="channels"
    >
      <header class="page-head">
        <h1>
          Which channel may <span>{props.client.clientName}</span> use?
        </h1>
        <p class="lede">
          The app did not say which channel it wants. Choose one; you confirm on the next page.
        </p>
      </header>
      <section class="panel" aria-labelledby="picker-facts-title">
        <h2 id="picker-facts-title">Who is asking</h2>
        <ClientFacts client={props.client} />
        <form method="get" action="/authorize" id="channel-picker">
          {props.params.map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <fieldset>
            <legend>Your channels</legend>
            {props.channels.map((ch, i) => (
              <p>
                <label>
                  <input type="radio" name="resource" value={ch.resource} checked={i === 0} required />{" "}
                  {ch.name} <code>{ch.id}</code>
                </label>
              </p>
            ))}
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
    </Layout>
  );
}

/** A request the hub answers here rather than at the app: it cannot go on, and says why and what to do. */
export function AuthorizeProblemPage(props: {
  title: string;
  children: Child;
  /** Back to the app with access_denied, when the request itself was valid. */
  denyUrl?: string | undefined;
}) {
  return (
    <Layout title={props.title} section="channels">
      <header class="page-head">
        <h1>{props.title}</h1>
      </header>
      <section class="panel" id="authorize-problem">
        {props.children}
        {props.denyUrl ? (
          <p class="actions">
            <a class="btn" href={props.denyUrl} id="problem-deny">
              Return to the app without access
            </a>
          </p>
        ) : null}
      </section>
    </Layout>
  );
}
