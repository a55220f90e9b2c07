// Hard limits shared by the Worker, the relay, the bridge and the sidecar (ARCHITECTURE.md "Limits").
export const LIMITS = {
  /** Largest relay WebSocket frame, in bytes. */
  frameBytes: 1024 * 1024,
  /** Tools one provider may offer. Also the most tools a manifest may carry. */
  toolsPerProvider: 256,
  /** Providers (tabs + sidecars) connected to one channel. */
  providersPerChannel: 64,
  /** Largest manifest, in bytes of UTF-8 JSON. */
  manifestBytes: 256 * 1024,
  /** Default and maximum call timeouts, in milliseconds. */
  callTimeoutDefaultMs: 60_000,
  callTimeoutMaxMs: 300_000,
  /** Largest body of one MCP request (either era); a call's arguments must also fit a frame. */
  mcpRequestBytes: 2 * 1024 * 1024,
  /** Largest JSON request body the REST API accepts (manifests excepted). */
  requestBodyBytes: 64 * 1024,
  /** Plain HTTP calls (POST /api/channels/:id/calls): calls one request may make (one, or a function-call
   *  text's), the longest function-call text in characters, and the largest body (the text plus its JSON). */
  callsPerRequest: 20,
  callsTextMax: 256 * 1024,
  callsBodyBytes: 256 * 1024 + 1024,
  /** Largest ownership-proof file a verification fetch reads. */
  verifyFileBytes: 4 * 1024,
  /**
   * Time budget of one verification, DNS-over-HTTPS or manifest-refresh fetch, headers and body together;
   * a site that has not sent the whole file by then gets upstream_failed ("too slow").
   */
  outboundFetchTimeoutMs: 5_000,
  /** Largest DNS-over-HTTPS answer a DNS verification reads. */
  dohAnswerBytes: 64 * 1024,
  /** Page sizes for listing endpoints. */
  pageDefault: 20,
  pageMax: 100,
  /** Tool names: MCP's rule, and the stricter rule some clients need. */
  toolNameMax: 128,
  strictToolNameMax: 64,
  /** Free text sizes. */
  descriptionMax: 4096,
  titleMax: 256,
  /** Live ownership challenges kept per site: registering the origin again supersedes the oldest. */
  liveChallengesPerSite: 3,
  /** Live pairing codes kept per channel: creating another supersedes the oldest (see channels/rate-limit.ts). */
  livePairingCodesPerChannel: 20,
  /** Failed pairing attempts allowed per client (IPv4 address or IPv6 /64) in one window. */
  pairFailuresPerClient: 20,
  /** Failed pairing attempts allowed hub-wide in one window: what bounds guessing from many addresses. */
  pairFailuresHubWide: 1000,
  /** The window of the two pairing failure limits. */
  pairFailureWindowMs: 10 * 60 * 1000,
  /** Deepest nesting of objects and arrays in a call's arguments (the arguments object is depth 1) and in a
   *  provider's frame; a call over it answers `isError` and is not sent. Measured without recursion. */
  jsonDepthMax: 64,
  /** Longest `pattern` / `patternProperties` key in a provider's schema, in characters. */
  schemaPatternMax: 1024,
  /** Regex work one schema validation may do, in RE2 program instructions × input characters (≈ 0.1 s at
   *  worst); past it the arguments or structuredContent count as not checkable. */
  schemaRegexWork: 100_000_000,
  /** Subschema applications one validation may make: `schemaStepsPerNode` per node of the value plus
   *  `schemaStepsBase`, at most `schemaStepsMax` (nested anyOf/$ref schemas are otherwise exponential in the
   *  value's depth). Past it the value counts as not checkable. */
  schemaStepsBase: 10_000,
  schemaStepsPerNode: 20,
  schemaStepsMax: 200_000,
  /** Longest array checked under `uniqueItems` (the check compares every pair of items). */
  uniqueItemsMax: 2_000,
  /** A provider's page title as the hub keeps it (longer is cut), in characters. */
  pageTitleMax: 200,
  /** An MCP client's self-declared name (clientInfo.title / name) as shown in approval dialogs, in characters. */
  clientNameMax: 64,
  /** Open on demand: how long the hub waits, once the extension opened a tool's page, for the tab
   *  to register the tool before the call ends with an isError; and the extension control sockets a channel
   *  keeps (one per paired browser; more close the oldest). */
  openRegisterWaitMs: 30_000,
  controlSocketsPerChannel: 8,
  /** The sidecar's `glob` argument (fs.search_by_time): its length in UTF-16 units, its wildcards (unescaped
   *  `*`, `?`, `[`, `{`, `(`), and the automaton states its regex may need. Over one: an isError naming it. */
  sidecarGlobMaxChars: 1024,
  sidecarGlobMaxWildcards: 32,
  sidecarGlobMaxStates: 10_000,
} as const;
