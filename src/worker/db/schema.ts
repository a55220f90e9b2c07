// D1 schema of the registry (drizzle). Migrations in migrations/ are generated from this file by drizzle-kit;
// the FTS5 index over tools is a hand-written migration (drizzle has no virtual tables).
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A site is one origin. It becomes public once its owner proves control of the origin. */
export const sites = sqliteTable(
  "sites",
  {
    host: text("host").primaryKey(),
    origin: text("origin").notNull(),
    status: text("status", { enum: ["pending", "verified"] }).notNull(),
    verificationMethod: text("verification_method", { enum: ["http", "dns"] }),
    verifiedAt: integer("verified_at", { mode: "number" }),
    name: text("name"),
    description: text("description"),
    currentVersion: integer("current_version", { mode: "number" }),
    toolCount: integer("tool_count", { mode: "number" }).notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    updatedAt: integer("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("sites_status_updated").on(t.status, t.updatedAt)],
);

/** An ownership challenge. The claim secret (hashed) authorizes the verify call that answers it. */
export const challenges = sqliteTable(
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
  (t) => [index("challenges_host").on(t.host)],
);

/** Publisher keys: only the SHA-256 is stored; the key itself is shown once. */
export const publisherKeys = sqliteTable(
  "publisher_keys",
  {
    id: text("id").primaryKey(),
    host: text("host")
      .notNull()
      .references(() => sites.host, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    createdAt: integer("created_at", { mode: "number" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "number" }),
  },
  (t) => [index("publisher_keys_host").on(t.host)],
);

/** Immutable manifest versions; `sites.current_version` points at the current one. */
export const manifestVersions = sqliteTable(
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
export const tools = sqliteTable(
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
  },
  (t) => [uniqueIndex("tools_host_name").on(t.host, t.name), index("tools_read_only").on(t.readOnly)],
);
