// The hub's side of a cloud run: asks the runner Worker (service binding CLOUD, src/cloud) to run a published
// tool on its published page in Cloudflare's browser, and turns the answer into what callers see: an MCP
// CallToolResult whose isError text says what happened and what to do, and the status an audit row records.
// The runner answers 200 with a CloudRunResponse for a result and for each failure; anything else (the runner
// not deployed, not started, throwing) is a failure too, never an exception for the caller.
import {
  CallToolResultSchema,
  CloudRunResponseSchema,
  errorResult,
  type AuditStatus,
  type CallToolResult,
  type CloudFailure,
  type CloudRunRequest,
  type CloudRunResponse,
} from "../../protocol/index.js";
import { cloudRunsOn } from "../registry/cloud.js";

export const CLOUD_RUN_URL = "https://cloud.internal/run";
/** How long past the run's own time limit the hub waits for the runner's answer before giving up. */
const ANSWER_GRACE_MS = 5_000;

/** What a caller is told when the operator turned cloud runs off (wrangler.toml CLOUD_RUNS="off"). */
export const CLOUD_OFF_MESSAGE = "Cloud runs are switched off on this hub by its operator.";

const failure = (kind: CloudFailure, message: string): CloudRunResponse => ({
  ok: false,
  failure: kind,
  message,
  browserMs: 0,
});

/**
 * Runs one call in the cloud; never throws: a runner that cannot be reached is a `disabled` or `crashed`
 * failure. `signal`: the caller gave up (the request to the runner is aborted; the answer is a `timeout`).
 */
export async function runInCloud(
  env: Pick<Env, "CLOUD" | "CLOUD_RUNS">,
  request: CloudRunRequest,
  signal?: AbortSignal,
): Promise<CloudRunResponse> {
  if (!cloudRunsOn(env)) return failure("disabled", CLOUD_OFF_MESSAGE);
  let res: Response;
  try {
    res = await env.CLOUD.fetch(CLOUD_RUN_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
      signal: AbortSignal.any([
        AbortSignal.timeout(request.timeoutMs + ANSWER_GRACE_MS),
        ...(signal ? [signal] : []),
      ]),
    });
  } catch (e) {
    if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError"))
      return failure(
        "timeout",
        `The hub's cloud runner did not answer within ${Math.round((request.timeoutMs + ANSWER_GRACE_MS) / 1000)} s.`,
      );
    return failure("disabled", "Cloud runs are not available: the hub could not reach its cloud runner.");
  }
  const text = await res.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = CloudRunResponseSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  // Not the runner's answer: no runner bound or started (the local dev registry answers 503), or it failed.
  if (res.status >= 500 && res.status !== 500)
    return failure(
      "disabled",
      `Cloud runs are not available: the hub's cloud runner is not running (it answered HTTP ${res.status}).`,
    );
  return failure(
    "crashed",
    `The hub's cloud runner failed (HTTP ${res.status}) without saying why; the run did not finish.`,
  );
}

/** What happened, and what the caller can do, for each failure. */
const ADVICE: Record<CloudFailure, string> = {
  disabled: "Call it through a channel with a tab of the site open instead.",
  budget:
    "The cloud browser time for today is spent; it resets at 00:00 UTC. Call it again tomorrow, or through a channel with a tab of the site open.",
  busy: "Too many calls to this site's tools are waiting; call it again in a few seconds.",
  load: "The site's page did not load; the site may be down. Try again later.",
  navigation:
    "The page tried to leave its own site, which cloud runs refuse; this tool cannot run in the cloud until the site fixes its page.",
  unregistered:
    "The page never registered this tool; the site's published page may be out of date. Do not retry until the site republishes.",
  changed:
    "The tool the page registers differs from the one the site published, so the hub refused to call it. Do not retry until the site republishes.",
  timeout: "Call it again, perhaps with narrower arguments, or later.",
  too_large: "Ask for less (narrower arguments) so the result fits.",
  crashed: "Call it again in a moment.",
};

/** The MCP result a caller sees for a run of `tool` of `site`. */
export function cloudCallResult(tool: string, site: string, res: CloudRunResponse): CallToolResult {
  if (res.ok) {
    const result = CallToolResultSchema.safeParse(res.result);
    if (result.success) return result.data;
    return errorResult(
      `${tool} of ${site} ran in the hub's cloud browser but returned something that is not an MCP tool result; the site's page may be broken.`,
    );
  }
  return errorResult(
    `${tool} of ${site} did not run in the hub's cloud browser (${res.failure}): ${res.message} ${ADVICE[res.failure]}`,
  );
}

/** The audit status of a run: refusals by policy or budget are `denied`, as the channel's `verified` policy. */
export function cloudAuditStatus(res: CloudRunResponse, result: CallToolResult): AuditStatus {
  if (res.ok) return result.isError ? "error" : "ok";
  switch (res.failure) {
    case "disabled":
    case "budget":
    case "changed":
    case "unregistered":
      return "denied";
    case "timeout":
      return "timeout";
    default:
      return "error";
  }
}
