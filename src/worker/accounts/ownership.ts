// What an account owns: its channels (with their owner keys) and sites (with their publisher keys), claiming
// them by key, and deleting the account (channels closed, sites released).
import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import type { KeyView } from "../../protocol/index.js";
import type { Db } from "../db/client.js";
import { accounts, channels, ownerKeys, publisherKeys, sites, webauthnChallenges } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { looksLike, newToken, sha256Hex } from "../secrets.js";
import { closeChannels, type CloseChannel } from "../maintenance.js";
import { channelView, type ChannelRow } from "../channels/channels.js";
import { siteView } from "../registry/sites.js";

function keyView(row: {
  id: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}): KeyView {
  return {
    id: row.id,
    label: row.label ?? "unnamed",
    createdAt: new Date(row.createdAt).toISOString(),
    revokedAt: row.revokedAt === null ? null : new Date(row.revokedAt).toISOString(),
  };
}

// --- owner keys -------------------------------------------------------------------------------------------

export async function listOwnerKeys(db: Db, channelId: string): Promise<KeyView[]> {
  const rows = await db
    .select()
    .from(ownerKeys)
    .where(eq(ownerKeys.channelId, channelId))
    .orderBy(desc(ownerKeys.createdAt), asc(ownerKeys.id));
  return rows.map(keyView);
}

/** A new owner key for the channel (shown once); the others keep working. */
export async function createOwnerKey(db: Db, channel: ChannelRow, label: string, now: number) {
  const ownerKey = newToken("owner");
  const id = crypto.randomUUID();
  await db
    .insert(ownerKeys)
    .values({ id, channelId: channel.id, keyHash: await sha256Hex(ownerKey), label, createdAt: now });
  return { id, label, ownerKey };
}

/**
 * Revokes one owner key. A channel no account owns keeps at least one working key (409): without it nobody
 * could manage the channel again.
 */
export async function revokeOwnerKey(db: Db, channel: ChannelRow, keyId: string, now: number): Promise<void> {
  const active = await db
    .select({ id: ownerKeys.id })
    .from(ownerKeys)
    .where(and(eq(ownerKeys.channelId, channel.id), isNull(ownerKeys.revokedAt)));
  if (!active.some((k) => k.id === keyId))
    throw new HubError("not_found", `No active owner key ${keyId} in this channel.`);
  if (channel.accountId === null && active.length === 1)
    throw new HubError(
      "conflict",
      "This is the channel's last owner key and no account owns the channel: claim it with your account first, or create another key.",
    );
  await db
    .update(ownerKeys)
    .set({ revokedAt: now })
    .where(and(eq(ownerKeys.id, keyId), eq(ownerKeys.channelId, channel.id)));
}

// --- claiming ---------------------------------------------------------------------------------------------

/** Makes the channel of a live owner key the account's; 409 if another account owns it. */
export async function claimChannel(db: Db, accountId: string, ownerKey: string) {
  if (!looksLike("owner", ownerKey)) throw new HubError("unauthorized", "That is not an owner key (who_…).");
  const [found] = await db
    .select({ channel: channels })
    .from(ownerKeys)
    .innerJoin(channels, eq(channels.id, ownerKeys.channelId))
    .where(and(eq(ownerKeys.keyHash, await sha256Hex(ownerKey)), isNull(ownerKeys.revokedAt)))
    .limit(1);
  if (!found) throw new HubError("unauthorized", "This owner key is unknown or was revoked.");
  const channel = found.channel;
  if (channel.accountId !== null && channel.accountId !== accountId)
    throw new HubError("conflict", "This channel already belongs to another account.");
  const claimed = channel.accountId === null;
  if (claimed)
    await db
      .update(channels)
      .set({ accountId })
      .where(and(eq(channels.id, channel.id), isNull(channels.accountId)));
  const row = await db.query.channels.findFirst({ where: eq(channels.id, channel.id) });
  if (row?.accountId !== accountId)
    throw new HubError("conflict", "This channel already belongs to another account.");
  return { channel: channelView(row), claimed };
}

/** Makes the site of a live publisher key the account's; 409 if another account owns it. */
export async function claimSite(db: Db, accountId: string, publisherKey: string) {
  if (!looksLike("publisher", publisherKey))
    throw new HubError("unauthorized", "That is not a publisher key (whp_…).");
  const key = await db.query.publisherKeys.findFirst({
    where: and(eq(publisherKeys.keyHash, await sha256Hex(publisherKey)), isNull(publisherKeys.revokedAt)),
  });
  if (!key) throw new HubError("unauthorized", "This publisher key is unknown or was revoked.");
  const site = await db.query.sites.findFirst({ where: eq(sites.host, key.host) });
  if (!site) throw new HubError("site_not_found", `No site ${key.host} is registered.`);
  if (site.accountId !== null && site.accountId !== accountId)
    throw new HubError("conflict", "This site already belongs to another account.");
  const claimed = site.accountId === null;
  if (claimed)
    await db
      .update(sites)
      .set({ accountId })
      .where(and(eq(sites.host, site.host), isNull(sites.accountId)));
  const row = await db.query.sites.findFirst({ where: eq(sites.host, site.host) });
  if (row?.accountId !== accountId)
    throw new HubError("conflict", "This site already belongs to another account.");
  return { site: siteView(row), claimed };
}

// --- listing ----------------------------------------------------------------------------------------------

export async function accountChannels(db: Db, accountId: string) {
  const rows = await db
    .select()
    .from(channels)
    .where(eq(channels.accountId, accountId))
    .orderBy(desc(channels.createdAt), asc(channels.id));
  const keys = rows.length
    ? await db
        .select()
        .from(ownerKeys)
        .where(
          inArray(
            ownerKeys.channelId,
            rows.map((r) => r.id),
          ),
        )
        .orderBy(desc(ownerKeys.createdAt), asc(ownerKeys.id))
    : [];
  return rows.map((r) => ({
    ...channelView(r),
    ownerKeys: keys.filter((k) => k.channelId === r.id).map(keyView),
  }));
}

export async function accountSites(db: Db, accountId: string) {
  const rows = await db.select().from(sites).where(eq(sites.accountId, accountId)).orderBy(asc(sites.host));
  const keys = rows.length
    ? await db
        .select()
        .from(publisherKeys)
        .where(
          inArray(
            publisherKeys.host,
            rows.map((r) => r.host),
          ),
        )
        .orderBy(desc(publisherKeys.createdAt), asc(publisherKeys.id))
    : [];
  return rows.map((r) => ({
    ...siteView(r),
    publisherKeys: keys.filter((k) => k.host === r.host).map(keyView),
  }));
}

async function ownedSite(db: Db, accountId: string, host: string) {
  const site = await db.query.sites.findFirst({
    where: and(eq(sites.host, host), eq(sites.accountId, accountId)),
  });
  if (!site) throw new HubError("not_found", `Your account owns no site ${host}.`);
  // A lapsed (unverified) site keeps its keys: republishing with one restores it (registry/reverify.ts).
  if (site.status === "pending") throw new HubError("site_not_verified", `${host} is not verified yet.`);
  return site;
}

/** A new publisher key for an owned, verified site (shown once); the others keep working. */
export async function createPublisherKey(
  db: Db,
  accountId: string,
  host: string,
  label: string,
  now: number,
) {
  const site = await ownedSite(db, accountId, host);
  const publisherKey = newToken("publisher");
  const id = crypto.randomUUID();
  await db
    .insert(publisherKeys)
    .values({ id, host: site.host, keyHash: await sha256Hex(publisherKey), label, createdAt: now });
  return { id, label, publisherKey };
}

export async function revokePublisherKey(
  db: Db,
  accountId: string,
  host: string,
  keyId: string,
  now: number,
): Promise<void> {
  const site = await ownedSite(db, accountId, host);
  const updated = await db
    .update(publisherKeys)
    .set({ revokedAt: now })
    .where(
      and(eq(publisherKeys.id, keyId), eq(publisherKeys.host, site.host), isNull(publisherKeys.revokedAt)),
    )
    .returning({ id: publisherKeys.id });
  if (updated.length === 0) throw new HubError("not_found", `No active publisher key ${keyId} for ${host}.`);
}

// --- deleting ---------------------------------------------------------------------------------------------

/**
 * Deletes an account: its channels are deleted and their live connections closed (as an expired channel's
 * are), its sites released (they stay listed, owned by nobody, their publisher keys still working), its
 * passkeys and sessions deleted with it.
 */
export async function deleteAccount(db: Db, accountId: string, closeChannel: CloseChannel) {
  // The account first: its sessions go with it, so nothing new can be created in its name meanwhile.
  const owned = await db.select({ id: channels.id }).from(channels).where(eq(channels.accountId, accountId));
  await db.batch([
    db.delete(webauthnChallenges).where(eq(webauthnChallenges.accountId, accountId)),
    db.delete(accounts).where(eq(accounts.id, accountId)),
  ]);
  const closed = await closeChannels(
    db,
    owned.map((c) => c.id),
    closeChannel,
  );
  const released = await db
    .update(sites)
    .set({ accountId: null })
    .where(eq(sites.accountId, accountId))
    .returning({ host: sites.host });
  return {
    deletedChannels: closed.channels,
    closedConnections: closed.connections,
    releasedSites: released.length,
  };
}
