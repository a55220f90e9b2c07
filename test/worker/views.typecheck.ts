// Compile-time only (`npm run typecheck`; no test runs it): the Worker's REST answers fit the types the
// dashboard's browser scripts read them as (src/protocol/views.ts), so the two cannot drift apart unnoticed.
import type {
  AgentTokenView,
  AuditPage,
  ChallengeView,
  ChannelToolView,
  ChannelView,
  CreatedAgentToken,
  CreatedChannel,
  ManifestVersionView,
  PairedView,
  PairingCodeView,
  ProviderView,
  PublishResultView,
  RegisteredSiteView,
  SiteCloudView,
  ToolExportView,
  ToolSearchPage,
} from "../../src/protocol/views.js";
import type { channelAudit } from "../../src/worker/channels/audit.js";
import type {
  channelView,
  createAgentToken,
  createChannel,
  createPairingCode,
  listAgentTokens,
  redeemPairingCode,
} from "../../src/worker/channels/channels.js";
import type { ChannelRelay } from "../../src/worker/channel-relay.js";
import type { getManifestVersion, publishManifest } from "../../src/worker/registry/manifests.js";
import type { describeChallenge, registerSite, siteView } from "../../src/worker/registry/sites.js";
import type { searchTools } from "../../src/worker/registry/search.js";
import type { exportTools } from "../../src/worker/registry/export.js";

/** Compiles only when `Actual` is assignable to `Expected`. */
type Fits<Actual extends Expected, Expected> = [Actual, Expected];
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Snapshot = ReturnType<ChannelRelay["snapshot"]>;

export type WorkerAnswersFitTheViews = [
  Fits<Answer<typeof channelView>, ChannelView>,
  Fits<Answer<typeof createChannel>, CreatedChannel>,
  Fits<Answer<typeof createPairingCode>, PairingCodeView>,
  Fits<Answer<typeof redeemPairingCode>, PairedView>,
  Fits<Answer<typeof createAgentToken>, CreatedAgentToken>,
  Fits<Answer<typeof listAgentTokens>, AgentTokenView[]>,
  Fits<Snapshot["providers"], ProviderView[]>,
  Fits<Snapshot["tools"], ChannelToolView[]>,
  Fits<Answer<typeof channelAudit>, AuditPage>,
  Fits<ReturnType<typeof describeChallenge>, ChallengeView>,
  Fits<Omit<Answer<typeof registerSite>, "created">, RegisteredSiteView>,
  Fits<Answer<typeof publishManifest>, PublishResultView>,
  Fits<Answer<typeof getManifestVersion>, ManifestVersionView>,
  Fits<Answer<typeof searchTools>, ToolSearchPage>,
  Fits<ReturnType<typeof exportTools>, ToolExportView>,
  Fits<{ site: ReturnType<typeof siteView> }, SiteCloudView>,
];
