// The Worker's side of a channel's ChannelRelay Durable Object (one per channel, addressed by the channel id):
// the RPC surface the Worker uses, typed by hand (the generated stub type cannot express results holding
// `unknown`), and the channel settings every request to it carries (the contract: src/protocol/relay-contract.ts).
import type { AgentPolicy, ChannelConfig } from "../../protocol/index.js";
import type { ChannelRelay, PlainCall } from "../channel-relay.js";
import type { CallOutcome } from "../relay/channel-port.js";
import type { AuditRead, AuditRows } from "../relay/audit-log.js";
import type { ChannelRow } from "./channels.js";

export interface RelayApi {
  fetch(request: Request): Promise<Response>;
  snapshot(config: ChannelConfig): Promise<ReturnType<ChannelRelay["snapshot"]>>;
  checkedSnapshot(config: ChannelConfig): Promise<ReturnType<ChannelRelay["snapshot"]>>;
  callOnce(config: ChannelConfig, call: PlainCall): Promise<CallOutcome>;
  addedToolsChanged(config: ChannelConfig): Promise<void>;
  siteChanged(config: ChannelConfig): Promise<void>;
  readAudit(config: ChannelConfig, q: AuditRead): Promise<AuditRows>;
  revokeProvider(tokenId: string): Promise<number>;
  revokeAgent(agentTokenId: string): Promise<number>;
  agentPolicy(config: ChannelConfig, agentTokenId: string): Promise<AgentPolicy>;
  setAgentPolicy(
    config: ChannelConfig,
    agentTokenId: string,
    policy: AgentPolicy,
  ): ReturnType<ChannelRelay["setAgentPolicy"]>;
  setPaused(config: ChannelConfig, paused: boolean): Promise<{ paused: string | null }>;
}

export function relayOf(env: Env, channel: Pick<ChannelRow, "id">): RelayApi {
  return env.CHANNEL.get(env.CHANNEL.idFromName(channel.id)) as unknown as RelayApi;
}

/** What the channel's object needs to know of its settings, sent with each request and RPC. */
export function configOf(
  channel: Pick<ChannelRow, "id" | "strictNames" | "verificationPolicy">,
): ChannelConfig {
  return {
    channelId: channel.id,
    strictNames: channel.strictNames,
    verificationPolicy: channel.verificationPolicy,
  };
}
