// Types for demo-site.mjs.
export const DEMO_ROOT: string;
export const VERIFY_PATH: string;
export const MANIFEST_PATH: string;
/** What the pages write where the hub's URL goes: `<script src="{{HUB_URL}}/bridge.js">`. */
export const HUB_PLACEHOLDER: string;

/** A page with the hub's URL filled in, or without the bridge's script tag when `hubUrl` is null. */
export function renderPage(html: string, hubUrl: string | null): string;

export interface DemoSite {
  /** `http://127.0.0.1:8788` */
  origin: string;
  /** `127.0.0.1:8788`: the registry's key for the site. */
  host: string;
  port: number;
  /** What /.well-known/webmcp-hub-verify answers from now on (null: 404). */
  setVerifyToken(token: string | null): void;
  /** The hub whose /bridge.js the pages load from now on (null: pages without the bridge). */
  setHubUrl(url: string | null): void;
  /** The hub's origin the pages embed, or null. */
  readonly hubUrl: string | null;
  /** web/demo/webmcp.json, parsed. */
  manifest(): Promise<unknown>;
  close(): Promise<void>;
}

export function startDemoSite(options?: {
  host?: string;
  port?: number;
  root?: string;
  /** The hub whose bridge the pages embed; `setHubUrl` can set it later. */
  hubUrl?: string | null;
}): Promise<DemoSite>;
