// Opaque pagination cursors: the keyset position of the last row, bound to the query that produced it.
import * as z from "zod";
import { HubError } from "../http/errors.js";
import { shortHash } from "../../protocol/index.js";
import { base64Url, fromBase64Url } from "../secrets.js";

const CursorSchema = z.object({
  v: z.literal(1),
  f: z.string(),
  k: z
    .array(z.union([z.string(), z.number()]))
    .min(1)
    .max(4),
});

export function encodeCursor(fingerprint: string, key: Array<string | number>): string {
  return base64Url(new TextEncoder().encode(JSON.stringify({ v: 1, f: shortHashOf(fingerprint), k: key })));
}

/** Returns the keyset position, or throws invalid_cursor when the cursor is malformed or from another query. */
export function decodeCursor(cursor: string, fingerprint: string): Array<string | number> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(fromBase64Url(cursor)));
  } catch {
    throw new HubError(
      "invalid_cursor",
      "The cursor is not one this API issued. Drop it to start from the first page.",
    );
  }
  const parsed = CursorSchema.safeParse(value);
  if (!parsed.success)
    throw new HubError(
      "invalid_cursor",
      "The cursor is not one this API issued. Drop it to start from the first page.",
    );
  if (parsed.data.f !== shortHashOf(fingerprint)) {
    throw new HubError(
      "invalid_cursor",
      "This cursor belongs to a different query (q, site, readOnly or sort changed). Drop it to start again.",
    );
  }
  return parsed.data.k;
}

/** A query fingerprint: two 32-bit FNV hashes (not cryptographic; cursors carry public positions only). */
function shortHashOf(text: string): string {
  return shortHash(text) + shortHash(`${text.length}:${text}`);
}
