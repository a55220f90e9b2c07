// The bodies of the static pages (static-pages.tsx), rendered with placeholders for their values. Imported by
// the build (scripts/lib/page-bodies.mjs) and the tests, never by the Worker.
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { SignInBody } from "./account-signin.js";
import { ExtensionConnectBody } from "./extension-connect.js";
import { AnalyticsBody } from "./analytics.js";
import { ChannelConsoleBody, ChannelsBody } from "./channels.js";
import { AccountBody } from "./account.js";
import { ChannelPickerBody, ConsentBody } from "./consent.js";
import { AuthorizeProblemBody } from "./authorize-problems.js";
import { DocsBody } from "./docs.js";
import { PublishBody } from "./publish.js";
import {
  placeholder,
  type AuthorizeProblem,
  type StaticPageName,
  type StaticPageVars,
} from "./static-pages.js";

const problem = (name: AuthorizeProblem) => (vars: Required<StaticPageVars>) => (
  <AuthorizeProblemBody problem={name} vars={vars} />
);

export const STATIC_BODIES: Record<StaticPageName, (vars: Required<StaticPageVars>) => Child> = {
  docs: ({ hub }) => <DocsBody hub={hub} />,
  publish: ({ hub }) => <PublishBody hub={hub} />,
  console: ({ id, hub, signedIn }) => <ChannelConsoleBody id={id} hub={hub} signedIn={signedIn} />,
  analytics: ({ host }) => <AnalyticsBody host={host} />,
  "extension-connect": ({ channels }) => <ExtensionConnectBody channels={raw(channels)} />,
  channels: ({ channels }) => <ChannelsBody accountChannels={raw(channels)} />,
  account: ({ name, channels, sites, passkeys }) => (
    <AccountBody name={name} channels={raw(channels)} sites={raw(sites)} passkeys={raw(passkeys)} />
  ),
  consent: (v) => <ConsentBody {...v} clientDomain={raw(v.clientDomain)} loopback={raw(v.loopback)} />,
  "channel-picker": (v) => (
    <ChannelPickerBody
      {...v}
      clientDomain={raw(v.clientDomain)}
      loopback={raw(v.loopback)}
      params={raw(v.params)}
      channels={raw(v.channels)}
    />
  ),
  "authorize-invalid": problem("authorize-invalid"),
  "authorize-unreadable-client": problem("authorize-unreadable-client"),
  "authorize-refused-client": problem("authorize-refused-client"),
  "authorize-no-channel": problem("authorize-no-channel"),
  "authorize-unclaimed": problem("authorize-unclaimed"),
  "authorize-not-yours": problem("authorize-not-yours"),
  "authorize-signed-out": problem("authorize-signed-out"),
  "authorize-unreadable": problem("authorize-unreadable"),
  "authorize-expired": problem("authorize-expired"),
  "authorize-not-grantable": problem("authorize-not-grantable"),
  signin: ({ returnTo, reason, ipNotice }) => (
    <SignInBody returnTo={returnTo} reason={raw(reason)} ipNotice={raw(ipNotice)} />
  ),
};

/** Each body as the build writes it: rendered with placeholders. */
export async function renderFragments(): Promise<Record<StaticPageName, string>> {
  const vars = {
    hub: placeholder("hub"),
    id: placeholder("id"),
    signedIn: placeholder("signedIn"),
    host: placeholder("host"),
    returnTo: placeholder("returnTo"),
    reason: placeholder("reason"),
    ipNotice: placeholder("ipNotice"),
    channels: placeholder("channels"),
    name: placeholder("name"),
    sites: placeholder("sites"),
    passkeys: placeholder("passkeys"),
    clientName: placeholder("clientName"),
    clientDomain: placeholder("clientDomain"),
    redirectHost: placeholder("redirectHost"),
    loopback: placeholder("loopback"),
    channelName: placeholder("channelName"),
    handle: placeholder("handle"),
    params: placeholder("params"),
    denyUrl: placeholder("denyUrl"),
    detail: placeholder("detail"),
    errorCode: placeholder("errorCode"),
    clientId: placeholder("clientId"),
  };
  const out = {} as Record<StaticPageName, string>;
  for (const [name, body] of Object.entries(STATIC_BODIES) as Array<
    [StaticPageName, (typeof STATIC_BODIES)["docs"]]
  >)
    out[name] = String(await (body(vars) as { toString(): string | Promise<string> }).toString());
  return out;
}
