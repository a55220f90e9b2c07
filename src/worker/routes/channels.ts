// /api/channels and /api/pair: channels, their tokens and pairing codes, the audit log, plain HTTP calls.
import { Hono } from "hono";
import {
  AuditQuerySchema,
  CreateAgentTokenBodySchema,
  CreateChannelBodySchema,
  FunctionCallParseError,
  PairBodySchema,
  PlainCallBodySchema,
  RevokeAgentTokenBodySchema,
  parseFunctionCalls,
  type ToolCall,
} from "../../protocol/index.js";
import { readJson } from "../http/body.js";
import { query, type AppContext, type AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { requestClientKey } from "../http/client-key.js";
import { consumeRateLimit, rateLimit } from "../http/rate-limit.js";
import { bearerToken } from "../secrets.js";
import {
  authenticateAgent,
  authenticateOwner,
  channelView,
  createAgentToken,
  createChannel,
  createPairingCode,
  listAgentTokens,
  redeemPairingCode,
  revokeAgentToken,
  revokeProviderToken,
  type ChannelRow,
} from "../channels/channels.js";
import { listAudit } from "../channels/audit.js";
import { pairingSource } from "../channels/pairing-source.js";
import { relayOf } from "../channels/relay-stub.js";

export const channelRoutes = new Hono<AppEnv>();
export const pairRoutes = new Hono<AppEnv>();

export function hubOrigin(c: AppContext): string {
  return new URL(c.req.url).origin;
}

channelRoutes.post(
  "/",
  rateLimit({ limiter: "ANON_WRITES", action: "channel", what: "channels created from your address" }),
);
channelRoutes.post("/", async (c) => {
  const body = await readJson(c, CreateChannelBodySchema);
  const created = await createChannel(c.var.db, body, hubOrigin(c), c.var.now);
  return c.json(
    { ...created, note: "The owner key, agent token and pairing code are shown once. Store them now." },
    201,
  );
});

channelRoutes.get("/:id", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  const live = await relayOf(c.env, channel).snapshot(configOf(channel));
  return c.json({
    channel: channelView(channel),
    mcpUrl: `${hubOrigin(c)}/mcp/${channel.id}`,
    ...live,
    agentTokens: await listAgentTokens(c.var.db, channel),
  });
});

channelRoutes.post("/:id/pairing-codes", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  return c.json(await createPairingCode(c.var.db, channel, c.var.now), 201);
});

channelRoutes.post("/:id/agent-tokens", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  const body = c.req.header("content-type")
    ? await readJson(c, CreateAgentTokenBodySchema)
    : CreateAgentTokenBodySchema.parse({});
  return c.json(await createAgentToken(c.var.db, channel, body.label, hubOrigin(c), c.var.now), 201);
});

channelRoutes.get("/:id/agent-tokens", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  return c.json({ agentTokens: await listAgentTokens(c.var.db, channel) });
});

channelRoutes.delete("/:id/agent-tokens", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  const { id } = await readJson(c, RevokeAgentTokenBodySchema);
  await revokeAgentToken(c.var.db, channel, id, c.var.now);
  const closedSessions = await relayOf(c.env, channel).revokeAgent(id);
  return c.json({ revoked: id, closedSessions });
});

channelRoutes.delete("/:id/providers/:tokenId", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  const tokenId = c.req.param("tokenId");
  await revokeProviderToken(c.var.db, channel, tokenId, c.var.now);
  const closedConnections = await relayOf(c.env, channel).revokeProvider(tokenId);
  return c.json({ revoked: tokenId, closedConnections });
});

channelRoutes.get("/:id/audit", async (c) => {
  const channel = await authenticateOwner(c.var.db, c.req.param("id"), c.req.header("authorization"));
  const params = query(c, AuditQuerySchema);
  await relayOf(c.env, channel).flushAudit();
  return c.json(await listAudit(c.var.db, channel.id, params));
});

channelRoutes.post("/:id/calls", async (c) => {
  const agent = await authenticateAgent(
    c.var.db,
    c.req.param("id"),
    bearerToken(c.req.header("authorization")),
  );
  const body = await readJson(c, PlainCallBodySchema, 256 * 1024 + 1024);
  let calls: ToolCall[];
  if ("text" in body) {
    try {
      calls = parseFunctionCalls(body.text);
    } catch (e) {
      if (e instanceof FunctionCallParseError)
        throw new HubError("validation_failed", e.message, {
          issues: [{ path: "text", message: e.message }],
        });
      throw e;
    }
  } else {
    calls = [{ name: body.name, arguments: body.arguments }];
  }
  if (calls.length > 20) throw new HubError("validation_failed", "At most 20 calls per request.");
  // Each call of a batch counts, as it would in as many requests.
  await consumeRateLimit(
    c.env,
    "AGENT_CALLS",
    `agent:${agent.tokenHash}`,
    "calls with this agent token",
    calls.length,
  );
  const relay = relayOf(c.env, agent.channel);
  const results = [];
  // In order: a later call may depend on what an earlier one changed.
  for (const call of calls) {
    const outcome = await relay.callOnce(configOf(agent.channel), {
      ...call,
      agentTokenId: agent.agentTokenId,
      agentLabel: agent.agentLabel,
      ...(body.timeoutMs ? { timeoutMs: body.timeoutMs } : {}),
    });
    results.push({
      name: call.name,
      arguments: call.arguments,
      status: outcome.status,
      result: outcome.result,
    });
  }
  return c.json({ results });
});

pairRoutes.post(
  "/",
  rateLimit({ limiter: "ANON_WRITES", action: "pair", what: "pairing attempts from your address" }),
);
pairRoutes.post("/", async (c) => {
  const body = await readJson(c, PairBodySchema);
  // Failed attempts are also counted per client in D1 (IPv6 by its /64); "local": no edge address (tests).
  const client = requestClientKey(c.req.raw.headers) ?? "local";
  const paired = await redeemPairingCode(
    c.var.db,
    body,
    pairingSource(c.req.raw.headers, hubOrigin(c)),
    client,
    hubOrigin(c),
    c.var.now,
  );
  return c.json(paired, 201);
});

export function configOf(channel: ChannelRow) {
  return { channelId: channel.id, strictNames: channel.strictNames };
}
