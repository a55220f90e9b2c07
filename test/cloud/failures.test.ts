// A page that misbehaves ends the call with a failure that says what happened, within the call's time, and
// leaves no page behind (the site's context has no pages, nothing is busy). One site for all: its browser
// and context stay, as they would for a site whose pages keep failing.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, otherOriginHits, run } from "./helpers.js";

const SITE = "failures.test";
/** The time of a call that is to fail in the registration or the call: room for a slow page load first. */
const SLOW_OK = 5_000;

async function expectNothingLeft(site = SITE): Promise<void> {
  expect(await inspect(site)).toMatchObject({ pages: 0, warm: 0, busy: 0, running: 0, queued: 0 });
}

describe("a page that misbehaves", () => {
  it("never registers the tool: unregistered, naming what it did register", async () => {
    const res = await run(SITE, "/never.html", { timeoutMs: SLOW_OK });
    expect(res).toMatchObject({ ok: false, failure: "unregistered" });
    expect(res.ok || res.message).toMatch(/did not register the tool add within .*It registered no tools\./);
    await expectNothingLeft();
  });

  it("throws while loading: unregistered, with the page's error", async () => {
    const res = await run(SITE, "/throws.html", { timeoutMs: SLOW_OK });
    expect(res).toMatchObject({ ok: false, failure: "unregistered" });
    expect(res.ok || res.message).toMatch(/The page threw: .*the page's script broke/);
    await expectNothingLeft();
  });

  it("hangs while loading: load, within the call's time", async () => {
    const started = Date.now();
    const res = await run(SITE, "/hang-load.html", { timeoutMs: 2_500 });
    expect(res).toMatchObject({ ok: false, failure: "load" });
    expect(Date.now() - started).toBeLessThan(2_500 + 4_000);
    await expectNothingLeft();
  });

  it("never answers the call: timeout, within the call's time", async () => {
    const started = Date.now();
    const res = await run(SITE, "/hang-call.html", { timeoutMs: SLOW_OK });
    expect(res).toMatchObject({ ok: false, failure: "timeout" });
    expect(res.ok || res.message).toMatch(/did not answer within/);
    expect(Date.now() - started).toBeLessThan(SLOW_OK + 4_000);
    await expectNothingLeft();
  });

  it("spins forever in the tool (its main thread blocked): timeout, and the page is still closed", async () => {
    const res = await run(SITE, "/spin-call.html", { timeoutMs: SLOW_OK });
    expect(res).toMatchObject({ ok: false, failure: "timeout" });
    await expectNothingLeft();
  });

  it("navigates away from the site's origin by script: navigation, and the other origin is never reached", async () => {
    const res = await run(SITE, "/nav-away.html");
    expect(res).toMatchObject({ ok: false, failure: "navigation" });
    expect(res.ok || res.message).toMatch(/off the site's origin/);
    expect(await otherOriginHits()).toEqual([]);
    await expectNothingLeft();
  });

  it("is a redirect to another origin: navigation", async () => {
    const res = await run(SITE, "/redirect");
    expect(res).toMatchObject({ ok: false, failure: "navigation" });
    expect(await otherOriginHits()).toEqual([]);
    await expectNothingLeft();
  });

  it("navigates away during the call: navigation", async () => {
    const res = await run(SITE, "/nav-in-call.html", { timeoutMs: 10_000 });
    expect(res).toMatchObject({ ok: false, failure: "navigation" });
    expect(await otherOriginHits()).toEqual([]);
    await expectNothingLeft();
  });

  it("floods the result (2 MiB): too_large, and the result never leaves the page", async () => {
    const res = await run(SITE, "/flood.html");
    expect(res).toMatchObject({ ok: false, failure: "too_large" });
    expect(res.ok || res.message).toMatch(/more than the 1048576/);
    await expectNothingLeft();
  });

  it("registers a definition other than the published one: changed, and the tool is not called", async () => {
    const res = await run(SITE, "/changed.html");
    expect(res).toMatchObject({ ok: false, failure: "changed" });
    await expectNothingLeft();
  });

  it("is not there (HTTP 404): load", async () => {
    expect(await run(SITE, "/missing.html")).toMatchObject({ ok: false, failure: "load" });
    await expectNothingLeft();
  });

  it("loads a script from another origin: refused, and the page's own tool still runs", async () => {
    const res = await run("cdn.test", "/cdn.html");
    expect(res).toMatchObject({ ok: true, result: { structuredContent: { sum: 5 } } });
    expect(await otherOriginHits()).toEqual([]);
  });

  it("all of the above were counted in the site's stats", async () => {
    const res = await SELF.fetch(`https://cloud.internal/stats?site=${SITE}&days=7`);
    const body = (await res.json()) as {
      site: string;
      days: { calls: number; ok: number; failures: Record<string, number>; browserMs: number }[];
    };
    expect(body.site).toBe(SITE);
    expect(body.days).toHaveLength(1);
    expect(body.days[0]).toMatchObject({
      calls: 11,
      ok: 0,
      failures: { unregistered: 2, load: 2, timeout: 2, navigation: 3, too_large: 1, changed: 1 },
    });
    expect(body.days[0]!.browserMs).toBeGreaterThan(0);
  });
});
