// Fuzz: JSON-RPC to both MCP endpoints. The public /mcp/registry (stateless) and a channel's /mcp/:id with a
// valid agent token, inside a real session and outside it: arbitrary and near-valid messages (methods, params,
// ids, batches, tool arguments), raw bodies, media types, protocol versions and session ids. Every answer is a
// JSON-RPC result or error (or a documented REST error from the Worker), never a 5xx; afterwards the channel's
// object still answers its owner and a normal tools/call still works.
import { env, SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { expectMcpAnswer } from "../support/fuzz-answers.js";
import {
  argumentsArb,
  fuzzRuns,
  hostileValue,
  hugeString,
  jsonText,
  nastyString,
  nearValid,
  rawBodyText,
  unicodeString,
  weirdNumber,
} from "../support/fuzz-arbitraries.js";
import { publish, tool, verifiedSite } from "./helpers.js";
import {
  HUB,
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  type TestChannel,
} from "./relay-helpers.js";

const RUNS = fuzzRuns(env.FUZZ_RUNS, 200);

const idArb = fc.oneof(
  { arbitrary: fc.integer(), weight: 12 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 4 },
  fc.constantFrom(null, 0, -1, 1.5, 2 ** 53 + 2, "", true, {}, []),
  { arbitrary: hugeString, weight: 1 },
);

const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "resources/list",
  "prompts/list",
  "completion/complete",
  "tasks/list",
];

/** Params per method: near-valid for the ones the servers handle, anything for the rest. */
function paramsFor(method: string, toolNames: string[]): fc.Arbitrary<unknown> {
  switch (method) {
    case "initialize":
      return fc.record({
        protocolVersion: fc.constantFrom(
          "2025-11-25",
          "2025-06-18",
          "2024-11-05",
          "1999-01-01",
          "",
          "latest",
        ),
        capabilities: fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 8 }), hostileValue)),
        clientInfo: fc.record({
          name: fc.oneof(fc.string({ maxLength: 20 }), unicodeString),
          version: fc.string({ maxLength: 8 }),
          title: fc.oneof(fc.string({ maxLength: 20 }), hugeString),
        }),
      });
    case "tools/call":
      return fc.record(
        {
          name: fc.oneof({ arbitrary: fc.constantFrom(...toolNames), weight: 4 }, fc.string(), nastyString),
          arguments: fc.oneof(
            argumentsArb,
            fc.record(
              {
                query: fc.oneof(
                  fc.string(),
                  unicodeString,
                  fc.constantFrom('"', "*", "NEAR(", "a".repeat(201)),
                ),
                site: fc.oneof(fc.string(), fc.constantFrom("HOST", "UPPER.EXAMPLE", "xn--", "..")),
                readOnly: fc.oneof(fc.boolean(), fc.constant("true")),
                limit: fc.oneof(fc.integer({ min: 0, max: 60 }), weirdNumber),
                cursor: fc.oneof(fc.string(), fc.base64String()),
                host: fc.oneof(fc.constant("HOST"), fc.string()),
                format: fc.constantFrom("mcp", "openai", "anthropic", "gemini", "MCP", ""),
              },
              { requiredKeys: [] },
            ),
          ),
          _meta: fc.record(
            {
              progressToken: fc.oneof({ arbitrary: fc.integer(), weight: 4 }, fc.string(), fc.constant(null)),
              "webmcp-hub/timeoutMs": fc.oneof(fc.constantFrom(1, 50, 300_001), weirdNumber),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ["name"] },
      );
    case "logging/setLevel":
      return fc.record({ level: fc.constantFrom("debug", "info", "emergency", "loud", "") });
    case "notifications/cancelled":
      return fc.record({ requestId: idArb, reason: fc.string() });
    case "notifications/progress":
      return fc.record({ progressToken: idArb, progress: weirdNumber });
    default:
      return fc.oneof(
        { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 }), weight: 4 },
        hostileValue,
      );
  }
}

function messageArb(toolNames: string[]): fc.Arbitrary<unknown> {
  const shaped = fc
    .oneof(
      { arbitrary: fc.constant("tools/call"), weight: 8 },
      { arbitrary: fc.constantFrom(...METHODS), weight: 6 },
      fc.string({ maxLength: 20 }),
      nastyString,
    )
    .chain((method) =>
      fc.record(
        {
          jsonrpc: fc.oneof({ arbitrary: fc.constant("2.0"), weight: 20 }, fc.constantFrom("1.0", 2, null)),
          id: idArb,
          method: fc.constant(method),
          params: paramsFor(method, toolNames),
        },
        { requiredKeys: ["jsonrpc", "method", "id", "params"] },
      ),
    );
  // Responses and errors sent to the server, as a client could.
  const response = fc.record({
    jsonrpc: fc.constant("2.0"),
    id: idArb,
    result: fc.option(hostileValue),
    error: fc.option(fc.record({ code: fc.integer(), message: fc.string() })),
  });
  return fc.oneof(
    { arbitrary: shaped, weight: 8 },
    { arbitrary: nearValid(shaped), weight: 3 },
    { arbitrary: response, weight: 1 },
  );
}

function bodyArb(toolNames: string[]): fc.Arbitrary<string> {
  const message = messageArb(toolNames);
  return fc.oneof(
    { arbitrary: message.map(jsonText), weight: 8 },
    { arbitrary: fc.array(message, { minLength: 0, maxLength: 4 }).map(jsonText), weight: 2 },
    { arbitrary: rawBodyText, weight: 1 },
  );
}

const headersArb = fc.record({
  method: fc.oneof({ arbitrary: fc.constant("POST"), weight: 10 }, fc.constantFrom("GET", "DELETE", "PUT")),
  accept: fc.oneof(
    { arbitrary: fc.constant("application/json, text/event-stream"), weight: 8 },
    fc.constantFrom("application/json", "text/event-stream", "*/*", "", "text/html"),
  ),
  contentType: fc.oneof(
    { arbitrary: fc.constant("application/json"), weight: 8 },
    fc.constantFrom("text/plain", "", "application/json; charset=latin1"),
  ),
  protocolVersion: fc.oneof(
    { arbitrary: fc.constantFrom(null, "2025-11-25", "2025-06-18"), weight: 8 },
    fc.constantFrom("2030-01-01", "garbage", ""),
  ),
  session: fc.oneof(
    { arbitrary: fc.constant("real"), weight: 8 },
    fc.constantFrom("none", "none", "random", "real-upper"),
  ),
});

type HeaderCase = {
  method: string;
  accept: string;
  contentType: string;
  protocolVersion: string | null;
  session: string;
};

/**
 * Reads the answer to the end, except a GET stream (it stays open for notifications): its headers only. A
 * DELETE that ends the session answers 200 with no body, as the spec has it.
 */
async function answerOf(res: Response, method: string, what: string): Promise<void> {
  if (method === "GET" && res.status === 200) {
    await res.body?.cancel();
    return;
  }
  if (method === "DELETE" && res.status === 200) {
    expect(await res.text()).toBe("");
    return;
  }
  await expectMcpAnswer(res, what);
}

describe("fuzzing the MCP endpoints", () => {
  let ch: TestChannel;
  let sessionId: string;
  let host: string;

  beforeAll(async () => {
    const site = await verifiedSite();
    host = site.host;
    expect((await publish(site.host, site.key, { tools: [tool("alpha"), tool("beta")] })).status).toBe(201);
    ch = await createChannel({ name: "fuzz-mcp" });
    const provider = await connectProvider(ch, {
      tools: [
        echoTool(),
        echoTool("approve", { annotations: { readOnlyHint: false } }),
        echoTool("typed", {
          outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        }),
      ],
    });
    provider.serve((call) =>
      call.name === "typed"
        ? { content: [{ type: "text", text: "{}" }], structuredContent: { n: 1 } }
        : { content: [{ type: "text", text: `echo: ${String(call.arguments.text)}` }] },
    );
    await openSession();
  });

  /** Opens (or, after a fuzzed DELETE ended it, reopens) the session the fuzzed requests mostly use. */
  async function openSession(): Promise<void> {
    const init = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${ch.agentToken}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "1" },
        },
      }),
    });
    expect(init.status).toBe(200);
    sessionId = init.headers.get("mcp-session-id")!;
    await init.text();
    expect(sessionId).toBeTruthy();
  }

  function headersFor(h: HeaderCase, token: string | null): Headers {
    const out = new Headers();
    if (h.accept) out.set("accept", h.accept);
    if (h.contentType) out.set("content-type", h.contentType);
    if (h.protocolVersion !== null) out.set("mcp-protocol-version", h.protocolVersion);
    if (h.session === "real") out.set("mcp-session-id", sessionId);
    if (h.session === "real-upper") out.set("mcp-session-id", sessionId.toUpperCase());
    if (h.session === "random") out.set("mcp-session-id", crypto.randomUUID());
    if (token) out.set("authorization", `Bearer ${token}`);
    return out;
  }

  it(
    "answers every message to /mcp/registry with JSON-RPC or a documented error",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyArb(["search_tools", "get_site", "propose_tools"]),
          headersArb,
          async (body, h) => {
            const res = await SELF.fetch(`${HUB}/mcp/registry`, {
              method: h.method,
              headers: headersFor(h, null),
              ...(h.method === "GET" ? {} : { body: body.replaceAll('"HOST"', JSON.stringify(host)) }),
            });
            await answerOf(res, h.method, `${h.method} /mcp/registry`);
          },
        ),
        { numRuns: RUNS },
      );
    },
    60_000 + RUNS * 300,
  );

  it(
    "answers every message to a channel's endpoint with JSON-RPC or a documented error, and keeps working",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyArb(["echo", "approve", "typed"]),
          headersArb,
          fc.oneof({ arbitrary: fc.constant("valid"), weight: 8 }, fc.constantFrom("none", "garbage")),
          async (body, h, auth) => {
            const token = auth === "valid" ? ch.agentToken : auth === "garbage" ? "wha_nope" : null;
            const res = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
              method: h.method,
              headers: headersFor(h, token),
              ...(h.method === "GET" ? {} : { body }),
            });
            const status = res.status;
            await answerOf(res, h.method, `${h.method} /mcp/:channel`);
            if (h.method === "DELETE" && h.session === "real" && status === 200) await openSession();
          },
        ),
        { numRuns: RUNS },
      );
      // The object still answers its owner, and a new agent session calls a tool.
      const view = await SELF.fetch(`${HUB}/api/channels/${ch.id}`, {
        headers: { authorization: `Bearer ${ch.ownerKey}` },
      });
      expect(view.status).toBe(200);
      const agent = await connectAgent(ch);
      const result = await agent.callTool({ name: "echo", arguments: { text: "still here" } });
      expect(result.content).toEqual([{ type: "text", text: "echo: still here" }]);
      await agent.close();
    },
    60_000 + RUNS * 300,
  );
});
