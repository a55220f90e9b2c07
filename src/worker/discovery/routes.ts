// Discovery: where agents and MCP clients look for servers without asking the hub in its own way.
//   registry-api.ts  the official MCP Registry's read API (/v0/servers…, /v0.1/servers…) and the hub's server.json
//   server-card.ts   MCP Server Cards (SEP-2127) at <endpoint>/server-card for /mcp/registry, /mcp/sites/<host>
//                    and channel endpoints
//   ai-catalog.ts    the Agentic Resource Discovery catalog, /.well-known/ai-catalog.json, and sites' catalog pages
//   names.ts         the server names all of them use
import { Hono } from "../http/hono.js";
import type { AppEnv } from "../http/context.js";
import { aiCatalogRoutes } from "./ai-catalog.js";
import { registryApiRoutes } from "./registry-api.js";
import { serverCardRoutes } from "./server-card.js";

export const discoveryRoutes = new Hono<AppEnv>();
discoveryRoutes.route("/", registryApiRoutes);
discoveryRoutes.route("/", serverCardRoutes);
discoveryRoutes.route("/", aiCatalogRoutes);
