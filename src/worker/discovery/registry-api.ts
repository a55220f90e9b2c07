// (issue 24, part 1) The official MCP Registry's read API: GET /v0/servers…, /v0.1/servers…, /server.json.
import { Hono } from "hono";
import type { AppEnv } from "../http/context.js";

export const registryApiRoutes = new Hono<AppEnv>();
