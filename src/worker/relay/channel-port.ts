// The relay's port: what the channel's MCP endpoint (src/worker/mcp/) needs from the channel, which
// ChannelRelay implements: the tools agents see, and running one call end to end. The MCP layer depends on
// this and nothing else of the relay (test/arch/layers.test.ts), so the two change apart, and the MCP layer
// is tested over a fake of it (test/worker/mcp-port.test.ts).
import type { AuditStatus, CallToolResult, LoggingLevel } from "../../protocol/index.js";
import type { ExposedTool } from "./naming.js";

export interface CallRequest {
  name: string;
  arguments: Record<string, unknown>;
  agentTokenId: string | null;
  /** The agent token's owner-given label: the name approval dialogs show for the agent. */
  agentLabel: string;
  /** What the MCP client calls itself (clientInfo.title or name): self-declared, shown only as secondary text. */
  clientName?: string | undefined;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((p: { progress: number; total?: number; message?: string }) => void) | undefined;
  onLog?: ((log: { level: LoggingLevel; logger?: string; data: unknown }) => void) | undefined;
}

export interface CallOutcome {
  result: CallToolResult;
  status: AuditStatus;
  /** True when no tool of that name exists in the channel (MCP answers with a JSON-RPC error). */
  unknownTool?: boolean;
}

export interface ChannelTools {
  /** The tools one agent may call now, by exposed name (its owner-set policy; none while the channel is
   *  paused). */
  exposedTools(agentTokenId: string | null): Map<string, ExposedTool>;
  /** The same tools as tools/list shows them: each tab tool's verification in `_meta`, under the channel's policy. */
  listedTools(agentTokenId: string | null): Promise<Map<string, ExposedTool>>;
  /** Runs one call end to end and audits it. Never throws for the tool's own failures. */
  callTool(req: CallRequest): Promise<CallOutcome>;
}
