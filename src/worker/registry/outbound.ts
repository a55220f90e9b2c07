// Fetches a site's well-known file with the protections verification needs: no redirects, a fixed
// User-Agent, a timeout, a body cap, and no private addresses unless the deployment allows them.
import { HubError } from "../http/errors.js";
import { isPrivateHostname } from "./origins.js";

export const HUB_USER_AGENT = "webmcp-hub-verifier/1.0 (+https://github.com/webmcp-hub/webmcp-hub)";

export interface OutboundOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  accept?: string;
  fetcher?: typeof fetch;
}

export interface OutboundText {
  status: number;
  contentType: string;
  text: string;
}

/** GETs `url` and returns its body as text, or throws a HubError("verification_failed" | "upstream_failed"). */
export async function fetchSiteText(url: string, opts: OutboundOptions): Promise<OutboundText> {
  const target = new URL(url);
  if (
    !opts.allowPrivate &&
    (target.protocol !== "https:" || isPrivateHostname(target.hostname.replace(/^\[|\]$/g, "")))
  ) {
    throw new HubError(
      "private_origin",
      `Refusing to fetch ${target.origin}: only public https origins can be fetched.`,
    );
  }
  const fetcher = opts.fetcher ?? fetch;
  let response: Response;
  try {
    response = await fetcher(target.toString(), {
      method: "GET",
      redirect: "manual",
      headers: {
        "user-agent": HUB_USER_AGENT,
        accept: opts.accept ?? "text/plain, application/json;q=0.9, */*;q=0.1",
      },
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (e) {
    const timedOut = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
    throw new HubError(
      "upstream_failed",
      timedOut
        ? `${target.toString()} did not answer within ${opts.timeoutMs / 1000} s.`
        : `Could not connect to ${target.origin} to fetch ${target.pathname}.`,
    );
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new HubError(
      "upstream_failed",
      `${target.toString()} answered with a redirect (${response.status}); redirects are not followed. Serve the file at exactly this URL.`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new HubError(
      "upstream_failed",
      `${target.toString()} answered ${response.status}; it must answer 200 with the file.`,
    );
  }
  const text = await readCapped(response, opts.maxBytes, target.toString());
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text };
}

async function readCapped(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  const tooBig = () => new HubError("upstream_failed", `${url} is larger than ${maxBytes} bytes.`);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooBig();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooBig();
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
