// /api/tools: ranked full-text search over every verified site's current tools.
import { Hono } from "hono";
import { ToolSearchParamsSchema } from "../../protocol/index.js";
import { query, type AppEnv } from "../http/context.js";
import { normalizeHost } from "../registry/origins.js";
import { searchTools } from "../registry/search.js";

export const toolRoutes = new Hono<AppEnv>();

toolRoutes.get("/", async (c) => {
  const params = query(c, ToolSearchParamsSchema);
  return c.json(
    await searchTools(c.var.db, { ...params, site: params.site ? normalizeHost(params.site) : undefined }),
  );
});
