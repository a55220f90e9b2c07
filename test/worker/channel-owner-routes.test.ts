// The one owner check of /api/channels/:id (routes/channels.ts): every route under a channel is its owner's
// (no credential 401, another channel's owner key 403, the channel's agent token 401, before any route does
// anything), except an agent's POST /:id/calls, which takes the agent token and not the owner's key.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/protocol/index.js";
import { channelRoutes } from "../../src/worker/routes/channels.js";
import { api, expectError } from "./helpers.js";
import { createChannel } from "./relay-helpers.js";

/** Every owner route, as [method, route pattern under /api/channels]. */
const OWNER_ROUTES: Array<[string, string]> = [
  ["GET", "/:id"],
  ["PATCH", "/:id"],
  ["POST", "/:id/pairing-codes"],
  ["GET", "/:id/agent-tokens"],
  ["POST", "/:id/agent-tokens"],
  ["DELETE", "/:id/agent-tokens"],
  ["DELETE", "/:id/providers/:tokenId"],
  ["GET", "/:id/connected-apps"],
  ["DELETE", "/:id/connected-apps/:grantId"],
  ["GET", "/:id/agent-tokens/:tokenId/policy"],
  ["PUT", "/:id/agent-tokens/:tokenId/policy"],
  ["GET", "/:id/connected-apps/:grantId/policy"],
  ["PUT", "/:id/connected-apps/:grantId/policy"],
  ["POST", "/:id/pause"],
  ["POST", "/:id/resume"],
  ["GET", "/:id/owner-keys"],
  ["POST", "/:id/owner-keys"],
  ["DELETE", "/:id/owner-keys/:keyId"],
  ["GET", "/:id/audit"],
  ["GET", "/:id/tools"],
  ["POST", "/:id/tools"],
  ["DELETE", "/:id/tools/:host"],
  ["DELETE", "/:id/tools/:host/:name"],
];
const AGENT_ROUTES: Array<[string, string]> = [["POST", "/:id/calls"]];

describe("the channel routes' owner check", () => {
  it("knows every route under /:id (a new one is listed here as the owner's or an agent's)", () => {
    const routes = channelRoutes.routes
      .filter((r) => r.method !== "ALL" && r.path.startsWith("/:id"))
      .map((r) => `${r.method} ${r.path}`);
    expect(new Set(routes)).toEqual(new Set([...OWNER_ROUTES, ...AGENT_ROUTES].map(([m, p]) => `${m} ${p}`)));
  });

  it("guards every owner route the same way", async () => {
    const ch = await createChannel();
    const other = await createChannel();
    for (const [method, pattern] of OWNER_ROUTES) {
      const url = `/api/channels${pattern.replace(":id", ch.id).replace(/:\w+/g, "some-id")}`;
      const json =
        method === "DELETE" && pattern === "/:id/agent-tokens" ? { id: ch.agentTokenId } : undefined;
      const as = (authorization?: string) =>
        api(url, { method, ...(json ? { json } : {}), headers: authorization ? { authorization } : {} });
      await expectError(await as(), 401, "unauthorized");
      await expectError(await as(`Bearer ${other.ownerKey}`), 403, "forbidden");
      await expectError(await as(`Bearer ${ch.agentToken}`), 401, "unauthorized");
    }
    // Nothing was done on the way: the agent token a refused DELETE named still works.
    const listed = await api(`/api/channels/${ch.id}/agent-tokens`, {
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(listed.status).toBe(200);
    const { agentTokens } = (await listed.json()) as {
      agentTokens: Array<{ id: string; revokedAt: unknown }>;
    };
    expect(agentTokens.find((t) => t.id === ch.agentTokenId)?.revokedAt ?? null).toBeNull();
  });

  it("lets the owner through to each route", async () => {
    const ch = await createChannel();
    const owner = { authorization: `Bearer ${ch.ownerKey}` };
    expect((await api(`/api/channels/${ch.id}`, { headers: owner })).status).toBe(200);
    expect((await api(`/api/channels/${ch.id}/audit`, { headers: owner })).status).toBe(200);
    expect((await api(`/api/channels/${ch.id}/owner-keys`, { headers: owner })).status).toBe(200);
    expect(
      (await api(`/api/channels/${ch.id}/pairing-codes`, { method: "POST", headers: owner })).status,
    ).toBe(201);
  });

  it("leaves /calls to the agent token: the owner's key is not an agent's", async () => {
    const ch = await createChannel();
    const call = (authorization: string) =>
      api(`/api/channels/${ch.id}/calls`, {
        method: "POST",
        json: { name: "nothing", arguments: {} },
        headers: { authorization },
      });
    await expectError(await call(`Bearer ${ch.ownerKey}`), 401, "unauthorized");
    const res = await call(`Bearer ${ch.agentToken}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: Array<{ status: string }> }).results).toEqual([
      expect.objectContaining({ name: "nothing", status: "invalid" }),
    ]);
  });

  it("holds /calls to LIMITS.callsPerRequest calls", async () => {
    const ch = await createChannel();
    const text = JSON.stringify(
      Array.from({ length: LIMITS.callsPerRequest + 1 }, () => ({ function: "nothing", arguments: {} })),
    );
    const res = await api(`/api/channels/${ch.id}/calls`, {
      method: "POST",
      json: { text },
      headers: { authorization: `Bearer ${ch.agentToken}` },
    });
    await expectError(res, 400, "validation_failed");
  });
});
