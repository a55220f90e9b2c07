// Bench-only Worker entry (bench/relay/wrangler.toml; never deployed): the real app and the real
// ChannelRelay, unchanged unless a probe asks, plus /bench/ probes that take one cost at a time off a
// relayed call, so the relay bench can say where the time goes:
//   GET  /bench/d1                    one D1 round trip (`SELECT 1`), no drizzle
//   GET  /bench/auth/:channelId       the agent-token check alone (authenticateAgent: two D1 queries)
//   GET  /bench/auth-sql/:channelId   the same two lookups as one raw SQL statement, no drizzle
//   GET  /bench/do/:channelId         one RPC to the channel's Durable Object, nothing else
//   ALL  /bench/mcp/:channelId        the channel's MCP endpoint without the D1 token check
//   POST /bench/audit/:channelId      {enabled} turns the per-call audit row on or off in the DO
// Plain JS because tsconfig.node.json typechecks bench/ for Node, without the Workers types.
import { Hono } from "hono";
import { createApp } from "../../src/worker/app.ts";
import { authenticateAgent } from "../../src/worker/channels/channels.ts";
import { hubContext } from "../../src/worker/http/context.ts";
import { renderError } from "../../src/worker/http/errors.ts";
import { relayRequestHeaders } from "../../src/protocol/relay-contract.ts";
import { ChannelRelay as RealChannelRelay } from "../../src/worker/channel-relay.ts";
import { bearerToken, sha256Hex } from "../../src/worker/secrets.ts";
import { floorFetch } from "./floor-worker.mjs";

// The relay's floor (/floor/…, bench/relay/floor.mjs): a minimal Worker + Durable Object relay beside ours.
export { FloorRelay } from "./floor-worker.mjs";

/** The real ChannelRelay, with a switch for its audit row, and a no-op RPC. */
export class ChannelRelay extends RealChannelRelay {
  benchSkipAudit = false;

  benchNoop() {
    return 1;
  }

  benchSetAudit(enabled) {
    this.benchSkipAudit = !enabled;
    return enabled;
  }

  audit(...args) {
    if (this.benchSkipAudit) return Promise.resolve();
    return super.audit(...args);
  }
}

const relay = (env, channelId) => env.CHANNEL.get(env.CHANNEL.idFromName(channelId));

const probes = new Hono();
probes.use("*", hubContext());

probes.get("/bench/auth/:channelId", async (c) => {
  const agent = await authenticateAgent(
    c.var.db,
    c.req.param("channelId"),
    bearerToken(c.req.header("authorization")),
  );
  return c.json({ ok: true, agentTokenId: agent.agentTokenId });
});

probes.get("/bench/d1", async (c) => {
  return c.json({ ok: (await c.env.DB.prepare("SELECT 1 AS one").first("one")) === 1 });
});

probes.get("/bench/auth-sql/:channelId", async (c) => {
  const hash = await sha256Hex(bearerToken(c.req.header("authorization")) ?? "");
  const row = await c.env.DB.prepare(
    `SELECT a.id, a.label, a.revoked_at, c.id AS channel_id, c.strict_names FROM agent_tokens a
     JOIN channels c ON c.id = a.channel_id WHERE a.token_hash = ?`,
  )
    .bind(hash)
    .first();
  const ok = row !== null && row.revoked_at === null && row.channel_id === c.req.param("channelId");
  return c.json({ ok }, ok ? 200 : 401);
});

probes.get("/bench/do/:channelId", async (c) => {
  return c.json({ ok: (await relay(c.env, c.req.param("channelId")).benchNoop()) === 1 });
});

probes.post("/bench/audit/:channelId", async (c) => {
  const { enabled } = await c.req.json();
  return c.json({ enabled: await relay(c.env, c.req.param("channelId")).benchSetAudit(Boolean(enabled)) });
});

/** As routes/relay.ts forwards an MCP request, minus authenticateAgent (a fixed agent, loose naming). */
function forwardWithoutTokenCheck(agentTokenId) {
  return async (c) => {
    const channelId = c.req.param("channelId");
    const headers = relayRequestHeaders(c.req.raw.headers, {
      kind: "agent",
      config: { channelId, strictNames: false },
      agent: { agentTokenId, agentLabel: "bench", tokenHash: await sha256Hex(agentTokenId) },
    });
    headers.delete("authorization");
    const init = { method: c.req.method, headers };
    if (c.req.method === "POST") init.body = c.req.raw.body;
    const response = await relay(c.env, channelId).fetch(new Request(c.req.url, init));
    return new Response(response.body, response);
  };
}
probes.all("/bench/mcp/:channelId", forwardWithoutTokenCheck("bench"));
probes.onError(renderError);

const app = createApp();

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith("/floor/")) return floorFetch(request, env);
    return pathname.startsWith("/bench/") ? probes.fetch(request, env, ctx) : app.fetch(request, env, ctx);
  },
};
