// Worker entry: the Hono app, the daily maintenance (Cron Trigger), and the Durable Object classes wrangler binds.
import { createApp } from "./app.js";
import { database } from "./db/client.js";
import { settingsOf } from "./env.js";
import { closeChannelRelay, runMaintenance } from "./maintenance.js";

export { ChannelRelay } from "./relay/channel-relay.js";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env) {
    const report = await runMaintenance(
      database(env.DB),
      controller.scheduledTime,
      settingsOf(env),
      closeChannelRelay(env),
    );
    console.log("maintenance", JSON.stringify(report));
  },
} satisfies ExportedHandler<Env>;
