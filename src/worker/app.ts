// The Hono app: API, MCP endpoints and server-rendered pages, composed from sub-apps.
import { Hono } from "./http/hono.js";
import { cors } from "hono/cors";
import { manifestJsonSchema } from "../protocol/index.js";
import { hubContext, type AppEnv } from "./http/context.js";
import { HubError, renderError } from "./http/errors.js";
import { securityHeaders } from "./http/security-headers.js";
import { handleRegistryMcp } from "./mcp/registry-server.js";
import { handleSiteMcp } from "./mcp/site-server.js";
import { rateLimit } from "./http/rate-limit.js";
import { cloudContextOf } from "./registry/cloud.js";
import { siteRoutes } from "./routes/sites.js";
import { toolRoutes } from "./routes/tools.js";
import { tryRoutes } from "./routes/try.js";
import { channelRoutes, pairRoutes } from "./routes/channels.js";
import { downloadRoutes } from "./routes/downloads.js";
import { discoveryRoutes } from "./discovery/routes.js";
import { mcpRoutes, relayRoutes } from "./routes/relay.js";
import { accountRoutes } from "./routes/account.js";
import { oauthRoutes } from "./oauth/routes.js";
import { pageRoutes } from "../../web/pages/routes.js";

export function createApp() {
  const app = new Hono<AppEnv>();
  // First, so that errors, 404s and static files get their headers too.
  app.use("*", securityHeaders());
  app.use("*", hubContext());
  // The public read API and the public MCP servers (the registry, sites' cloud tools) may be used from any page.
  app.use(
    "/api/*",
    cors({
      origin: "*",
      allowHeaders: ["authorization", "content-type"],
      allowMethods: ["GET", "POST", "PUT", "DELETE"],
    }),
  );
  const publicMcp = cors({
    origin: "*",
    allowHeaders: [
      "authorization",
      "content-type",
      "mcp-protocol-version",
      "mcp-session-id",
      "mcp-method",
      "mcp-name",
      "last-event-id",
    ],
    exposeHeaders: ["mcp-session-id"],
  });
  app.use("/mcp/registry", publicMcp);
  // A site's cloud tools (mcp/site-server.ts): public like the registry, each client's requests counted.
  app.use("/mcp/sites/:host", publicMcp);
  app.use(
    "/mcp/sites/:host",
    rateLimit({
      limiter: "CLOUD_CALLS",
      action: "site-mcp",
      what: "requests to sites' cloud MCP endpoints from your address",
    }),
  );

  app.route("/api/sites", siteRoutes);
  app.route("/api/sites", tryRoutes); // POST /api/sites/:host/tools/:name/try: Try it for a cloud tool
  app.route("/api/tools", toolRoutes);
  app.get("/schema/manifest.json", (c) => c.json(manifestJsonSchema()));
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.all("/mcp/registry", (c) => handleRegistryMcp(c.req.raw, c.var.db, cloudContextOf(c.var.hub, c.env)));
  app.all("/mcp/sites/:host", (c) => handleSiteMcp(c.req.raw, c.env, c.var.db, c.req.param("host")));
  // The MCP Registry API, Server Cards, the ARD catalog (discovery/): before /mcp, whose card paths they add.
  app.route("/", discoveryRoutes);
  app.route("/api/channels", channelRoutes);
  app.route("/api/pair", pairRoutes);
  app.route("/api/account", accountRoutes);
  app.route("/relay", relayRoutes);
  app.route("/mcp", mcpRoutes);
  app.route("/downloads", downloadRoutes); // the sidecar's npm package and the extension, stamped with this hub
  // OAuth for agents: metadata, token, registration and the authorize (consent) page.
  app.route("/", oauthRoutes);
  app.route("/", pageRoutes);

  app.notFound(async (c) => {
    if (c.req.path.startsWith("/api/") || c.req.path.startsWith("/mcp/")) {
      return renderError(
        new HubError(
          "not_found",
          `No endpoint ${c.req.method} ${c.req.path}. See the API list in docs/reference.md (or /docs).`,
        ),
        c,
      );
    }
    return c.env.ASSETS.fetch(c.req.raw);
  });
  app.onError(renderError);
  return app;
}
