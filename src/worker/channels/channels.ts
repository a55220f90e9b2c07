// Channels and their secrets: owner keys, agent tokens, pairing codes and provider tokens (D1, hashed).
import { and, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { LIMITS, PAIRING_ALPHABET, type ChannelConfig, type PairBody } from "../../protocol/index.js";
import type {
  AgentTokenView,
  ChannelView,
  CreatedAgentToken,
  CreatedChannel,
  PairedView,
  PairingCodeView,
} from "../../protocol/views.js";
import type { Db } from "../db/client.js";
import { agentTokens, channels, ownerKeys, pairingCodes, providerTokens } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { bearerToken, looksLike, newToken, randomBase64Url, sha256Hex } from "../secrets.js";
import { extensionOrigin, tabOrigin, type PairingSource } from "./pairing-source.js";
import { assertUnderLimit, pairingRules, recordFailure } from "./rate-limit.js";

export const PAIRING_TTL_MS = 10 * 60 * 1000;
/** A channel's last_used_at is written at most this often by the hot paths that note a use. */
export const CHANNEL_USE_RESOLUTION_MS = 60 * 60 * 1000;

export type ChannelRow = typeof channels.$inferSelect;
export type ProviderTokenRow = typeof providerTokens.$inferSelect;

export interface ChannelUrls {
  mcpUrl: string;
  /** For clients that can be given only a URL: the token travels in the path, never the query string. */
  mcpCapabilityUrl: string;
}

export function channelUrls(hubOrigin: string, channelId: string, agentToken: string): ChannelUrls {
  return {
    mcpUrl: `${hubOrigin}/mcp/${channelId}`,
    mcpCapabilityUrl: `${hubOrigin}/mcp/${channelId}/k/${agentToken}`,
  };
}

export function channelView(row: ChannelRow): ChannelView {
  return {
    id: row.id,
    name: row.name,
    strictNames: row.strictNames,
    verificationPolicy: row.verificationPolicy,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

export function newPairingCode(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  // 256 is a multiple of 32, so `b % 32` is unbiased.
  return [...bytes].map((b) => PAIRING_ALPHABET[b % 32]).join("");
}

export function formatPairingCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The label of the agent token a channel is created with. A person reads it where the hub names the agent:
 * the approval ("Allow your agent (token created with the channel) to run …?"), the audit log, the tokens.
 */
export const FIRST_AGENT_TOKEN_LABEL = "your agent (token created with the channel)";

export async function createChannel(
  db: Db,
  input: { name: string; strictNames: boolean },
  hubOrigin: string,
  now: number,
  /** The signed-in account creating it, which then owns it; null: anonymous. */
  accountId: string | null = null,
): Promise<CreatedChannel> {
  const id = randomBase64Url(12);
  const ownerKey = newToken("owner");
  const ownerKeyHash = await sha256Hex(ownerKey);
  const agentToken = newToken("agent");
  const code = newPairingCode();
  const agentTokenId = crypto.randomUUID();
  await db.batch([
    db.insert(channels).values({
      id,
      name: input.name,
      ownerKeyHash,
      strictNames: input.strictNames,
      createdAt: now,
      accountId,
    }),
    db.insert(ownerKeys).values({
      id: crypto.randomUUID(),
      channelId: id,
      keyHash: ownerKeyHash,
      label: "created with the channel",
      createdAt: now,
    }),
    db.insert(agentTokens).values({
      id: agentTokenId,
      channelId: id,
      tokenHash: await sha256Hex(agentToken),
      label: FIRST_AGENT_TOKEN_LABEL,
      createdAt: now,
    }),
    db.insert(pairingCodes).values({
      codeHash: await sha256Hex(code),
      channelId: id,
      createdAt: now,
      expiresAt: now + PAIRING_TTL_MS,
    }),
  ]);
  return {
    channel: {
      id,
      name: input.name,
      strictNames: input.strictNames,
      verificationPolicy: "all",
      createdAt: new Date(now).toISOString(),
    },
    ownerKey,
    agentToken,
    agentTokenId,
    agentTokenLabel: FIRST_AGENT_TOKEN_LABEL,
    ...channelUrls(hubOrigin, id, agentToken),
    pairingCode: formatPairingCode(code),
    pairingCodeExpiresAt: new Date(now + PAIRING_TTL_MS).toISOString(),
  };
}

/** The channel, if `authorization` carries one of its live owner keys; 401/403 otherwise. */
export async function authenticateOwner(
  db: Db,
  channelId: string,
  authorization: string | undefined,
  now: number = Date.now(),
): Promise<ChannelRow> {
  const key = bearerToken(authorization);
  if (!key || !looksLike("owner", key))
    throw new HubError(
      "unauthorized",
      "Send the channel's owner key as `Authorization: Bearer who_…`, or sign in with the account that owns the channel.",
    );
  const [found] = await db
    .select({ channel: channels })
    .from(ownerKeys)
    .innerJoin(channels, eq(channels.id, ownerKeys.channelId))
    .where(and(eq(ownerKeys.keyHash, await sha256Hex(key)), isNull(ownerKeys.revokedAt)))
    .limit(1);
  if (!found) throw new HubError("unauthorized", "This owner key is unknown or was revoked.");
  if (found.channel.id !== channelId)
    throw new HubError("forbidden", "This owner key belongs to another channel.");
  await noteChannelUse(db, found.channel, now);
  return found.channel;
}

/** The channel, if the signed-in account `accountId` owns it; 404/403 otherwise. */
export async function authenticateOwnerAccount(
  db: Db,
  channelId: string,
  accountId: string,
  now: number,
): Promise<ChannelRow> {
  const row = await db.query.channels.findFirst({ where: eq(channels.id, channelId) });
  if (!row) throw new HubError("not_found", "No such channel (it may have been deleted).");
  if (row.accountId !== accountId)
    throw new HubError(
      "forbidden",
      "Your account does not own this channel. Claim it with its owner key on your account page, or send the owner key.",
    );
  await noteChannelUse(db, row, now);
  return row;
}

/**
 * Records that a channel is in use (what keeps it from expiring, see maintenance.ts), at most once per
 * CHANNEL_USE_RESOLUTION_MS: the caller already holds the row, so a fresh one costs no query.
 */
export async function noteChannelUse(
  db: Db,
  channel: Pick<ChannelRow, "id" | "lastUsedAt">,
  now: number,
): Promise<void> {
  if (channel.lastUsedAt !== null && now - channel.lastUsedAt < CHANNEL_USE_RESOLUTION_MS) return;
  await db
    .update(channels)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(channels.id, channel.id),
        or(isNull(channels.lastUsedAt), lt(channels.lastUsedAt, now - CHANNEL_USE_RESOLUTION_MS)),
      ),
    );
}

/**
 * The channel settings a connecting provider's socket is forwarded with, read from D1 as it connects; the
 * connection is a use of the channel (keeps it from expiring; written at most hourly). A channel deleted
 * meanwhile gets the defaults.
 */
export async function providerChannelConfig(db: Db, channelId: string, now: number): Promise<ChannelConfig> {
  const row = await db.query.channels.findFirst({ where: eq(channels.id, channelId) });
  if (row) await noteChannelUse(db, row, now);
  return {
    channelId,
    strictNames: row?.strictNames ?? false,
    verificationPolicy: row?.verificationPolicy ?? "all",
  };
}

export interface AgentIdentity {
  channel: ChannelRow;
  agentTokenId: string;
  agentLabel: string;
  /** sha256 of the token (what D1 stores): MCP sessions remember it to check later requests themselves. */
  tokenHash: string;
}

export async function authenticateAgent(
  db: Db,
  channelId: string,
  token: string | undefined,
  now: number = Date.now(),
): Promise<AgentIdentity> {
  if (!token || !looksLike("agent", token))
    throw new HubError("unauthorized", "Send the channel's agent token as `Authorization: Bearer wha_…`.");
  const tokenHash = await sha256Hex(token);
  // One query (token and its channel joined): this runs when an MCP session opens and on every plain call.
  const [row] = await db
    .select({ token: agentTokens, channel: channels })
    .from(agentTokens)
    .innerJoin(channels, eq(channels.id, agentTokens.channelId))
    .where(eq(agentTokens.tokenHash, tokenHash))
    .limit(1);
  if (!row || row.token.revokedAt !== null)
    throw new HubError("unauthorized", "This agent token is unknown or was revoked.");
  if (row.channel.id !== channelId)
    throw new HubError("forbidden", "This agent token belongs to another channel.");
  await noteChannelUse(db, row.channel, now);
  return { channel: row.channel, agentTokenId: row.token.id, agentLabel: row.token.label, tokenHash };
}

export async function createPairingCode(db: Db, channel: ChannelRow, now: number): Promise<PairingCodeView> {
  const code = newPairingCode();
  await db.batch([
    db.insert(pairingCodes).values({
      codeHash: await sha256Hex(code),
      channelId: channel.id,
      createdAt: now,
      expiresAt: now + PAIRING_TTL_MS,
    }),
    // At most a few live codes per channel (the oldest superseded): what bounds a guesser's chance of
    // landing in any one channel (see rate-limit.ts).
    db.delete(pairingCodes).where(
      and(
        eq(pairingCodes.channelId, channel.id),
        isNull(pairingCodes.usedAt),
        gt(pairingCodes.expiresAt, now),
        sql`${pairingCodes.codeHash} NOT IN (SELECT code_hash FROM pairing_codes WHERE channel_id = ${channel.id}
          AND used_at IS NULL AND expires_at > ${now}
          ORDER BY created_at DESC, rowid DESC LIMIT ${LIMITS.livePairingCodesPerChannel})`,
      ),
    ),
  ]);
  return { pairingCode: formatPairingCode(code), expiresAt: new Date(now + PAIRING_TTL_MS).toISOString() };
}

export async function createAgentToken(
  db: Db,
  channel: ChannelRow,
  label: string,
  hubOrigin: string,
  now: number,
): Promise<CreatedAgentToken> {
  const token = newToken("agent");
  const id = crypto.randomUUID();
  await db
    .insert(agentTokens)
    .values({ id, channelId: channel.id, tokenHash: await sha256Hex(token), label, createdAt: now });
  return { id, label, agentToken: token, ...channelUrls(hubOrigin, channel.id, token) };
}

export async function listAgentTokens(db: Db, channel: ChannelRow): Promise<AgentTokenView[]> {
  const rows = await db
    .select()
    .from(agentTokens)
    .where(eq(agentTokens.channelId, channel.id))
    .orderBy(desc(agentTokens.createdAt));
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    createdAt: new Date(r.createdAt).toISOString(),
    revokedAt: r.revokedAt === null ? null : new Date(r.revokedAt).toISOString(),
  }));
}

export async function revokeAgentToken(db: Db, channel: ChannelRow, id: string, now: number): Promise<void> {
  const updated = await db
    .update(agentTokens)
    .set({ revokedAt: now })
    .where(and(eq(agentTokens.id, id), eq(agentTokens.channelId, channel.id), isNull(agentTokens.revokedAt)))
    .returning({ id: agentTokens.id });
  if (updated.length === 0) throw new HubError("not_found", `No active agent token ${id} in this channel.`);
}

export async function revokeProviderToken(
  db: Db,
  channel: ChannelRow,
  id: string,
  now: number,
): Promise<void> {
  const updated = await db
    .update(providerTokens)
    .set({ revokedAt: now })
    .where(
      and(
        eq(providerTokens.id, id),
        eq(providerTokens.channelId, channel.id),
        isNull(providerTokens.revokedAt),
      ),
    )
    .returning({ id: providerTokens.id });
  if (updated.length === 0)
    throw new HubError("not_found", `No active provider token ${id} in this channel.`);
}

/** The label a tab's tools are known by: its origin's host, never what the page says. */
export function labelForOrigin(origin: string): string {
  return new URL(origin).host;
}

/**
 * Redeems a pairing code for a provider token. A tab's token is bound to its page's origin (the request's
 * Origin header, parsed and serialized: see pairing-source.ts), and the token records whether a browser page
 * sent the request. Attempts are rate limited per client, so codes cannot be guessed.
 */
export async function redeemPairingCode(
  db: Db,
  body: PairBody,
  source: PairingSource,
  clientKey: string,
  hubOrigin: string,
  now: number,
): Promise<PairedView> {
  const rules = pairingRules(clientKey);
  await assertUnderLimit(db, rules, now);
  // Checked before the code is looked at: a refused Origin leaves the code usable.
  const origin =
    body.kind === "tab"
      ? tabOrigin(source.origin)
      : body.kind === "extension"
        ? extensionOrigin(source.origin)
        : null;
  const hash = await sha256Hex(body.code);
  const [used] = await db
    .update(pairingCodes)
    .set({ usedAt: now })
    .where(and(eq(pairingCodes.codeHash, hash), isNull(pairingCodes.usedAt)))
    .returning();
  if (!used || used.expiresAt <= now) {
    await recordFailure(db, rules, now);
    throw new HubError(
      "not_found",
      "This pairing code is unknown, already used or expired. Create a new one in the channel console.",
    );
  }
  const token = newToken("provider");
  const id = crypto.randomUUID();
  const label =
    body.kind === "tab" && origin !== null
      ? labelForOrigin(origin)
      : (body.label ?? (body.kind === "extension" ? "browser extension" : "sidecar"));
  await db.insert(providerTokens).values({
    id,
    channelId: used.channelId,
    tokenHash: await sha256Hex(token),
    kind: body.kind,
    label,
    origin,
    pairedFromPage: source.fromPage,
    createdAt: now,
  });
  const channel = await db.query.channels.findFirst({ where: eq(channels.id, used.channelId) });
  await noteChannelUse(db, { id: used.channelId, lastUsedAt: channel?.lastUsedAt ?? null }, now);
  const relayUrl = `${hubOrigin.replace(/^http/, "ws")}/relay/${used.channelId}`;
  return {
    channelId: used.channelId,
    channelName: channel?.name ?? "",
    providerToken: token,
    providerTokenId: id,
    relayUrl,
    label,
  };
}

export async function authenticateProvider(
  db: Db,
  channelId: string,
  token: string | undefined,
  origin: string | undefined,
): Promise<ProviderTokenRow> {
  if (!token || !looksLike("provider", token))
    throw new HubError(
      "unauthorized",
      "Send the provider token in Sec-WebSocket-Protocol: webmcp-hub.v1, whr_….",
    );
  const row = await db.query.providerTokens.findFirst({
    where: eq(providerTokens.tokenHash, await sha256Hex(token)),
  });
  if (!row || row.revokedAt !== null)
    throw new HubError("unauthorized", "This provider token is unknown or was revoked. Pair again.");
  if (row.channelId !== channelId)
    throw new HubError("forbidden", "This provider token belongs to another channel.");
  if (row.kind === "tab" && origin !== row.origin) {
    throw new HubError(
      "forbidden",
      `This token was paired from ${row.origin}; it cannot be used from ${origin ?? "a request without an Origin"}.`,
    );
  }
  if (row.kind === "extension" && sameExtension(origin) !== row.origin) {
    throw new HubError(
      "forbidden",
      `This token belongs to the browser extension ${row.origin}; only that extension can use it.`,
    );
  }
  return row;
}

/** A request's Origin as an extension origin (lower case), or null when it is none. */
function sameExtension(origin: string | undefined): string | null {
  try {
    return extensionOrigin(origin);
  } catch {
    return null;
  }
}
