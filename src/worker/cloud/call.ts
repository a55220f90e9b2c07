// One call of a site's published tool in the cloud, the same for every way in (the public endpoint, Try it,
// a channel): what the hub can check from D1 (registry/cloud.ts: the tool runs in the cloud now), the
// arguments against the published inputSchema, the site's call rate, then the run. Ends in a CallOutcome;
// never throws for a refusal or a failed run.
import {
  LIMITS,
  errorResult,
  jsonDepth,
  validateAgainst,
  type CloudFailure,
  type CloudRunRequest,
  type JsonSchemaObject,
} from "../../protocol/index.js";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";
import { consumeRateLimit } from "../http/rate-limit.js";
import { cloudRunsOn, cloudTool, type CloudToolLookup } from "../registry/cloud.js";
import type { CallOutcome } from "../relay/channel-port.js";
import { CLOUD_OFF_MESSAGE, cloudAuditStatus, cloudCallResult, runInCloud } from "./run.js";

export interface CloudCall {
  /** The site's host (as in /sites/<host>). */
  site: string;
  name: string;
  arguments: Record<string, unknown>;
  via: CloudRunRequest["via"];
  timeoutMs?: number | undefined;
  /** The caller gave up: the run is abandoned and the call ends `cancelled`. */
  signal?: AbortSignal | undefined;
}

/**
 * A call's end. `unknownTool`: the site publishes no such tool. `refused`: why it is not a cloud tool now
 * (registry/cloud.ts; `disabled` also when the operator turned cloud runs off), before anything ran.
 * `failure`: why a run failed. `outputSchema`: the published tool's, when it had one.
 */
export type CloudCallOutcome = CallOutcome & {
  refused?: Extract<CloudToolLookup, { ok: false }>["reason"];
  failure?: CloudFailure;
  outputSchema?: JsonSchemaObject;
};

/** The tool if the hub may run it in the cloud now, else why not (the operator's switch included). */
export async function lookupCloudTool(
  env: Env,
  db: Db,
  site: string,
  name: string,
): Promise<CloudToolLookup> {
  // Looked up as if runs were on, so a tool the site marks cloud is told apart from one it does not.
  return underHubSwitch(env, await cloudTool(db, site, name, true));
}

/** A lookup made as if runs were on, refused `disabled` when the operator turned cloud runs off. */
export function underHubSwitch(env: Env, found: CloudToolLookup): CloudToolLookup {
  if (found.ok && !cloudRunsOn(env)) return { ok: false, reason: "disabled", message: CLOUD_OFF_MESSAGE };
  return found;
}

/** Runs the call; `found`: the tool's lookup when the caller already made it. */
export async function callInCloud(
  env: Env,
  db: Db,
  call: CloudCall,
  found?: CloudToolLookup,
): Promise<CloudCallOutcome> {
  const { name } = call;
  found ??= await lookupCloudTool(env, db, call.site, name);
  if (!found.ok) {
    return {
      status: found.reason === "unpublished" ? "invalid" : "denied",
      ...(found.reason === "unpublished" && { unknownTool: true }),
      refused: found.reason,
      result: errorResult(
        found.reason === "unpublished"
          ? `Unknown tool: ${found.message}`
          : `${name} did not run: ${found.message}`,
      ),
    };
  }
  const outputSchema = found.tool.outputSchema as JsonSchemaObject | undefined;
  const problems = argumentProblems(name, found.tool.inputSchema as JsonSchemaObject, call.arguments);
  if (problems)
    return { status: "invalid", result: errorResult(problems), ...(outputSchema && { outputSchema }) };
  try {
    await consumeRateLimit(
      env,
      "CLOUD_SITE_CALLS",
      `site:${found.site}`,
      `cloud runs of ${found.site}'s tools from everyone`,
    );
  } catch (e) {
    if (!(e instanceof HubError)) throw e;
    return { status: "denied", result: errorResult(`${name} did not run: ${e.message}`) };
  }
  const timeoutMs = Math.min(
    Math.max(1, Math.floor(call.timeoutMs ?? LIMITS.callTimeoutDefaultMs)),
    LIMITS.callTimeoutMaxMs,
  );
  const res = await runInCloud(
    env,
    {
      site: found.site,
      origin: found.origin,
      page: found.page,
      tool: name,
      arguments: call.arguments,
      digest: found.digest,
      timeoutMs,
      via: call.via,
    },
    call.signal,
  );
  if (call.signal?.aborted) return { status: "cancelled", result: errorResult("The call was cancelled.") };
  const result = cloudCallResult(name, found.site, res);
  return {
    status: cloudAuditStatus(res, result),
    result,
    ...(res.ok ? {} : { failure: res.failure }),
    ...(outputSchema && { outputSchema }),
  };
}

/** Why the arguments do not fit the published inputSchema, in one sentence an LLM can act on (null: they do). */
function argumentProblems(
  name: string,
  schema: JsonSchemaObject,
  args: Record<string, unknown>,
): string | null {
  if (jsonDepth(args, LIMITS.jsonDepthMax) === Number.POSITIVE_INFINITY)
    return `The arguments for ${name} nest deeper than ${LIMITS.jsonDepthMax} levels; nothing was run. Flatten them and call again.`;
  const problems = validateAgainst(schema as Parameters<typeof validateAgainst>[0], args);
  if (!problems.length) return null;
  const detail = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  return `Invalid arguments for ${name}: ${detail}. Fix them to match the tool's inputSchema and call again; nothing was run.`;
}
