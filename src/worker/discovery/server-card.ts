// (issue 24, part 3) MCP Server Cards (SEP-2127) for the hub's MCP endpoints.
import { Hono } from "hono";
import type { AppEnv } from "../http/context.js";

export const serverCardRoutes = new Hono<AppEnv>();
