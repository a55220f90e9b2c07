// The hub's REST API as the e2e tests use it: a JSON request helper and a new channel with its secrets.
import type { Page } from "playwright-core";
import { expect, inject } from "vitest";

export interface Channel {
  id: string;
  name: string;
  ownerKey: string;
  agentToken: string;
  mcpUrl: string;
  pairingCode: string;
}

/** A JSON request to the hub under test; `token` goes in `Authorization: Bearer`. */
export async function api(path: string, init: { method?: string; json?: unknown; token?: string } = {}) {
  const res = await fetch(inject("hubUrl") + path, {
    method: init.method ?? "GET",
    headers: {
      ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A new anonymous channel (POST /api/channels) with the secrets shown once. */
export async function createChannel(name: string): Promise<Channel> {
  const { status, body } = await api("/api/channels", { method: "POST", json: { name } });
  expect(status).toBe(201);
  return {
    id: body.channel.id,
    name,
    ownerKey: body.ownerKey,
    agentToken: body.agentToken,
    mcpUrl: body.mcpUrl,
    pairingCode: body.pairingCode,
  };
}

/** A new channel made through the dashboard's form at /channels, with the secrets its console shows once. */
export async function createChannelInUi(
  page: Page,
  name: string,
): Promise<{ id: string; ownerKey: string; agentToken: string; pairingCode: string }> {
  await page.goto(`${inject("hubUrl")}/channels`);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await Promise.all([
    page.waitForURL(/\/channels\/[^/?]+/),
    page.getByRole("button", { name: "Create channel" }).click(),
  ]);
  const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  await expect.poll(() => page.locator("#owner-key").textContent(), { timeout: 15_000 }).toMatch(/^who_/);
  await expect.poll(() => page.locator("#agent-token").textContent(), { timeout: 15_000 }).toMatch(/^wha_/);
  return {
    id,
    ownerKey: (await page.locator("#owner-key").textContent())!,
    agentToken: (await page.locator("#agent-token").textContent())!,
    pairingCode: (await page.locator("#pair-code").textContent())!,
  };
}
