// webmcp-hub's cloud runner (wrangler.cloud.toml): its own Worker, bound to the hub as the service CLOUD, so
// the browser package stays out of the hub's bundle. It runs published tools on their site's page in
// Cloudflare's browser, through one SiteRunner Durable Object per site (site-runner.ts).
//   run(request)            the RPC method the hub calls (protocol/cloud.ts CloudRunner)
//   POST /run               the same over HTTP: CloudRunRequest → CloudRunResponse (200 for results and
//                           failures; 400 for a bad body)
//   GET  /stats?site=&days= the site's runs per UTC day, newest first (at most 30 days)
//
// The browser is driven with @cloudflare/puppeteer rather than @cloudflare/playwright: 77 KiB gzipped against
// 494 KiB (measured, minified), and it does all the runner needs over the binding (isolated contexts, request
// interception, scripts before the page's own, sessions kept and reconnected).
import { WorkerEntrypoint } from "cloudflare:workers";
import {
  CloudRunRequestSchema,
  type CloudRunRequest,
  type CloudRunResponse,
  type CloudRunner,
} from "../protocol/index.js";
import type { SiteRunner } from "./site-runner.js";

export { SiteRunner } from "./site-runner.js";
export { CloudLedger } from "./ledger.js";

const runnerOf = (env: Env, site: string): DurableObjectStub<SiteRunner> =>
  env.SITE_RUNNER.get(env.SITE_RUNNER.idFromName(site));

const problem = (status: number, message: string) => Response.json({ error: message }, { status });

/** Not a CloudRunRequest: what is wrong, in one line. */
const notARequest = (error: { issues: { path: PropertyKey[]; message: string }[] }) =>
  `Not a CloudRunRequest: ${error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`;

export default class Runner extends WorkerEntrypoint<Env> implements CloudRunner {
  /** What the hub calls (protocol/cloud.ts CloudRunner); a request that is not a CloudRunRequest throws. */
  async run(request: CloudRunRequest): Promise<CloudRunResponse> {
    const parsed = CloudRunRequestSchema.safeParse(request);
    if (!parsed.success) throw new TypeError(notARequest(parsed.error));
    return runnerOf(this.env, parsed.data.site).run(parsed.data);
  }

  override async fetch(request: Request): Promise<Response> {
    const { env } = this;
    const url = new URL(request.url);
    if (url.pathname === "/run") {
      if (request.method !== "POST") return problem(405, "POST a CloudRunRequest to /run.");
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        return problem(400, "The body must be JSON.");
      }
      const parsed = CloudRunRequestSchema.safeParse(body);
      if (!parsed.success) return problem(400, notARequest(parsed.error));
      const response: CloudRunResponse = await runnerOf(env, parsed.data.site).run(parsed.data);
      return Response.json(response);
    }
    if (url.pathname === "/stats") {
      if (request.method !== "GET") return problem(405, "GET /stats?site=<host>&days=<n>.");
      const site = url.searchParams.get("site");
      const days = Number(url.searchParams.get("days") ?? "30");
      if (!site || site.length > 261) return problem(400, "Name the site: /stats?site=<host>.");
      if (!Number.isInteger(days) || days < 1)
        return problem(400, "days must be a whole number from 1 to 30.");
      return Response.json({ site, days: await runnerOf(env, site).statsFor(Math.min(days, 30)) });
    }
    return problem(404, "Not found: POST /run, GET /stats.");
  }
}
