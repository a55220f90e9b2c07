// Tokens: 32 random bytes, base64url, with a readable prefix; only their SHA-256 is ever stored.
export const TOKEN_PREFIX = {
  publisher: "whp_",
  owner: "who_",
  agent: "wha_",
  provider: "whr_",
  claim: "whc_",
} as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

export function randomBase64Url(bytes = 32): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return base64Url(buf);
}

export function newToken(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBase64Url(32);
}

/** True when `token` has the shape of a `kind` token (cheap check before any lookup). */
export function looksLike(kind: TokenKind, token: string): boolean {
  return token.startsWith(TOKEN_PREFIX[kind]) && /^[A-Za-z0-9_-]{43}$/.test(token.slice(4));
}

export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const data = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const digest = await crypto.subtle.digest("SHA-256", data);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function base64Url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const bin = atob(b64);
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

/** Reads `Authorization: Bearer <token>`; returns undefined when absent or malformed. */
export function bearerToken(header: string | undefined | null): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m?.[1];
}
