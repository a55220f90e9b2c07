// Types for demo-site.mjs.
export const DEMO_ROOT: string;
export const VERIFY_PATH: string;
export const MANIFEST_PATH: string;

export interface DemoSite {
  /** `http://127.0.0.1:8788` */
  origin: string;
  /** `127.0.0.1:8788`: the registry's key for the site. */
  host: string;
  port: number;
  /** What /.well-known/webmcp-hub-verify answers from now on (null: 404). */
  setVerifyToken(token: string | null): void;
  /** web/demo/webmcp.json, parsed. */
  manifest(): Promise<unknown>;
  close(): Promise<void>;
}

export function startDemoSite(options?: { host?: string; port?: number; root?: string }): Promise<DemoSite>;
