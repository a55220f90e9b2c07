// (issue 24, part 4) The Agentic Resource Discovery catalog: /.well-known/ai-catalog.json and sites' catalog pages.
import { Hono } from "hono";
import type { AppEnv } from "../http/context.js";

export const aiCatalogRoutes = new Hono<AppEnv>();
