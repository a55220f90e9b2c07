// /relay/:channelId (provider WebSockets) and /mcp/:channelId[/k/:token] (agents), forwarded to the
// channel's ChannelRelay after authentication here, at the edge.
import type { Context } from "hono";
import { Hono } from "../http/hono.js";
import {
  CLOSE_CODES,
  CONTROL_QUERY,
  LIMITS,
  RELAY_HEADER,
  RELAY_SUBPROTOCOL,
  relayRequestHeaders,
  type ProviderAttachment,
  type RelayRequest,
} from "../../protocol/index.js";
import {
  authenticateAgent,
  authenticateProvider,
  labelForOrigin,
  providerChannelConfig,
} from "../channels/channels.js";
import { relayTabOrigin } from "../channels/pairing-source.js";
import { configOf, relayOf } from "../channels/relay-stub.js";
import type { AppContext, AppEnv } from "../http/context.js";
import { rateLimit } from "../http/rate-limit.js";
import { readCappedBody } from "../http/body.js";
import { HubError } from "../http/errors.js";
import { mcpOriginGuard } from "../http/mcp-origin.js";
import { bearerToken, looksLike, sha256Hex } from "../secrets.js";
import { consumeRateLimit } from "../http/rate-limit.js";
import { authenticateOAuthAgent, bearerChallenge } from "../oauth/bearer.js";
import { noteGrantUse } from "../oauth/connected-apps.js";

export const relayRoutes = new Hono<AppEnv>();
export const mcpRoutes = new Hono<AppEnv>();

relayRoutes.get("/:channelId", async (c) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    throw new HubError("bad_request", "This endpoint is a WebSocket: connect with Upgrade: websocket.");
  }
  const offered = (c.req.header("sec-websocket-protocol") ?? "").split(",").map((s) => s.trim());
  if (!offered.includes(RELAY_SUBPROTOCOL)) {
    throw new HubError(
      "bad_request",
      `Offer the subprotocols "${RELAY_SUBPROTOCOL}" and your provider token.`,
    );
  }
  const token = offered.find((p) => p.startsWith("whr_"));
  const origin = c.req.header("origin");
  let row: Awaited<ReturnType<typeof authenticateProvider>>;
  /** Who the provider is, as agents and the console see it. */
  let who: Pick<ProviderAttachment, "kind" | "label" | "origin" | "pairedFromPage" | "via" | "role">;
  try {
    row = await authenticateProvider(c.var.db, c.req.param("channelId"), token, origin);
    who =
      row.kind !== "extension"
        ? { kind: row.kind, label: row.label, origin: row.origin, pairedFromPage: row.pairedFromPage }
        : c.req.query(CONTROL_QUERY) === "1"
          ? extensionControl()
          : extensionTab(relayTabOrigin(c.req.query("origin")));
  } catch (e) {
    // A browser cannot read why an upgrade was refused (401 and 403 look like a network error), so a page's
    // refused socket is accepted, told why in an error frame and closed with a code it can read: 4001 for a
    // token that is unknown, revoked or expired, 4003 for a page whose Origin is not the one that paired
    // (or an extension socket whose ?origin= is missing or not a serialized http(s) origin).
    // Clients that send no Origin (the sidecar, scripts) get the plain HTTP error.
    if (
      origin &&
      e instanceof HubError &&
      (e.code === "unauthorized" || e.code === "forbidden" || e.code === "invalid_origin")
    )
      return refuseInBand(e);
    throw e;
  }
  const config = await providerChannelConfig(c.var.db, row.channelId, c.var.now);
  const attachment: ProviderAttachment = {
    providerId: crypto.randomUUID(),
    tokenId: row.id,
    ...who,
    connectedAt: Date.now(),
  };
  const headers = relayRequestHeaders(c.req.raw.headers, {
    kind: "provider",
    config,
    provider: attachment,
  });
  return relayOf(c.env, { id: row.channelId }).fetch(new Request(c.req.url, { headers }));
});

/**
 * A socket of the browser extension's token speaks for one shared tab: an ordinary tab provider, labelled
 * and routed by the origin the browser reported for the tab (never what the page says).
 */
function extensionTab(tabOrigin: string) {
  return {
    kind: "tab" as const,
    label: labelForOrigin(tabOrigin),
    origin: tabOrigin,
    pairedFromPage: false,
    via: "extension" as const,
  };
}

/**
 * The extension's control socket (protocol/control-frames.ts): not a provider, it offers no tools; the channel
 * asks over it to open an added marketplace tool's page on demand. Only an extension token may open one.
 */
function extensionControl() {
  return {
    kind: "tab" as const,
    label: "browser extension",
    origin: null,
    pairedFromPage: false,
    via: "extension" as const,
    role: "control" as const,
  };
}

/** Counts an MCP request under its agent token (by hash: the limiter never sees the secret). */
function agentRateLimit(tokenOf: (c: AppContext) => string | undefined) {
  return rateLimit({
    limiter: "AGENT_CALLS",
    action: "agent",
    what: "requests with this agent token",
    key: async (c) => {
      const token = tokenOf(c);
      return token && looksLike("agent", token) ? agentTokenHash(c, token) : null;
    },
  });
}

/** The sha256 of the request's agent token, hashed once per request (the rate limit and the relay share it). */
async function agentTokenHash(c: AppContext, token: string): Promise<string> {
  let hash = c.get("agentTokenHash");
  if (hash === undefined) {
    hash = await sha256Hex(token);
    c.set("agentTokenHash", hash);
  }
  return hash;
}

function refuseInBand(e: HubError): Response {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.accept();
  server.send(JSON.stringify({ type: "error", code: e.code, message: e.message }));
  server.close(e.code === "unauthorized" ? CLOSE_CODES.unauthorized : CLOSE_CODES.forbidden, e.code);
  return new Response(null, {
    status: 101,
    webSocket: client,
    headers: { "sec-websocket-protocol": RELAY_SUBPROTOCOL },
  });
}

/**
 * Forwards an MCP request to the channel's object. Every request is authenticated, in either protocol era,
 * and cheaply: an agent token (`wha_`) goes first as its sha256 alone, which the object answers when the hash
 * names a session opened with that token (2025-11-25) or a token this Worker verified within the object's
 * short TTL (both eras). Only when the object cannot vouch for it (first request, TTL over, unknown session,
 * another token) does the request come back here for the full check in D1 (or OAuth), which answers a bad
 * token with 401/403 and, for 2025, an unknown session with 404. Revoking a token clears the object's
 * memory of it at once.
 */
async function forwardMcp(c: Context<AppEnv>, token: string | undefined, viaPath = false): Promise<Response> {
  const channelId = c.req.param("channelId")!;
  const body = c.req.method === "POST" ? await readMcpBody(c.req.raw) : undefined;
  if (body instanceof Response) return body;
  const forward = (relayed: RelayRequest) => {
    // relayRequestHeaders copies the request's headers; the copy loses the credential.
    const headers = relayRequestHeaders(c.req.raw.headers, relayed);
    headers.delete("authorization");
    return relayOf(c.env, { id: channelId }).fetch(
      new Request(c.req.url, { method: c.req.method, headers, body }),
    );
  };
  let response: Response | undefined;
  if (token && looksLike("agent", token)) {
    response = await forward({ kind: "agent-hash", tokenHash: await agentTokenHash(c, token) });
    if (response.headers.get(RELAY_HEADER.reauth)) response = undefined;
  }
  if (!response) {
    const agent = await authenticateMcpAgent(c, channelId, token, viaPath);
    response = await forward({
      kind: "agent",
      config: configOf(agent.channel),
      agent: { agentTokenId: agent.agentTokenId, agentLabel: agent.agentLabel, tokenHash: agent.tokenHash },
    });
  }
  // Copy so the origin guard's CORS headers can be added.
  return new Response(response.body, response);
}

/**
 * An MCP request body, at most LIMITS.mcpRequestBytes (read as it arrives, http/body.ts); over it, 413 with a
 * JSON-RPC error (-32600) and nothing forwarded. Not parsed here: the channel's object parses it, once.
 */
async function readMcpBody(request: Request): Promise<Uint8Array | Response> {
  const body = await readCappedBody(request, LIMITS.mcpRequestBytes);
  if (body) return body;
  return Response.json(
    {
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: `Request body too large: an MCP request may be at most ${LIMITS.mcpRequestBytes} bytes.`,
      },
      id: null,
    },
    { status: 413 },
  );
}

/**
 * Who an MCP request that opens a session (or is not in one) comes from: an agent token (`wha_`, in the
 * header or the capability URL's path), or an OAuth access token for this channel, which names the agent by
 * its OAuth client and is counted per grant. No credential at all gets 401 with the Bearer challenge that
 * points OAuth clients at the channel's protected-resource metadata (RFC 9728), and the usual JSON body.
 */
async function authenticateMcpAgent(
  c: Context<AppEnv>,
  channelId: string,
  token: string | undefined,
  viaPath: boolean,
) {
  const hub = c.var.hub;
  if (!token)
    throw new HubError(
      "unauthorized",
      "Connect with OAuth (this URL's metadata names the authorization server), or send the channel's agent token as `Authorization: Bearer wha_…`.",
      { headers: { "www-authenticate": bearerChallenge(hub, channelId) } },
    );
  if (viaPath || looksLike("agent", token)) return authenticateAgent(c.var.db, channelId, token);
  const agent = await authenticateOAuthAgent(c.env, c.var.db, hub, channelId, token);
  await consumeRateLimit(
    c.env,
    "AGENT_CALLS",
    `agent:${agent.agentTokenId}`,
    "requests with this app's access",
  );
  await noteGrantUse(c.env.OAUTH_KV, agent.grantId, c.var.now);
  return agent;
}

mcpRoutes.use("/:channelId", mcpOriginGuard());
mcpRoutes.use("/:channelId/k/:token", mcpOriginGuard());
mcpRoutes.use(
  "/:channelId",
  agentRateLimit((c) => bearerToken(c.req.header("authorization"))),
);
mcpRoutes.use(
  "/:channelId/k/:token",
  agentRateLimit((c) => c.req.param("token")),
);
mcpRoutes.on(["GET", "POST", "DELETE"], "/:channelId", (c) =>
  forwardMcp(c, bearerToken(c.req.header("authorization"))),
);
mcpRoutes.on(["GET", "POST", "DELETE"], "/:channelId/k/:token", (c) =>
  forwardMcp(c, c.req.param("token"), true),
);
