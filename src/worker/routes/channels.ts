// /api/channels and /api/pair: channels, their tokens and pairing codes, the audit log, plain HTTP calls.
import { Hono } from "../http/hono.js";
import {
  AddChannelToolsBodySchema,
  AuditQuerySchema,
  LIMITS,
  CreateAgentTokenBodySchema,
  CreateChannelBodySchema,
  ChannelSettingsBodySchema,
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
import { channels } from "../db/schema.js";
import { eq } from "drizzle-orm";
import {
  authenticateAgent,
  authenticateOwner,
  authenticateOwnerAccount,
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
import { channelAudit } from "../channels/audit.js";
import { addTools, addedToolView, readAddedTools, removeTools } from "../channels/added-tools.js";
import { pairingSource } from "../channels/pairing-source.js";
import { configOf, relayOf } from "../channels/relay-stub.js";
import { currentAccount, requireHubOrigin } from "../accounts/session.js";
import { createOwnerKey, listOwnerKeys, revokeOwnerKey } from "../accounts/ownership.js";
import { AgentPolicySchema, CreateOwnerKeyBodySchema } from "../../protocol/index.js";
import { listConnectedApps, revokeConnectedApp } from "../oauth/connected-apps.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The channel an owner-authenticated route acts on (set by requireChannelOwner). */
    ownedChannel: ChannelRow;
  }
}

export const channelRoutes = new Hono<AppEnv>();
export const pairRoutes = new Hono<AppEnv>();

/**
 * Middleware factory for the routes of `/:id` its owner uses: the channel's owner key (`Authorization: Bearer
 * who_…`), or else the session of the account that owns the channel. Sets `ownedChannel`.
 */
export function requireChannelOwner() {
  return async function channelOwnerMiddleware(c: AppContext, next: () => Promise<void>): Promise<void> {
    const id = c.req.param("id") ?? "";
    const authorization = c.req.header("authorization");
    const account = authorization === undefined ? await currentAccount(c) : null;
    const channel = account
      ? await authenticateOwnerAccount(c.var.db, id, account.id, c.var.now)
      : await authenticateOwner(c.var.db, id, authorization, c.var.now);
    c.set("ownedChannel", channel);
    await next();
  };
}

// Every write a session cookie comes with must come from the hub's own pages (accounts/session.ts).
channelRoutes.use("*", requireHubOrigin());

channelRoutes.post(
  "/",
  rateLimit({ limiter: "ANON_WRITES", action: "channel", what: "channels created from your address" }),
);
channelRoutes.post("/", async (c) => {
  const body = await readJson(c, CreateChannelBodySchema);
  const account = await currentAccount(c);
  const created = await createChannel(c.var.db, body, c.var.hub, c.var.now, account?.id ?? null);
  return c.json(
    { ...created, note: "The owner key, agent token and pairing code are shown once. Store them now." },
    201,
  );
});

// The one route under /:id that is not the owner's: an agent's plain HTTP calls, with its agent token.
// (Registered before the owner check below, so that check never runs for it.)
channelRoutes.post("/:id/calls", async (c) => {
  const agent = await authenticateAgent(
    c.var.db,
    c.req.param("id"),
    bearerToken(c.req.header("authorization")),
  );
  const body = await readJson(c, PlainCallBodySchema, LIMITS.callsBodyBytes);
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
  if (calls.length > LIMITS.callsPerRequest)
    throw new HubError("validation_failed", `At most ${LIMITS.callsPerRequest} calls per request.`);
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

// Every other route under /:id is the owner's: one check, here, for all of them (and for /:id itself).
channelRoutes.use("/:id/*", requireChannelOwner());

channelRoutes.get("/:id", async (c) => {
  const channel = c.var.ownedChannel;
  const live = await relayOf(c.env, channel).checkedSnapshot(configOf(channel));
  return c.json({
    channel: channelView(channel),
    mcpUrl: `${c.var.hub}/mcp/${channel.id}`,
    ...live,
    agentTokens: await listAgentTokens(c.var.db, channel),
  });
});

// The owner's channel settings: `verificationPolicy` (what agents may call by each live tool's verification).
// The channel's object is told at once, since MCP requests it already vouches for carry no settings.
channelRoutes.patch("/:id", async (c) => {
  const body = await readJson(c, ChannelSettingsBodySchema);
  const channel = c.var.ownedChannel;
  const updated: ChannelRow = { ...channel, ...body };
  if (body.verificationPolicy !== undefined) {
    await c.var.db
      .update(channels)
      .set({ verificationPolicy: body.verificationPolicy })
      .where(eq(channels.id, channel.id));
  }
  await relayOf(c.env, updated).snapshot(configOf(updated));
  return c.json({ channel: channelView(updated) });
});

channelRoutes.post("/:id/pairing-codes", async (c) => {
  const channel = c.var.ownedChannel;
  return c.json(await createPairingCode(c.var.db, channel, c.var.now), 201);
});

channelRoutes.post("/:id/agent-tokens", async (c) => {
  const channel = c.var.ownedChannel;
  const body = c.req.header("content-type")
    ? await readJson(c, CreateAgentTokenBodySchema)
    : CreateAgentTokenBodySchema.parse({});
  return c.json(await createAgentToken(c.var.db, channel, body.label, c.var.hub, c.var.now), 201);
});

channelRoutes.get("/:id/agent-tokens", async (c) => {
  const channel = c.var.ownedChannel;
  return c.json({ agentTokens: await listAgentTokens(c.var.db, channel) });
});

channelRoutes.delete("/:id/agent-tokens", async (c) => {
  const channel = c.var.ownedChannel;
  const { id } = await readJson(c, RevokeAgentTokenBodySchema);
  await revokeAgentToken(c.var.db, channel, id, c.var.now);
  const closedSessions = await relayOf(c.env, channel).revokeAgent(id);
  return c.json({ revoked: id, closedSessions });
});

channelRoutes.delete("/:id/providers/:tokenId", async (c) => {
  const channel = c.var.ownedChannel;
  const tokenId = c.req.param("tokenId") ?? "";
  await revokeProviderToken(c.var.db, channel, tokenId, c.var.now);
  const closedConnections = await relayOf(c.env, channel).revokeProvider(tokenId);
  return c.json({ revoked: tokenId, closedConnections });
});

// Connected apps: the OAuth clients the owning account let use this channel (src/worker/oauth).
channelRoutes.get("/:id/connected-apps", async (c) => {
  return c.json({ connectedApps: await listConnectedApps(c.env, c.var.hub, c.var.ownedChannel) });
});

channelRoutes.delete("/:id/connected-apps/:grantId", async (c) => {
  const channel = c.var.ownedChannel;
  const grantId = c.req.param("grantId") ?? "";
  await revokeConnectedApp(c.env, c.var.hub, channel, grantId);
  // Its tokens are gone; its open MCP sessions and GET streams end now too (they are keyed `oauth:<grantId>`).
  const closedSessions = await relayOf(c.env, channel).revokeAgent(`oauth:${grantId}`);
  return c.json({ revoked: grantId, closedSessions });
});

// Who may call what (relay/agent-policies.ts): each agent's tool policy (an agent token, or a connected app,
// whose agent id is `oauth:<grantId>`), and the channel's pause switch. Kept and enforced in the channel's
// object; the Worker checks that the agent is this channel's and live (404 otherwise).
async function policyAgentOf(c: AppContext, kind: "token" | "app"): Promise<string> {
  const channel = c.var.ownedChannel;
  if (kind === "token") {
    const tokenId = c.req.param("tokenId") ?? "";
    const token = (await listAgentTokens(c.var.db, channel)).find((t) => t.id === tokenId);
    if (!token || token.revokedAt !== null)
      throw new HubError("not_found", `No active agent token ${tokenId} in this channel.`);
    return tokenId;
  }
  const grantId = c.req.param("grantId") ?? "";
  const apps = await listConnectedApps(c.env, c.var.hub, channel);
  if (!apps.some((a) => a.grantId === grantId))
    throw new HubError("not_found", `No connected app ${grantId} in this channel.`);
  return `oauth:${grantId}`;
}

async function readPolicy(c: AppContext, kind: "token" | "app") {
  const agent = await policyAgentOf(c, kind);
  return c.json(await relayOf(c.env, c.var.ownedChannel).agentPolicy(configOf(c.var.ownedChannel), agent));
}

async function writePolicy(c: AppContext, kind: "token" | "app") {
  const body = await readJson(c, AgentPolicySchema);
  const agent = await policyAgentOf(c, kind);
  const channel = c.var.ownedChannel;
  const set = await relayOf(c.env, channel).setAgentPolicy(configOf(channel), agent, body);
  if ("unknown" in set) {
    const names = set.unknown.map((u) => `"${u.name}"`).join(", ");
    throw new HubError(
      "unknown_tool",
      `The channel has no tool named ${names}: name tools as agents call them (GET /api/channels/:id lists them).`,
      {
        issues: set.unknown.map((u) => ({
          path: `tools.allow.${u.index}`,
          message: `The channel has no tool named "${u.name}".`,
        })),
      },
    );
  }
  return c.json(set.policy);
}

channelRoutes.get("/:id/agent-tokens/:tokenId/policy", (c) => readPolicy(c, "token"));
channelRoutes.put("/:id/agent-tokens/:tokenId/policy", (c) => writePolicy(c, "token"));
channelRoutes.get("/:id/connected-apps/:grantId/policy", (c) => readPolicy(c, "app"));
channelRoutes.put("/:id/connected-apps/:grantId/policy", (c) => writePolicy(c, "app"));

channelRoutes.post("/:id/pause", async (c) => {
  const channel = c.var.ownedChannel;
  return c.json(await relayOf(c.env, channel).setPaused(configOf(channel), true));
});

channelRoutes.post("/:id/resume", async (c) => {
  const channel = c.var.ownedChannel;
  return c.json(await relayOf(c.env, channel).setPaused(configOf(channel), false));
});

// Marketplace tools added to the channel (channels/added-tools.ts): listed to its agents while no tab
// offers them. The channel's object is told after each change so its agents hear list_changed at once.
// Reading them also has the object read them again, so what the owner sees and what agents see agree at once
// (a site delisted or unverified since leaves both), not only after the object's cache expires.
channelRoutes.get("/:id/tools", async (c) => {
  const channel = c.var.ownedChannel;
  const rows = await readAddedTools(c.env.DB, channel.id);
  await relayOf(c.env, channel).addedToolsChanged(configOf(channel));
  return c.json({ tools: rows.map(addedToolView) });
});

channelRoutes.post("/:id/tools", async (c) => {
  const channel = c.var.ownedChannel;
  const body = await readJson(c, AddChannelToolsBodySchema);
  const host = body.host.toLowerCase();
  const added = await addTools(c.env.DB, channel.id, host, body.tools, c.var.now);
  await relayOf(c.env, channel).addedToolsChanged(configOf(channel));
  return c.json({ host, added }, 201);
});

async function removeAdded(c: AppContext, name: string | undefined) {
  const channel = c.var.ownedChannel;
  const host = (c.req.param("host") ?? "").toLowerCase();
  const removed = await removeTools(c.env.DB, channel.id, host, name);
  await relayOf(c.env, channel).addedToolsChanged(configOf(channel));
  return c.json({ host, removed });
}
channelRoutes.delete("/:id/tools/:host", (c) => removeAdded(c, undefined));
channelRoutes.delete("/:id/tools/:host/:name", (c) => removeAdded(c, c.req.param("name") ?? ""));

channelRoutes.get("/:id/owner-keys", async (c) => {
  return c.json({ ownerKeys: await listOwnerKeys(c.var.db, c.var.ownedChannel.id) });
});

channelRoutes.post("/:id/owner-keys", async (c) => {
  const body = c.req.header("content-type")
    ? await readJson(c, CreateOwnerKeyBodySchema)
    : CreateOwnerKeyBodySchema.parse({});
  const created = await createOwnerKey(c.var.db, c.var.ownedChannel, body.label, c.var.now);
  return c.json({ ...created, note: "The owner key is shown once. Store it now." }, 201);
});

channelRoutes.delete("/:id/owner-keys/:keyId", async (c) => {
  const keyId = c.req.param("keyId") ?? "";
  await revokeOwnerKey(c.var.db, c.var.ownedChannel, keyId, c.var.now);
  return c.json({ revoked: keyId });
});

channelRoutes.get("/:id/audit", async (c) => {
  const channel = c.var.ownedChannel;
  return c.json(await channelAudit(c.env, channel, query(c, AuditQuerySchema)));
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
    pairingSource(c.req.raw.headers, c.var.hub),
    client,
    c.var.hub,
    c.var.now,
  );
  return c.json(paired, 201);
});
