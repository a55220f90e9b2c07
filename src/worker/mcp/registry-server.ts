// /mcp/registry: a public, stateless MCP server (Streamable HTTP) whose tools search the marketplace, for
// both protocol eras per request (SDK v2 `createMcpHandler`: 2026-07-28 natively, 2025-era requests through
// its stateless fallback, each answered by a fresh low-level server). The tool list never changes while the
// Worker runs, so its 2026 cache hint is long and public: the same list for every caller, no credentials.
// Each tool in a result carries its definition digest as `_meta["webmcp-hub/digest"]` (search_tools' entries;
// get_site's MCP-shaped definitions, and every format's `digests` envelope: see registry/export.ts).
//
// propose_tools ("an agent may propose; the user confirms in the dashboard"): this server is public
// and knows no user, so a proposal is a link, never stored state. It runs the REST add's checks without
// storing (channels/added-tools.ts checkAddable) and answers `HUB/sites/<host>/add?tool=…[&channel=…]`,
// the dashboard page where the signed-in user chooses the channel and confirms. Decisions: the channel id is
// only carried into the link, never looked up (an unauthenticated caller learns nothing about which channels
// exist; the page checks the user owns it); the link's origin is the origin the request reached, as every other
// hub URL the Worker answers; it changes nothing, so it is read-only.
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import { ExportFormatSchema, LIMITS, PublicUsageSchema, fieldIssues } from "../../protocol/index.js";
import { checkAddable } from "../channels/added-tools.js";
import type { Db } from "../db/client.js";
import { hubServerJson } from "../discovery/server-json.js";
import { HubError } from "../http/errors.js";
import { storedManifestDigests } from "../registry/digests.js";
import { DIGEST_META_KEY, exportTools } from "../registry/export.js";
import { normalizeHost } from "../registry/origins.js";
import { cloudEndpoint, type CloudContext } from "../registry/cloud.js";
import { searchTools, siteTools } from "../registry/search.js";
import { getVerifiedSite, siteView } from "../registry/sites.js";
import { serveStatelessMcp } from "./stateless.js";

/** What every tool calls a site: its host. */
const SITE_DESCRIPTION = "The site's host, like shop.example.com";

const SearchToolsArgs = z
  .object({
    query: z
      .string()
      .max(200)
      .optional()
      .describe("Words to look for in tool names, titles and descriptions"),
    site: z
      .string()
      .max(300)
      .optional()
      .describe(`Only tools of this site: ${SITE_DESCRIPTION.toLowerCase()}`),
    readOnly: z
      .boolean()
      .optional()
      .describe("true: only tools that change nothing; false: only tools that do"),
    limit: z.number().int().min(1).max(50).default(10).describe("How many tools to return (1-50)"),
    cursor: z.string().max(1024).optional().describe("nextCursor from a previous call, for the next page"),
  })
  .strict();

// get_site named its argument `host` where the other tools say `site`; `site` is the one name now, and `host`
// stays accepted so existing callers keep working (both in the schema, so strict clients may send either).
const GetSiteArgs = z
  .object({
    site: z.string().min(1).max(300).optional().describe(`${SITE_DESCRIPTION} (required)`),
    host: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe("Older name of `site`, still accepted; send `site` instead"),
    format: ExportFormatSchema.default("mcp").describe("Shape of the returned tool definitions"),
  })
  .strict()
  .refine((a) => a.site !== undefined || a.host !== undefined, {
    path: ["site"],
    message: `required: ${SITE_DESCRIPTION.toLowerCase()}`,
  })
  .refine((a) => a.site === undefined || a.host === undefined || a.site === a.host, {
    path: ["host"],
    message: "names a different site than `site`; send only `site`",
  })
  .transform(({ site, host, format }) => ({ site: (site ?? host)!, format }));

const ProposeToolsArgs = z
  .object({
    site: z.string().min(1).max(253).describe(SITE_DESCRIPTION),
    tools: z
      .array(z.string().min(1).max(LIMITS.toolNameMax))
      .min(1)
      .max(LIMITS.toolsPerProvider)
      .optional()
      .describe(
        "The tools to propose, by their published names; leave out to propose every tool of the site",
      ),
    channel: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, "a channel id: letters, digits, - and _")
      .optional()
      .describe(
        "The channel to add them to: its id, the last part of your channel MCP URL <hub>/mcp/<channelId> (never a token). Leave out to let the user choose.",
      ),
  })
  .strict();

const ToolSummary = z.object({
  site: z.string(),
  origin: z.string(),
  name: z.string(),
  title: z.string().nullable(),
  description: z.string(),
  readOnly: z.boolean(),
  inputSchema: z.record(z.string(), z.unknown()),
  cloud: z.boolean(),
  cloudEndpoint: z.string().nullable(),
  usage: PublicUsageSchema.describe(
    "Calls and distinct channels over the last 30 days; null unless at least 5 channels called.",
  ),
  _meta: z.object({ [DIGEST_META_KEY]: z.string() }).optional(),
});
const SearchToolsOutput = z.object({ tools: z.array(ToolSummary), nextCursor: z.string().nullable() });
const GetSiteOutput = z.object({
  site: z.object({
    host: z.string(),
    origin: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    currentVersion: z.number().nullable(),
    verificationMethod: z.string().nullable(),
  }),
  format: ExportFormatSchema,
  tools: z.array(z.unknown()),
  names: z.record(z.string(), z.string()),
  digests: z.record(z.string(), z.string()),
  cloudEndpoint: z.string().nullable(),
  cloudTools: z.array(z.string()),
});

const ProposeToolsOutput = z.object({
  url: z.string(),
  site: z.string(),
  tools: z.array(
    z.object({ name: z.string(), title: z.string().nullable(), readOnly: z.boolean(), digest: z.string() }),
  ),
});

function jsonSchema(schema: z.ZodType): Tool["inputSchema"] {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest as Tool["inputSchema"];
}

export const REGISTRY_TOOLS: Tool[] = [
  {
    name: "search_tools",
    title: "Search WebMCP tools",
    description:
      "Search the webmcp-hub marketplace for tools that websites expose to AI agents with WebMCP. Returns matching tools (best first) with their site, description and input schema; a tool with cloud true runs with no tab open at its cloudEndpoint (MCP, no credentials).",
    inputSchema: jsonSchema(SearchToolsArgs),
    outputSchema: jsonSchema(SearchToolsOutput),
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  },
  {
    name: "get_site",
    title: "Get a site's tools",
    description:
      "Get one verified site from the webmcp-hub marketplace with all its current tools, as MCP tool definitions or in OpenAI, Anthropic or Gemini function-calling shape.",
    inputSchema: jsonSchema(GetSiteArgs),
    outputSchema: jsonSchema(GetSiteOutput),
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  },
  {
    name: "propose_tools",
    title: "Propose adding a site's tools to a channel",
    description:
      "Propose adding a verified site's tools (chosen ones, or all) to the user's webmcp-hub channel, so that they can be called even with no tab of the site open. Adds nothing itself: it checks the site and tools and returns a link the user opens to sign in, choose the channel and confirm.",
    inputSchema: jsonSchema(ProposeToolsArgs),
    outputSchema: jsonSchema(ProposeToolsOutput),
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  },
];

/** The registry's tool list is fixed for a deployment: cacheable by anyone for an hour. */
const REGISTRY_CACHE = { ttlMs: 60 * 60 * 1000, cacheScope: "public" } as const;

/** `cloud.hub`: the origin propose_tools' links and cloud endpoints point at (the one the request reached). */
export function createRegistryServer(db: Db, cloud: CloudContext): Server {
  const hubOrigin = cloud.hub;
  const server = new Server(
    // As its server.json and Server Card say (discovery/server-json.ts).
    (({ name, title, version }) => ({ name, title: title!, version }))(hubServerJson(hubOrigin)),
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "Use search_tools to find website tools by what they do, then get_site for a site's full tool definitions. To let the user's agents call a site's tools with no tab open, propose_tools returns a link the user opens to confirm adding them to a channel.",
      cacheHints: { "tools/list": REGISTRY_CACHE, "server/discover": REGISTRY_CACHE },
    },
  );
  server.setRequestHandler("tools/list", () => ({ tools: REGISTRY_TOOLS }));
  server.setRequestHandler("tools/call", async (request) => {
    const { name, arguments: args = {} } = request.params;
    if (name === "search_tools") return runTool(SearchToolsArgs, args, (a) => searchToolsCall(db, cloud, a));
    if (name === "get_site") return runTool(GetSiteArgs, args, (a) => getSiteCall(db, cloud, a));
    if (name === "propose_tools")
      return runTool(ProposeToolsArgs, args, (a) => proposeToolsCall(db, hubOrigin, a));
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${name}. Available tools: ${REGISTRY_TOOLS.map((t) => t.name).join(", ")}.`,
    );
  });
  return server;
}

async function runTool<S extends z.ZodType>(
  schema: S,
  args: unknown,
  run: (a: z.infer<S>) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const text = fieldIssues(parsed.error)
      .map((i) => `${i.path}: ${i.message}`)
      .join("; ");
    return { isError: true, content: [{ type: "text", text: `Invalid arguments: ${text}.` }] };
  }
  try {
    return await run(parsed.data);
  } catch (e) {
    if (e instanceof HubError) return { isError: true, content: [{ type: "text", text: e.message }] };
    throw e;
  }
}

async function searchToolsCall(
  db: Db,
  cloud: CloudContext,
  a: z.infer<typeof SearchToolsArgs>,
): Promise<CallToolResult> {
  const result = await searchTools(
    db,
    {
      q: a.query,
      site: a.site ? normalizeHost(a.site) : undefined,
      readOnly: a.readOnly,
      limit: a.limit,
      cursor: a.cursor,
    },
    cloud,
  );
  const structured = {
    tools: result.tools.map((t) => ({
      site: t.site,
      origin: t.origin,
      name: t.name,
      title: t.title,
      description: t.description,
      readOnly: t.readOnly,
      inputSchema: t.inputSchema,
      cloud: t.cloud,
      cloudEndpoint: t.cloudEndpoint,
      usage: t.usage ?? null,
      ...(t.digest ? { _meta: { [DIGEST_META_KEY]: t.digest } } : {}),
    })),
    nextCursor: result.nextCursor,
  };
  const lines = structured.tools.map(
    (t) =>
      `- ${t.name} (${t.site}${t.readOnly ? ", read-only" : ""}${t.usage ? `, ${t.usage.calls30d} calls from ${t.usage.channels30d} channels in 30 days` : ""}${t.cloudEndpoint ? `, runs in the cloud: ${t.cloudEndpoint}` : ""}): ${t.description}`,
  );
  const summary = structured.tools.length
    ? `Found ${structured.tools.length} tool${structured.tools.length === 1 ? "" : "s"}${result.nextCursor ? " (more with nextCursor)" : ""}:\n${lines.join("\n")}`
    : "No tools matched. Try fewer or different words.";
  return {
    content: [
      { type: "text", text: summary },
      { type: "text", text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

async function getSiteCall(
  db: Db,
  cloud: CloudContext,
  a: z.infer<typeof GetSiteArgs>,
): Promise<CallToolResult> {
  const site = await getVerifiedSite(db, a.site);
  const view = siteView(site);
  const tools = await siteTools(db, site.host, cloud);
  const exported = exportTools(a.format, site, tools);
  const cloudTools = tools.filter((t) => t.cloud).map((t) => t.name);
  const endpoint = cloudTools.length ? cloudEndpoint(cloud.hub, site.host) : null;
  const structured = {
    site: {
      host: view.host,
      origin: view.origin,
      name: view.name,
      description: view.description,
      currentVersion: view.currentVersion,
      verificationMethod: view.verificationMethod,
    },
    format: a.format,
    tools: exported.tools,
    names: exported.names,
    digests: exported.digests,
    cloudEndpoint: endpoint,
    cloudTools,
  };
  const cloudText = endpoint
    ? ` ${cloudTools.join(", ")} run${cloudTools.length === 1 ? "s" : ""} with no tab open at ${endpoint} (MCP, no credentials).`
    : "";
  const text = `${view.name ?? view.host} (${view.origin}), manifest version ${view.currentVersion ?? "none"}, ${view.toolCount} tool${view.toolCount === 1 ? "" : "s"}.${cloudText}`;
  return {
    content: [
      { type: "text", text },
      { type: "text", text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

/** The dashboard page that adds `names` (all when absent) of `host` to a channel once the user confirms. */
export function proposalUrl(hubOrigin: string, host: string, names?: string[], channel?: string): string {
  const query = [
    ...(names ?? []).map((n) => `tool=${encodeURIComponent(n)}`),
    ...(channel ? [`channel=${encodeURIComponent(channel)}`] : []),
  ];
  return `${hubOrigin}/sites/${encodeURIComponent(host)}/add${query.length ? `?${query.join("&")}` : ""}`;
}

async function proposeToolsCall(
  db: Db,
  hubOrigin: string,
  a: z.infer<typeof ProposeToolsArgs>,
): Promise<CallToolResult> {
  const host = normalizeHost(a.site);
  const { wanted, published, manifest } = await checkAddable(db.$client, host, a.tools);
  const digests = await storedManifestDigests(manifest);
  const tools = wanted.map((name) => {
    const def = published.get(name)!;
    return {
      name,
      title: def.title ?? def.annotations?.title ?? null,
      readOnly: def.annotations?.readOnlyHint === true,
      digest: digests[name]!,
    };
  });
  const structured = {
    url: proposalUrl(hubOrigin, host, a.tools ? wanted : undefined, a.channel),
    site: host,
    tools,
  };
  const text = [
    `Proposed adding ${a.tools ? `${tools.length} tool${tools.length === 1 ? "" : "s"}` : `all ${tools.length} tools`} of ${host}${a.channel ? ` to channel ${a.channel}` : ""}: ${wanted.join(", ")}.`,
    `Nothing was added yet: ask the user to open this link, sign in if needed, choose the channel and confirm.`,
    structured.url,
  ].join("\n");
  return {
    content: [
      { type: "text", text },
      { type: "text", text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

/** Handles one HTTP request statelessly, in the era the request speaks, with JSON responses (stateless.ts). */
export async function handleRegistryMcp(request: Request, db: Db, cloud: CloudContext): Promise<Response> {
  return serveStatelessMcp(request, () => createRegistryServer(db, cloud));
}
