// The confirm page of an agent's proposal, /sites/:host/add?tool=…&channel=… (web/pages/add.tsx), and the
// "Add to a channel" control on the tool and site pages: what is shown for a verified, listed site (each
// proposed tool with its title, description, read-only or not, digest short form; unknown names named), and
// what is shown instead for an unknown host, a site whose verification lapsed, and a delisted site.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, publish, tool, verifiedSite } from "./helpers.js";

/** A verified site publishing `greet` (changes data, titled) and `sum` (read-only). */
async function setup() {
  const site = await verifiedSite();
  const res = await publish(site.host, site.key, {
    tools: [
      tool("greet", { title: "Greet someone", pages: ["/hello"] }),
      tool("sum", { annotations: { readOnlyHint: true } }),
    ],
  });
  expect(res.status).toBe(201);
  const exported = (await (await api(`/api/sites/${site.host}/tools?format=mcp`)).json()) as {
    digests: Record<string, string>;
  };
  return { site, digests: exported.digests };
}

async function page(path: string): Promise<{ status: number; html: string }> {
  const res = await api(path);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  return { status: res.status, html: await res.text() };
}

/** The checkbox of a tool in the add form, or undefined. */
const checkbox = (html: string, name: string) =>
  html.match(new RegExp(`<input type="checkbox"[^>]*name="tool" value="${name}"[^>]*>`))?.[0];

describe("the add page (/sites/:host/add)", () => {
  it("shows the site, each proposed tool with its title, description, hints and digest, and the chooser", async () => {
    const { site, digests } = await setup();
    const { status, html } = await page(`/sites/${site.host}/add?tool=sum&tool=greet&channel=ch_abc`);
    expect(status).toBe(200);
    expect(html).toContain(`Add tools of ${site.host} to a channel?`);
    expect(html).toContain('class="badge verified"');
    expect(html).toContain(site.origin);
    // Each tool: checked by default, its details beside it; in the order proposed.
    expect(checkbox(html, "sum")).toContain("checked");
    expect(checkbox(html, "greet")).toContain("checked");
    expect(html.indexOf('value="sum"')).toBeLessThan(html.indexOf('value="greet"'));
    expect(html).toContain("Greet someone");
    expect(html).toContain("The greet tool does greet things.");
    expect(html).toContain("The sum tool does sum things.");
    expect(html).toMatch(/badge ro"[^>]*>read-only</);
    expect(html).toMatch(/badge rw"[^>]*>changes data — asks for approval</);
    for (const name of ["greet", "sum"]) {
      expect(digests[name]).toMatch(/^[0-9a-f]{64}$/);
      expect(html).toContain(`<code title="${digests[name]}">${digests[name]!.slice(0, 12)}</code>`);
    }
    // The chooser (filled by add-to-channel.js), the channel to pre-select, Add and Cancel.
    expect(html).toContain(`data-host="${site.host}"`);
    expect(html).toContain('data-channel="ch_abc"');
    expect(html).toMatch(/<select id="add-channel"/);
    expect(html).toMatch(/<button type="submit" class="btn primary" id="add-submit"[^>]*>\s*Add to channel/);
    expect(html).toContain(
      `<a class="btn" href="/sites/${encodeURIComponent(site.host)}" id="add-cancel">Cancel</a>`,
    );
    expect(html).toMatch(/<script type="module" nonce="[^"]+" src="\/assets\/add-to-channel\.js">/);
    expect(html).not.toContain("Some proposed tools do not exist");
  });

  it("proposes every tool when none is named", async () => {
    const { site } = await setup();
    const { status, html } = await page(`/sites/${site.host}/add`);
    expect(status).toBe(200);
    expect(checkbox(html, "greet")).toBeDefined();
    expect(checkbox(html, "sum")).toBeDefined();
  });

  it("names the proposed tools the site does not publish, and offers only the ones it does", async () => {
    const { site } = await setup();
    const partly = await page(`/sites/${site.host}/add?tool=greet&tool=nope&tool=gone`);
    expect(partly.status).toBe(200);
    expect(partly.html).toContain("Some proposed tools do not exist.");
    expect(partly.html).toMatch(/does not publish\s*<code>nope<\/code>, <code>gone<\/code>/);
    expect(checkbox(partly.html, "greet")).toBeDefined();
    expect(checkbox(partly.html, "sum")).toBeUndefined();
    expect(checkbox(partly.html, "nope")).toBeUndefined();

    const none = await page(`/sites/${site.host}/add?tool=nope`);
    expect(none.status).toBe(200);
    expect(none.html).toContain("There is nothing to add.");
    expect(none.html).not.toContain('id="add-form"');
  });

  it("is 404 for an unknown host, 403 for a site whose verification lapsed, 410 for a delisted one", async () => {
    const missing = await page(`/sites/nobody.example/add?tool=x`);
    expect(missing.status).toBe(404);
    expect(missing.html).toContain("No verified site <code>nobody.example</code> is listed.");

    const { site } = await setup();
    await env.DB.prepare(
      `UPDATE sites SET status = 'unverified', verify_error = 'the token file answered 404' WHERE host = ?`,
    )
      .bind(site.host)
      .run();
    const lapsed = await page(`/sites/${site.host}/add?tool=greet`);
    expect(lapsed.status).toBe(403);
    expect(lapsed.html).toContain(
      "is not verified (its re-verification failed: the token file answered 404)",
    );
    expect(lapsed.html).not.toContain('id="add-form"');
    // Nor do its tool and site pages offer adding.
    expect((await page(`/sites/${site.host}/tools/greet`)).html).not.toContain('id="add-to-channel"');
    expect((await page(`/sites/${site.host}`)).html).not.toContain('id="add-to-channel"');

    await env.DB.prepare(`UPDATE sites SET status = 'verified' WHERE host = ?`).bind(site.host).run();
    const delist = await api(`/api/sites/${site.host}/delist`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.key}` },
    });
    expect(delist.status).toBe(200);
    const delisted = await page(`/sites/${site.host}/add?tool=greet`);
    expect(delisted.status).toBe(410);
    expect(delisted.html).toContain("was delisted by its publisher");
    expect(delisted.html).not.toContain('id="add-form"');
  });
});

describe("the Add to a channel control on the tool and site pages", () => {
  it("adds the tool page's one tool, and lets the site page choose among all", async () => {
    const { site } = await setup();
    const toolPage = await page(`/sites/${site.host}/tools/greet`);
    expect(toolPage.status).toBe(200);
    expect(toolPage.html).toContain('id="add-to-channel"');
    expect(toolPage.html).toContain('<input type="hidden" name="tool" value="greet"/>');
    expect(toolPage.html).toContain('href="#add-to-channel"');
    expect(toolPage.html).toContain('src="/assets/add-to-channel.js"');

    const sitePage = await page(`/sites/${site.host}`);
    expect(sitePage.status).toBe(200);
    expect(sitePage.html).toContain("<legend>Tools to add</legend>");
    expect(checkbox(sitePage.html, "greet")).toContain("checked");
    expect(checkbox(sitePage.html, "sum")).toContain("checked");
    expect(sitePage.html).toContain('src="/assets/add-to-channel.js"');
  });
});
