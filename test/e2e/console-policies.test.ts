// Who may call what, from the channel console in a real Chromium against `wrangler dev`: the owner pauses the
// channel (a banner says so in words, and a plain HTTP call with an agent token is refused at once without
// reaching the provider) and resumes it, without a reload; gives one agent token read-only tools and another
// a chosen list in the inline editor (a tool that left the channel meanwhile is refused with the hub's 422,
// shown in the editor), and the API reads both back and enforces them. Screenshots at 360 and 1280 px of the
// paused banner with an open editor.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { launchBrowser, SCREENSHOT_DIR, type E2EBrowser } from "./browser.js";
import { api, createChannelInUi } from "./hub-api.js";

const enc = encodeURIComponent;
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 20_000 });
const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();
const FIRST_TOKEN = "your agent (token created with the channel)";
const SECOND_TOKEN = "reporting agent";
const NARROW = { width: 360, height: 780 };
const WIDE = { width: 1280, height: 800 };

const NO_ARGUMENTS = { type: "object", properties: {}, additionalProperties: false };
const tool = (name: string, title: string, description: string, readOnly: boolean) => ({
  name,
  title,
  description,
  inputSchema: NO_ARGUMENTS,
  annotations: { readOnlyHint: readOnly },
});
const READ = tool("notes.read", "Read a note", "Reads the newest note in the notebook.", true);
const SEARCH = tool("notes.search", "Search notes", "Finds notes whose text contains a word.", true);
const WRITE = tool("notes.write", "Write a note", "Adds a note to the notebook (changes data).", false);

/**
 * A sidecar-kind provider on the channel that answers every call with the tool's name and counts the calls.
 * Like a sidecar, it connects again (same token) when the hub drops it: `wrangler dev` restarts the channel's
 * object when its source changes.
 */
async function notesProvider(channel: { id: string; ownerKey: string }) {
  const code = await api(`/api/channels/${enc(channel.id)}/pairing-codes`, {
    method: "POST",
    token: channel.ownerKey,
  });
  expect(code.status).toBe(201);
  const paired = await api("/api/pair", {
    method: "POST",
    json: { code: code.body.pairingCode, kind: "sidecar", label: "notes" },
  });
  expect(paired.status).toBe(201);
  const calls: string[] = [];
  let tools: unknown[] = [READ, SEARCH, WRITE];
  let ws: WebSocket;
  let stopped = false;
  const send = (frame: unknown) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  };
  const connect = () =>
    new Promise<void>((resolve, reject) => {
      ws = new WebSocket(paired.body.relayUrl, ["webmcp-hub.v1", paired.body.providerToken]);
      ws.once("error", reject);
      ws.once("close", () => {
        reject(new Error("closed before the hub's welcome"));
        if (!stopped) setTimeout(() => void connect().catch(() => {}), 200); // its own close tries again
      });
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data)) as { type: string; id?: string; name?: string };
        if (frame.type === "welcome") {
          send({ type: "hello", kind: "sidecar", label: "notes", version: "test" });
          send({ type: "tools", tools });
          resolve();
        }
        if (frame.type === "call") {
          calls.push(frame.name ?? "");
          send({
            type: "result",
            id: frame.id,
            result: { content: [{ type: "text", text: `ran ${frame.name}` }] },
          });
        }
      });
    });
  await connect();
  return {
    calls,
    sendTools(next: unknown[]) {
      tools = next;
      send({ type: "tools", tools });
    },
    close() {
      stopped = true;
      ws.close();
    },
  };
}

/** One plain HTTP call (POST /api/channels/:id/calls) with an agent token: its result's text and isError. */
async function plainCall(channelId: string, agentToken: string, name: string) {
  const res = await api(`/api/channels/${enc(channelId)}/calls`, {
    method: "POST",
    json: { name, arguments: {} },
    token: agentToken,
  });
  expect(res.status).toBe(200);
  const result = res.body.results[0].result as { isError?: boolean; content: Array<{ text?: string }> };
  return { isError: result.isError === true, text: result.content.map((c) => c.text ?? "").join(" ") };
}

/** The agent tokens table's row of the token labelled `label`. */
const tokenRow = (page: Page, label: string) =>
  page
    .locator("#token-rows > tr:not(.policy-row)")
    .filter({ has: page.getByRole("rowheader", { name: label }) });

describe("who may call what, in the channel console", () => {
  let browser: E2EBrowser;
  let page: Page;
  let channel: { id: string; ownerKey: string; agentToken: string };
  let second: { id: string; agentToken: string };
  let provider: Awaited<ReturnType<typeof notesProvider>>;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage(WIDE);
  });
  afterAll(async () => {
    provider?.close();
    await browser?.close();
  });

  it("a new channel's console says it runs, and each agent token may call all tools", async () => {
    channel = await createChannelInUi(page, "Policies e2e");
    provider = await notesProvider(channel);
    const created = await api(`/api/channels/${enc(channel.id)}/agent-tokens`, {
      method: "POST",
      json: { label: SECOND_TOKEN },
      token: channel.ownerKey,
    });
    expect(created.status).toBe(201);
    second = { id: created.body.id, agentToken: created.body.agentToken };
    await poll(() => page.locator("#tool-rows tr").count()).toBe(3);
    await poll(() => tokenRow(page, SECOND_TOKEN).count()).toBe(1);
    expect(await page.locator("#run-state").getAttribute("data-state")).toBe("running");
    expect(squash(await page.locator("#run-state [role=status]").innerText())).toMatch(/^Running /);
    for (const label of [FIRST_TOKEN, SECOND_TOKEN])
      expect(squash(await tokenRow(page, label).locator("td.policy-summary").textContent())).toBe(
        "All tools Edit",
      );
    const snapshot = await api(`/api/channels/${enc(channel.id)}`, { token: channel.ownerKey });
    expect(snapshot.body).toMatchObject({ paused: null, policies: {} });
  });

  it("pauses and resumes the channel from the console: a banner in words, calls refused while paused", async () => {
    const runState = page.locator("#run-state");
    await poll(() => runState.getAttribute("data-state")).toBe("running");
    // The page is not reloaded by either action: a mark set now is still there at the end.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    await page.getByRole("button", { name: "Pause all agents' calls" }).click();
    await poll(() => runState.getAttribute("data-state")).toBe("paused");
    expect(squash(await page.locator("#run-state [role=status]").innerText())).toMatch(
      /^Paused Agents' calls are refused at once, since .+ Tabs and the sidecar stay connected/,
    );
    expect(await page.getByRole("button", { name: "Resume" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Pause all agents' calls" }).isVisible()).toBe(false);

    const snapshot = await api(`/api/channels/${enc(channel.id)}`, { token: channel.ownerKey });
    expect(typeof snapshot.body.paused).toBe("string");
    const refused = await plainCall(channel.id, channel.agentToken, "notes.read");
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("paused by the channel's owner");
    expect(provider.calls).toEqual([]);

    await page.getByRole("button", { name: "Resume" }).click();
    await poll(() => runState.getAttribute("data-state")).toBe("running");
    expect(await page.getByRole("button", { name: "Pause all agents' calls" }).isVisible()).toBe(true);
    expect(
      (await api(`/api/channels/${enc(channel.id)}`, { token: channel.ownerKey })).body.paused,
    ).toBeNull();
    const ran = await plainCall(channel.id, channel.agentToken, "notes.read");
    expect(ran).toEqual({ isError: false, text: "ran notes.read" });
    expect(provider.calls).toEqual(["notes.read"]);
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  });

  it("gives one token read-only tools and another a chosen list; the API reads them back and enforces them", async () => {
    const first = tokenRow(page, FIRST_TOKEN);
    const other = tokenRow(page, SECOND_TOKEN);

    // The first token: read-only.
    await first.getByRole("button", { name: `Edit the tools the token “${FIRST_TOKEN}” may call` }).click();
    const firstEditor = page.getByRole("form", { name: `Tools the token “${FIRST_TOKEN}” may call` });
    await firstEditor.getByRole("radio", { name: "Read-only tools" }).check();
    await firstEditor.getByRole("button", { name: "Save" }).click();
    await poll(async () => squash(await first.locator("td.policy-summary").textContent())).toBe(
      "Read-only tools Edit",
    );
    expect(await firstEditor.count()).toBe(0);
    const firstId = (
      await api(`/api/channels/${enc(channel.id)}`, { token: channel.ownerKey })
    ).body.agentTokens.find((t: { label: string }) => t.label === FIRST_TOKEN).id as string;
    const readBack = await api(`/api/channels/${enc(channel.id)}/agent-tokens/${enc(firstId)}/policy`, {
      token: channel.ownerKey,
    });
    expect(readBack).toEqual({ status: 200, body: { tools: "read-only" } });

    // The second token: a chosen list, with a tool that leaves the channel before it is saved.
    await other.getByRole("button", { name: `Edit the tools the token “${SECOND_TOKEN}” may call` }).click();
    const editor = page.getByRole("form", { name: `Tools the token “${SECOND_TOKEN}” may call` });
    await editor.getByRole("radio", { name: "Chosen tools" }).check();
    const boxes = editor.getByRole("checkbox");
    expect(await boxes.count()).toBe(3);
    expect(squash(await editor.locator("label", { hasText: "notes.search" }).textContent())).toBe(
      "notes.search read-only",
    );
    expect(squash(await editor.locator("label", { hasText: "notes.write" }).textContent())).toBe(
      "notes.write",
    );
    await editor.getByRole("checkbox", { name: /notes\.search/ }).check();
    await editor.getByRole("checkbox", { name: /notes\.write/ }).check();
    provider.sendTools([READ, SEARCH]);
    // The editor keeps the owner's choice, marked as no longer offered.
    await poll(async () =>
      squash(await editor.locator("label", { hasText: "notes.write" }).textContent()),
    ).toBe("notes.write not offered now");
    expect(await editor.getByRole("checkbox", { name: /notes\.write/ }).isChecked()).toBe(true);
    await editor.getByRole("button", { name: "Save" }).click();
    const alert = editor.getByRole("alert");
    await poll(async () => squash(await alert.textContent())).toContain('"notes.write"');
    expect(await editor.getByRole("checkbox", { name: /notes\.write/ }).getAttribute("aria-invalid")).toBe(
      "true",
    );
    expect(
      (
        await api(`/api/channels/${enc(channel.id)}/agent-tokens/${enc(second.id)}/policy`, {
          token: channel.ownerKey,
        })
      ).body,
    ).toEqual({ tools: "all" });

    await editor.getByRole("checkbox", { name: /notes\.write/ }).uncheck();
    await editor.getByRole("button", { name: "Save" }).click();
    await poll(async () => squash(await other.locator("td.policy-summary").textContent())).toBe(
      "Chosen tools (1) Edit",
    );
    const chosen = await api(`/api/channels/${enc(channel.id)}/agent-tokens/${enc(second.id)}/policy`, {
      token: channel.ownerKey,
    });
    expect(chosen).toEqual({ status: 200, body: { tools: { allow: ["notes.search"] } } });
    const snapshot = await api(`/api/channels/${enc(channel.id)}`, { token: channel.ownerKey });
    expect(snapshot.body.policies).toEqual({
      [firstId]: "read-only",
      [second.id]: { allow: ["notes.search"] },
    });

    // Enforced for the plain HTTP calls too: the second agent may search but not read.
    const before = provider.calls.length;
    const refused = await plainCall(channel.id, second.agentToken, "notes.read");
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("policy refused");
    expect(await plainCall(channel.id, second.agentToken, "notes.search")).toEqual({
      isError: false,
      text: "ran notes.search",
    });
    expect(provider.calls.slice(before)).toEqual(["notes.search"]);
  });

  it("shows the paused banner and an open editor at 360 and 1280 px", async () => {
    await page.getByRole("button", { name: "Pause all agents' calls" }).click();
    await poll(() => page.locator("#run-state").getAttribute("data-state")).toBe("paused");
    await tokenRow(page, SECOND_TOKEN)
      .getByRole("button", { name: `Edit the tools the token “${SECOND_TOKEN}” may call` })
      .click();
    const editor = page.getByRole("form", { name: `Tools the token “${SECOND_TOKEN}” may call` });
    expect(await editor.getByRole("radio", { name: "Chosen tools" }).isChecked()).toBe(true);
    expect(await editor.getByRole("checkbox", { name: /notes\.search/ }).isChecked()).toBe(true);
    for (const [viewport, name] of [
      [WIDE, "console-policies-1280"],
      [NARROW, "console-policies-360"],
    ] as const) {
      await page.setViewportSize(viewport);
      // Nothing sticks out sideways at either width.
      await poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
        true,
      );
      await browser.screenshot(page, name);
      // And what the owner sees on screen: the banner, then the open editor.
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-banner.png`) });
      await editor.evaluate((form) => form.scrollIntoView({ block: "center" }));
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-editor.png`) });
    }
    await page.setViewportSize(WIDE);
    await editor.getByRole("button", { name: "Cancel" }).click();
    expect(await editor.count()).toBe(0);
    await page.getByRole("button", { name: "Resume" }).click();
    await poll(() => page.locator("#run-state").getAttribute("data-state")).toBe("running");
  });
});
