// server.json objects (the official MCP Registry's server description) for the hub's MCP servers: a verified
// site's cloud tools at /mcp/sites/<host>, and the hub's own /mcp/registry. Pure functions of the hub's origin
// and a site's facts, shared by the registry API (registry-api.ts) and Server Cards.
// Follows the server.json schema 2025-12-11 (modelcontextprotocol/static @ a9ba437d,
// schemas/2025-12-11/server.schema.json): name 3..200 `ns/name`, title and description 1..100, remotes
// streamable-http. No `packages` (nothing installs locally), no `repository` (a site's source is not public).
import { cloudEndpoint } from "../registry/cloud.js";
import { REGISTRY_SERVER_PART, serverNameOf } from "./names.js";

export const SERVER_JSON_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/**
 * The hub's registry server's version: the version /mcp/registry reports as its serverInfo (server.json's
 * `version` is MCP's Implementation.version). The hub has no release numbers; this changes with that server.
 */
export const REGISTRY_SERVER_VERSION = "0.1.0";

export interface ServerJson {
  $schema: string;
  name: string;
  title?: string;
  description: string;
  version: string;
  websiteUrl: string;
  remotes: Array<{ type: "streamable-http"; url: string }>;
}

/** `text` trimmed, at most `max` characters (code points, as JSON Schema counts), cut with "…"; null if empty. */
export function clip(text: string | null | undefined, max = 100): string | null {
  const chars = Array.from((text ?? "").replace(/\s+/g, " ").trim());
  if (chars.length === 0) return null;
  return chars.length <= max
    ? chars.join("")
    : chars
        .slice(0, max - 1)
        .join("")
        .trimEnd() + "…";
}

/** What a site's server.json is made of: its registry facts and one manifest version's texts. */
export interface SiteServerFacts {
  host: string;
  origin: string;
  version: number;
  /** The manifest's `name` (else the site's), as the title. */
  title: string | null;
  description: string | null;
}

/** A verified site's cloud tools as a remote MCP server: `<reversed host>/webmcp`, version = manifest version. */
export function siteServerJson(hub: string, site: SiteServerFacts): ServerJson {
  const title = clip(site.title);
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: serverNameOf(site.host),
    ...(title ? { title } : {}),
    description:
      clip(site.description) ?? clip(`WebMCP tools of ${site.host}, run by webmcp-hub in its browser`)!,
    version: String(site.version),
    websiteUrl: site.origin,
    remotes: [{ type: "streamable-http", url: cloudEndpoint(hub, site.host) }],
  };
}

/** The hub's own /mcp/registry: `<reversed hub host>/registry`, searching the hub's marketplace of WebMCP tools. */
export function hubServerJson(hub: string): ServerJson {
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: serverNameOf(new URL(hub).host, REGISTRY_SERVER_PART),
    title: "webmcp-hub marketplace",
    description: "Search the WebMCP tools websites publish on this hub, and the sites' cloud MCP servers.",
    version: REGISTRY_SERVER_VERSION,
    websiteUrl: `${hub}/`,
    remotes: [{ type: "streamable-http", url: `${hub}/mcp/registry` }],
  };
}
