// Test helpers for accounts: a signed-in account made directly in D1 (no passkey ceremony), so any Worker test
// can act as a signed-in browser: send `cookie` and, on state-changing requests, `origin` (the hub's own).
import { env } from "cloudflare:test";
import { database } from "../../src/worker/db/client.js";
import { accounts } from "../../src/worker/db/schema.js";
import { createSession } from "../../src/worker/accounts/session.js";
import { BASE } from "./helpers.js";

export interface SignedInAccount {
  accountId: string;
  displayName: string;
  /** The session token the cookie carries. */
  token: string;
  /** A `Cookie` header value naming the session (plain name: the test host is http). */
  cookie: string;
  /** Headers of a same-origin browser request with this session: Cookie and Origin. */
  headers: Record<string, string>;
}

/** Creates an account and a live session row for it; `now` defaults to the wall clock. */
export async function signedInAccount(
  displayName = "Test person",
  now: number = Date.now(),
): Promise<SignedInAccount> {
  const db = database(env.DB);
  const accountId = crypto.randomUUID();
  await db.insert(accounts).values({ id: accountId, displayName, createdAt: now });
  const token = await createSession(db, accountId, now);
  const cookie = `hub_session=${token}`;
  return { accountId, displayName, token, cookie, headers: { cookie, origin: BASE } };
}
