// Worker entry: the Hono app, the daily maintenance (Cron Trigger), and the Durable Object classes wrangler binds.
import { createApp } from "./app.js";
import { relayOf } from "./channels/relay-stub.js";
import { database } from "./db/client.js";
import { settingsOf } from "./env.js";
import { runMaintenance, type CloseChannel } from "./maintenance.js";

export { ChannelRelay } from "./relay/channel-relay.js";

const app = createApp();

/** An expired channel's object closes the sockets and MCP sessions of each of its tokens. */
function closeChannelIn(env: Env): CloseChannel {
  return async (channelId, tokens) => {
    const relay = relayOf(env, { id: channelId });
    const closed = await Promise.all([
      ...tokens.providerTokenIds.map((id) => relay.revokeProvider(id)),
      ...tokens.agentTokenIds.map((id) => relay.revokeAgent(id)),
    ]);
    return closed.reduce((a, b) => a + b, 0);
  };
}

export default {
  fetch: app.fetch,
  async scheduled(controller, env) {
    const report = await runMaintenance(
      database(env.DB),
      controller.scheduledTime,
      settingsOf(env),
      closeChannelIn(env),
    );
    console.log("maintenance", JSON.stringify(report));
  },
} satisfies ExportedHandler<Env>;
