// Pages whose body is the same for every request but for a few values (the hub's origin, a channel id): the
// docs, the publish page and the channel console (whose client script fills in the rest). Their bodies are
// rendered once at build time (scripts/lib/page-bodies.mjs renders web/pages/static-bodies.tsx into
// web/assets/fragments/<name>.html, with placeholders for the values) and the Worker wraps the fragment in the
// layout per request, substituting the values HTML-escaped. Why: their markup, as JSX calls, was ~10 KiB of
// the Worker's gzipped bundle (kept ≤ 300 KiB); a static file costs the bundle nothing.
// test/worker/static-pages.test.ts checks that a fragment filled in is exactly the body rendered directly.
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { Layout } from "./layout.js";

export type StaticPageName =
  | "docs"
  | "publish"
  | "console"
  | "analytics"
  | "signin"
  | "extension-connect"
  | "channels"
  | "account"
  | "consent"
  | "channel-picker"
  | AuthorizeProblem;
/** The OAuth authorize endpoint's problem pages (authorize-problems.tsx). */
export type AuthorizeProblem =
  | "authorize-invalid"
  | "authorize-unreadable-client"
  | "authorize-refused-client"
  | "authorize-no-channel"
  | "authorize-unclaimed"
  | "authorize-not-yours"
  | "authorize-signed-out"
  | "authorize-unreadable"
  | "authorize-expired"
  | "authorize-not-grantable";
/**
 * `signedIn`: "true" or "false", whether the request came with an account's session (the console offers to
 * claim). `returnTo`: where /signin goes back to. `reason`, `ipNotice` and `channels`: markup the Worker
 * rendered itself (the sign-in page's notices, the extension page's channel list), put in as is — never a
 * request's text unescaped. The account page: `name` (the account's), `channels`, `sites`, `passkeys` (its
 * lists). The consent pages: `clientName`, `redirectHost`, `channelName`, `handle`, `denyUrl` (text), and
 * `clientDomain`, `loopback`, `params`, `channels` (markup). The authorize problems: those, and `detail`,
 * `errorCode`, `clientId` (text: the error's description and code, the app's client id).
 */
export type StaticPageVars = {
  hub: string;
  id?: string;
  signedIn?: string;
  host?: string;
  returnTo?: string;
  reason?: string;
  ipNotice?: string;
  channels?: string;
  name?: string;
  sites?: string;
  passkeys?: string;
  clientName?: string;
  clientDomain?: string;
  redirectHost?: string;
  loopback?: string;
  channelName?: string;
  handle?: string;
  params?: string;
  denyUrl?: string;
  detail?: string;
  errorCode?: string;
  clientId?: string;
};
/** The values that are markup, not text: filled in without escaping. */
const MARKUP: ReadonlySet<keyof StaticPageVars> = new Set([
  "reason",
  "ipNotice",
  "channels",
  "sites",
  "passkeys",
  "clientDomain",
  "loopback",
  "params",
]);

/** The text a value's placeholder is in a fragment (HTML-inert: escaping leaves it unchanged). */
export const placeholder = (name: keyof StaticPageVars) => `%%webmcp-hub:${name}%%`;

/** The path of a page's fragment among the Worker's static files. */
export const fragmentPath = (name: StaticPageName) => `/fragments/${name}.html`;

const LAYOUTS = {
  docs: {
    title: "Docs",
    description: "Add WebMCP tools to your site, publish them, and connect your agent.",
    section: "docs",
  },
  publish: {
    title: "Publish your site's tools",
    description: "Prove you control your origin and publish the WebMCP tools your pages register.",
    section: "publish",
    scripts: ["publish"],
  },
  console: {
    title: "Channel console",
    section: "channels",
    scripts: ["channels"],
    description: "Your channel: connect an agent and your tabs, see what your agents did.",
  },
  analytics: {
    title: "Usage analytics",
    section: "tools",
    scripts: ["analytics"],
    description: "How agents call your site's tools: calls, errors, latency, day by day.",
  },
  "extension-connect": {
    title: "Connect the browser extension",
    description: "Pick the channel the webmcp-hub browser extension relays your tabs to.",
    section: "channels",
    scripts: ["extension-connect"],
  },
  channels: {
    title: "Channels",
    description: "Connect your AI agent to your own browser tabs and computer.",
    section: "channels",
    scripts: ["channels"],
  },
  account: { title: "Your account", section: "account", scripts: ["account"] },
  consent: {
    title: "Allow access?",
    description: "An app asks to use one of your channels.",
    section: "channels",
  },
  "channel-picker": {
    title: "Choose a channel",
    description: "An app asks to use one of your channels.",
    section: "channels",
  },
  "authorize-invalid": { title: "This app's request cannot be used", section: "channels" },
  "authorize-unreadable-client": { title: "This app could not be verified", section: "channels" },
  "authorize-refused-client": { title: "This app could not be verified", section: "channels" },
  "authorize-no-channel": { title: "You have no channel yet", section: "channels" },
  "authorize-unclaimed": { title: "Claim this channel first", section: "channels" },
  "authorize-not-yours": { title: "This channel belongs to another account", section: "channels" },
  "authorize-signed-out": { title: "Sign in again", section: "channels" },
  "authorize-unreadable": { title: "This decision could not be read", section: "channels" },
  "authorize-expired": { title: "This page has expired", section: "channels" },
  "authorize-not-grantable": { title: "You cannot grant this channel", section: "channels" },
  signin: {
    title: "Sign in",
    description: "Sign in to webmcp-hub with a passkey.",
    section: "account",
    scripts: ["account"],
  },
} as const;

/** A static page's title (its layout's), for a body that repeats it. */
export const pageTitle = (name: StaticPageName): string => LAYOUTS[name].title;

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

/**
 * A fragment's text with each placeholder replaced by its value, HTML-escaped (markup slots as they are). One
 * pass: a value that holds a placeholder's text (an app's name can be anything) is never filled in again.
 */
export function fillFragment(fragment: string, vars: StaticPageVars): string {
  return fragment.replace(/%%webmcp-hub:(\w+)%%/g, (slot, name: keyof StaticPageVars) => {
    const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (value === undefined) return slot;
    return MARKUP.has(name) ? value : escapeHtml(value);
  });
}

/** A node the Worker rendered for a markup slot, as its HTML ("" for none). */
export const markup = async (node: Child | null): Promise<string> =>
  node === null ? "" : String(await (node as { toString(): string | Promise<string> }).toString());

/** The page: its layout around its built fragment, filled in. Throws if the fragment was not built. */
export async function staticPage(
  assets: Fetcher,
  name: StaticPageName,
  vars: StaticPageVars,
): Promise<Child> {
  const res = await assets.fetch(new Request(`https://assets.invalid${fragmentPath(name)}`));
  if (!res.ok)
    throw new Error(`${fragmentPath(name)} is missing from the static files (run \`npm run build\`).`);
  const body = fillFragment(await res.text(), vars);
  const layout = LAYOUTS[name];
  return (
    <Layout {...layout} scripts={"scripts" in layout ? [...layout.scripts] : []}>
      {raw(body)}
    </Layout>
  );
}
