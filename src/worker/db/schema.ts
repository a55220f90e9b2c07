// D1 schema of the registry (drizzle). Migrations in migrations/ are generated from this file by drizzle-kit;
// the FTS5 index over tools is a hand-written migration (drizzle has no virtual tables).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { LATENCY_BUCKETS } from "../../protocol/usage.js";

/** A site is one origin. It becomes public once its owner proves control of the origin. */
export const sites = /* @__PURE__ */ sqliteTable(
  "sites",
  {
    host: text("host").primaryKey(),
    origin: text("origin").notNull(),
    /** `unverified`: was verified, then failed re-verification three times in a row (verify_error says why). */
    status: text("status", { enum: ["pending", "verified", "unverified"] }).notNull(),
    verificationMethod: text("verification_method", { enum: ["http", "dns"] }),
    verifiedAt: integer("verified_at", { mode: "number" }),
    name: text("name"),
    description: text("description"),
    currentVersion: integer("current_version", { mode: "number" }),
    toolCount: integer("tool_count", { mode: "number" }).notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
    /** The account that owns the site (registered while signed in, or claimed by its publisher key). */
    accountId: text("account_id"),
    /** Set when the publisher delisted the site: it leaves search and listings; feeds show a tombstone. */
    delistedAt: integer("delisted_at", { mode: "number" }),
    /** Scheduled re-verification: failures in a row, the last failure's reason, when it last ran. */
    verifyFailures: integer("verify_failures", { mode: "number" }).notNull().default(0),
    verifyError: text("verify_error"),
    verifyCheckedAt: integer("verify_checked_at", { mode: "number" }),
    /** The owner's switch for cloud runs of the whole site (its tools' `"cloud": true` stays published). */
    cloudEnabled: integer("cloud_enabled", { mode: "boolean" }).notNull().default(true),
    /** The site's /.well-known/ai-catalog.json as last read (registry/site-catalog.ts): JSON, null when none. */
    catalogEntries: text("catalog_entries"),
    /** Why the catalog could not be used at its last read (null: read, or none served), and when that was. */
    catalogError: text("catalog_error"),
    catalogCheckedAt: integer("catalog_checked_at", { mode: "number" }),
    /** The owner's choice of where a manifest refresh pulls from; null is /.well-known/webmcp.json. */
    manifestSource: text("manifest_source"),
  },
  (t) => [
    index("sites_status_updated").on(t.status, t.updatedAt),
    index("sites_account").on(t.accountId),
    /** The sites feed (`updated_since`, cursor) and the re-verification sweep. */
    index("sites_updated").on(t.updatedAt, t.host),
    index("sites_verify_due").on(t.status, t.verifyCheckedAt),
  ],
);

/** An ownership challenge. The claim secret (hashed) authorizes the verify call that answers it. */
export const challenges = /* @__PURE__ */ sqliteTable(
  "challenges",
  {
    id: text("id").primaryKey(),
    host: text("host")
      .notNull()
      .references(() => sites.host, { onDelete: "cascade" }),
    token: text("token").notNull(),
    claimSecretHash: text("claim_secret_hash").notNull().unique(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    usedAt: integer("used_at", { mode: "number" }),
    attempts: integer("attempts", { mode: "number" }).notNull().default(0),
  },
  (t) => [index("challenges_host").on(t.host), index("challenges_expires").on(t.expiresAt)],
);

/** Publisher keys: only the SHA-256 is stored; the key itself is shown once. */
export const publisherKeys = /* @__PURE__ */ sqliteTable(
  "publisher_keys",
  {
    id: text("id").primaryKey(),
    host: text("host")
      .notNull()
      .references(() => sites.host, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    /** What the owner calls this key, shown where the account lists its keys. */
    label: text("label"),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [index("publisher_keys_host").on(t.host)],
);

/** Immutable manifest versions; `sites.current_version` points at the current one. */
export const manifestVersions = /* @__PURE__ */ sqliteTable(
  "manifest_versions",
  {
    host: text("host")
      .notNull()
      .references(() => sites.host, { onDelete: "cascade" }),
    version: integer("version", { mode: "number" }).notNull(),
    manifest: text("manifest").notNull(),
    sha256: text("sha256").notNull(),
    sizeBytes: integer("size_bytes", { mode: "number" }).notNull(),
    toolCount: integer("tool_count", { mode: "number" }).notNull(),
    source: text("source", { enum: ["api", "refresh", "seed"] }).notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("manifest_versions_host_version").on(t.host, t.version)],
);

/** The current version's tools, one row each, indexed by tools_fts for search. */
export const tools = /* @__PURE__ */ sqliteTable(
  "tools",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    host: text("host")
      .notNull()
      .references(() => sites.host, { onDelete: "cascade" }),
    version: integer("version", { mode: "number" }).notNull(),
    name: text("name").notNull(),
    title: text("title"),
    description: text("description").notNull(),
    inputSchema: text("input_schema").notNull(),
    outputSchema: text("output_schema"),
    annotations: text("annotations")
      .notNull()
      .default(sql`'{}'`),
    readOnly: integer("read_only", { mode: "boolean" }).notNull().default(false),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
    /**
     * The definition digest: lowercase hex SHA-256 of the RFC 8785 canonical JSON of {name, title,
     * description, inputSchema, outputSchema, annotations} as published (ARCHITECTURE.md "Live tools checked
     * against the registry"). Null only for rows published before it existed, until they are backfilled.
     */
    digest: text("digest"),
    /** The current manifest's tool says `"cloud": true`: the hub may run it in its own browser (registry/cloud.ts). */
    cloud: integer("cloud", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    uniqueIndex("tools_host_name").on(t.host, t.name),
    index("tools_read_only").on(t.readOnly),
    /** The tools feed (`updated_since`, cursor). */
    index("tools_updated").on(t.updatedAt, t.id),
  ],
);

/**
 * Each current tool's distinct terms and their precomputed impacts (see registry/terms.ts): the index a one-word
 * search reads in impact order. Derived from `tools`; rewritten with them on every publish. The migration
 * declares it WITHOUT ROWID, so the primary key is the table and `tool_terms_rank` the only other index.
 */
export const toolTerms = /* @__PURE__ */ sqliteTable(
  "tool_terms",
  {
    toolId: integer("tool_id", { mode: "number" })
      .notNull()
      .references(() => tools.id, { onDelete: "cascade" }),
    term: text("term").notNull(),
    impact: real("impact").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.toolId, t.term] }),
    index("tool_terms_rank").on(t.term, t.impact, t.toolId),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// The relay: channels, their secrets, pairing codes, and the audit log shipped from each ChannelRelay.

/** A private channel: its owner's tabs and sidecars on one side, the owner's agents on the other. */
export const channels = /* @__PURE__ */ sqliteTable(
  "channels",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /**
     * The hash of the owner key the channel was created with. Kept for the column's constraint only: since
     * migration 0007 a channel's owner keys (several, labelled, revocable) are in `owner_keys`.
     */
    ownerKeyHash: text("owner_key_hash").notNull().unique(),
    /** Restrict tool names to [A-Za-z0-9_-]{1,64} for clients that reject dots. */
    strictNames: integer("strict_names", { mode: "boolean" }).notNull().default(false),
    /**
     * What agents may call, by each live tool's verification against its origin's published manifest:
     * `all` (default), `warn` (all, with a warning prefixed to the description of what is not verified), or
     * `verified` (the others are refused with an isError saying why).
     */
    verificationPolicy: text("verification_policy", { enum: ["all", "warn", "verified"] })
      .notNull()
      .default("all"),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    /**
     * When the channel was last used (a pairing redeemed, a provider connected, an agent or its owner
     * authenticated, a call audited by the channel's object), at most once per hour on a hot path.
     * Null: never used. The daily maintenance deletes channels that were never used, or not for long.
     */
    lastUsedAt: integer("last_used_at", { mode: "number" }),
    /** The account that owns the channel (created while signed in, or claimed by its owner key); null: anonymous. */
    accountId: text("account_id"),
  },
  (t) => [
    index("channels_last_used").on(t.lastUsedAt, t.createdAt),
    index("channels_account").on(t.accountId),
  ],
);

/** A channel's owner keys (`who_`): API credentials for scripts and the CLI, labelled and revocable. */
export const ownerKeys = /* @__PURE__ */ sqliteTable(
  "owner_keys",
  {
    id: text("id").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    label: text("label").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [index("owner_keys_channel").on(t.channelId)],
);

export const agentTokens = /* @__PURE__ */ sqliteTable(
  "agent_tokens",
  {
    id: text("id").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    label: text("label").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [index("agent_tokens_channel").on(t.channelId)],
);

/** Single-use, 10-minute pairing codes (only their hash is stored). */
export const pairingCodes = /* @__PURE__ */ sqliteTable(
  "pairing_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    usedAt: integer("used_at", { mode: "number" }),
  },
  (t) => [index("pairing_codes_channel").on(t.channelId), index("pairing_codes_expires").on(t.expiresAt)],
);

/**
 * A provider's credential; a tab's is bound to the Origin that redeemed the pairing code, the browser
 * extension's to the extension's own Origin (`chrome-extension://<id>`; each of its tab sockets names the tab).
 */
export const providerTokens = /* @__PURE__ */ sqliteTable(
  "provider_tokens",
  {
    id: text("id").primaryKey(),
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    kind: text("kind", { enum: ["tab", "sidecar", "extension"] }).notNull(),
    label: text("label").notNull(),
    origin: text("origin"),
    /**
     * Whether the pairing request came from a browser page (its Sec-Fetch-Site/Sec-Fetch-Mode said so);
     * false for a script or a sidecar, null for tokens issued before this was recorded.
     */
    pairedFromPage: integer("paired_from_page", { mode: "boolean" }),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [index("provider_tokens_channel").on(t.channelId)],
);

/** Fixed-window counters for rate limits (pairing attempts). */
export const rateLimits = /* @__PURE__ */ sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: integer("window_start", { mode: "number" }).notNull(),
  count: integer("count", { mode: "number" }).notNull(),
});

/**
 * Legacy: one row per call, as channels' objects shipped them before each kept its own log (relay/audit-log.ts).
 * Nothing writes here any more; a channel's object moves its rows out as its owner reads, the daily
 * maintenance prunes the rest by age, and the table is empty AUDIT_RETENTION_DAYS after the upgrade.
 */
export const auditLog = /* @__PURE__ */ sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    channelId: text("channel_id").notNull(),
    seq: integer("seq", { mode: "number" }).notNull(),
    agentTokenId: text("agent_token_id"),
    /** The agent's name when it called: its token's label, or the OAuth client's registered name. */
    agentLabel: text("agent_label"),
    providerId: text("provider_id"),
    providerLabel: text("provider_label"),
    origin: text("origin"),
    tool: text("tool").notNull(),
    argBytes: integer("arg_bytes", { mode: "number" }).notNull(),
    argSha256: text("arg_sha256").notNull(),
    status: text("status", {
      enum: ["ok", "error", "invalid", "denied", "timeout", "disconnected", "cancelled"],
    }).notNull(),
    durationMs: integer("duration_ms", { mode: "number" }).notNull(),
    message: text("message"),
    /** The tool's verification when called: verified, changed or unpublished (null: not a tab's tool). */
    verification: text("verification", { enum: ["verified", "changed", "unpublished"] }),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    index("audit_channel_time").on(t.channelId, t.createdAt, t.seq),
    index("audit_channel_tool").on(t.channelId, t.tool),
    /** The daily retention prune deletes by age across channels. */
    index("audit_created").on(t.createdAt),
  ],
);

/** An account: passkeys only, no password or email (ARCHITECTURE.md "Accounts"). */
export const accounts = /* @__PURE__ */ sqliteTable("accounts", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  createdAt: integer("created_at", { mode: "number" }).notNull(),
});

/** A WebAuthn credential of an account (an account keeps at least one). */
export const passkeys = /* @__PURE__ */ sqliteTable(
  "passkeys",
  {
    /** The credential ID, base64url. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    counter: integer("counter", { mode: "number" }).notNull().default(0),
    /** JSON array of AuthenticatorTransport values the browser reported. */
    transports: text("transports"),
    deviceType: text("device_type", { enum: ["singleDevice", "multiDevice"] }),
    backedUp: integer("backed_up", { mode: "boolean" }).notNull().default(false),
    label: text("label").notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    lastUsedAt: integer("last_used_at", { mode: "number" }),
  },
  (t) => [index("passkeys_account").on(t.accountId)],
);

/** A browser session: the cookie names it, D1 keeps only its SHA-256. */
export const sessions = /* @__PURE__ */ sqliteTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    lastSeenAt: integer("last_seen_at", { mode: "number" }),
  },
  (t) => [index("sessions_account").on(t.accountId), index("sessions_expiry").on(t.expiresAt)],
);

/** A pending WebAuthn ceremony's challenge: single use, short-lived, bound to its purpose. */
export const webauthnChallenges = /* @__PURE__ */ sqliteTable(
  "webauthn_challenges",
  {
    id: text("id").primaryKey(),
    challenge: text("challenge").notNull(),
    purpose: text("purpose", { enum: ["register", "authenticate", "add-passkey"] }).notNull(),
    /** The account a ceremony adds a passkey to; null for sign-up and sign-in. */
    accountId: text("account_id"),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("webauthn_challenges_expiry").on(t.expiresAt)],
);

/**
 * Marketplace tools a channel's owner added to the channel ("Add from the marketplace"): listed to
 * its agents from the site's current published manifest while no tab of the site offers them. The site's
 * host, not its tools rows (those are replaced on each publish): a tool is looked up by name in the current
 * version, so a republished definition is what agents see, and a tool the site stops publishing is not listed.
 */
export const channelTools = /* @__PURE__ */ sqliteTable(
  "channel_tools",
  {
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    host: text("host").notNull(),
    toolName: text("tool_name").notNull(),
    addedAt: integer("added_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.host, t.toolName] })],
);

/** Latency buckets of tool_usage_daily: d<i> counts calls that took under LATENCY_BUCKET_MS[i] ms (protocol). */
const latencyColumns = Object.fromEntries(
  Array.from({ length: LATENCY_BUCKETS }, (_, i) => [
    `d${i}`,
    integer(`d${i}`, { mode: "number" }).notNull().default(0),
  ]),
) as Record<`d${number}`, ReturnType<typeof integer>>;

/**
 * Calls of a site's tool per UTC day, from every channel and cloud run together: counters each channel's
 * object (and each site's cloud runner) adds up and flushes in batched upserts, never a row per call. Bounded
 * by sites × tools × USAGE_DAYS days.
 */
export const toolUsageDaily = /* @__PURE__ */ sqliteTable(
  "tool_usage_daily",
  {
    host: text("host").notNull(),
    tool: text("tool").notNull(),
    /** The UTC day, YYYY-MM-DD. */
    day: text("day").notNull(),
    calls: integer("calls", { mode: "number" }).notNull().default(0),
    ok: integer("ok", { mode: "number" }).notNull().default(0),
    error: integer("error", { mode: "number" }).notNull().default(0),
    denied: integer("denied", { mode: "number" }).notNull().default(0),
    timeout: integer("timeout", { mode: "number" }).notNull().default(0),
    invalid: integer("invalid", { mode: "number" }).notNull().default(0),
    /** disconnected and cancelled calls. */
    other: integer("other", { mode: "number" }).notNull().default(0),
    /** Calls of a live tab's tool by its verification against the published definition. */
    verified: integer("verified", { mode: "number" }).notNull().default(0),
    changed: integer("changed", { mode: "number" }).notNull().default(0),
    unpublished: integer("unpublished", { mode: "number" }).notNull().default(0),
    /** Of `calls`, those the hub ran in its own browser (cloud runs). */
    cloud: integer("cloud", { mode: "number" }).notNull().default(0),
    ...latencyColumns,
  },
  (t) => [primaryKey({ columns: [t.host, t.tool, t.day] }), index("tool_usage_day").on(t.day)],
);

/**
 * The channels that called a site's tool on a day, as a K-minimum-values sketch: a channel's object inserts
 * its channel's hash (hex of SHA-256 of the id) once per (tool, day); the daily maintenance keeps the
 * USAGE_KMV_K smallest per (host, tool, day). Distinct channels are exact below K, estimated above.
 */
export const toolUsageChannels = /* @__PURE__ */ sqliteTable(
  "tool_usage_channels",
  {
    host: text("host").notNull(),
    tool: text("tool").notNull(),
    day: text("day").notNull(),
    channelHash: text("channel_hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.host, t.tool, t.day, t.channelHash] })],
);

/** The commonest error messages of a site's tool per day (truncated to USAGE_MESSAGE_MAX; never arguments). */
export const toolUsageErrors = /* @__PURE__ */ sqliteTable(
  "tool_usage_errors",
  {
    host: text("host").notNull(),
    tool: text("tool").notNull(),
    day: text("day").notNull(),
    message: text("message").notNull(),
    count: integer("count", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.host, t.tool, t.day, t.message] })],
);
