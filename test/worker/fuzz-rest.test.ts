// Fuzz: every REST endpoint (/api/sites*, /api/tools, /api/channels*, /api/pair) and every page, with
// near-valid bodies and query strings built from their zod schemas, forged and mangled cursors, hostile path
// segments, media types, tokens and client addresses. Every answer is documented (no 5xx but upstream_failed,
// errors as {error:{code,message}} with a known code), a refused write stores no row, and afterwards the
// channel's object still answers its owner and relays a call.
import { env } from "cloudflare:test";
import fc from "fast-check";
import type { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AddChannelToolsBodySchema,
  AuditQuerySchema,
  CreateAgentTokenBodySchema,
  CreateChannelBodySchema,
  ExportParamsSchema,
  ManifestVersionParamsSchema,
  PairBodySchema,
  PlainCallBodySchema,
  RegisterSiteBodySchema,
  RevokeAgentTokenBodySchema,
  SiteListParamsSchema,
  ToolSearchParamsSchema,
  VerifySiteBodySchema,
} from "../../src/protocol/index.js";
import { encodeCursor } from "../../src/worker/registry/cursor.js";
import { ftsQuery } from "../../src/worker/registry/search.js";
import { expectDocumentedAnswer, expectPageAnswer } from "../support/fuzz-answers.js";
import {
  argumentsArb,
  fromZod,
  fuzzRuns,
  hugeString,
  jsonText,
  nastyString,
  rawBodyText,
  toolNameArb,
  unicodeString,
  weirdNumber,
} from "../support/fuzz-arbitraries.js";
import { fakeOrigin, publish, register, tool, verifiedSite } from "./helpers.js";
import {
  HUB,
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  pair,
  newPairingCode,
} from "./relay-helpers.js";
import { SELF } from "cloudflare:test";

const RUNS = fuzzRuns(env.FUZZ_RUNS, 150);
const PAGE_RUNS = fuzzRuns(env.FUZZ_RUNS, 60);

interface Fixture {
  channelId: string;
  ownerKey: string;
  agentToken: string;
  host: string;
  publisherKey: string;
  pendingHost: string;
  claimSecret: string;
  spareProviderTokenId: string;
  realToolsCursor: string;
  realSitesCursor: string;
}

type Auth = "owner" | "agent" | "publisher" | "claim" | "none";
type Forge = (query: Record<string, string>, fx: Fixture, key: Array<string | number>) => string;

interface Endpoint {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path template: `:channel`, `:host`, `:pending`, `:provider` are replaced by real or hostile segments. */
  path: string;
  auth: Auth;
  query?: z.ZodType;
  body?: z.ZodType;
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Valid bodies, mixed in so the handler's deep end is reached often. */
  valid?: fc.Arbitrary<unknown>;
  /** Builds a cursor the API would accept as its own (right fingerprint) around an arbitrary keyset. */
  forge?: Forge;
}

const toolsFingerprint = (q: Record<string, string>) => {
  const match = q.q ? ftsQuery(q.q) : undefined;
  const readOnly = q.readOnly === "true" ? true : q.readOnly === "false" ? false : null;
  return JSON.stringify(["tools", match ?? null, q.site?.toLowerCase() || null, readOnly]);
};
const timeParam = (v: string | undefined) =>
  v === undefined ? null : /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v) || null;

const ENDPOINTS: Endpoint[] = [
  {
    method: "GET",
    path: "/api/sites",
    auth: "none",
    query: SiteListParamsSchema,
    forge: (q, _fx, k) => encodeCursor(`sites:${q.sort ?? "host"}`, k),
  },
  { method: "POST", path: "/api/sites", auth: "none", body: RegisterSiteBodySchema },
  { method: "GET", path: "/api/sites/:host", auth: "none" },
  { method: "POST", path: "/api/sites/:pending/verify", auth: "claim", body: VerifySiteBodySchema },
  { method: "POST", path: "/api/sites/:host/keys", auth: "publisher" },
  { method: "POST", path: "/api/sites/:host/delist", auth: "publisher" },
  { method: "POST", path: "/api/sites/:host/relist", auth: "publisher" },
  { method: "POST", path: "/api/sites/:host/manifest/refresh", auth: "publisher" },
  { method: "GET", path: "/api/sites/:host/manifest", auth: "none", query: ManifestVersionParamsSchema },
  { method: "GET", path: "/api/sites/:host/manifest/versions", auth: "none" },
  { method: "GET", path: "/api/sites/:host/tools", auth: "none", query: ExportParamsSchema },
  {
    method: "GET",
    path: "/api/tools",
    auth: "none",
    query: ToolSearchParamsSchema,
    forge: (q, _fx, k) => encodeCursor(toolsFingerprint(q), k),
  },
  { method: "POST", path: "/api/channels", auth: "none", body: CreateChannelBodySchema },
  { method: "GET", path: "/api/channels/:channel", auth: "owner" },
  { method: "POST", path: "/api/channels/:channel/pairing-codes", auth: "owner" },
  {
    method: "POST",
    path: "/api/channels/:channel/agent-tokens",
    auth: "owner",
    body: CreateAgentTokenBodySchema,
  },
  { method: "GET", path: "/api/channels/:channel/agent-tokens", auth: "owner" },
  {
    method: "DELETE",
    path: "/api/channels/:channel/agent-tokens",
    auth: "owner",
    body: RevokeAgentTokenBodySchema,
  },
  { method: "DELETE", path: "/api/channels/:channel/providers/:provider", auth: "owner" },
  { method: "GET", path: "/api/channels/:channel/tools", auth: "owner" },
  { method: "POST", path: "/api/channels/:channel/tools", auth: "owner", body: AddChannelToolsBodySchema },
  { method: "DELETE", path: "/api/channels/:channel/tools/:host", auth: "owner" },
  { method: "DELETE", path: "/api/channels/:channel/tools/:host/alpha", auth: "owner" },
  {
    method: "GET",
    path: "/api/channels/:channel/audit",
    auth: "owner",
    query: AuditQuerySchema,
    overrides: {
      since: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.nat().map(String),
        fc.constantFrom("2026-01-01T00:00:00+99:99", "9".repeat(15), "0000-00-00T00:00:00Z"),
      ),
      until: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => String(d.getTime())),
        fc.constant("1e3"),
      ),
    },
    forge: (q, fx, k) =>
      encodeCursor(
        JSON.stringify([
          "audit",
          fx.channelId,
          q.tool || null,
          q.status ?? null,
          timeParam(q.since),
          timeParam(q.until),
        ]),
        k,
      ),
  },
  {
    method: "POST",
    path: "/api/channels/:channel/calls",
    auth: "agent",
    body: PlainCallBodySchema,
    valid: fc.oneof(
      fc.record({ name: fc.constant("echo"), arguments: fc.record({ text: fc.string() }) }),
      fc.record({ text: fc.string().map((t) => `echo(${JSON.stringify({ text: t })})`) }),
    ),
    overrides: {
      name: fc.oneof({ arbitrary: fc.constant("echo"), weight: 3 }, toolNameArb),
      arguments: argumentsArb,
      text: fc.oneof(
        fc.constantFrom('echo({"text":"hi"})', "echo(text='a')\necho(text=\"b\")", "echo(", "[echo()]"),
        fc.string(),
        fc.tuple(fc.nat(30), fc.string()).map(([n, s]) => `echo(${"[".repeat(n)}${JSON.stringify(s)})`),
      ),
    },
  },
  {
    method: "POST",
    path: "/api/pair",
    auth: "none",
    body: PairBodySchema,
    overrides: {
      code: fc.oneof(
        fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/),
        fc.constantFrom("il0o-ILOO", " 7k3m q9xd ", "7K3M-Q9XD-"),
      ),
    },
  },
];

/** Percent-encodes every byte of the UTF-8 text (a lone surrogate becomes U+FFFD, as a browser sends it). */
const percentEncode = (s: string) =>
  Array.from(new TextEncoder().encode(s), (b) => `%${b.toString(16).padStart(2, "0")}`).join("");

/** A path segment: the real one mostly, else something hostile (percent-encoded or raw). */
const segmentArb = (real: string) =>
  fc.oneof(
    { arbitrary: fc.constant(real), weight: 16 },
    unicodeString.map(percentEncode),
    fc.constantFrom(
      "..",
      "%2e%2e",
      "%",
      "%zz",
      "%E0%A4%A",
      "a%00b",
      "%2F",
      "x".repeat(5000),
      real.toUpperCase(),
    ),
    fc.webSegment(),
  );

/** Query values: the schema's near-valid values as strings, plus raw fragments (broken escapes, repeats). */
function queryArb(
  schema: z.ZodType | undefined,
): fc.Arbitrary<{ params: Record<string, string>; extra: string }> {
  const values = schema
    ? fromZod(schema).map((v) => {
        const out: Record<string, string> = {};
        if (v !== null && typeof v === "object" && !Array.isArray(v))
          for (const [k, x] of Object.entries(v))
            out[k] =
              typeof x === "string"
                ? x
                : typeof x === "number" || typeof x === "boolean"
                  ? String(x)
                  : jsonText(x);
        return out;
      })
    : fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), nastyString), fc.string({ maxLength: 12 }), {
        maxKeys: 3,
      });
  const extra = fc.oneof(
    { arbitrary: fc.constant(""), weight: 6 },
    fc.constantFrom("&", "=&=", "%", "a=%zz", "q=%E0%A4%A", "limit=1&limit=2", "&&&", "cursor", "q=%00"),
    hugeString.map((s) => `q=${percentEncode(s.slice(0, 5_000))}`),
  );
  return fc.record({ params: values, extra });
}

const cursorKeyArb = fc.array(
  fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.integer(),
    fc.double({ noNaN: true }),
    nastyString,
    weirdNumber.map((n) => (typeof n === "number" ? n : 1e308)),
  ),
  { minLength: 0, maxLength: 5 },
);

const tokenArb = (auth: Auth) =>
  fc.oneof(
    { arbitrary: fc.constant(auth), weight: 8 },
    fc.constantFrom("none", "garbage", "other-kind", "basic"),
  );

const clientIpArb = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.constantFrom("", "not an ip", "::ffff:1.2.3.4", "1.2.3.4, 5.6.7.8"),
);

const contentTypeArb = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 8 },
  fc.constantFrom(
    "application/json; charset=utf-8",
    "text/plain",
    "",
    "application/x-www-form-urlencoded",
    "APPLICATION/JSON",
  ),
);

const TABLES = [
  "channels",
  "agent_tokens",
  "pairing_codes",
  "provider_tokens",
  "sites",
  "challenges",
  "publisher_keys",
  "manifest_versions",
  "channel_tools",
];

async function rowCounts(): Promise<Record<string, number>> {
  const results = await env.DB.batch(TABLES.map((t) => env.DB.prepare(`SELECT count(*) AS n FROM ${t}`)));
  return Object.fromEntries(TABLES.map((t, i) => [t, (results[i]!.results[0] as { n: number }).n]));
}

describe("fuzzing the REST API", () => {
  let fx: Fixture;

  beforeAll(async () => {
    const ch = await createChannel({ name: "fuzz" });
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.serve((call) => ({ content: [{ type: "text", text: `echo: ${String(call.arguments.text)}` }] }));
    const spare = await pair(await newPairingCode(ch), "sidecar");
    const site = await verifiedSite();
    expect(
      (await publish(site.host, site.key, { tools: [tool("alpha"), tool("beta"), tool("gamma")] })).status,
    ).toBe(201);
    await verifiedSite(); // a second verified site, for a site-list cursor
    const pending = await register((await fakeOrigin()).origin);
    const tools = (await (await SELF.fetch(`${HUB}/api/tools?limit=1`)).json()) as { nextCursor: string };
    const sites = (await (await SELF.fetch(`${HUB}/api/sites?limit=1`)).json()) as { nextCursor: string };
    fx = {
      channelId: ch.id,
      ownerKey: ch.ownerKey,
      agentToken: ch.agentToken,
      host: site.host,
      publisherKey: site.key,
      pendingHost: pending.site.host,
      claimSecret: pending.claimSecret,
      spareProviderTokenId: ((await spare.json()) as { providerTokenId: string }).providerTokenId,
      realToolsCursor: tools.nextCursor,
      realSitesCursor: sites.nextCursor,
    };
    expect(fx.realToolsCursor && fx.realSitesCursor).toBeTruthy();
  });

  function authHeader(auth: string): string | undefined {
    switch (auth) {
      case "owner":
        return `Bearer ${fx.ownerKey}`;
      case "agent":
        return `Bearer ${fx.agentToken}`;
      case "publisher":
        return `Bearer ${fx.publisherKey}`;
      case "claim":
        return `Bearer ${fx.claimSecret}`;
      case "garbage":
        return "Bearer \u00ff\u00fe not a token";
      case "other-kind":
        return `Bearer ${fx.agentToken.slice(0, 4)}${fx.ownerKey.slice(4)}`;
      case "basic":
        return "Basic YTpi";
      default:
        return undefined;
    }
  }

  const caseArb = fc.constantFrom(...ENDPOINTS).chain((ep) =>
    fc.record({
      ep: fc.constant(ep),
      segments: fc.record({
        channel: segmentArb("CHANNEL"),
        host: segmentArb("HOST"),
        pending: segmentArb("PENDING"),
        provider: segmentArb("PROVIDER"),
      }),
      query: queryArb(ep.query),
      cursor: fc.oneof(
        { arbitrary: fc.constant(null), weight: 8 },
        fc.constantFrom("real-tools", "real-sites", "real-mangled"),
        cursorKeyArb.map((k) => ({ forged: k })),
        fc.jsonValue({ maxDepth: 2 }).map((v) => btoa(JSON.stringify(v) ?? "").replace(/=+$/, "")),
      ),
      body: ep.body
        ? fc.oneof(
            { arbitrary: fromZod(ep.body, ep.overrides).map(jsonText), weight: 6 },
            { arbitrary: (ep.valid ?? fromZod(ep.body, ep.overrides)).map(jsonText), weight: 3 },
            rawBodyText,
          )
        : fc.option(rawBodyText, { freq: 4 }),
      contentType: contentTypeArb,
      auth: tokenArb(ep.auth),
      ip: clientIpArb,
      origin: fc.option(
        fc.constantFrom(
          "https://shop.example",
          "null",
          "javascript:alert(1)",
          "http://127.0.0.1:9",
          "https://a.b:99999",
        ),
        { freq: 2 },
      ),
    }),
  );

  it(
    "answers every request with a documented status and stores nothing from a refused write",
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const real: Record<string, string> = {
            CHANNEL: fx.channelId,
            HOST: fx.host,
            PENDING: fx.pendingHost,
            PROVIDER: fx.spareProviderTokenId,
          };
          const path = c.ep.path.replace(/:(channel|host|pending|provider)/g, (_m, name: string) => {
            const seg = c.segments[name as keyof typeof c.segments];
            return real[seg] ?? seg;
          });
          const params = { ...c.query.params };
          if (c.ep.query && c.cursor !== null) {
            if (c.cursor === "real-tools") params.cursor = fx.realToolsCursor;
            else if (c.cursor === "real-sites") params.cursor = fx.realSitesCursor;
            else if (c.cursor === "real-mangled") params.cursor = fx.realToolsCursor.slice(0, -3) + "A_-";
            else if (typeof c.cursor === "object")
              params.cursor = c.ep.forge ? c.ep.forge(params, fx, c.cursor.forged) : "x";
            else params.cursor = c.cursor;
          }
          const qs = new URLSearchParams(params).toString();
          const url = `${HUB}${path}${qs || c.query.extra ? "?" : ""}${qs}${qs && c.query.extra ? "&" : ""}${c.query.extra}`;
          const headers = new Headers();
          if (c.ip) headers.set("cf-connecting-ip", c.ip);
          const auth = authHeader(c.auth);
          if (auth) headers.set("authorization", auth);
          if (c.origin) headers.set("origin", c.origin);
          const hasBody = c.ep.method !== "GET" && c.body !== null;
          if (hasBody && c.contentType) headers.set("content-type", c.contentType);
          const before = await rowCounts();
          const res = await SELF.fetch(url, {
            method: c.ep.method,
            headers,
            ...(hasBody ? { body: c.body as string } : {}),
          });
          const status = res.status;
          const answer = await expectDocumentedAnswer(res, `${c.ep.method} ${c.ep.path}`);
          // A rotated publisher key replaces the old one.
          if (c.ep.path.endsWith("/keys") && status === 201)
            fx.publisherKey = (answer as { publisherKey: string }).publisherKey;
          if (status >= 400) expect(await rowCounts()).toEqual(before);
        }),
        { numRuns: RUNS },
      );
      // The channel's object still answers its owner and relays a call.
      const view = await SELF.fetch(`${HUB}/api/channels/${fx.channelId}`, {
        headers: { authorization: `Bearer ${fx.ownerKey}` },
      });
      expect(view.status).toBe(200);
      expect(((await view.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain(
        "echo",
      );
      const agent = await connectAgent({ id: fx.channelId, agentToken: fx.agentToken } as Parameters<
        typeof connectAgent
      >[0]);
      const result = await agent.callTool({ name: "echo", arguments: { text: "still here" } });
      expect(result.content).toEqual([{ type: "text", text: "echo: still here" }]);
      await agent.close();
    },
    60_000 + RUNS * 300,
  );

  it(
    "renders every page, whatever its path and query, without a server error",
    async () => {
      const pageArb = fc.record({
        path: fc.constantFrom(
          "/",
          "/sites/:host",
          "/sites/:host/tools/:tool",
          "/publish",
          "/channels",
          "/channels/:channel",
          "/docs",
        ),
        host: segmentArb("HOST"),
        tool: segmentArb("alpha"),
        channel: segmentArb("CHANNEL"),
        query: queryArb(ToolSearchParamsSchema),
        more: fc.dictionary(
          fc.constantFrom("v", "from", "to", "page", "cursor"),
          fc.oneof(
            fc.integer().map(String),
            fc.constantFrom("1", "2", "0", "-1", "1e3", "9".repeat(30), ""),
            fc.string(),
          ),
          { maxKeys: 4 },
        ),
        cursor: fc.option(fc.constantFrom("real", "mangled"), { freq: 3 }),
      });
      await fc.assert(
        fc.asyncProperty(pageArb, async (p) => {
          const path = p.path
            .replace(":host", p.host === "HOST" ? fx.host : p.host)
            .replace(":tool", p.tool)
            .replace(":channel", p.channel === "CHANNEL" ? fx.channelId : p.channel);
          const params: Record<string, string> = { ...p.query.params, ...p.more };
          if (p.cursor === "real") params.cursor = fx.realToolsCursor;
          if (p.cursor === "mangled") params.cursor = fx.realToolsCursor.slice(1);
          const qs = new URLSearchParams(params).toString();
          const res = await SELF.fetch(`${HUB}${path}?${qs}${p.query.extra ? `&${p.query.extra}` : ""}`);
          await expectPageAnswer(res, `GET ${path}`);
        }),
        { numRuns: PAGE_RUNS },
      );
    },
    60_000 + PAGE_RUNS * 300,
  );
});
