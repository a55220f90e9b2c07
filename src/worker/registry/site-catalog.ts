// A verified site's own /.well-known/ai-catalog.json (AI Catalog, Agent-Card/ai-catalog: the newest guide's
// entries name their media type in `type`; older catalogs' `mediaType` is read too). It is read with the
// verifier's network rules when the site is verified and on the hourly re-check, and on the owner's demand,
// so the owner can choose a WebMCP manifest it lists as where a manifest refresh pulls from, instead of
// /.well-known/webmcp.json.
//
// Decisions:
// - Served as JSON (application/ai-catalog+json, any +json, or what servers send for files), at most
//   CATALOG_MAX_BYTES, within the outbound time budget, no redirects (outbound.ts).
// - 404 or 410: the site publishes none; nothing is stored and nothing shown. Anything else wrong (status,
//   type, size, not JSON, no `entries` array) is stored as one short reason for the owner and the entries read
//   before are dropped; a site that cannot be reached at all keeps them (only the reason is new).
// - Kept, at most ENTRIES_MAX: entries with a `url` (resolved against the catalog's URL) on the site's own
//   origin that are a WebMCP manifest (the type mentions webmcp, or the URL's path ends in webmcp.json), which
//   may be chosen as the source, or an MCP server (the type mentions mcp, e.g. application/mcp-server-card+json),
//   listed with why it cannot be one: it describes a remote server, not the page's tools.
// - Ignored, each with its reason (at most ENTRIES_MAX listed): nested catalogs (only the top-level catalog
//   is read), entries with inline `data` only (a source is a URL the hub can pull again), entries on another
//   origin, other types, and entries without an identifier.
// - The owner's choice stays when a later read no longer lists it (the page says so); the hub never moves it.
import { eq } from "drizzle-orm";
import * as z from "zod";
import { LIMITS } from "../../protocol/index.js";
import type { SiteCatalogEntry, SiteCatalogView } from "../../protocol/views.js";
import type { Db } from "../db/client.js";
import { sites } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { fetchSiteText, isTransportFailure } from "./outbound.js";
import { MANIFEST_WELL_KNOWN_PATH } from "./refresh.js";
import { iso, type SiteRow } from "./sites.js";

export const CATALOG_WELL_KNOWN_PATH = "/.well-known/ai-catalog.json";
export const CATALOG_MAX_BYTES = 64 * 1024;
const ENTRIES_MAX = 20;
const REASON_MAX = 300;
const CATALOG_MEDIA_TYPES = [
  "application/ai-catalog+json",
  "application/json",
  "text/plain",
  "application/octet-stream",
  "",
] as const;

const Text = (max: number) =>
  z
    .string()
    .transform((s) => s.slice(0, max))
    .optional()
    .catch(undefined);

const CatalogEntrySchema = z.object({
  identifier: z.string().min(1).max(512),
  type: Text(200),
  mediaType: Text(200),
  url: Text(2048),
  data: z.unknown().optional(),
  displayName: Text(200),
  description: Text(500),
  version: Text(100),
  updatedAt: Text(40),
});

const CatalogSchema = z.object({ entries: z.array(z.unknown()) });

interface StoredCatalog {
  entries: SiteCatalogEntry[];
  ignored: SiteCatalogView["catalog"]["ignored"];
}

export function siteCatalogView(
  site: Pick<
    SiteRow,
    "host" | "origin" | "manifestSource" | "catalogEntries" | "catalogError" | "catalogCheckedAt"
  >,
): SiteCatalogView {
  const stored = site.catalogEntries ? (JSON.parse(site.catalogEntries) as StoredCatalog) : null;
  return {
    host: site.host,
    manifestSource: site.manifestSource,
    catalog: {
      url: site.origin + CATALOG_WELL_KNOWN_PATH,
      checkedAt: iso(site.catalogCheckedAt),
      error: site.catalogError,
      entries: stored?.entries ?? [],
      ignored: stored?.ignored ?? [],
    },
  };
}

/** The WebMCP and MCP entries of a catalog's text, and the others with why they are not used. */
export function parseSiteCatalog(text: string, catalogUrl: string): StoredCatalog {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("it is not valid JSON");
  }
  const catalog = CatalogSchema.safeParse(json);
  if (!catalog.success) throw new Error("it is not an AI Catalog: it needs an `entries` array");
  const origin = new URL(catalogUrl).origin;
  const entries: SiteCatalogEntry[] = [];
  const ignored: StoredCatalog["ignored"] = [];
  const ignore = (identifier: string, reason: string) => {
    if (ignored.length < ENTRIES_MAX) ignored.push({ identifier, reason });
  };
  for (const [i, raw] of catalog.data.entries.entries()) {
    const parsed = CatalogEntrySchema.safeParse(raw);
    if (!parsed.success) {
      ignore(`entries[${i}]`, "it has no identifier");
      continue;
    }
    const { identifier, mediaType, url: rawUrl, data: _data, ...facts } = parsed.data;
    const type = (facts.type ?? mediaType ?? "").toLowerCase();
    if (type.includes("ai-catalog")) {
      ignore(identifier, "a nested catalog: the hub reads only the site's top-level catalog");
      continue;
    }
    if (rawUrl === undefined) {
      ignore(identifier, "inline data only: a manifest source must be a url the hub can pull again");
      continue;
    }
    let url: URL;
    try {
      url = new URL(rawUrl, catalogUrl);
    } catch {
      ignore(identifier, `its url ${rawUrl} is not a URL`);
      continue;
    }
    const kind =
      type.includes("webmcp") || url.pathname.endsWith("webmcp.json")
        ? "webmcp"
        : type.includes("mcp")
          ? "mcp"
          : null;
    if (!kind) {
      ignore(identifier, `its type ${type || "(none)"} is neither a WebMCP manifest nor an MCP server`);
      continue;
    }
    if (url.origin !== origin) {
      ignore(identifier, `it is on ${url.origin}; the hub reads only from the site's origin, ${origin}`);
      continue;
    }
    if (entries.length >= ENTRIES_MAX) {
      ignore(identifier, `the hub keeps the first ${ENTRIES_MAX} WebMCP and MCP entries`);
      continue;
    }
    entries.push({ identifier, ...facts, type, url: url.toString(), kind });
  }
  return { entries, ignored };
}

export interface CatalogReadOptions {
  allowPrivate: boolean;
  fetcher?: typeof fetch;
  timeoutMs?: number;
}

/** Reads the site's catalog and stores what it offers; never throws for what the site serves. */
export async function readSiteCatalog(
  db: Db,
  site: Pick<SiteRow, "host" | "origin">,
  now: number,
  opts: CatalogReadOptions,
): Promise<SiteCatalogView> {
  const url = site.origin + CATALOG_WELL_KNOWN_PATH;
  let status = 0;
  const base = opts.fetcher ?? fetch;
  let set: Partial<typeof sites.$inferInsert>;
  try {
    const { text } = await fetchSiteText(url, {
      maxBytes: CATALOG_MAX_BYTES,
      timeoutMs: opts.timeoutMs ?? LIMITS.outboundFetchTimeoutMs,
      allowPrivate: opts.allowPrivate,
      accept: "application/ai-catalog+json, application/json;q=0.9",
      mediaTypes: CATALOG_MEDIA_TYPES,
      fetcher: async (input, init) => {
        const response = await base(input, init);
        status = response.status;
        return response;
      },
    });
    try {
      set = { catalogEntries: JSON.stringify(parseSiteCatalog(text, url)), catalogError: null };
    } catch (e) {
      set = { catalogEntries: null, catalogError: `${url}: ${(e as Error).message}` };
    }
  } catch (e) {
    if (!(e instanceof HubError)) throw e;
    if (status === 404 || status === 410) set = { catalogEntries: null, catalogError: null };
    else if (isTransportFailure(e)) set = { catalogError: e.message.slice(0, REASON_MAX) };
    else set = { catalogEntries: null, catalogError: e.message.slice(0, REASON_MAX) };
  }
  const [row] = await db
    .update(sites)
    .set({ ...set, catalogCheckedAt: now })
    .where(eq(sites.host, site.host))
    .returning();
  if (!row) throw new HubError("site_not_found", `No site ${site.host} is registered.`);
  return siteCatalogView(row);
}

/** The owner's choice: a WebMCP manifest their catalog lists (as last read), or null for the default. */
export async function setManifestSource(
  db: Db,
  site: SiteRow,
  wanted: string | null,
): Promise<SiteCatalogView> {
  const view = siteCatalogView(site);
  let url = wanted;
  if (url === site.origin + MANIFEST_WELL_KNOWN_PATH) url = null;
  if (url !== null) {
    const entry = view.catalog.entries.find((e) => e.url === url);
    if (entry?.kind !== "webmcp") {
      const why = entry
        ? `${url} is an MCP server in your ai-catalog.json, not a WebMCP manifest`
        : `${url} is not a WebMCP manifest your ai-catalog.json lists (as last read)`;
      throw new HubError(
        "validation_failed",
        `${why}. Choose one it lists, read the catalog again with POST /api/sites/${site.host}/catalog/refresh, or send null for ${MANIFEST_WELL_KNOWN_PATH}.`,
        { issues: [{ path: "url", message: why }] },
      );
    }
  }
  if (url === site.manifestSource) return view;
  const [row] = await db
    .update(sites)
    .set({ manifestSource: url })
    .where(eq(sites.host, site.host))
    .returning();
  return siteCatalogView(row ?? site);
}
