// What a fake origin answers on one path (shared by the Node server and the workerd tests that drive it).
export interface FakeRoute {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Delay before answering, to exercise timeouts. */
  delayMs?: number;
}
