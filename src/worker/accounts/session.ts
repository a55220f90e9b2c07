// Browser sessions: the cookie that names a hashed session row, who is signed in, and the Origin rule for
// state-changing requests the cookie authenticates (ARCHITECTURE.md "Accounts").
//
// Decisions written down here:
// - The cookie holds 32 random bytes (base64url); D1 keeps only their SHA-256 (sessions.id_hash).
// - Name: `__Host-hub_session` on https (Secure, Path=/, no Domain: bound to the hub's exact origin);
//   `hub_session` on plain http (a local `npm start` on http://127.0.0.1, tests), where a __Host- cookie is
//   refused by browsers. Always HttpOnly, SameSite=Lax, Path=/.
// - Expiry: 30 days after the session was last used (sliding). A use extends it at most once a day
//   (SESSION_TOUCH_MS), then the row and the cookie's Max-Age are renewed. No absolute cap: a passkey is
//   needed again only after 30 days away or a sign-out.
// - Rotation: signing in (or creating an account) always starts a new session and deletes the one the
//   browser presented, so a session id planted before sign-in never becomes authenticated.
// - Origin rule: a POST/PUT/PATCH/DELETE that carries the session cookie is refused (403 forbidden) unless its
//   Origin is the hub's own origin, whatever else it carries: SameSite=Lax does not stop same-site requests
//   from sibling origins, and a missing Origin on such a request is not a browser we serve.
import type { Context } from "hono";
import { and, eq, gt } from "drizzle-orm";
import type { Db } from "../db/client.js";
import type { AppContext } from "../http/context.js";
import { accounts, sessions } from "../db/schema.js";
import type { AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";
import { randomBase64Url, sha256Hex } from "../secrets.js";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A session's expiry and last_seen_at are renewed at most this often. */
export const SESSION_TOUCH_MS = 24 * 60 * 60 * 1000;

const PLAIN_COOKIE = "hub_session";
const HOST_COOKIE = "__Host-hub_session";

export interface SessionAccount {
  id: string;
  displayName: string;
}

interface SessionLookup {
  account: SessionAccount | null;
  idHash: string | null;
}

declare module "hono" {
  interface ContextVariableMap {
    /** The signed-in account of this request, looked up once (accounts/session.ts). */
    accountSession: Promise<SessionLookup>;
  }
}

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:";
}

/** The session cookie's name for this request's scheme. */
export function sessionCookieName(c: Context): string {
  return isHttps(c) ? HOST_COOKIE : PLAIN_COOKIE;
}

/** The session token the request's cookie carries, if any (only the name for this scheme counts). */
export function sessionTokenOf(c: Context): string | undefined {
  const name = sessionCookieName(c);
  for (const part of (c.req.header("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (/^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}

/** `Set-Cookie` for a session token, or for clearing it (`token` null). */
export function sessionCookieHeader(c: Context, token: string | null): string {
  const attrs = [
    `${sessionCookieName(c)}=${token ?? ""}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${token ? Math.floor(SESSION_TTL_MS / 1000) : 0}`,
  ];
  if (isHttps(c)) attrs.push("Secure");
  return attrs.join("; ");
}

export async function lookupSession(db: Db, token: string, now: number) {
  const idHash = await sha256Hex(token);
  const [row] = await db
    .select({ session: sessions, account: { id: accounts.id, displayName: accounts.displayName } })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .limit(1);
  return row ?? null;
}

/** Starts a session for an account; returns the token for the cookie (shown to nobody else). */
export async function createSession(db: Db, accountId: string, now: number): Promise<string> {
  const token = randomBase64Url(32);
  await db.insert(sessions).values({
    idHash: await sha256Hex(token),
    accountId,
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
    lastSeenAt: now,
  });
  return token;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.idHash, await sha256Hex(token)));
}

/** Ends every session of an account (sign out everywhere); returns how many there were. */
export async function deleteAccountSessions(db: Db, accountId: string): Promise<number> {
  const gone = await db
    .delete(sessions)
    .where(eq(sessions.accountId, accountId))
    .returning({ idHash: sessions.idHash });
  return gone.length;
}

/**
 * The account signed in on this request (its session cookie names a live session row), or null. Looked up once
 * per request; a session used after SESSION_TOUCH_MS is renewed (row and cookie).
 */
export async function currentAccount(c: Context<AppEnv>): Promise<SessionAccount | null> {
  return (await sessionOf(c)).account;
}

function sessionOf(c: Context<AppEnv>): Promise<SessionLookup> {
  let lookup = c.get("accountSession");
  if (!lookup) {
    lookup = readSession(c);
    c.set("accountSession", lookup);
  }
  return lookup;
}

async function readSession(c: Context<AppEnv>): Promise<SessionLookup> {
  const token = sessionTokenOf(c);
  if (!token) return { account: null, idHash: null };
  const { db, now } = c.var;
  const row = await lookupSession(db, token, now);
  if (!row) return { account: null, idHash: null };
  if (now - (row.session.lastSeenAt ?? row.session.createdAt) >= SESSION_TOUCH_MS) {
    await db
      .update(sessions)
      .set({ lastSeenAt: now, expiresAt: now + SESSION_TTL_MS })
      .where(eq(sessions.idHash, row.session.idHash));
    c.header("set-cookie", sessionCookieHeader(c, token), { append: true });
  }
  return { account: row.account, idHash: row.session.idHash };
}

/** The signed-in account, or 401 unauthorized. */
export async function requireAccount(c: Context<AppEnv>): Promise<SessionAccount> {
  const account = await currentAccount(c);
  if (!account)
    throw new HubError("unauthorized", "Sign in first: this needs your account's session (/signin).");
  return account;
}

/** Starts a session for `accountId` on this response, ending the one the browser presented (rotation). */
export async function signInResponse(c: Context<AppEnv>, accountId: string): Promise<void> {
  const presented = sessionTokenOf(c);
  if (presented) await deleteSession(c.var.db, presented);
  const token = await createSession(c.var.db, accountId, c.var.now);
  c.set("accountSession", Promise.resolve({ account: null, idHash: null }));
  c.header("set-cookie", sessionCookieHeader(c, token), { append: true });
}

/** Ends the presented session and clears the cookie. */
export async function signOutResponse(c: Context<AppEnv>): Promise<void> {
  const presented = sessionTokenOf(c);
  if (presented) await deleteSession(c.var.db, presented);
  c.set("accountSession", Promise.resolve({ account: null, idHash: null }));
  c.header("set-cookie", sessionCookieHeader(c, null), { append: true });
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** True when a state-changing request carries the session cookie and does not come from the hub's origin. */
export function isForeignCookieWrite(c: AppContext): boolean {
  if (!STATE_CHANGING.has(c.req.method)) return false;
  if (sessionTokenOf(c) === undefined) return false;
  return c.req.header("origin") !== c.var.hub;
}

/**
 * Middleware factory: refuses (403 forbidden) a POST/PUT/PATCH/DELETE that carries the session cookie unless
 * its Origin is the hub's own; other requests pass. Mount it on every route a session may authenticate.
 */
export function requireHubOrigin() {
  return async function requireHubOriginMiddleware(c: AppContext, next: () => Promise<void>): Promise<void> {
    if (isForeignCookieWrite(c)) {
      const origin = c.req.header("origin");
      throw new HubError(
        "forbidden",
        `This request carries your session cookie but comes from ${origin ? `another origin (${origin})` : "no Origin"}; only pages of ${c.var.hub} may change things with your session.`,
      );
    }
    await next();
  };
}
