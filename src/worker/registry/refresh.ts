// Pulls a site's manifest from https://HOST/.well-known/webmcp.json and publishes it as a new version.
import { LIMITS } from "../../protocol/index.js";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";
import { parseManifestText, publishManifest, type PublishResult } from "./manifests.js";
import { fetchSiteText } from "./outbound.js";
import type { SiteRow } from "./sites.js";

export const MANIFEST_WELL_KNOWN_PATH = "/.well-known/webmcp.json";

export async function refreshManifest(
  db: Db,
  site: SiteRow,
  allowPrivate: boolean,
  now: number,
  fetcher?: typeof fetch,
): Promise<PublishResult> {
  const url = site.origin + MANIFEST_WELL_KNOWN_PATH;
  const { text } = await fetchSiteText(url, {
    maxBytes: LIMITS.manifestBytes,
    timeoutMs: LIMITS.outboundFetchTimeoutMs,
    allowPrivate,
    accept: "application/json",
    ...(fetcher ? { fetcher } : {}),
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
