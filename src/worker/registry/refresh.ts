// Pulls a site's manifest from https://HOST/.well-known/webmcp.json, or the source its owner chose from the
// site's ai-catalog.json (site-catalog.ts), and publishes it as a new version.
// A site that cannot serve it (unreachable, slow, redirecting, too big, wrong type) is upstream_failed (502).
import { LIMITS } from "../../protocol/index.js";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";
import type { PublishResultView } from "../../protocol/views.js";
import { parseManifestText, publishManifest } from "./manifests.js";
import { fetchSiteText } from "./outbound.js";
import type { SiteRow } from "./sites.js";

export const MANIFEST_WELL_KNOWN_PATH = "/.well-known/webmcp.json";

/** What a manifest may be served as: JSON (any `+json` too), or what servers send for unknown files. */
const MANIFEST_MEDIA_TYPES = ["application/json", "text/plain", "application/octet-stream", ""] as const;

export interface RefreshOptions {
  fetcher?: typeof fetch;
  /** Time budget of the fetch (headers and body); LIMITS.outboundFetchTimeoutMs unless a test passes less. */
  timeoutMs?: number;
}

export async function refreshManifest(
  db: Db,
  site: SiteRow,
  allowPrivate: boolean,
  now: number,
  opts: RefreshOptions = {},
): Promise<PublishResultView> {
  const url = site.manifestSource ?? site.origin + MANIFEST_WELL_KNOWN_PATH;
  const { text } = await fetchSiteText(url, {
    maxBytes: LIMITS.manifestBytes,
    timeoutMs: opts.timeoutMs ?? LIMITS.outboundFetchTimeoutMs,
    allowPrivate,
    accept: "application/json",
    mediaTypes: MANIFEST_MEDIA_TYPES,
    ...(opts.fetcher ? { fetcher: opts.fetcher } : {}),
  });
  let manifest;
  try {
    manifest = parseManifestText(text);
  } catch (e) {
    if (e instanceof HubError)
      throw new HubError(e.code, `${url}: ${e.message}`, e.issues ? { issues: e.issues } : {});
    throw e;
  }
  return publishManifest(db, site, manifest, "refresh", now);
}
