// The relay WebSocket's subprotocol and the close codes the hub and providers use on it. No imports, so
// /bridge.js, the extension and the sidecar share these values with the Worker without bundling zod.

/** The WebSocket subprotocol that carries a provider token (`Sec-WebSocket-Protocol: webmcp-hub.v1, whr_…`). */
export const RELAY_SUBPROTOCOL = "webmcp-hub.v1";

/** Close codes of relay sockets (provider and extension control sockets), by meaning. */
export const CLOSE_CODES = {
  /** A deliberate close: the provider stopped, or the hub echoes a close that carried no code. */
  normal: 1000,
  /** Received only (never sent): the peer closed without a status code. */
  noStatus: 1005,
  /** Received only (never sent): the connection dropped without a close frame. */
  abnormal: 1006,
  /** A frame over LIMITS.frameBytes. */
  frameTooLarge: 1009,
  /** A socket the channel's object does not know as a provider. */
  unknownProvider: 4000,
  /** The provider token is unknown, revoked or expired: pairing again is the only fix. */
  unauthorized: 4001,
  /** The token may not be used here: another channel, or not from this Origin (or for that tab origin). */
  forbidden: 4003,
  /** An extension control socket past the channel's limit, replaced by a newer one. */
  replaced: 4008,
  /** The channel already has LIMITS.providersPerChannel providers. */
  channelFull: 4009,
} as const;
