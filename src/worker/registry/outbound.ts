// Fetches a file from a site (ownership proof, manifest) or the DNS-over-HTTPS resolver with the protections
// the registry needs: the origin policy (origins.ts), no redirects, a fixed User-Agent, one time budget for
// headers and body together, a body cap, and an expected media type. Every way the fetch can fail ends in a
// HubError with a documented code, so a misbehaving site is never a 500:
//   refused by policy (scheme, port, private host)  → invalid_origin / private_origin (400), nothing sent
//   unreachable, refused, reset or timed out before the headers → upstream_failed, one wording for all (a
//     caller cannot tell a closed port from a silent one; the server log keeps the detail)
//   redirect, non-200 status, wrong media type, body over the cap → upstream_failed, saying which
//   body too slow for the time budget → upstream_failed, "too slow to send"; body cut off → upstream_failed
import { HubError } from "../http/errors.js";
import { assertFetchable } from "./origins.js";

export const HUB_USER_AGENT = "webmcp-hub-verifier/1.0 (+https://github.com/webmcp-hub/webmcp-hub)";

export interface OutboundOptions {
  maxBytes: number;
  /** The whole fetch, headers and body together, must finish within this many milliseconds. */
  timeoutMs: number;
  allowPrivate: boolean;
  accept?: string;
  /**
   * Media types the body may be served as ("" stands for no Content-Type header); the first is the one
   * named in the error. "application/json" also admits any `…+json` type. Any type when absent.
   */
  mediaTypes?: readonly string[];
  fetcher?: typeof fetch;
}

export interface OutboundText {
  status: number;
  contentType: string;
  text: string;
}

/** GETs `url` and returns its body as text, or throws a HubError (see the header for which). */
/**
 * Failures of the transport rather than of the file: the site could not be reached, did not answer in time,
 * was too slow to send its body or hung up. Verification reports these as upstream_failed (502) too, while a
 * file that arrived but is wrong (status, redirect, type, size) fails the proof (422).
 */
const transportFailures = new WeakSet<HubError>();

function transportFailure(message: string): HubError {
  const error = new HubError("upstream_failed", message);
  transportFailures.add(error);
  return error;
}

/** Whether `e` says the site could not be read at all (unreachable, too slow, cut off). */
export function isTransportFailure(e: unknown): boolean {
  return e instanceof HubError && transportFailures.has(e);
}

export async function fetchSiteText(url: string, opts: OutboundOptions): Promise<OutboundText> {
  const target = new URL(url);
  assertFetchable(target, opts.allowPrivate);
  const where = target.toString();
  const budget = startBudget(opts.timeoutMs);
  try {
    const response = await fetchHeaders(target, opts, budget);
    if (response.status >= 300 && response.status < 400) {
      discard(response);
      throw new HubError(
        "upstream_failed",
        `${where} answered with a redirect (${response.status}); redirects are not followed. Serve the file at exactly this URL.`,
      );
    }
    if (response.status !== 200) {
      discard(response);
      throw new HubError(
        "upstream_failed",
        `${where} answered ${response.status}; it must answer 200 with the file.`,
      );
    }
    const contentType = response.headers.get("content-type") ?? "";
    checkMediaType(contentType, opts.mediaTypes, where, response);
    const text = await readCapped(response, opts.maxBytes, where, budget);
    return { status: response.status, contentType, text };
  } catch (e) {
    if (e instanceof HubError) throw e;
    // Nothing a site sends may surface as a 500; whatever slipped past the cases above is its failure.
    console.warn(`outbound fetch of ${where} failed unexpectedly: ${describe(e)}`);
    throw transportFailure(`Could not fetch ${where}; try again in a minute.`);
  } finally {
    budget.stop();
  }
}

/** One deadline for the whole fetch: aborts the request and rejects `race`d steps when it passes. */
interface Budget {
  signal: AbortSignal;
  seconds: string;
  race<T>(step: Promise<T>): Promise<T>;
  readonly expired: boolean;
  stop(): void;
}

function startBudget(timeoutMs: number): Budget {
  const controller = new AbortController();
  let expire: (reason: unknown) => void = () => {};
  const expiry = new Promise<never>((_, reject) => (expire = reject));
  expiry.catch(() => {}); // observed through `race`; never an unhandled rejection
  const timer = setTimeout(() => {
    const reason = new DOMException(`no complete answer within ${timeoutMs} ms`, "TimeoutError");
    controller.abort(reason);
    expire(reason);
  }, timeoutMs);
  return {
    signal: controller.signal,
    seconds: `${timeoutMs / 1000} s`,
    // The signal alone would do where the runtime honours it for the body too; racing makes it certain.
    race: (step) => Promise.race([step, expiry]),
    get expired() {
      return controller.signal.aborted;
    },
    stop: () => clearTimeout(timer),
  };
}

async function fetchHeaders(target: URL, opts: OutboundOptions, budget: Budget): Promise<Response> {
  const fetcher = opts.fetcher ?? fetch;
  try {
    return await budget.race(
      fetcher(target.toString(), {
        method: "GET",
        redirect: "manual",
        headers: {
          "user-agent": HUB_USER_AGENT,
          accept: opts.accept ?? "text/plain, application/json;q=0.9, */*;q=0.1",
        },
        signal: budget.signal,
      }),
    );
  } catch (e) {
    // Refused, reset, unresolvable, bad TLS or silent: one answer, so the hub is no port or host prober.
    console.warn(`outbound fetch of ${target.toString()} got no answer: ${describe(e)}`);
    throw transportFailure(
      `Could not fetch ${target.toString()}: the site could not be reached or did not answer within ${budget.seconds}. Check that it is online and serves the file, then try again.`,
    );
  }
}

function checkMediaType(
  contentType: string,
  allowed: readonly string[] | undefined,
  where: string,
  response: Response,
): void {
  if (!allowed) return;
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  const ok =
    allowed.includes(type) || (allowed.includes("application/json") && /^[a-z]+\/[^;\s]+\+json$/.test(type));
  if (ok) return;
  discard(response);
  throw new HubError(
    "upstream_failed",
    `${where} is served as ${type}; serve it as ${allowed[0] ?? "text/plain"}.`,
  );
}

async function readCapped(
  response: Response,
  maxBytes: number,
  where: string,
  budget: Budget,
): Promise<string> {
  const tooBig = () => new HubError("upstream_failed", `${where} is larger than ${maxBytes} bytes.`);
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(response);
    throw tooBig();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  try {
    for (;;) {
      const { done, value } = await budget.race(reader.read());
      if (done) break;
      // Bytes as delivered (after any content decoding), so a compressed bomb stops at the cap too.
      size += value.byteLength;
      if (size > maxBytes) throw tooBig();
      text += decoder.decode(value, { stream: true });
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    if (e instanceof HubError) throw e;
    console.warn(`outbound fetch of ${where}: body failed after ${size} bytes: ${describe(e)}`);
    if (budget.expired) {
      throw transportFailure(
        `${where} was too slow to send its file: the whole answer must arrive within ${budget.seconds}. Make the file load faster, then try again.`,
      );
    }
    throw transportFailure(`${where} closed the connection before the whole file arrived; try again.`);
  }
  return text + decoder.decode();
}

/** Drops an unread body without waiting: a site that stalls cannot hold the request past its budget. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
