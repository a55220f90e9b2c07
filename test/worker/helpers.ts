// Shared helpers for Worker tests: requests through the Worker's fetch, fake origins, a verified site.
import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { FakeRoute } from "../support/fake-route.js";

export const BASE = "http://hub.test";

export async function api(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  return SELF.fetch(BASE + path, {
    ...rest,
    headers,
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
}

export async function expectError(
  res: Response,
  status: number,
  code: string,
): Promise<{ code: string; message: string; issues?: Array<{ path: string; message: string }> }> {
  const body = (await res.json()) as {
    error: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
  };
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error;
}

/** Starts a fresh local origin (its own loopback port, so its own host) serving `routes`. */
export async function fakeOrigin(routes: Record<string, FakeRoute> = {}): Promise<{
  origin: string;
  host: string;
  port: number;
  setRoutes: (r: Record<string, FakeRoute>) => Promise<void>;
  hits: () => Promise<string[]>;
}> {
  const res = await fetch(`${env.FAKE_ORIGINS_URL}/origins`, {
    method: "POST",
    body: JSON.stringify(routes),
  });
  const { origin, port } = (await res.json()) as { origin: string; port: number };
  return {
    origin,
    port,
    host: new URL(origin).host,
    setRoutes: async (r) => {
      await fetch(`${env.FAKE_ORIGINS_URL}/origins/${port}/routes`, {
        method: "PUT",
        body: JSON.stringify(r),
      });
    },
    hits: async () =>
      (await (await fetch(`${env.FAKE_ORIGINS_URL}/origins/${port}/hits`)).json()) as string[],
  };
}

export async function setTxt(name: string, values: string[]): Promise<void> {
  await fetch(`${env.FAKE_ORIGINS_URL}/dns`, { method: "POST", body: JSON.stringify({ name, values }) });
}

export interface Registration {
  site: { host: string; origin: string; status: string };
  challenge: { token: string; http: { url: string; body: string }; dns: { name: string; value: string } };
  claimSecret: string;
}

export async function register(origin: string): Promise<Registration> {
  const res = await api("/api/sites", { method: "POST", json: { origin } });
  expect([200, 201]).toContain(res.status);
  return (await res.json()) as Registration;
}

export async function verify(
  host: string,
  claimSecret: string,
  method: "http" | "dns" = "http",
): Promise<Response> {
  return api(`/api/sites/${host}/verify`, {
    method: "POST",
    json: { method },
    headers: { authorization: `Bearer ${claimSecret}` },
  });
}

/** A fresh origin, registered and verified over HTTP; returns its host and publisher key. */
export async function verifiedSite(): Promise<{
  host: string;
  origin: string;
  key: string;
  origin_: Awaited<ReturnType<typeof fakeOrigin>>;
}> {
  const o = await fakeOrigin();
  const reg = await register(o.origin);
  await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: reg.challenge.token } });
  const res = await verify(reg.site.host, reg.claimSecret);
  expect(res.status).toBe(200);
  const { publisherKey } = (await res.json()) as { publisherKey: string };
  return { host: reg.site.host, origin: o.origin, key: publisherKey, origin_: o };
}

export async function publish(host: string, key: string, manifest: unknown): Promise<Response> {
  return api(`/api/sites/${host}/manifest`, {
    method: "PUT",
    json: manifest,
    headers: { authorization: `Bearer ${key}` },
  });
}

export function tool(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: `The ${name} tool does ${name} things.`,
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    ...extra,
  };
}

/** A read-only tool the hub may run in the cloud, on /lookup.html (the cloud tests' site's tool). */
export const lookupCloudTool = tool("lookup", {
  title: "Look up",
  description: "Looks a word up.",
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  annotations: { readOnlyHint: true },
  pages: ["/lookup.html"],
  cloud: true,
});
/** A read-only tool not marked cloud. */
export const plainReadOnlyTool = tool("plain", { annotations: { readOnlyHint: true }, pages: ["/"] });
