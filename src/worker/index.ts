// Worker entry: the Hono app, and the Durable Object classes wrangler binds.
import { createApp } from "./app.js";

export { ChannelRelay } from "./relay/channel-relay.js";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
