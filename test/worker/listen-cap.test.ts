// `subscriptions/listen` caps (2026-07-28 era): one agent flooding a channel with listen streams closes only
// its own oldest streams, never another agent's; a channel full of other agents' streams refuses a newcomer
// with 429 instead of ending anyone's. The flood replays the probe's attack (256 streams from one token);
// each test opens a few hundred real streams, hence the longer time limit (no fixed waits).
import { describe, expect, it } from "vitest";
import { MAX_LISTENERS, MAX_LISTENERS_PER_AGENT } from "../../src/worker/mcp/modern-endpoint.js";
import { api } from "./helpers.js";
import { connectProvider, createChannel, echoTool, type TestChannel } from "./relay-helpers.js";
import { modernRequest } from "./mcp-raw.js";

/** An open listen stream: its frames as text, and whether the hub has ended it. */
interface Listen {
  text: () => string;
  ended: Promise<void>;
  hasEnded: () => boolean;
  close: () => Promise<void>;
}

let ids = 1;
async function listen(ch: TestChannel, token: string): Promise<Listen> {
  const res = await modernRequest(
    ch,
    "subscriptions/listen",
    { notifications: { toolsListChanged: true } },
    { token, id: ids++ },
  );
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let done = false;
  let acked: () => void = () => {};
  const ack = new Promise<void>((resolve) => (acked = resolve));
  const ended = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
        if (text.includes("notifications/subscriptions/acknowledged")) acked();
      }
    } catch {
      // a stream cut off ends it too
    }
    done = true;
    acked();
  })();
  await ack;
  return {
    text: () => text,
    ended,
    hasEnded: () => done,
    close: async () => {
      await reader.cancel().catch(() => {});
      await ended;
    },
  };
}

async function newAgentToken(ch: TestChannel, label: string): Promise<string> {
  const res = await api(`/api/channels/${ch.id}/agent-tokens`, {
    method: "POST",
    json: { label },
    headers: { authorization: `Bearer ${ch.ownerKey}` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { agentToken: string }).agentToken;
}

/** Waits until `condition` holds, polling (no fixed sleep); fails after a generous deadline. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("subscriptions/listen caps", () => {
  it("one agent opening a channel's worth of listens ends only its own oldest streams, not another agent's", async () => {
    const ch = await createChannel();
    const other = await newAgentToken(ch, "flooder");
    const victim = await listen(ch, ch.agentToken);
    const flood: Listen[] = [];
    for (let i = 0; i < MAX_LISTENERS; i++) flood.push(await listen(ch, other));
    // The flooder keeps its newest MAX_LISTENERS_PER_AGENT; all its older streams end (whichever comes first:
    // a hub that evicts across agents ends the victim's instead, and the test fails here at once).
    const olderEnded = Promise.all(
      flood.slice(0, MAX_LISTENERS - MAX_LISTENERS_PER_AGENT).map((l) => l.ended),
    );
    await Promise.race([olderEnded, victim.ended]);
    expect(victim.hasEnded()).toBe(false);
    await olderEnded;
    expect(flood.slice(-MAX_LISTENERS_PER_AGENT).some((l) => l.hasEnded())).toBe(false);
    // The victim's stream still delivers: a tab adds a tool, and it hears list_changed.
    await connectProvider(ch, { tools: [echoTool()] });
    await until(
      () => victim.text().includes("notifications/tools/list_changed"),
      "the victim's list_changed",
    );
    expect(victim.hasEnded()).toBe(false);
    await victim.close();
    await Promise.all(flood.map((l) => l.close()));
  }, 120_000);

  it("a channel full of other agents' listens refuses a newcomer with 429 and ends nobody's", async () => {
    const ch = await createChannel();
    const agents = MAX_LISTENERS / MAX_LISTENERS_PER_AGENT;
    const open: Listen[] = [];
    const tokens: string[] = [];
    for (let a = 0; a < agents; a++) {
      tokens.push(await newAgentToken(ch, `agent ${a}`));
      for (let i = 0; i < MAX_LISTENERS_PER_AGENT; i++) open.push(await listen(ch, tokens[a]!));
    }
    const refused = await modernRequest(
      ch,
      "subscriptions/listen",
      { notifications: { toolsListChanged: true } },
      { id: ids++ },
    );
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`${MAX_LISTENERS} open subscriptions/listen streams`);
    expect(open.some((l) => l.hasEnded())).toBe(false);
    // An agent that has streams there may still open one: it replaces its own oldest, and only that.
    const replacement = await listen(ch, tokens[0]!);
    await open[0]!.ended;
    expect(open.slice(1).some((l) => l.hasEnded())).toBe(false);
    await replacement.close();
    await Promise.all(open.map((l) => l.close()));
  }, 120_000);
});
