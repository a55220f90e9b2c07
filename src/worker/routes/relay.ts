// /relay/:channelId (provider WebSockets) and /mcp/:channelId[/k/:token] (agents), forwarded to the
// channel's ChannelRelay after authentication here, at the edge.
import { Hono, type Context } from "hono";
import { RELAY_SUBPROTOCOL } from "../../protocol/index.js";
import { authenticateAgent, authenticateProvider } from "../channels/channels.js";
import { relayOf } from "../channels/relay-stub.js";
import type { AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { mcpOriginGuard } from "../http/mcp-origin.js";
import { bearerToken } from "../secrets.js";
import {
  HEADER_AGENT,
  HEADER_CHANNEL,
  HEADER_PROVIDER,
  type ProviderAttachment,
} from "../relay/channel-relay.js";
import { configOf } from "./channels.js";

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
  const row = await authenticateProvider(c.var.db, c.req.param("channelId"), token, origin);
  const channel = { id: row.channelId };
  const strictNames =
    (await c.var.db.query.channels.findFirst({ where: (t, { eq }) => eq(t.id, row.channelId) }))
      ?.strictNames ?? false;
  const attachment: ProviderAttachment = {
    providerId: crypto.randomUUID(),
    tokenId: row.id,
    kind: row.kind,
    label: row.label,
    origin: row.origin,
    connectedAt: Date.now(),
  };
  const headers = new Headers(c.req.raw.headers);
  headers.set(HEADER_CHANNEL, JSON.stringify({ channelId: row.channelId, strictNames }));
  headers.set(HEADER_PROVIDER, JSON.stringify(attachment));
  return relayOf(c.env, channel).fetch(new Request(c.req.url, { headers }));
});

async function forwardMcp(c: Context<AppEnv>, token: string | undefined): Promise<Response> {
  const agent = await authenticateAgent(c.var.db, c.req.param("channelId")!, token);
  const headers = new Headers(c.req.raw.headers);
  for (const h of [HEADER_CHANNEL, HEADER_PROVIDER, HEADER_AGENT, "authorization"]) headers.delete(h);
  headers.set(HEADER_CHANNEL, JSON.stringify(configOf(agent.channel)));
  headers.set(
    HEADER_AGENT,
    JSON.stringify({ agentTokenId: agent.agentTokenId, agentLabel: agent.agentLabel }),
  );
  const init: RequestInit = { method: c.req.method, headers };
  if (c.req.method === "POST") init.body = c.req.raw.body;
  const response = await relayOf(c.env, agent.channel).fetch(new Request(c.req.url, init));
  // Copy so the origin guard's CORS headers can be added.
  return new Response(response.body, response);
}

mcpRoutes.use("/:channelId", mcpOriginGuard());
mcpRoutes.use("/:channelId/k/:token", mcpOriginGuard());
mcpRoutes.on(["GET", "POST", "DELETE"], "/:channelId", (c) =>
  forwardMcp(c, bearerToken(c.req.header("authorization"))),
);
mcpRoutes.on(["GET", "POST", "DELETE"], "/:channelId/k/:token", (c) => forwardMcp(c, c.req.param("token")));
