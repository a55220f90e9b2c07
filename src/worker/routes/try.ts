// POST /api/sites/:host/tools/:name/try {arguments}: "Try it" on a tool's page for a tool that runs in the
// cloud: anyone, signed in or not, runs it in the hub's own browser with no install and no channel. Counted
// per client (CLOUD_CALLS) and per site (CLOUD_SITE_CALLS). Answers like one plain channel call
// (PlainCallResult): 200 with the status and the result for a run and for each refusal the page shows (not a
// cloud tool, cloud runs off, a failed run, invalid arguments); 404/410 for a site or tool that is not there.
import { Hono } from "../http/hono.js";
import { LIMITS, ToolCallSchema } from "../../protocol/index.js";
import type { PlainCallResult } from "../../protocol/views.js";
import { callInCloud } from "../cloud/call.js";
import { readJson } from "../http/body.js";
import type { AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { rateLimit } from "../http/rate-limit.js";
import { getVerifiedSite } from "../registry/sites.js";

const TryBodySchema = ToolCallSchema.pick({ arguments: true }).strict();

export const tryRoutes = new Hono<AppEnv>();

tryRoutes.post(
  "/:host/tools/:name/try",
  rateLimit({ limiter: "CLOUD_CALLS", action: "try", what: "Try it runs from your address" }),
  async (c) => {
    const site = await getVerifiedSite(c.var.db, c.req.param("host") ?? "");
    const name = c.req.param("name") ?? "";
    const body = await readJson(c, TryBodySchema, LIMITS.callsBodyBytes);
    const outcome = await callInCloud(c.env, c.var.db, {
      site: site.host,
      name,
      arguments: body.arguments,
      via: "try",
      signal: c.req.raw.signal,
    });
    if (outcome.unknownTool)
      throw new HubError("not_found", `${site.host}'s current manifest publishes no tool named ${name}.`);
    const answer: PlainCallResult = {
      name,
      arguments: body.arguments,
      status: outcome.status,
      result: outcome.result,
    };
    return c.json(answer);
  },
);
