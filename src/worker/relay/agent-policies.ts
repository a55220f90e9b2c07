// The owner's say over who calls what in one channel, kept in the channel's own object (its SQLite), where
// every call is decided: each agent's tool policy (src/protocol/agent-policy.ts; an agent is an agent token's
// id, or `oauth:<grantId>` for a connected app) and the channel's pause switch. Read once into memory when
// the object starts; a change is written before it is answered, and takes effect on the next call.
import {
  DEFAULT_AGENT_POLICY,
  PAUSED_TEXT,
  policyAllows,
  policyRefusalText,
  ToolPolicySchema,
  type ToolPolicy,
} from "../../protocol/index.js";

export class AgentPolicies {
  private readonly policies = new Map<string, ToolPolicy>();
  private pausedAt: number | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS agent_policies (agent_id TEXT PRIMARY KEY, tools TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS channel_switches (name TEXT PRIMARY KEY, since INTEGER NOT NULL)`);
    for (const row of sql.exec<{ agent_id: string; tools: string }>(`SELECT * FROM agent_policies`)) {
      const parsed = ToolPolicySchema.safeParse(JSON.parse(row.tools));
      // A row this code cannot read (written by a later version) leaves the agent with nothing, not everything.
      this.policies.set(row.agent_id, parsed.success ? parsed.data : "none");
    }
    const paused = sql
      .exec<{ since: number }>(`SELECT since FROM channel_switches WHERE name = 'paused'`)
      .toArray()[0];
    this.pausedAt = paused?.since ?? null;
  }

  /** The policy of one agent (`all` unless the owner chose another). */
  of(agentId: string | null): ToolPolicy {
    return (agentId !== null && this.policies.get(agentId)) || DEFAULT_AGENT_POLICY.tools;
  }

  /** Every agent with a policy other than `all`. */
  all(): Record<string, ToolPolicy> {
    return Object.fromEntries(this.policies);
  }

  set(agentId: string, policy: ToolPolicy): void {
    if (policy === "all") {
      this.sql.exec(`DELETE FROM agent_policies WHERE agent_id = ?`, agentId);
      this.policies.delete(agentId);
      return;
    }
    this.sql.exec(
      `INSERT OR REPLACE INTO agent_policies (agent_id, tools) VALUES (?, ?)`,
      agentId,
      JSON.stringify(policy),
    );
    this.policies.set(agentId, policy);
  }

  /** An agent token revoked or an app disconnected: its policy goes with it. */
  forget(agentId: string): void {
    this.sql.exec(`DELETE FROM agent_policies WHERE agent_id = ?`, agentId);
    this.policies.delete(agentId);
  }

  /** When the channel was paused (ms), or null while it runs. */
  get paused(): number | null {
    return this.pausedAt;
  }

  setPaused(paused: boolean, now: number): void {
    if (paused === (this.pausedAt !== null)) return;
    if (paused) {
      this.sql.exec(`INSERT OR REPLACE INTO channel_switches (name, since) VALUES ('paused', ?)`, now);
      this.pausedAt = now;
    } else {
      this.sql.exec(`DELETE FROM channel_switches WHERE name = 'paused'`);
      this.pausedAt = null;
    }
  }

  /** Whether an agent may see a tool (a paused channel still lists its tools; calling them is refused). */
  shows(agentId: string | null, tool: { name: string; readOnly: boolean }): boolean {
    return policyAllows(this.of(agentId), tool);
  }

  /**
   * Why a call of `name` by `agentId` is refused before anything else happens, or null when it may go on:
   * the channel is paused (every call, even of a name the channel has no tool for), or the agent's policy does
   * not let it call this tool.
   */
  refusal(
    agentId: string | null,
    tool: { name: string; readOnly: boolean } | undefined,
    name: string,
  ): string | null {
    if (this.pausedAt !== null) return PAUSED_TEXT;
    const policy = this.of(agentId);
    if (policy === "all") return null;
    if (tool ? !policyAllows(policy, tool) : policy === "none") return policyRefusalText(name, policy);
    return null;
  }
}
