// WebAuthn challenges: issued by an options call, consumed once by the matching verify call within 5 minutes.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { webauthnChallenges } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { randomBase64Url } from "../secrets.js";

export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export type ChallengePurpose = (typeof webauthnChallenges.$inferSelect)["purpose"];

export async function issueChallenge(
  db: Db,
  purpose: ChallengePurpose,
  accountId: string | null,
  now: number,
): Promise<{ id: string; challenge: string }> {
  const id = crypto.randomUUID();
  const challenge = randomBase64Url(32);
  await db
    .insert(webauthnChallenges)
    .values({ id, challenge, purpose, accountId, createdAt: now, expiresAt: now + CHALLENGE_TTL_MS });
  return { id, challenge };
}

/**
 * Takes a challenge out (deleted whatever happens next: single use) and checks it is live, for `purpose`, and
 * (for adding a passkey) issued to `accountId`. 410 challenge_expired otherwise.
 */
export async function consumeChallenge(
  db: Db,
  id: string,
  purpose: ChallengePurpose,
  now: number,
  accountId?: string,
): Promise<typeof webauthnChallenges.$inferSelect> {
  const [row] = await db.delete(webauthnChallenges).where(eq(webauthnChallenges.id, id)).returning();
  if (
    !row ||
    row.expiresAt <= now ||
    row.purpose !== purpose ||
    (accountId !== undefined && row.accountId !== accountId)
  ) {
    throw new HubError(
      "challenge_expired",
      "This passkey request is unknown, was already used, has expired (5 minutes) or was for something else. Start again.",
    );
  }
  return row;
}
