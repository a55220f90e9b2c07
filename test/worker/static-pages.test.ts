// The static pages (web/pages/static-pages.tsx): /docs, /publish and the channel console are served from
// fragments the build rendered with placeholders. Each page as served must hold exactly its body rendered
// directly with the request's values (so a placeholder split or escaped by a component would show here), with
// the values HTML-escaped, inside the usual layout.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { STATIC_BODIES } from "../../web/pages/static-bodies.js";
import { fillFragment, placeholder } from "../../web/pages/static-pages.js";

const HUB = "http://127.0.0.1:8787";
/** The sign-in page's values, empty for the other pages. */
const NO_SIGNIN = { returnTo: "", reason: "", ipNotice: "", channels: "" };

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
});
