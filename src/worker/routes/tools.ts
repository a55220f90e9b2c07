// /api/tools: ranked full-text search over every verified site's current tools; with `?updated_since=`, the
// tools feed for mirrors.
import { Hono } from "../http/hono.js";
import { ToolSearchParamsSchema } from "../../protocol/index.js";
import { query, type AppEnv } from "../http/context.js";
import { normalizeHost } from "../registry/origins.js";
import { searchTools } from "../registry/search.js";
import { cloudContextOf } from "../registry/cloud.js";
import { parseUpdatedSince, toolsFeed } from "../registry/feeds.js";
import { HubError } from "../http/errors.js";

export const toolRoutes = new Hono<AppEnv>();

toolRoutes.get("/", async (c) => {
  const params = query(c, ToolSearchParamsSchema);
  if (params.updated_since !== undefined) {
    // The feed for mirrors (registry/feeds.ts): every current tool changed since, in change order.
    if (params.q !== undefined || params.site !== undefined || params.readOnly !== undefined)
      throw new HubError(
        "bad_request",
        "updated_since (the feed) cannot be combined with q, site or readOnly.",
      );
    const updatedSince = parseUpdatedSince(params.updated_since, c.var.now);
    return c.json(await toolsFeed(c.var.db, { updatedSince, cursor: params.cursor, limit: params.limit }));
  }
  return c.json(
    await searchTools(
      c.var.db,
      { ...params, site: params.site ? normalizeHost(params.site) : undefined },
      cloudContextOf(c.var.hub, c.env),
      c.var.now,
    ),
  );
});
