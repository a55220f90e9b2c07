// /mcp/sites/<host>: a public MCP server per listed site whose tools are that site's cloud tools, under their
// own names, run by the hub in its own browser (cloud/); no credentials, stateless, both protocol eras (the
// same machinery as /mcp/registry, mcp/stateless.ts). The list is read from D1 on every request, so a
// republish, a delisting or the owner's switch shows at once; `tools.listChanged` is false (no sessions to
// tell), and the list's 2026 cache hint is short and public (the same for every caller).
//
// Decisions:
// - An unknown or never-verified host is 404, a delisted one 410, as /api/sites/<host> answers. A site whose
//   verification lapsed, whose owner switched cloud runs off, or a hub with CLOUD_RUNS=off still answers:
//   tools/list is empty and the server's instructions say why; calling a tool the site marks cloud is an
//   isError saying why, so an agent that listed it a moment ago learns what changed.
// - A tool the site publishes without `"cloud": true` is not listed; calling it is an isError saying so (it
//   exists, it only does not run here). A name the site does not publish is a JSON-RPC error (-32602).
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/server";
import { LIMITS, META_PROVIDER } from "../../protocol/index.js";
import { callInCloud, underHubSwitch } from "../cloud/call.js";
import { CLOUD_OFF_MESSAGE } from "../cloud/run.js";
import type { Db } from "../db/client.js";
import {
  cloudRunsOn,
  cloudTools,
  siteAndCloudTool,
  type CloudSite,
  type CloudTool,
  type CloudToolLookup,
} from "../registry/cloud.js";
import { serverNameOf } from "../discovery/names.js";
import { DIGEST_META_KEY } from "../registry/export.js";
import { normalizeHost } from "../registry/origins.js";
import { getVerifiedSite, listedSite } from "../registry/sites.js";
import { META_TIMEOUT } from "./channel-server.js";
import { serveStatelessMcp } from "./stateless.js";

/** The list changes only when the site republishes or its state changes: a minute, shared by all callers. */
const SITE_CACHE = { ttlMs: 60_000, cacheScope: "public" } as const;

/** A site's cloud tools as MCP tools, each naming its provider (`cloud`) and published digest in `_meta`. */
export function siteCloudTools(tools: CloudTool[]): Tool[] {
  return tools.map(({ site, origin, tool, digest }) => ({
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema as Tool["outputSchema"] }),
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
    _meta: { [META_PROVIDER]: { kind: "cloud", origin, site }, [DIGEST_META_KEY]: digest },
  }));
}

/** Why none of a listed site's tools runs in the cloud now (null: those it marks cloud do). */
function siteOff(env: Env, site: CloudSite): string | null {
  if (!cloudRunsOn(env)) return CLOUD_OFF_MESSAGE;
  if (site.status !== "verified")
    return `${site.host}'s verification lapsed; its tools do not run in the cloud until it is verified again.`;
  if (!site.cloudEnabled) return `The owner of ${site.host} has turned cloud runs off for the site.`;
  return null;
}

/** A tools/call request's tool and its lookup, read with the site (one D1 query for the whole call). */
interface Prefetched {
  name: string;
  lookup: CloudToolLookup;
}

function createSiteServer(env: Env, db: Db, site: CloudSite, prefetched?: Prefetched): Server {
  const off = siteOff(env, site);
  const server = new Server(
    // As its server.json and Server Card say (discovery/): the reversed host, the manifest version.
    {
      name: serverNameOf(site.host),
      title: `${site.name ?? site.host} on webmcp-hub`,
      version: String(site.currentVersion ?? 0),
    },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: off
        ? `No tools of ${site.host} run in the cloud now: ${off}`
        : `Tools of ${site.host} (${site.origin}), run by webmcp-hub in its own browser on the site's published pages, with no user signed in. They only read.`,
      cacheHints: { "tools/list": SITE_CACHE, "server/discover": SITE_CACHE },
    },
  );
  const listed = () => (off ? Promise.resolve([]) : cloudTools(db, site.host, true));
  server.setRequestHandler("tools/list", async () => ({ tools: siteCloudTools(await listed()) }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args = {}, _meta } = request.params;
    const timeout = _meta?.[META_TIMEOUT];
    const outcome = await callInCloud(
      env,
      db,
      {
        site: site.host,
        name,
        arguments: args,
        via: "public",
        timeoutMs: typeof timeout === "number" ? timeout : undefined,
        signal: ctx.mcpReq.signal,
      },
      prefetched?.name === name ? underHubSwitch(env, prefetched.lookup) : undefined,
    );
    if (outcome.unknownTool) {
      const names = (await listed()).map((t) => t.tool.name);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${site.host} does not publish a tool named "${name}". ${names.length ? `Its tools that run in the cloud: ${names.join(", ")}.` : "None of its tools run in the cloud now."}`,
      );
    }
    return server.projectCallToolResult(outcome.result as CallToolResult, outcome.outputSchema);
  });
  return server;
}

/** Serves one request to /mcp/sites/<host>; throws 404 site_not_found or 410 site_delisted. */
export async function handleSiteMcp(request: Request, env: Env, db: Db, host: string): Promise<Response> {
  const name = await calledTool(request);
  if (name === undefined) {
    const site = await getVerifiedSite(db, host);
    return serveStatelessMcp(request, () => createSiteServer(env, db, site));
  }
  const { site, lookup } = await siteAndCloudTool(db, host, name);
  const listed = listedSite(normalizeHost(host), site);
  return serveStatelessMcp(request, () => createSiteServer(env, db, listed, { name, lookup }));
}

/**
 * The tool a single tools/call request names (undefined for anything else, a batch, or a body too large or
 * not JSON: those are left to the transport, which answers them). Read ahead so the call's site and tool
 * come from one D1 query.
 */
async function calledTool(request: Request): Promise<string | undefined> {
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (request.method !== "POST" || !(length > 0 && length <= LIMITS.mcpRequestBytes)) return undefined;
  try {
    const body: unknown = await request.clone().json();
    if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
    const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
    return method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
  } catch {
    return undefined;
  }
}
