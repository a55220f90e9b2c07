// The static pages (web/pages/static-pages.tsx): /docs, /publish and the channel console are served from
// fragments the build rendered with placeholders. Each page as served must hold exactly its body rendered
// directly with the request's values (so a placeholder split or escaped by a component would show here), with
// the values HTML-escaped, inside the usual layout.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { STATIC_BODIES } from "../../web/pages/static-bodies.js";
import { fillFragment, placeholder } from "../../web/pages/static-pages.js";

const HUB = "http://127.0.0.1:8787";

async function rendered(node: unknown): Promise<string> {
  return String(await (node as { toString(): string | Promise<string> }).toString());
}

describe("static pages", () => {
  it("serve their body as rendered directly, in the layout, with the CSP nonce on the page's scripts", async () => {
    const cases = [
      {
        path: "/docs",
        body: STATIC_BODIES.docs({ hub: HUB, id: "", signedIn: "false", host: "" }),
        title: "Docs · webmcp-hub",
      },
      {
        path: "/publish",
        body: STATIC_BODIES.publish({ hub: HUB, id: "", signedIn: "false", host: "" }),
        title: "Publish your site&#39;s tools · webmcp-hub",
      },
      {
        path: "/channels/ch_abc123",
        body: STATIC_BODIES.console({ hub: HUB, id: "ch_abc123", signedIn: "false", host: "" }),
        title: "Channel console · webmcp-hub",
      },
      {
        path: "/sites/shop.example/analytics",
        body: STATIC_BODIES.analytics({ hub: HUB, id: "", signedIn: "false", host: "shop.example" }),
        title: "Usage analytics · webmcp-hub",
      },
    ];
    for (const { path, body, title } of cases) {
      const res = await SELF.fetch(`${HUB}${path}`);
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
      await rendered(STATIC_BODIES.console({ hub: HUB, id, signedIn: "false", host: "" })),
    );
    expect(fillFragment(`<a title="${placeholder("id")}">${placeholder("hub")}</a>`, { id, hub: "h&" })).toBe(
      `<a title="x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&amp;">h&amp;</a>`,
    );
  });
});
