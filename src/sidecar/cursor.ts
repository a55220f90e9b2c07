// Page cursors of fs.search_by_time: opaque to agents, signed with HMAC-SHA256 under a key that exists only
// in this process, and bound to the query they continue. A cursor carries a keyset position (the last
// entry's time and path); the path inside is checked again on the way in, although the signature holds.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { SearchError } from "./errors.js";
import type { Position } from "./order.js";

const VERSION = 1;
const MAX_CURSOR_LENGTH = 16 * 1024;

const INVALID =
  "Invalid 'cursor': it was changed, cut short, or comes from an earlier run of this server. Call again without 'cursor' to start from the first page.";
const FOREIGN =
  "This 'cursor' belongs to a different search: call again with exactly the arguments of the call that returned it (only 'limit' may change), or drop 'cursor' to start over.";

/** A stable digest of the arguments that define a result set (everything but `cursor` and `limit`). */
export function queryDigest(query: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(query)
      .sort()
      .map((k) => [k, query[k] ?? null]),
  );
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 22);
}

/** True for a root-relative POSIX path that stays inside `under` ("" = the root), by whole components. */
export function isContainedRelativePath(p: string, under: string): boolean {
  if (p === "" || p.includes("\0") || path.posix.isAbsolute(p)) return false;
  if (path.posix.normalize(p) !== p || p.endsWith("/")) return false;
  if (p === ".." || p.startsWith("../")) return false;
  return under === "" || p.startsWith(`${under}/`);
}

export class CursorCodec {
  private readonly key: Buffer;

  /** A random key per process (pass one only in tests): cursors from another run are refused. */
  constructor(key: Buffer = randomBytes(32)) {
    this.key = key;
  }

  private sign(payload: string): Buffer {
    return createHmac("sha256", this.key).update(payload).digest();
  }

  encode(digest: string, position: Position): string {
    const payload = Buffer.from(
      JSON.stringify({ v: VERSION, q: digest, t: position.t, p: position.p }),
    ).toString("base64url");
    return `${payload}.${this.sign(payload).toString("base64url")}`;
  }

  /**
   * The position a cursor continues from. Refused (SearchError, i.e. isError): a bad signature or shape, a
   * cursor of another query, a path that is not a plain relative path under the search's start directory.
   */
  decode(cursor: string, digest: string, startRel: string): Position {
    if (cursor.length > MAX_CURSOR_LENGTH) throw new SearchError(INVALID);
    const dot = cursor.indexOf(".");
    if (dot <= 0 || dot !== cursor.lastIndexOf(".")) throw new SearchError(INVALID);
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), "base64url");
    const expected = this.sign(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new SearchError(INVALID);
    let data: unknown;
    try {
      data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      throw new SearchError(INVALID);
    }
    if (typeof data !== "object" || data === null) throw new SearchError(INVALID);
    const { v, q, t, p } = data as Record<string, unknown>;
    if (v !== VERSION || typeof q !== "string" || typeof p !== "string") throw new SearchError(INVALID);
    if (!(t === null || (typeof t === "number" && Number.isFinite(t)))) throw new SearchError(INVALID);
    if (q !== digest) throw new SearchError(FOREIGN);
    if (!isContainedRelativePath(p, startRel)) throw new SearchError(INVALID);
    return { t, p };
  }
}
