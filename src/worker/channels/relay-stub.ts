// The ChannelRelay Durable Object of a channel (one per channel, addressed by the channel id), typed as
// the RPC surface the Worker uses (the generated stub type cannot express results holding `unknown`).
import type { CallOutcome, ChannelConfig, ChannelRelay } from "../relay/channel-relay.js";
import type { ChannelRow } from "./channels.js";

export interface RelayApi {
  fetch(request: Request): Promise<Response>;
  snapshot(config: ChannelConfig): Promise<ReturnType<ChannelRelay["snapshot"]>>;
  callOnce(config: ChannelConfig, call: Parameters<ChannelRelay["callOnce"]>[1]): Promise<CallOutcome>;
  flushAudit(): Promise<number>;
  revokeProvider(tokenId: string): Promise<number>;
  revokeAgent(agentTokenId: string): Promise<number>;
}

export function relayOf(env: Env, channel: Pick<ChannelRow, "id">): RelayApi {
  return env.CHANNEL.get(env.CHANNEL.idFromName(channel.id)) as unknown as RelayApi;
}
