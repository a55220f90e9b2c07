// The OAuth routes: authorization server metadata (RFC 8414), each channel's protected-resource metadata
// (RFC 9728), the token and registration endpoints (the library's, behind the hub's rate limits), and the
// authorize endpoint, which is the hub's own page: sign in, pick a channel if the client named none, consent.
// The hub defines no OAuth scopes (a grant is for one channel): a request naming any gets invalid_scope.
import { Hono } from "../http/hono.js";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  AuthorizationError,
  CimdFetchError,
  authorizationErrorRedirect,
  type AuthRequest,
} from "@cloudflare/workers-oauth-provider";
import { eq } from "drizzle-orm";
import { channels } from "../db/schema.js";
import type { AppContext, AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { consumeRateLimit, rateLimit } from "../http/rate-limit.js";
import { requestClientKey } from "../http/client-key.js";
import { displayText } from "../relay/display-text.js";
import { currentAccount } from "../accounts/session.js";
import { accountChannels } from "../accounts/ownership.js";
import { CspNonce } from "../../../web/pages/layout.js";
import {
  ClientFactSlots,
  PickerChannels,
  PickerParams,
  type ConsentClient,
} from "../../../web/pages/consent.js";
import {
  markup,
  staticPage,
  type AuthorizeProblem,
  type StaticPageVars,
} from "../../../web/pages/static-pages.js";
import {
  AS_METADATA_PATH,
  AUTHORIZE_PATH,
  PRM_PREFIX,
  REFRESH_TOKEN_TTL,
  REGISTER_PATH,
  TOKEN_PATH,
  authorizationServer,
  channelIdOfResource,
  channelResource,
  grantResource,
  oauthAvailable,
  tokenParts,
  type GrantMetadata,
  type GrantProps,
} from "./authorization-server.js";
import { protectedResourceMetadata } from "./bearer.js";
import {
  assertFetchableClientId,
  isMetadataDocumentId,
  keepRegisteredClient,
  tokenRequestClientIds,
} from "./client-limits.js";
import { noteRotatedRefreshToken, refuseReusedRefreshToken } from "./refresh-reuse.js";

export const oauthRoutes = new Hono<AppEnv>();

/** The request's ExecutionContext as the library types it (the runtime's type has an optional `exports`). */
const executionContext = (c: AppContext) => c.executionCtx as unknown as ExecutionContext<unknown>;

async function renderPage(c: AppContext, node: Child, status?: ContentfulStatusCode, headers?: Headers) {
  const res = await c.html(
    <CspNonce.Provider value={c.get("secureHeadersNonce")}>{node}</CspNonce.Provider>,
    status,
  );
  // The library's consent headers: its binding cookie and no-store (the frame rules are the hub's own already).
  headers?.forEach((value, name) => {
    const n = name.toLowerCase();
    if (n === "set-cookie") res.headers.append(name, value);
    else if (n === "cache-control") res.headers.set(name, value);
  });
  return res;
}

function requireOAuth(c: AppContext): string {
  const hub = c.var.hub;
  if (!oauthAvailable(hub))
    throw new HubError(
      "not_found",
      `OAuth is available on https, or on http at a loopback address (localhost); this hub is reached as ${hub}. Use an agent token instead.`,
    );
  return hub;
}

async function channelRow(c: AppContext, id: string) {
  return (await c.var.db.query.channels.findFirst({ where: eq(channels.id, id) })) ?? null;
}

// --- metadata --------------------------------------------------------------------------------------------

oauthRoutes.get(AS_METADATA_PATH, async (c) => {
  const hub = requireOAuth(c);
  const res = await authorizationServer(hub, []).fetch(c.req.raw, c.env, executionContext(c));
  if (!res.ok) return res;
  // The same document for every channel: the registry this request built is no list of the hub's resources.
  const metadata = (await res.json()) as Record<string, unknown>;
  delete metadata.protected_resources;
  return c.json(metadata, 200, { "access-control-allow-origin": "*", "cache-control": "max-age=300" });
});

oauthRoutes.get(`${PRM_PREFIX}/mcp/:channelId`, (c) => {
  const hub = requireOAuth(c);
  const id = c.req.param("channelId");
  if (!channelIdOfResource(hub, channelResource(hub, id)))
    throw new HubError("not_found", "No such protected resource: channel ids are letters, digits, - and _.");
  return c.json(protectedResourceMetadata(hub, id), 200, {
    "access-control-allow-origin": "*",
    "cache-control": "max-age=300",
  });
});
oauthRoutes.options(`${PRM_PREFIX}/mcp/:channelId`, (c) =>
  c.body(null, 204, {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, OPTIONS",
    "access-control-allow-headers": "mcp-protocol-version",
  }),
);

// --- token and registration (the library's endpoints) ----------------------------------------------------

/** A 429 as OAuth clients parse errors (RFC 6749 §5.2 shape; OAuth defines no code for it, so ours). */
function oauthRefusal(e: HubError): Response {
  return Response.json(
    { error: e.code, error_description: e.message },
    { status: e.status, headers: { ...e.headers, "cache-control": "no-store" } },
  );
}

oauthRoutes.post(
  TOKEN_PATH,
  rateLimit({
    limiter: "ANON_WRITES",
    action: "oauth-token",
    what: "token requests from your address",
    refusal: oauthRefusal,
  }),
);
oauthRoutes.post(
  REGISTER_PATH,
  rateLimit({
    limiter: "ANON_WRITES",
    action: "oauth-register",
    what: "client registrations from your address",
    refusal: oauthRefusal,
  }),
);

/**
 * The resources a token request can concern (see authorization-server.ts): the channel it names, and the
 * channel its code's or refresh token's grant is bound to, while that channel exists and belongs to the
 * account that granted it.
 */
async function tokenRequestResources(c: AppContext, hub: string, body: URLSearchParams): Promise<string[]> {
  const resources: string[] = [];
  const named = body.getAll("resource");
  if (named.length === 1) {
    const id = channelIdOfResource(hub, named[0]!);
    if (id && (await channelRow(c, id))) resources.push(channelResource(hub, id));
  }
  const credential = body.get("code") ?? body.get("refresh_token") ?? body.get("token");
  const parts = credential ? tokenParts(credential) : null;
  if (parts) {
    const stored = await grantResource(c.env.OAUTH_KV, parts.userId, parts.grantId);
    const id = stored ? channelIdOfResource(hub, stored) : null;
    const row = id ? await channelRow(c, id) : null;
    if (stored && row && row.accountId === parts.userId) resources.push(stored);
  }
  return resources;
}

/** A token request's form body, read from a copy (the library reads the request itself); null if none. */
async function tokenRequestBody(c: AppContext): Promise<URLSearchParams | null> {
  if (c.req.method !== "POST" || c.req.path !== TOKEN_PATH) return null;
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > 64 * 1024) return null;
  return new URLSearchParams(new TextDecoder().decode(await c.req.raw.clone().arrayBuffer()));
}

async function libraryEndpoint(c: AppContext): Promise<Response> {
  const hub = requireOAuth(c);
  const body = await tokenRequestBody(c);
  if (!body) return authorizationServer(hub, []).fetch(c.req.raw, c.env, executionContext(c));
  // A Client ID Metadata Document the hub may not fetch is no client (nothing is fetched).
  for (const id of tokenRequestClientIds(body, c.req.header("authorization"))) {
    const refused = metadataDocumentRefusal(c, id);
    if (refused)
      return Response.json(
        { error: "invalid_client", error_description: refused.message },
        { status: 401, headers: { "cache-control": "no-store" } },
      );
  }
  const refreshToken = body.get("grant_type") === "refresh_token" ? body.get("refresh_token") : null;
  if (refreshToken) {
    const reused = await refuseReusedRefreshToken(c.env, hub, refreshToken);
    if (reused) return reused;
  }
  const resources = await tokenRequestResources(c, hub, body);
  const res = await authorizationServer(hub, resources).fetch(c.req.raw, c.env, executionContext(c));
  if (refreshToken && res.status === 200) await noteRotatedRefreshToken(c.env.OAUTH_KV, refreshToken);
  return res;
}

/** Why the hub will not fetch `clientId` as a metadata document (site verification's rules), or null. */
function metadataDocumentRefusal(c: AppContext, clientId: string): HubError | null {
  if (!isMetadataDocumentId(clientId)) return null;
  try {
    assertFetchableClientId(clientId, c.var.settings.ALLOW_PRIVATE_ORIGINS);
    return null;
  } catch (e) {
    if (e instanceof HubError) return e;
    throw e;
  }
}
oauthRoutes.on(["POST", "OPTIONS", "GET"], TOKEN_PATH, libraryEndpoint);
oauthRoutes.on(["POST", "OPTIONS", "GET"], REGISTER_PATH, libraryEndpoint);

// --- authorize ------------------------------------------------------------------------------------------

/** A problem page (web/pages/authorize-problems.tsx) with the request's values. */
async function problem(
  c: AppContext,
  status: ContentfulStatusCode,
  name: AuthorizeProblem,
  vars: Omit<StaticPageVars, "hub"> = {},
) {
  return renderPage(c, await staticPage(c.env.ASSETS, name, { hub: c.var.hub, ...vars }), status);
}

/** Errors of the authorize endpoint: back to the client only once it and its redirect URI are validated. */
function authorizeFailure(c: AppContext, e: unknown): Response | Promise<Response> {
  if (e instanceof AuthorizationError && e.redirectTo) return c.redirect(e.redirectTo, 302);
  if (e instanceof AuthorizationError)
    return problem(c, 400, "authorize-invalid", { detail: e.description, errorCode: e.code });
  if (e instanceof CimdFetchError)
    return problem(c, 400, "authorize-unreadable-client", { clientId: e.metadataUrl });
  throw e;
}

/** The values both consent pages fill in about the client (web/pages/consent.tsx renders them). */
async function clientVars(client: ConsentClient) {
  const slots = ClientFactSlots(client);
  return {
    clientName: client.clientName,
    redirectHost: client.redirectHost,
    clientDomain: await markup(slots.clientDomain),
    loopback: await markup(slots.loopback),
  };
}

/** A client's name as the hub shows and keeps it: the app's own claim, without bidi or control characters. */
const clientNameOf = (name: string) => displayText(name, 100) || "Unnamed app";

function clientOf(d: {
  clientName: string;
  clientDomain?: string;
  redirectHost: string;
  redirectIsLoopback: boolean;
}): ConsentClient {
  return {
    clientName: clientNameOf(d.clientName),
    clientDomain: d.clientDomain,
    redirectHost: d.redirectHost,
    redirectIsLoopback: d.redirectIsLoopback,
  };
}

/**
 * Before the library may fetch a Client ID Metadata Document for a signed-in visitor: the id must pass site
 * verification's address rules, and look-ups are limited per account and per client address (ANON_WRITES).
 * Null when the request may go on; otherwise the page that says why.
 */
async function metadataDocumentGate(
  c: AppContext,
  clientId: string,
  accountId: string,
): Promise<Response | null> {
  if (!isMetadataDocumentId(clientId)) return null;
  const refused = metadataDocumentRefusal(c, clientId);
  if (refused) return problem(c, 400, "authorize-refused-client", { clientId, detail: refused.message });
  // Over the limit: the app's error handler answers 429 with Retry-After.
  const address = requestClientKey(c.req.raw.headers);
  const what = "apps looked up from your account or address";
  await consumeRateLimit(c.env, "ANON_WRITES", `oauth-cimd:account:${accountId}`, what);
  if (address !== null) await consumeRateLimit(c.env, "ANON_WRITES", `oauth-cimd:${address}`, what);
  return null;
}

oauthRoutes.get(AUTHORIZE_PATH, async (c) => {
  const hub = requireOAuth(c);
  const url = new URL(c.req.url);
  const named = url.searchParams.getAll("resource");
  const account = await currentAccount(c);
  // Sign in first: nothing about the client (above all its metadata document) is read for a visitor.
  if (!account) return c.redirect(`/signin?return_to=${encodeURIComponent(url.pathname + url.search)}`, 303);
  const gate = await metadataDocumentGate(c, url.searchParams.get("client_id") ?? "", account.id);
  if (gate) return gate;
  const owned = named.length === 0 && account ? await accountChannels(c.var.db, account.id) : [];
  let resources: string[] = [];
  if (named.length === 1) {
    const id = channelIdOfResource(hub, named[0]!);
    if (id && (await channelRow(c, id))) resources = [channelResource(hub, id)];
  } else if (named.length === 0) {
    resources = owned.map((ch) => channelResource(hub, ch.id));
  }
  const oauth = authorizationServer(hub, resources, resources[0]).getOAuthApi(c.env);
  let request: AuthRequest;
  let client: ConsentClient;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
    if (request.scope.length > 0)
      return c.redirect(
        authorizationErrorRedirect(
          request,
          "invalid_scope",
          "This hub defines no scopes; send the request without scope.",
        ),
        302,
      );
    client = clientOf(await oauth.describeConsent(request));
  } catch (e) {
    return authorizeFailure(c, e);
  }
  const denyUrl = authorizationErrorRedirect(request, "access_denied");
  if (named.length === 0) {
    if (owned.length === 0)
      return problem(c, 200, "authorize-no-channel", { clientName: client.clientName, denyUrl });
    const params = [...url.searchParams].filter(([name]) => name !== "resource");
    const choices = owned.map((ch) => ({ id: ch.id, name: ch.name, resource: channelResource(hub, ch.id) }));
    return renderPage(
      c,
      await staticPage(c.env.ASSETS, "channel-picker", {
        hub,
        ...(await clientVars(client)),
        params: await markup(<PickerParams params={params} />),
        channels: await markup(<PickerChannels channels={choices} />),
        denyUrl,
      }),
    );
  }
  const id = request.resource ? channelIdOfResource(hub, request.resource) : null;
  const channel = id ? await channelRow(c, id) : null;
  if (!channel) return c.redirect(authorizationErrorRedirect(request, "invalid_target"), 302);
  if (channel.accountId === null)
    return problem(c, 200, "authorize-unclaimed", {
      clientName: client.clientName,
      channelName: channel.name,
      denyUrl,
    });
  if (channel.accountId !== account.id)
    return problem(c, 403, "authorize-not-yours", {
      clientName: client.clientName,
      name: account.displayName,
      denyUrl,
    });
  const consent = await oauth.beginConsent(request);
  return renderPage(
    c,
    await staticPage(c.env.ASSETS, "consent", {
      hub,
      ...(await clientVars(client)),
      name: account.displayName,
      channelName: channel.name,
      id: channel.id,
      handle: consent.handle,
    }),
    200,
    consent.headers,
  );
});

oauthRoutes.post(AUTHORIZE_PATH, async (c) => {
  const hub = requireOAuth(c);
  // A consent form is the hub's own page: any other origin (or none) is refused before anything is read.
  const origin = c.req.header("origin");
  if (origin !== hub)
    throw new HubError(
      "forbidden",
      `A consent decision must come from ${hub}'s own page; this request comes from ${origin ? `another origin (${origin})` : "no Origin"}.`,
    );
  const account = await currentAccount(c);
  if (!account) return problem(c, 401, "authorize-signed-out");
  // The consent page posts a form; anything else (JSON, text, no body) is a client's mistake, not a 500.
  const form = await c.req.formData().catch(() => null);
  if (!form) return problem(c, 400, "authorize-unreadable");
  const handle = form.get("handle");
  const decision = form.get("decision");
  const oauth = authorizationServer(hub, []).getOAuthApi(c.env);
  const expired = () => problem(c, 400, "authorize-expired");
  if (typeof handle !== "string" || handle.length === 0 || handle.length > 512) return expired();
  try {
    if (decision !== "approve") {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const approved = await oauth.approveConsent(c.req.raw, handle);
    const id = approved.request.resource ? channelIdOfResource(hub, approved.request.resource) : null;
    const channel = id ? await channelRow(c, id) : null;
    if (!channel || channel.accountId !== account.id) {
      return problem(c, 403, "authorize-not-grantable", {
        denyUrl: authorizationErrorRedirect(approved.request, "access_denied"),
      });
    }
    const resource = channelResource(hub, channel.id);
    const completing = authorizationServer(hub, [resource]).getOAuthApi(c.env);
    const clientName = clientNameOf((await completing.describeConsent(approved.request)).clientName);
    const metadata: GrantMetadata = { channelId: channel.id, clientName };
    const props: GrantProps = { channelId: channel.id, accountId: account.id, clientName };
    const { redirectTo } = await completing.completeAuthorization({
      request: approved.request,
      userId: account.id,
      metadata,
      scope: approved.request.scope,
      props,
    });
    // The client completed a grant: its registration now lives as long as the grant can (client-limits.ts).
    await keepRegisteredClient(
      c.env.OAUTH_KV,
      approved.request.clientId,
      c.var.now,
      REFRESH_TOKEN_TTL + 24 * 60 * 60,
    );
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (e) {
    if (e instanceof AuthorizationError && !e.redirectTo) return expired();
    return authorizeFailure(c, e);
  }
});
