// Worker entry: the Hono app, the Cron Triggers (daily maintenance; hourly re-verification of listed sites),
// and the Durable Object classes wrangler binds.
import { createApp } from "./app.js";
import { database } from "./db/client.js";
import { pushSiteChange } from "./channels/site-push.js";
import { settingsOf } from "./env.js";
import { closeChannelRelay, runMaintenance } from "./maintenance.js";
import { REVERIFY_CRON, runReverification } from "./registry/reverify.js";

export { ChannelRelay } from "./channel-relay.js";
export { SiteUsage } from "./usage/site-usage.js";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env) {
    const settings = settingsOf(env);
    if (controller.cron === REVERIFY_CRON) {
      const report = await runReverification(
        database(env.DB),
        controller.scheduledTime,
        { allowPrivate: settings.ALLOW_PRIVATE_ORIGINS, dohUrl: settings.DOH_URL },
        undefined,
        (host) => pushSiteChange(env, host),
      );
      console.log("reverify", JSON.stringify(report));
      return;
    }
    const report = await runMaintenance(
      database(env.DB),
      controller.scheduledTime,
      settings,
      closeChannelRelay(env),
    );
    console.log("maintenance", JSON.stringify(report));
  },
} satisfies ExportedHandler<Env>;
