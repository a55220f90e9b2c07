// Verification that stays true (src/worker/registry/reverify.ts) through the scheduled handler in workerd: a
// verified site whose well-known file (served by a local fake origin) stops proving ownership fails three runs
// in a row and lapses to unverified with the reason on its page and in the API; re-verification and a
// republish restore it; the proof's challenge survives the daily maintenance.
import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker/index.js";
import { REVERIFY_CRON, REVERIFY_INTERVAL_MS } from "../../src/worker/registry/reverify.js";
import { api, publish, setTxt, tool, verifiedSite, fakeOrigin, register, verify } from "./helpers.js";
import { connectAgent, createChannel } from "./relay-helpers.js";

const PROOF = "/.well-known/webmcp-hub-verify";
const DAY = 24 * 60 * 60 * 1000;

interface SiteState {
  status: string;
  verify_failures: number;
  verify_error: string | null;
  verify_checked_at: number | null;
  updated_at: number;
}

const state = (host: string) =>
  env.DB.prepare(
    "SELECT status, verify_failures, verify_error, verify_checked_at, updated_at FROM sites WHERE host = ?",
  )
    .bind(host)
    .first<SiteState>() as Promise<SiteState>;

/** Fires the re-verification schedule at `at`, with every other site just checked (only `host` is due). */
async function cron(host: string, at: number): Promise<void> {
  await env.DB.prepare("UPDATE sites SET verify_checked_at = ? WHERE host != ?").bind(at, host).run();
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: REVERIFY_CRON }), env);
}

async function tokenOf(host: string): Promise<string> {
  const row = await env.DB.prepare(
    "SELECT token FROM challenges WHERE host = ? AND used_at IS NOT NULL ORDER BY used_at DESC LIMIT 1",
  )
    .bind(host)
    .first<{ token: string }>();
  return row!.token;
}

describe("scheduled re-verification", () => {
  it("three failures in a row lapse a site to unverified with the reason; re-verifying and republishing restore it", async () => {
    const testStart = new Date().toISOString();
    const site = await verifiedSite();
    const token = await tokenOf(site.host);
    expect((await publish(site.host, site.key, { tools: [tool("lapse_probe")] })).status).toBe(201);
    let at = Date.now() + 1000;
    const step = () => (at += REVERIFY_INTERVAL_MS + 1000);

    // Just verified: not due yet (verifying counts as a check).
    await cron(site.host, at);
    expect((await state(site.host)).verify_checked_at).toBeLessThan(at);
    // Still proving a day later: a pass records the check and nothing else.
    await cron(site.host, step());
    expect(await state(site.host)).toMatchObject({
      status: "verified",
      verify_failures: 0,
      verify_checked_at: at,
    });

    // Not due again before the interval: nothing happens.
    await site.origin_.setRoutes({ [PROOF]: { body: "someone-else" } });
    await cron(site.host, at + 60_000);
    expect((await state(site.host)).verify_failures).toBe(0);

    // The file no longer holds the token: two failures keep it verified, the third lapses it.
    await cron(site.host, step());
    await cron(site.host, step());
    let s = await state(site.host);
    expect(s).toMatchObject({ status: "verified", verify_failures: 2 });
    expect(s.verify_error).toContain("not the expected token");
    await cron(site.host, step());
    s = await state(site.host);
    expect(s).toMatchObject({
      status: "unverified",
      verify_failures: 3,
      updated_at: at,
      verify_checked_at: at,
    });

    // Out of search, still reachable by its address with the lapse shown; the feed carries the new status.
    const hits = await (await api(`/api/tools?q=lapse_probe&site=${site.host}`)).json();
    expect((hits as { tools: unknown[] }).tools).toEqual([]);
    const view = (await (await api(`/api/sites/${site.host}`)).json()) as {
      site: { status: string; verifyError: string; verifyCheckedAt: string };
    };
    expect(view.site).toMatchObject({ status: "unverified", verifyCheckedAt: new Date(at).toISOString() });
    expect(view.site.verifyError).toContain("not the expected token");
    const page = await (await api(`/sites/${site.host}`)).text();
    expect(page).toContain("Verification lapsed:");
    expect(page).toContain("not the expected token");
    const toolPage = await api(`/sites/${site.host}/tools/lapse_probe`);
    expect(toolPage.status).toBe(200);
    expect(await toolPage.text()).toContain("verification lapsed");
    const feed = (await (await api(`/api/sites?updated_since=${testStart}&limit=100`)).json()) as {
      sites: Array<{ host: string; status: string; verifyError: string | null }>;
    };
    expect(feed.sites.find((e) => e.host === site.host)).toMatchObject({ status: "unverified" });

    // The owner fixes the file: the next run restores it.
    await site.origin_.setRoutes({ [PROOF]: { body: token } });
    await cron(site.host, step());
    expect(await state(site.host)).toMatchObject({
      status: "verified",
      verify_failures: 0,
      verify_error: null,
      updated_at: at,
    });
    expect(
      ((await (await api(`/api/tools?q=lapse_probe&site=${site.host}`)).json()) as { tools: unknown[] })
        .tools,
    ).toHaveLength(1);

    // Lapsed again (the site stops answering: a 404 is a failure too), then a republish with the key restores it.
    await site.origin_.setRoutes({ [PROOF]: { status: 404, body: "gone" } });
    for (let i = 0; i < 3; i++) await cron(site.host, step());
    s = await state(site.host);
    expect(s.status).toBe("unverified");
    expect(s.verify_error).toBeTruthy();
    expect((await publish(site.host, site.key, { tools: [tool("lapse_probe")] })).status).toBe(200);
    expect(await state(site.host)).toMatchObject({
      status: "verified",
      verify_failures: 0,
      verify_error: null,
    });
  });

  it("a success between failures starts the count again", async () => {
    const site = await verifiedSite();
    const token = await tokenOf(site.host);
    let at = Date.now() + 1000;
    const step = () => (at += REVERIFY_INTERVAL_MS + 1000);
    await site.origin_.setRoutes({ [PROOF]: { body: "wrong" } });
    await cron(site.host, step());
    await cron(site.host, step());
    expect((await state(site.host)).verify_failures).toBe(2);
    await site.origin_.setRoutes({ [PROOF]: { body: token } });
    await cron(site.host, step());
    expect(await state(site.host)).toMatchObject({
      status: "verified",
      verify_failures: 0,
      verify_error: null,
    });
    await site.origin_.setRoutes({ [PROOF]: { body: "wrong" } });
    await cron(site.host, step());
    expect(await state(site.host)).toMatchObject({ status: "verified", verify_failures: 1 });
  });

  it("re-checks a DNS-verified site through DNS over HTTPS", async () => {
    const o = await fakeOrigin();
    const reg = await register(o.origin);
    await setTxt(reg.challenge.dns.name, [reg.challenge.dns.value]);
    expect((await verify(reg.site.host, reg.claimSecret, "dns")).status).toBe(200);
    let at = Date.now() + REVERIFY_INTERVAL_MS + 1000;
    await cron(reg.site.host, at);
    expect((await state(reg.site.host)).verify_checked_at).toBe(at);
    expect(await state(reg.site.host)).toMatchObject({ status: "verified", verify_failures: 0 });
    await setTxt(reg.challenge.dns.name, []);
    for (let i = 0; i < 3; i++) await cron(reg.site.host, (at += REVERIFY_INTERVAL_MS + 1000));
    const s = await state(reg.site.host);
    expect(s.status).toBe("unverified");
    expect(s.verify_error).toContain("No TXT record");
  });

  it("the daily maintenance keeps the challenge a site's verification answered, and drops other expired ones", async () => {
    const site = await verifiedSite();
    // A later claim that was never answered.
    await register(site.origin);
    await env.DB.prepare("UPDATE challenges SET expires_at = ? WHERE host = ?")
      .bind(Date.now() - DAY, site.host)
      .run();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "17 3 * * *" }), env);
    const rows = await env.DB.prepare("SELECT used_at FROM challenges WHERE host = ?").bind(site.host).all();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]!.used_at).not.toBeNull();
  });

  it("a site that lapses or is restored by the schedule reaches the channels that added its tools at once", async () => {
    const site = await verifiedSite();
    const token = await tokenOf(site.host);
    expect((await publish(site.host, site.key, { tools: [tool("lapse_pushed")] })).status).toBe(201);
    const ch = await createChannel();
    const add = await api(`/api/channels/${ch.id}/tools`, {
      method: "POST",
      json: { host: site.host },
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(add.status).toBe(201);
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["lapse_pushed"]);

    let at = Date.now() + 1000;
    await site.origin_.setRoutes({ [PROOF]: { status: 404, body: "gone" } });
    for (let i = 0; i < 3; i++) await cron(site.host, (at += REVERIFY_INTERVAL_MS + 1000));
    expect((await state(site.host)).status).toBe("unverified");
    // The schedule told the channel: no cache wait, no owner action.
    expect((await agent.listTools()).tools).toEqual([]);

    await site.origin_.setRoutes({ [PROOF]: { body: token } });
    await cron(site.host, (at += REVERIFY_INTERVAL_MS + 1000));
    expect((await state(site.host)).status).toBe("verified");
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["lapse_pushed"]);
    await agent.close();
  });
});
