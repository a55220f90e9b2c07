// Fuzz: provider → hub relay frames on a real paired WebSocket into the channel's ChannelRelay. Each case puts
// an agent's call in flight, then sends arbitrary and near-valid frames (from ProviderFrameSchema: hello, tools
// with hostile schemas, results and progress for the live call id, logs), raw text, binary and oversized frames.
// The hub answers only with frames its protocol defines, closes a socket only with a documented code, the
// agent's call ends with a documented status, and afterwards the object still answers its owner and relays a call.
import { env, SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { HubFrameSchema, ProviderFrameSchema } from "../../src/protocol/index.js";
import { expectDocumentedAnswer } from "../support/fuzz-answers.js";
import {
  deepNesting,
  fromZod,
  fuzzRuns,
  hostileValue,
  hugeString,
  jsonText,
  objectSchemaArb,
  rawBodyText,
  toolNameArb,
  RawJson,
} from "../support/fuzz-arbitraries.js";
import { api } from "./helpers.js";
import {
  HUB,
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  type TestChannel,
  type TestProvider,
} from "./relay-helpers.js";

const RUNS = fuzzRuns(env.FUZZ_RUNS, 80);

/** Close codes the hub may end a provider's socket with: normal, too big, and its own 4xxx refusals. */
const DOCUMENTED_CLOSE = new Set([1000, 1008, 1009, 4000, 4001, 4003, 4009]);

const TOOLS = [
  echoTool("fz"),
  echoTool("typed", {
    outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  }),
];

const frameArb = fromZod(ProviderFrameSchema, {
  "tools.*.name": toolNameArb,
  "tools.*.inputSchema": objectSchemaArb,
  "tools.*.outputSchema": objectSchemaArb,
  "result.structuredContent": fc.oneof(fc.record({ n: fc.oneof(fc.double(), fc.string()) }), hostileValue),
  "page.url": fc.constantFrom("https://shop.example/a", "javascript:alert(1)", "data:text/html,x", ""),
  data: hostileValue,
});

/** One frame as sent: near-valid JSON (its id, where it has one, usually the live call's), raw, or binary. */
const wireFrameArb = fc.oneof(
  { arbitrary: frameArb.map((f) => ({ kind: "json" as const, frame: f })), weight: 10 },
  { arbitrary: rawBodyText.map((t) => ({ kind: "raw" as const, frame: t })), weight: 2 },
  { arbitrary: deepNesting.map((t) => ({ kind: "raw" as const, frame: t.text })), weight: 1 },
  {
    arbitrary: hugeString.map((s) => ({
      kind: "raw" as const,
      frame: jsonText({ type: "log", level: "info", data: s.repeat(8) }),
    })),
    weight: 1,
  },
  {
    arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ kind: "binary" as const, frame: b })),
    weight: 1,
  },
);

const caseArb = fc.record({
  tool: fc.constantFrom("fz", "typed"),
  frames: fc.array(fc.tuple(wireFrameArb, fc.boolean()), { minLength: 1, maxLength: 3 }),
  finish: fc.boolean(),
});

describe("fuzzing the relay's provider frames", () => {
  let ch: TestChannel;
  let provider: TestProvider;
  let closeCode: number | null = null;

  async function connect(): Promise<void> {
    provider = await connectProvider(ch, { tools: TOOLS });
    closeCode = null;
    provider.ws.addEventListener("close", (e) => (closeCode = e.code));
  }

  /** Waits until the owner's view shows `fz` from the provider (after a fuzzed tools frame replaced them). */
  async function restoreTools(): Promise<void> {
    provider.send({ type: "tools", tools: TOOLS });
    // The hub handles a socket's frames in order: once it answers a ping sent after them, they are stored.
    await provider.flush();
    const res = await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } });
    const view = (await res.json()) as { tools: Array<{ name: string }> };
    if (!view.tools.some((t) => t.name === "typed"))
      throw new Error("the provider's tools did not come back");
  }

  beforeAll(async () => {
    ch = await createChannel({ name: "fuzz-relay" });
    await connect();
  });

  it(
    "answers every provider frame within the protocol and keeps the channel's object serving",
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          if (provider.closed) await connect();
          provider.frames.length = 0;
          // An agent's call in flight, so result/progress/log frames can name a live call.
          const call = SELF.fetch(`${HUB}/api/channels/${ch.id}/calls`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${ch.agentToken}` },
            body: JSON.stringify({ name: c.tool, arguments: { text: "x" }, timeoutMs: 3000 }),
          });
          const callFrame = await provider.next("call");
          let sentTools = false;
          for (const [wire, useLiveId] of c.frames) {
            if (provider.closed) break;
            if (wire.kind === "binary") provider.ws.send(wire.frame);
            else if (wire.kind === "raw") provider.ws.send(wire.frame);
            else {
              const frame = wire.frame;
              if (
                frame !== null &&
                typeof frame === "object" &&
                !Array.isArray(frame) &&
                !(frame instanceof RawJson)
              ) {
                const f = frame as Record<string, unknown>;
                if (useLiveId && "id" in f) f.id = callFrame.id;
                if (f.type === "tools") sentTools = true;
              }
              try {
                provider.ws.send(jsonText(frame));
              } catch {
                // closed under us
              }
            }
          }
          if (c.finish)
            provider.send({
              type: "result",
              id: callFrame.id,
              result: { content: [{ type: "text", text: "done" }], structuredContent: { n: 1 } },
            });
          else if (!provider.closed)
            provider.send({ type: "result", id: callFrame.id, result: { content: [] } });
          const res = await call;
          const status = res.status;
          const body = (await expectDocumentedAnswer(res, "POST calls")) as {
            results?: Array<{ status: string }>;
          };
          if (status === 200)
            expect(["ok", "error", "invalid", "denied", "timeout", "disconnected", "cancelled"]).toContain(
              body.results![0]!.status,
            );
          // Every frame the hub sent (all of them, once it answered a later ping) is one its protocol defines.
          await provider.flush();
          for (const f of provider.frames) expect(HubFrameSchema.safeParse(f).success).toBe(true);
          if (provider.closed) {
            expect(DOCUMENTED_CLOSE).toContain(closeCode);
            await connect();
          } else if (sentTools) await restoreTools();
        }),
        { numRuns: RUNS },
      );
      // The object still answers its owner, and a fresh provider's tool is called through it.
      const view = await api(`/api/channels/${ch.id}`, {
        headers: { authorization: `Bearer ${ch.ownerKey}` },
      });
      expect(view.status).toBe(200);
      provider.close();
      const fresh = (await connectProvider(ch, { tools: [echoTool("fresh")] })).serve(() => ({
        content: [{ type: "text", text: "fresh ok" }],
      }));
      const res = await SELF.fetch(`${HUB}/api/channels/${ch.id}/calls`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ch.agentToken}` },
        body: JSON.stringify({ name: "fresh", arguments: { text: "x" } }),
      });
      expect(await res.json()).toMatchObject({
        results: [{ status: "ok", result: { content: [{ text: "fresh ok" }] } }],
      });
      fresh.close();
    },
    60_000 + RUNS * 500,
  );

  // Found through the manifest fuzz (fuzz-manifest.test.ts): @cfworker/json-schema builds JSON Pointers with
  // encodeURI, which throws URIError on a key holding an unpaired surrogate. In the object, that threw out of
  // webSocketMessage (the whole tools frame dropped with no error frame) and out of a call (-32603 "URI malformed").
  it("refuses a tool whose schema has an unpaired-surrogate key with an error frame, keeping the frame's other tools", async () => {
    const own = await createChannel({ name: "surrogate-tools" });
    const p = await connectProvider(own, { tools: [echoTool()] });
    p.ws.send(
      '{"type":"tools","tools":[{"name":"bad","description":"Bad.","inputSchema":{"type":"object","properties":{"\\udfff":{}}}},{"name":"good","description":"Good."}]}',
    );
    const error = await p.next("error");
    expect(error).toMatchObject({ code: "invalid_tools" });
    expect(error.message).toContain("unpaired UTF-16 surrogate");
    const view = (await (
      await api(`/api/channels/${own.id}`, { headers: { authorization: `Bearer ${own.ownerKey}` } })
    ).json()) as { tools: Array<{ name: string }> };
    expect(view.tools.map((t) => t.name)).toEqual(["good"]);
    p.close();
  });

  it("answers an agent's arguments with an unpaired-surrogate key as an invalid call, not an internal error", async () => {
    const own = await createChannel({ name: "surrogate-args" });
    const p = (await connectProvider(own, { tools: [echoTool()] })).serve(() => ({
      content: [{ type: "text", text: "called" }],
    }));
    const agent = await connectAgent(own);
    const result = await agent.callTool({ name: "echo", arguments: { "\udfff": 1 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("unpaired UTF-16 surrogate");
    await agent.close();
    p.close();
  });
});
