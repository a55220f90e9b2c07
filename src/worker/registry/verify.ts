// Ownership proofs: the token in https://HOST/.well-known/webmcp-hub-verify, or in the DNS TXT record
// `_webmcp-hub.HOST` (value `webmcp-hub-verify=TOKEN`) read over DNS-over-HTTPS. Whatever goes wrong with
// the site's file or records is the proof failing (verification_failed, 422, saying what to fix); a site
// that cannot be read at all (unreachable, silent, too slow to send its file, hung up) and a failing
// resolver are upstream_failed (502): the caller can only fix the server, then try again.
import * as z from "zod";
import { LIMITS } from "../../protocol/index.js";
import { HubError } from "../http/errors.js";
import { fetchSiteText, isTransportFailure } from "./outbound.js";
import type { SiteOrigin } from "./origins.js";

export const VERIFY_PATH = "/.well-known/webmcp-hub-verify";
export const DNS_PREFIX = "_webmcp-hub.";
export const DNS_VALUE_PREFIX = "webmcp-hub-verify=";

export type VerificationMethod = "http" | "dns";

export interface ProofContext {
  allowPrivate: boolean;
  dohUrl: string;
  fetcher?: typeof fetch;
  /** Time budget of each fetch (headers and body); LIMITS.outboundFetchTimeoutMs unless a test passes less. */
  timeoutMs?: number;
}

/** Media types a proof file may be served as: text/plain as documented, or what servers send for a file
 * without an extension (nginx's default application/octet-stream, or no Content-Type at all). */
const PROOF_MEDIA_TYPES = ["text/plain", "application/octet-stream", ""] as const;

/** Resolves when the proof holds; throws HubError("verification_failed", reason) when it does not. */
export async function checkOwnershipProof(
  site: SiteOrigin,
  method: VerificationMethod,
  token: string,
  ctx: ProofContext,
): Promise<void> {
  if (method === "http") return checkHttpProof(site, token, ctx);
  return checkDnsProof(site, token, ctx);
}

async function checkHttpProof(site: SiteOrigin, token: string, ctx: ProofContext): Promise<void> {
  const url = site.origin + VERIFY_PATH;
  let body: string;
  try {
    ({ text: body } = await fetchSiteText(url, {
      maxBytes: LIMITS.verifyFileBytes,
      timeoutMs: ctx.timeoutMs ?? LIMITS.outboundFetchTimeoutMs,
      allowPrivate: ctx.allowPrivate,
      accept: "text/plain",
      mediaTypes: PROOF_MEDIA_TYPES,
      ...(ctx.fetcher ? { fetcher: ctx.fetcher } : {}),
    }));
  } catch (e) {
    if (e instanceof HubError && e.code === "upstream_failed" && !isTransportFailure(e))
      throw new HubError("verification_failed", e.message);
    throw e;
  }
  // The file holds the token, alone (surrounding white space and a trailing newline are fine).
  if (body.trim() !== token) {
    throw new HubError(
      "verification_failed",
      `${url} was fetched, but its content is not the expected token. Put exactly the token, and nothing else, in the file.`,
    );
  }
}

const RCODES: Record<number, string> = { 1: "FORMERR", 2: "SERVFAIL", 4: "NOTIMP", 5: "REFUSED" };

const DohAnswerSchema = z.object({
  Status: z.number(),
  Answer: z.array(z.object({ name: z.string().optional(), type: z.number(), data: z.string() })).optional(),
});

async function checkDnsProof(site: SiteOrigin, token: string, ctx: ProofContext): Promise<void> {
  const name = DNS_PREFIX + site.hostname;
  const url = new URL(ctx.dohUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", "TXT");
  let text: string;
  try {
    // The resolver is the deployment's own configuration (DOH_URL), not a site: no origin policy applies.
    ({ text } = await fetchSiteText(url.toString(), {
      maxBytes: LIMITS.dohAnswerBytes,
      timeoutMs: ctx.timeoutMs ?? LIMITS.outboundFetchTimeoutMs,
      allowPrivate: true,
      accept: "application/dns-json",
      ...(ctx.fetcher ? { fetcher: ctx.fetcher } : {}),
    }));
  } catch (e) {
    console.warn(`DNS-over-HTTPS lookup of ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
    throw new HubError(
      "upstream_failed",
      "The DNS-over-HTTPS resolver could not be reached or did not answer in time; try again in a minute.",
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = DohAnswerSchema.safeParse(json);
  if (!parsed.success)
    throw new HubError(
      "upstream_failed",
      "The DNS-over-HTTPS resolver gave an unreadable answer; try again.",
    );
  // 0 NOERROR and 3 NXDOMAIN are answers; anything else (SERVFAIL, REFUSED…) means the lookup itself failed.
  if (parsed.data.Status !== 0 && parsed.data.Status !== 3) {
    throw new HubError(
      "verification_failed",
      `The DNS lookup of ${name} failed (${RCODES[parsed.data.Status] ?? `response code ${parsed.data.Status}`}); check that the domain's name servers answer, then try again.`,
    );
  }
  const values = (parsed.data.Answer ?? []).filter((a) => a.type === 16).map((a) => txtValue(a.data));
  const expected = DNS_VALUE_PREFIX + token;
  if (values.includes(expected)) return;
  if (values.length === 0) {
    throw new HubError(
      "verification_failed",
      `No TXT record found at ${name}. Add one with the value ${expected} (DNS changes can take a few minutes to appear).`,
    );
  }
  throw new HubError("verification_failed", `TXT records exist at ${name}, but none is ${expected}.`);
}

/** A TXT answer's data is one or more quoted strings; join them as DNS does. */
export function txtValue(data: string): string {
  const parts = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
  return parts.length ? parts.join("") : data.trim();
}
