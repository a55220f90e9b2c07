// Who may call what in a channel: the owner's policy for one agent (an agent token, or a connected OAuth app),
// and the channel's pause switch. The REST bodies (GET/PUT …/agent-tokens/:tokenId/policy,
// …/connected-apps/:grantId/policy, POST …/pause and …/resume) and the texts agents read when refused.
import * as z from "zod";
import { LIMITS } from "./limits.js";

/**
 * `all` (the default): every tool of the channel; `read-only`: only tools marked readOnlyHint; `none`: no tool
 * (the agent sees an empty list and every call is refused, as if the channel were paused for it alone);
 * `{allow: [...]}`: only these, by the name agents call.
 */
export const ToolPolicySchema = z.union([
  z.enum(["all", "read-only", "none"]),
  z
    .object({
      // Names as agents call them: a provider's own name, or `<label>__<name>` when two providers collide.
      allow: z.array(z.string().min(1).max(512)).max(LIMITS.toolsPerProvider * 4),
    })
    .strict(),
]);
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;

export const AgentPolicySchema = z.object({ tools: ToolPolicySchema }).strict();
export type AgentPolicy = z.infer<typeof AgentPolicySchema>;

export const DEFAULT_AGENT_POLICY: AgentPolicy = { tools: "all" };

/** Whether `policy` lets an agent see and call a tool named `name` (`readOnly`: the tool's readOnlyHint). */
export function policyAllows(policy: ToolPolicy, tool: { name: string; readOnly: boolean }): boolean {
  if (policy === "all") return true;
  if (policy === "none") return false;
  if (policy === "read-only") return tool.readOnly;
  return policy.allow.includes(tool.name);
}

export const PAUSED_TEXT =
  "This call was not run: the channel is paused by the channel's owner. Nothing reached the tool; try again once the owner resumes the channel.";

export function policyRefusalText(name: string, policy: ToolPolicy): string {
  const why =
    policy === "none"
      ? "lets this agent call no tools"
      : policy === "read-only"
        ? "lets this agent call only read-only tools"
        : "does not list this tool for this agent";
  return `The channel owner's policy refused this call to ${name}: it ${why}. Nothing reached the tool; ask the owner to change this agent's policy.`;
}
