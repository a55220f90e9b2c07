// Site registration, ownership verification and publisher keys.
import { and, desc, eq, gt, isNull, lt, ne, or, asc, sql } from "drizzle-orm";
import { LIMITS } from "../../protocol/index.js";
import type { ChallengeView, RegisteredSiteView } from "../../protocol/views.js";
import type { Db } from "../db/client.js";
import { challenges, publisherKeys, sites, tools } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { bearerToken, looksLike, newToken, randomBase64Url, sha256Hex } from "../secrets.js";
import { normalizeHost, type SiteOrigin } from "./origins.js";
import {
  checkOwnershipProof,
  DNS_PREFIX,
  DNS_VALUE_PREFIX,
  VERIFY_PATH,
  type ProofContext,
  type VerificationMethod,
} from "./verify.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

export const CHALLENGE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const MAX_VERIFY_ATTEMPTS = 20;

export type SiteRow = typeof sites.$inferSelect;

export interface SiteView {
  host: string;
  origin: string;
  status: SiteRow["status"];
  verificationMethod: VerificationMethod | null;
  verifiedAt: string | null;
  name: string | null;
  description: string | null;
  currentVersion: number | null;
  toolCount: number;
  createdAt: string;
  updatedAt: string;
  /** Set when the publisher delisted the site (it is then out of search, listings and feeds' content). */
  delistedAt: string | null;
  /** The last scheduled re-verification's failure (null after a success), and when it last ran. */
  verifyError: string | null;
  verifyCheckedAt: string | null;
  /** The owner's switch for cloud runs of the whole site (PUT /api/sites/:host/cloud). */
  cloudEnabled: boolean;
}

export function siteView(row: SiteRow): SiteView {
  return {
    host: row.host,
    origin: row.origin,
    status: row.status,
    verificationMethod: row.verificationMethod,
    verifiedAt: iso(row.verifiedAt),
    name: row.name,
    description: row.description,
    currentVersion: row.currentVersion,
    toolCount: row.toolCount,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    delistedAt: iso(row.delistedAt),
    verifyError: row.verifyError,
    verifyCheckedAt: iso(row.verifyCheckedAt),
    cloudEnabled: row.cloudEnabled,
  };
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The answer of POST /api/sites, and whether the origin was new. */
export interface RegisteredSite extends RegisteredSiteView {
  site: SiteView;
  created: boolean;
}

/**
 * Registers an origin (or, for a known origin, opens a new claim on it: this is how a site's owner
 * recovers access) and returns the ownership challenge plus the claim secret that authorizes verify.
 */
export async function registerSite(
  db: Db,
  origin: SiteOrigin,
  now: number,
  /** The signed-in account registering; it owns a site it registers first (verifying decides, see verifySite). */
  accountId: string | null = null,
): Promise<RegisteredSite> {
  const token = randomBase64Url(24);
  const claimSecret = newToken("claim");
  const existing = await db.query.sites.findFirst({ where: eq(sites.host, origin.host) });
  const statements = [];
  if (!existing) {
    statements.push(
      db
        .insert(sites)
        .values({
          host: origin.host,
          origin: origin.origin,
          status: "pending",
          createdAt: now,
          updatedAt: now,
          accountId,
        })
        .onConflictDoNothing(),
    );
  }
  statements.push(
    db
      .delete(challenges)
      .where(and(eq(challenges.host, origin.host), lt(challenges.expiresAt, now), notProofOnRecord)),
  );
  statements.push(
    db.insert(challenges).values({
      id: crypto.randomUUID(),
      host: origin.host,
      token,
      claimSecretHash: await sha256Hex(claimSecret),
      createdAt: now,
      expiresAt: now + CHALLENGE_TTL_MS,
    }),
  );
  // At most a few live claims per site, the oldest superseded: re-registering an origin 1,000 times must not
  // leave 1,000 claims open.
  statements.push(
    db.delete(challenges).where(
      and(
        eq(challenges.host, origin.host),
        sql`${challenges.id} NOT IN (SELECT id FROM challenges WHERE host = ${origin.host}
            ORDER BY created_at DESC, rowid DESC LIMIT ${LIMITS.liveChallengesPerSite})`,
        notProofOnRecord,
      ),
    ),
  );
  await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  const row = await db.query.sites.findFirst({ where: eq(sites.host, origin.host) });
  if (!row) throw new HubError("internal_error", "site vanished during registration");
  return {
    site: siteView(row),
    created: !existing,
    challenge: describeChallenge(row, token, now + CHALLENGE_TTL_MS),
    claimSecret,
  };
}

/**
 * Not the site's proof on record: the challenge its latest successful verification answered is kept past its
 * expiry, since scheduled re-verification (reverify.ts) checks that token again with the same method.
 */
export const notProofOnRecord = sql`NOT (challenges.used_at IS NOT NULL AND challenges.id = (
  SELECT p.id FROM challenges p WHERE p.host = challenges.host AND p.used_at IS NOT NULL
  ORDER BY p.used_at DESC, p.rowid DESC LIMIT 1))`;

export function describeChallenge(
  site: Pick<SiteRow, "origin" | "host">,
  token: string,
  expiresAt: number,
): ChallengeView {
  const hostname = new URL(site.origin).hostname.replace(/^\[|\]$/g, "");
  return {
    token,
    expiresAt: new Date(expiresAt).toISOString(),
    http: { url: site.origin + VERIFY_PATH, contentType: "text/plain", body: token },
    dns: { name: DNS_PREFIX + hostname, type: "TXT", value: DNS_VALUE_PREFIX + token },
  };
}

export interface VerifiedSite {
  site: SiteView;
  publisherKey: string;
}

/**
 * Checks the proof for the claim `claimSecret` opened on `host`. On success the site is verified, every
 * earlier publisher key of the site is revoked (whoever controls the origin now owns the listing), and
 * a new publisher key is returned once. The site then belongs to the account that verified it, or to no account
 * when verified without a session (a pending site registered by someone else is not theirs to keep).
 */
export async function verifySite(
  db: Db,
  hostParam: string,
  claimSecret: string | undefined,
  method: VerificationMethod,
  proof: ProofContext,
  now: number,
  accountId: string | null = null,
): Promise<VerifiedSite> {
  const host = normalizeHost(hostParam);
  const site = await db.query.sites.findFirst({ where: eq(sites.host, host) });
  if (!site)
    throw new HubError(
      "site_not_found",
      `No site ${host} is registered. Register it first with POST /api/sites.`,
    );
  if (!claimSecret || !looksLike("claim", claimSecret)) {
    throw new HubError(
      "unauthorized",
      "Send the claim secret from POST /api/sites as `Authorization: Bearer whc_…`.",
    );
  }
  const challenge = await db.query.challenges.findFirst({
    where: and(eq(challenges.claimSecretHash, await sha256Hex(claimSecret)), eq(challenges.host, host)),
  });
  if (!challenge) throw new HubError("forbidden", "This claim secret does not belong to this site.");
  if (challenge.usedAt !== null)
    throw new HubError(
      "conflict",
      "This claim was already used. Register the origin again for a new challenge.",
    );
  if (challenge.expiresAt <= now)
    throw new HubError(
      "challenge_expired",
      "This challenge has expired. Register the origin again for a new one.",
    );
  if (challenge.attempts >= MAX_VERIFY_ATTEMPTS) {
    throw new HubError(
      "rate_limited",
      "Too many verification attempts for this challenge. Register the origin again for a new one.",
    );
  }
  await db
    .update(challenges)
    .set({ attempts: challenge.attempts + 1 })
    .where(eq(challenges.id, challenge.id));

  await checkOwnershipProof(
    { origin: site.origin, host: site.host, hostname: new URL(site.origin).hostname.replace(/^\[|\]$/g, "") },
    method,
    challenge.token,
    proof,
  );

  const publisherKey = newToken("publisher");
  const [claimed] = await db.batch([
    db
      .update(challenges)
      .set({ usedAt: now })
      .where(and(eq(challenges.id, challenge.id), isNull(challenges.usedAt)))
      .returning({ id: challenges.id }),
    db
      .update(publisherKeys)
      .set({ revokedAt: now })
      .where(and(eq(publisherKeys.host, host), isNull(publisherKeys.revokedAt))),
    db
      .insert(publisherKeys)
      .values({ id: crypto.randomUUID(), host, keyHash: await sha256Hex(publisherKey), createdAt: now }),
    db
      .update(sites)
      .set({
        status: "verified",
        verificationMethod: method,
        verifiedAt: now,
        updatedAt: now,
        accountId,
        verifyFailures: 0,
        verifyError: null,
        verifyCheckedAt: now,
      })
      .where(eq(sites.host, host)),
  ]);
  if (claimed.length === 0) {
    // A concurrent verify used the claim first; undo nothing (that call's key stands), refuse this one.
    throw new HubError("conflict", "This claim was used by a concurrent verification.");
  }
  const row = await db.query.sites.findFirst({ where: eq(sites.host, host) });
  return { site: siteView(row!), publisherKey };
}

/** Resolves a publisher key for `host`, or throws 401 / 403 with what to do. */
export async function authenticatePublisher(
  db: Db,
  hostParam: string,
  authorization: string | undefined,
): Promise<SiteRow> {
  const host = normalizeHost(hostParam);
  const key = bearerToken(authorization);
  if (!key) throw new HubError("unauthorized", "Send your publisher key as `Authorization: Bearer whp_…`.");
  if (!looksLike("publisher", key))
    throw new HubError("unauthorized", "That is not a publisher key (they start with whp_).");
  const row = await db.query.publisherKeys.findFirst({
    where: eq(publisherKeys.keyHash, await sha256Hex(key)),
  });
  if (!row || row.revokedAt !== null) {
    throw new HubError(
      "unauthorized",
      "This publisher key is unknown or was revoked. Verify the site again to get a new one.",
    );
  }
  if (row.host !== host)
    throw new HubError("forbidden", `This publisher key belongs to another site, not ${host}.`);
  const site = await db.query.sites.findFirst({ where: eq(sites.host, host) });
  if (!site) throw new HubError("site_not_found", `No site ${host} is registered.`);
  // A site whose verification lapsed (status unverified) or that was delisted still answers to its key: a
  // successful republish restores it (restoreListing), and delist/relist need the key too.
  if (site.status === "pending") throw new HubError("site_not_verified", `${host} is not verified yet.`);
  return site;
}

/** The site `host` as its owner account sees it (a signed-in alternative to the publisher key). */
export async function ownedPublishedSite(db: Db, hostParam: string, accountId: string): Promise<SiteRow> {
  const host = normalizeHost(hostParam);
  const site = await db.query.sites.findFirst({ where: eq(sites.host, host) });
  if (!site) throw new HubError("site_not_found", `No site ${host} is registered.`);
  if (site.accountId !== accountId) throw new HubError("forbidden", `Your account does not own ${host}.`);
  if (site.status === "pending") throw new HubError("site_not_verified", `${host} is not verified yet.`);
  return site;
}

/**
 * After a successful publish with a valid key: a lapsed verification is restored ("republishing or
 * re-verifying restores it") and a delisted site is listed again. A relisted site's tools get a new
 * updated_at, so a mirror that dropped them on the tombstone finds them in the tools feed again.
 */
export async function restoreListing(db: Db, site: SiteRow, now: number): Promise<void> {
  if (site.status === "verified" && site.verifyFailures === 0 && site.delistedAt === null) return;
  const restore = db
    .update(sites)
    .set({ status: "verified", verifyFailures: 0, verifyError: null, delistedAt: null, updatedAt: now })
    .where(eq(sites.host, site.host));
  if (site.delistedAt === null) await restore;
  else await db.batch([restore, db.update(tools).set({ updatedAt: now }).where(eq(tools.host, site.host))]);
}

/** Delists a site: out of search, listings and /mcp/registry; its pages answer 410; feeds carry a tombstone. */
export async function delistSite(db: Db, site: SiteRow, now: number): Promise<SiteRow> {
  if (site.delistedAt !== null) return site;
  const [row] = await db
    .update(sites)
    .set({ delistedAt: now, updatedAt: now })
    .where(eq(sites.host, site.host))
    .returning();
  return row ?? site;
}

/** Lists a delisted site again (its tools come back to search and, with a new updated_at, to the tools feed). */
export async function relistSite(db: Db, site: SiteRow, now: number): Promise<SiteRow> {
  if (site.delistedAt === null) return site;
  const [[row]] = await db.batch([
    db.update(sites).set({ delistedAt: null, updatedAt: now }).where(eq(sites.host, site.host)).returning(),
    db.update(tools).set({ updatedAt: now }).where(eq(tools.host, site.host)),
  ]);
  return row ?? site;
}

/**
 * The owner's switch: cloud runs of the site's tools on or off (read per call, so it applies at once). It bumps
 * updated_at: the site's server in the MCP Registry API (discovery/) turns active or deleted, which mirrors
 * syncing with updated_since must see.
 */
export async function setSiteCloud(
  db: Db,
  site: SiteRow,
  enabled: boolean,
  now = Date.now(),
): Promise<SiteRow> {
  if (site.cloudEnabled === enabled) return site;
  const [row] = await db
    .update(sites)
    .set({ cloudEnabled: enabled, updatedAt: now })
    .where(eq(sites.host, site.host))
    .returning();
  return row ?? site;
}

/** Replaces the caller's publisher key with a new one (shown once); every earlier key stops working. */
export async function rotatePublisherKey(db: Db, site: SiteRow, now: number): Promise<string> {
  const publisherKey = newToken("publisher");
  await db.batch([
    db
      .update(publisherKeys)
      .set({ revokedAt: now })
      .where(and(eq(publisherKeys.host, site.host), isNull(publisherKeys.revokedAt))),
    db.insert(publisherKeys).values({
      id: crypto.randomUUID(),
      host: site.host,
      keyHash: await sha256Hex(publisherKey),
      createdAt: now,
    }),
  ]);
  return publisherKey;
}

/**
 * A listed site by host: verified, or verified once and lapsed (status `unverified`: reachable by its address
 * with the lapse shown, but out of search and listings). A delisted site is 410 site_delisted.
 */
export async function getVerifiedSite(db: Db, hostParam: string): Promise<SiteRow> {
  const host = normalizeHost(hostParam);
  const row = await db.query.sites.findFirst({
    where: and(eq(sites.host, host), ne(sites.status, "pending")),
  });
  return listedSite(host, row);
}

/** A site's row (undefined: none, or still pending), or getVerifiedSite's 404 site_not_found or 410 site_delisted. */
export function listedSite<T extends { delistedAt: number | null }>(
  host: string,
  row: T | undefined | null,
): T {
  if (!row) throw new HubError("site_not_found", `No verified site ${host} is listed.`);
  if (row.delistedAt !== null)
    throw new HubError(
      "site_delisted",
      `${host} was delisted by its publisher on ${new Date(row.delistedAt).toISOString()}.`,
    );
  return row;
}

export interface SiteListQuery {
  sort: "host" | "recent";
  limit: number;
  cursor?: string | undefined;
}

/** Verified sites, by host (stable) or most recently updated first, with opaque keyset cursors. */
export async function listSites(
  db: Db,
  q: SiteListQuery,
): Promise<{ sites: SiteView[]; nextCursor: string | null }> {
  const fingerprint = `sites:${q.sort}`;
  const after = q.cursor ? decodeCursor(q.cursor, fingerprint) : undefined;
  const verified = and(eq(sites.status, "verified"), isNull(sites.delistedAt))!;
  let where = verified;
  if (after) {
    const [k1, k2] = after;
    if (q.sort === "host") where = and(verified, gt(sites.host, String(k1)))!;
    else
      where = and(
        verified,
        or(lt(sites.updatedAt, Number(k1)), and(eq(sites.updatedAt, Number(k1)), gt(sites.host, String(k2)))),
      )!;
  }
  const rows = await db
    .select()
    .from(sites)
    .where(where)
    .orderBy(...(q.sort === "host" ? [asc(sites.host)] : [desc(sites.updatedAt), asc(sites.host)]))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > q.limit && last
      ? encodeCursor(fingerprint, q.sort === "host" ? [last.host] : [last.updatedAt, last.host])
      : null;
  return { sites: page.map(siteView), nextCursor };
}
