// The hub's side of a cloud run: asks the runner Worker (service binding CLOUD, src/cloud; its RPC method
// `run`, protocol/cloud.ts CloudRunner) to run a published tool on its published page in Cloudflare's browser,
// and turns the answer into what callers see: an MCP CallToolResult whose isError text says what happened and
// what to do, and the status an audit row records.
// The runner answers a CloudRunResponse for a result and for each failure; anything else (the runner not
// deployed, not started, throwing) is a failure too, never an exception for the caller.
import {
  CallToolResultSchema,
  CloudRunResponseSchema,
  errorResult,
  type AuditStatus,
  type CallToolResult,
  type CloudFailure,
  type CloudRunRequest,
  type CloudRunResponse,
  type CloudRunner,
} from "../../protocol/index.js";
import { cloudRunsOn } from "../registry/cloud.js";

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
 * failure. `signal`: the caller gave up (the hub stops waiting; the answer is a `timeout`, and the runner ends
 * the run at its own deadline).
 */
export async function runInCloud(
  env: Pick<Env, "CLOUD" | "CLOUD_RUNS">,
  request: CloudRunRequest,
  signal?: AbortSignal,
): Promise<CloudRunResponse> {
  if (!cloudRunsOn(env)) return failure("disabled", CLOUD_OFF_MESSAGE);
  const waitMs = request.timeoutMs + ANSWER_GRACE_MS;
  const gaveUp = AbortSignal.any([AbortSignal.timeout(waitMs), ...(signal ? [signal] : [])]);
  let answer: unknown;
  try {
    answer = await Promise.race([
      (env.CLOUD as unknown as CloudRunner).run(request),
      new Promise<never>((_, reject) => {
        if (gaveUp.aborted) reject(gaveUp.reason);
        gaveUp.addEventListener("abort", () => reject(gaveUp.reason), { once: true });
      }),
    ]);
  } catch (e) {
    if (gaveUp.aborted)
      return failure(
        "timeout",
        `The hub's cloud runner did not answer within ${Math.round(waitMs / 1000)} s.`,
      );
    // No runner bound or started (the local dev registry has none: the call throws), or it threw.
    return failure(
      "disabled",
      `Cloud runs are not available: the hub could not reach its cloud runner (${excerpt(e)}).`,
    );
  }
  const parsed = CloudRunResponseSchema.safeParse(answer);
  if (parsed.success) return parsed.data;
  return failure(
    "crashed",
    "The hub's cloud runner answered something that is not a run's answer; the run did not finish.",
  );
}

const excerpt = (e: unknown) => String(e instanceof Error ? e.message : e).slice(0, 200);

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
