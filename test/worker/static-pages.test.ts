// The static pages (web/pages/static-pages.tsx): /docs, /publish and the channel console are served from
// fragments the build rendered with placeholders. Each page as served must hold exactly its body rendered
// directly with the request's values (so a placeholder split or escaped by a component would show here), with
// the values HTML-escaped, inside the usual layout.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { STATIC_BODIES, renderFragments } from "../../web/pages/static-bodies.js";
import { fillFragment, placeholder, type StaticPageName } from "../../web/pages/static-pages.js";

const HUB = "http://127.0.0.1:8787";
/** The values of the other pages, empty. */
const NO_SIGNIN = {
  returnTo: "",
  reason: "",
  ipNotice: "",
  channels: "",
  name: "",
  sites: "",
  passkeys: "",
  clientName: "",
  clientDomain: "",
  redirectHost: "",
  loopback: "",
  channelName: "",
  handle: "",
  params: "",
  denyUrl: "",
  detail: "",
  errorCode: "",
  clientId: "",
};

async function rendered(node: unknown): Promise<string> {
  return String(await (node as { toString(): string | Promise<string> }).toString());
}

describe("static pages", () => {
  it("serve their body as rendered directly, in the layout, with the CSP nonce on the page's scripts", async () => {
    const cases = [
      {
        path: "/docs",
        body: STATIC_BODIES.docs({ hub: HUB, id: "", signedIn: "false", host: "", ...NO_SIGNIN }),
        title: "Docs · webmcp-hub",
      },
      {
        path: "/publish",
        body: STATIC_BODIES.publish({ hub: HUB, id: "", signedIn: "false", host: "", ...NO_SIGNIN }),
        title: "Publish your site&#39;s tools · webmcp-hub",
      },
      {
        path: "/channels/ch_abc123",
        body: STATIC_BODIES.console({ hub: HUB, id: "ch_abc123", signedIn: "false", host: "", ...NO_SIGNIN }),
        title: "Channel console · webmcp-hub",
      },
      {
        path: "/sites/shop.example/analytics",
        body: STATIC_BODIES.analytics({
          hub: HUB,
          id: "",
          signedIn: "false",
          host: "shop.example",
          ...NO_SIGNIN,
        }),
        title: "Usage analytics · webmcp-hub",
      },
      {
        // Served on localhost (no IP-host notice), sent from /account (the reason says so).
        path: "/signin?return_to=%2Faccount",
        host: "http://localhost:8787",
        body: STATIC_BODIES.signin({
          ...NO_SIGNIN,
          hub: "http://localhost:8787",
          id: "",
          signedIn: "false",
          host: "",
          returnTo: "/account",
          reason:
            '<p class="lede reason" id="signin-reason"><strong>Sign in to see your account.</strong></p>',
          ipNotice: "",
          channels: "",
        }),
        title: "Sign in · webmcp-hub",
      },
      {
        // Signed out: no account's channels.
        path: "/channels",
        body: STATIC_BODIES.channels({ hub: HUB, id: "", signedIn: "false", host: "", ...NO_SIGNIN }),
        title: "Channels · webmcp-hub",
      },
    ];
    for (const { path, body, title, host } of cases as Array<(typeof cases)[number] & { host?: string }>) {
      const res = await SELF.fetch(`${host ?? HUB}${path}`);
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html, path).toContain(await rendered(body));
      expect(html).toContain(`<title>${title}</title>`);
      expect(html).not.toContain("%%webmcp-hub:");
      const nonce = /script-src[^;]*'nonce-([^']+)'/.exec(
        res.headers.get("content-security-policy") ?? "",
      )?.[1];
      expect(nonce).toBeTruthy();
      expect(html).toContain(`nonce="${nonce}"`);
    }
  });

  it("escape the values they fill in (a channel id from the URL cannot inject markup)", async () => {
    const id = `x"><img src=x onerror=alert(1)>'&`;
    const res = await SELF.fetch(`${HUB}/channels/${encodeURIComponent(id)}`);
    const html = await res.text();
    expect(html).not.toContain("<img src=x");
    expect(html).toContain(
      await rendered(STATIC_BODIES.console({ hub: HUB, id, signedIn: "false", host: "", ...NO_SIGNIN })),
    );
    expect(fillFragment(`<a title="${placeholder("id")}">${placeholder("hub")}</a>`, { id, hub: "h&" })).toBe(
      `<a title="x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;">h&amp;</a>`,
    );
  });

  it("fill a value in once: a value holding another placeholder's text stays that text", () => {
    const fragment = `<h1>${placeholder("clientName")}</h1><form>${placeholder("params")}</form>`;
    expect(
      fillFragment(fragment, { hub: HUB, clientName: placeholder("params"), params: '<input name="a">' }),
    ).toBe(`<h1>${placeholder("params")}</h1><form><input name="a"></form>`);
  });

  it("render the account, consent and authorize problem pages as their bodies rendered directly, hostile text escaped", async () => {
    const fragments = await renderFragments();
    const hostile = `"><img src=x onerror=alert(1)>'&`;
    const values = {
      ...NO_SIGNIN,
      hub: HUB,
      id: "ch_abc123",
      signedIn: "true",
      host: "",
      name: `Ada ${hostile}`,
      channels: '<ul id="account-channels"><li>one</li></ul>',
      sites: '<p class="meta">No sites yet.</p>',
      passkeys: '<ul class="plain-list" id="passkey-list"></ul>',
      clientName: `Evil ${hostile}`,
      clientDomain: "<strong>app.example</strong>",
      redirectHost: `app.example${hostile}`,
      loopback: "",
      channelName: `Work ${hostile}`,
      handle: `h${hostile}`,
      params: '<input type="hidden" name="client_id" value="x">',
      denyUrl: `https://app.example/cb?error=access_denied&state=${hostile}`,
      detail: `Bad ${hostile}`,
      errorCode: `invalid_request${hostile}`,
      clientId: `https://app.example/client${hostile}`,
    };
    const problems = (Object.keys(fragments) as StaticPageName[]).filter((name) =>
      name.startsWith("authorize-"),
    );
    expect(problems).toHaveLength(10);
    for (const name of [
      "account",
      "consent",
      "channel-picker",
      "channels",
      ...problems,
    ] satisfies StaticPageName[]) {
      const filled = fillFragment(fragments[name], values);
      expect(filled, name).toBe(await rendered(STATIC_BODIES[name](values)));
      expect(filled, name).not.toContain("<img src=x");
      expect(filled, name).not.toContain("%%webmcp-hub:");
    }
  });
});
