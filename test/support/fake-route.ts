// What a fake origin answers on one path (shared by the Node server and the workerd tests that drive it).
export interface FakeRoute {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Delay before answering, to exercise timeouts. */
  delayMs?: number;
  /**
   * Send the status and headers at once (no Content-Length), then the body `dripBytes` bytes (default 1)
   * every `dripMs` ms: a slow-body site, or with a large `dripBytes` a plain streamed body.
   */
  dripMs?: number;
  dripBytes?: number;
  /**
   * Close the connection without an answer ("before-headers"), or after the headers and half the body
   * ("mid-body"), to exercise broken connections.
   */
  hangUp?: "before-headers" | "mid-body";
}
