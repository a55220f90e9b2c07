// Clients registered by Client ID Metadata Document: the client_id is an https URL the hub fetches (served
// here by a fake origin through the pool's outbound hook, test/support/cimd-outbound.ts). A good document
// leads to consent naming its verified domain; a bad one is refused on the hub's page, storing nothing.
import { describe, expect, it } from "vitest";
import { fakeOrigin } from "./helpers.js";
import {
  HUB,
  REDIRECT,
  authorizeUrl,
  consentOf,
  decide,
  getAuthorize,
  oauthKeys,
  owner,
  ownedChannel,
  pkce,
  standardParams,
  token,
} from "./oauth-helpers.js";

const document = (clientId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_id: clientId,
    client_name: "Metadata app",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    ...extra,
  });

async function cimdOrigin(
  routes: Record<
    string,
    { body?: string; status?: number; headers?: Record<string, string>; dripMs?: number; dripBytes?: number }
  >,
) {
  const o = await fakeOrigin();
  const base = `https://${o.port}.cimd.test`;
  await o.setRoutes(
    Object.fromEntries(
      Object.entries(routes).map(([path, r]) => [
        path,
        {
          headers: { "content-type": "application/json", ...r.headers },
          ...r,
          body: r.body?.replaceAll("BASE", base),
        },
      ]),
    ),
  );
  return { base, origin: o };
}

describe("Client ID Metadata Documents", () => {
  it("authorizes a client by its document: consent names its domain, and the code exchanges for a token", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { base } = await cimdOrigin({ "/client.json": { body: document("BASE/client.json") } });
    const clientId = `${base}/client.json`;
    const p = await pkce();
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, p, ch.resource)), who.browser),
    );
    expect(consent.html).toContain("Metadata app");
    expect(consent.html).toContain(new URL(base).hostname);
    const decided = await decide(who, consent, "approve");
    const code = new URL(decided.headers.get("location")!).searchParams.get("code")!;
    const res = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: p.verifier,
      resource: ch.resource,
    });
    expect(res.status).toBe(200);
  });

  const refused: Array<
    [
      string,
      Record<
        string,
        {
          body?: string;
          status?: number;
          headers?: Record<string, string>;
          dripMs?: number;
          dripBytes?: number;
        }
      >,
    ]
  > = [
    ["redirects", { "/client.json": { status: 302, headers: { location: "/elsewhere.json" }, body: "" } }],
    [
      "is larger than 5 KB",
      {
        "/client.json": {
          body: document("BASE/client.json", { client_uri: `https://x.example/${"a".repeat(6000)}` }),
        },
      },
    ],
    ["names another client_id", { "/client.json": { body: document("https://other.example/client.json") } }],
    ["is not JSON", { "/client.json": { body: "<html>hello</html>" } }],
  ];
  for (const [what, routes] of refused) {
    it(`refuses a document that ${what}, on the hub's page, storing nothing`, async () => {
      const who = await owner();
      const ch = await ownedChannel(who);
      const { base } = await cimdOrigin(routes);
      const before = await oauthKeys();
      const res = await getAuthorize(
        authorizeUrl(standardParams(`${base}/client.json`, await pkce(), ch.resource)),
        who.browser,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("could not be verified");
      expect(await oauthKeys()).toEqual(before);
    });
  }

  it("refuses a document that does not arrive within 10 seconds", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { base } = await cimdOrigin({
      "/client.json": { body: document("BASE/client.json"), dripMs: 200, dripBytes: 1 },
    });
    const before = await oauthKeys();
    const res = await getAuthorize(
      authorizeUrl(standardParams(`${base}/client.json`, await pkce(), ch.resource)),
      who.browser,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("could not be verified");
    expect(await oauthKeys()).toEqual(before);
  });

  it("treats an http client_id as an unknown client (never fetched), outside local mode or in it", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const o = await fakeOrigin({ "/client.json": { body: document(`${"http://127.0.0.1"}/client.json`) } });
    const res = await getAuthorize(
      authorizeUrl(standardParams(`${o.origin}/client.json`, await pkce(), ch.resource)),
      who.browser,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("Invalid client_id");
    expect(await o.hits()).toEqual([]);
  });
});

export { HUB };
