// The REST answers the dashboard's browser scripts (web/client) read, as types. Types only: importing this
// costs a browser bundle nothing. The Worker's functions that build these answers are declared to return them.
import type { ExportFormat } from "./api.js";
import type { AuditStatus } from "./channels.js";
import type { ProviderKind } from "./frames.js";
import type { Manifest } from "./manifest.js";
import type { JsonSchemaObject, ToolAnnotations } from "./tool.js";
import type { PublicUsage } from "./usage.js";
import type { ToolVerification, VerificationPolicy, VerificationStatus } from "./verification.js";
import type { CallToolResult } from "./results.js";
import type { DefinitionFinding } from "./tool-checks.js";
import type { ToolPolicy } from "./agent-policy.js";

export interface ChannelView {
  id: string;
  name: string;
  strictNames: boolean;
  /** What agents may call by verification (PATCH /api/channels/:id changes it). */
  verificationPolicy: VerificationPolicy;
  createdAt: string;
}

/** POST /api/channels: the owner key, agent token and pairing code are shown this once. */
export interface CreatedChannel {
  channel: ChannelView;
  ownerKey: string;
  agentToken: string;
  agentTokenId: string;
  /** What the hub calls the agent token created with the channel (the approval and the audit show it). */
  agentTokenLabel: string;
  mcpUrl: string;
  mcpCapabilityUrl: string;
  pairingCode: string;
  pairingCodeExpiresAt: string;
}

export interface ProviderView {
  id: string;
  /** The provider token's id: DELETE /api/channels/:id/providers/:tokenId disconnects it. */
  tokenId: string;
  kind: ProviderKind;
  /** Origin host for a tab, the paired label for a sidecar. */
  label: string;
  origin: string | null;
  /** Whether the tab paired from a browser page (false: a script did); null when not recorded. */
  pairedFromPage: boolean | null;
  /** "extension": a tab relayed by the browser extension (its tokenId is the extension's, shared by its tabs). */
  via: "extension" | null;
  /** Self-reported by the tab: `url` is null unless on the tab's own origin. */
  page: { url: string | null; title: string } | null;
  connectedAt: string;
  lastActiveAt: string;
  tools: string[];
}

export interface ChannelToolView {
  /** The name agents call. */
  name: string;
  /** The name the provider registered. */
  originalName: string;
  title: string | null;
  description: string;
  readOnly: boolean;
  label: string;
  origin: string | null;
  providers: number;
  /** A tab tool checked against its origin's published manifest; null: a sidecar's tool, or not checked. */
  verification: ToolVerification | null;
}

export interface AgentTokenView {
  id: string;
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

/** GET /api/channels/:id (owner key): the channel, its live providers and tools, its agent tokens. */
export interface ChannelSnapshot {
  channel: ChannelView;
  mcpUrl: string;
  providers: ProviderView[];
  tools: ChannelToolView[];
  agentTokens: AgentTokenView[];
  /** Browsers whose extension is connected to open an added tool's page on demand (its control sockets). */
  extensionsConnected: number;
  /** When the owner paused the channel (ISO time), or null while it runs. */
  paused: string | null;
  /** Each agent's tool policy other than "all", by agent (an agent token's id, or `oauth:<grantId>`). */
  policies: Record<string, ToolPolicy>;
}

/** POST /api/channels/:id/pairing-codes */
export interface PairingCodeView {
  pairingCode: string;
  expiresAt: string;
}

/** POST /api/pair: the provider token (shown this once) and where to connect it. */
export interface PairedView {
  channelId: string;
  /** The channel's name (what the extension's popup shows). */
  channelName: string;
  providerToken: string;
  providerTokenId: string;
  /** ws(s)://HUB/relay/:channelId */
  relayUrl: string;
  label: string;
}

/** POST /api/channels/:id/agent-tokens: the token is shown this once. */
export interface CreatedAgentToken {
  id: string;
  label: string;
  agentToken: string;
  mcpUrl: string;
  mcpCapabilityUrl: string;
}

export interface AuditEntry {
  id: string;
  tool: string;
  status: AuditStatus;
  agentTokenId: string | null;
  /** The agent's name when it called: its token's label, or the OAuth app's name (null: an older row). */
  agent: string | null;
  provider: { id: string; label: string | null; origin: string | null } | null;
  argBytes: number;
  argSha256: string;
  durationMs: number | null;
  message: string | null;
  /** The tool's verification when called; null: not a tab's tool, unchecked, or before verification existed. */
  verification: VerificationStatus | null;
  at: string;
}

/** GET /api/channels/:id/audit */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

/** One call of POST /api/channels/:id/calls (`{results: [...]}`). */
export interface PlainCallResult {
  name: string;
  arguments: Record<string, unknown>;
  status: AuditStatus;
  result: CallToolResult;
}

/** How a site proves it controls its origin (POST /api/sites). */
export interface ChallengeView {
  token: string;
  expiresAt: string;
  http: { url: string; contentType: "text/plain"; body: string };
  dns: { name: string; type: "TXT"; value: string };
}

export interface SiteSummary {
  host: string;
  origin: string;
}

/** POST /api/sites */
export interface RegisteredSiteView {
  site: SiteSummary;
  challenge: ChallengeView;
  claimSecret: string;
}

/** POST /api/sites/:host/verify and POST /api/sites/:host/keys: the key is shown this once. */
export interface PublisherKeyView {
  publisherKey: string;
}

/** PUT /api/sites/:host/cloud: the site with its owner's switch for cloud runs. */
export interface SiteCloudView {
  site: SiteSummary & { cloudEnabled: boolean };
}

/** A WebMCP manifest (may be the manifest source) or MCP server (listed only) a site's ai-catalog.json lists. */
export interface SiteCatalogEntry {
  identifier: string;
  type: string;
  url: string;
  kind: "webmcp" | "mcp";
  displayName?: string | undefined;
  description?: string | undefined;
  version?: string | undefined;
  updatedAt?: string | undefined;
}

/** PUT /api/sites/:host/manifest-source and POST /api/sites/:host/catalog/refresh. */
export interface SiteCatalogView {
  host: string;
  /** Where a manifest refresh pulls from; null is the default, /.well-known/webmcp.json. */
  manifestSource: string | null;
  catalog: {
    url: string;
    checkedAt: string | null;
    /** Why the last read could not be used; null when it was read or the site serves none. */
    error: string | null;
    entries: SiteCatalogEntry[];
    ignored: Array<{ identifier: string; reason: string }>;
  };
}

/** PUT /api/sites/:host/manifest */
export interface PublishResultView {
  host: string;
  version: number;
  sha256: string;
  toolCount: number;
  publishedAt: string;
  /** True when the manifest equals the current version: nothing new was stored. */
  unchanged: boolean;
  /** The definition checks' warnings ({path, code, message}); the manifest was published anyway. */
  warnings: DefinitionFinding[];
}

/** How a manifest version reached the hub: the publish API, a refresh from the site, or the seed. */
export type ManifestSource = "api" | "refresh" | "seed";

/** GET /api/sites/:host/manifest */
export interface ManifestVersionView {
  host: string;
  version: number;
  publishedAt: string;
  sha256: string;
  source: ManifestSource;
  toolCount: number;
  current: boolean;
  manifest: Manifest;
  /** Each tool's definition digest in this version, by tool name (derived from the stored manifest). */
  digests: Record<string, string>;
}

/**
 * One tool of GET /api/tools (search) and of a site's tools: `digest` is its definition digest (lowercase hex
 * SHA-256 of RFC 8785 JSON; see src/protocol/digest.ts), null until the daily maintenance backfills an older row.
 */
export interface RegistryToolView {
  site: string;
  origin: string;
  name: string;
  title: string | null;
  description: string;
  readOnly: boolean;
  annotations: ToolAnnotations;
  inputSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject | null;
  version: number;
  updatedAt: string;
  /** null until the daily maintenance backfills an older row. */
  digest: string | null;
  /** The hub runs it with no tab open (a published `"cloud": true` on a verified, listed site with runs on). */
  cloud: boolean;
  /** The site's public MCP endpoint, `HUB/mcp/sites/<host>`, where `cloud` tools run; null when not `cloud`. */
  cloudEndpoint: string | null;
  /** Calls and distinct channels over the last 30 days; null unless at least 5 channels called (search only). */
  usage?: PublicUsage;
  /** The definition checks' findings on the stored definition ({path, code, message}); paths start at the tool. */
  warnings: DefinitionFinding[];
}

/** GET /api/tools */
export interface ToolSearchPage {
  tools: RegistryToolView[];
  nextCursor: string | null;
}

/** GET /api/sites/:host/tools?format=: `digests` maps each original tool name to its definition digest. */
export interface ToolExportView {
  format: ExportFormat;
  site: string;
  origin: string;
  /** Ready to paste as the `tools` value of that API's request. */
  tools: unknown[];
  /** exported name → original name, for every name the format required us to change. */
  names: Record<string, string>;
  digests: Record<string, string>;
}

/** A marketplace tool added to a channel (GET /api/channels/:id/tools). */
export interface AddedChannelToolView {
  host: string;
  /** The tool's published name. */
  name: string;
  addedAt: string;
  /**
   * `listed`: agents see it (from the registry while no tab offers it). Otherwise why not: the site is no
   * longer verified, was delisted, or its current manifest no longer publishes the tool.
   */
  status: "listed" | "site_unverified" | "site_delisted" | "unpublished";
  /** Why it is not listed (null when listed). */
  reason: string | null;
  site: { host: string; origin: string; status: string; version: number | null };
  /** The current published definition (null when the current manifest does not publish it). */
  definition: Manifest["tools"][number] | null;
  /** The page of the site that registers it (its manifest `pages`, first one), absolute; null: none given. */
  page: string | null;
}
