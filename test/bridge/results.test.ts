// The bridge's result normalisation (src/bridge/results.ts) on its own, in Node: whatever a page's tool returns
// or throws becomes a CallToolResult that the hub's own zod schema accepts (a malformed block would make the
// hub refuse the whole frame and leave the agent waiting), and runTool hands execute the call's signal.
import { describe, expect, it } from "vitest";
import type { RegisteredTool } from "../../src/bridge/registry.js";
import {
  errorResult,
  MAX_RESULT_BYTES,
  messageOf,
  runTool,
  relayResult,
  toCallToolResult,
} from "../../src/bridge/results.js";
import { CallToolResultSchema } from "../../src/protocol/results.js";

/** The result as the relay sends it (relayResult, which runTool applies), after checking that the hub would
 *  accept it as it is. */
function normalised(value: unknown) {
  const result = relayResult(value);
  expect(CallToolResultSchema.parse(result)).toEqual(result);
  return result;
}

const tool = (execute: RegisteredTool["execute"]): RegisteredTool => ({
  name: "t",
  description: "d",
  inputSchema: { type: "object" },
  annotations: {},
  execute,
  source: "current",
});

describe("toCallToolResult and relayResult", () => {
  it("a string is text, undefined is no content, other values are their JSON, plain objects also structuredContent", () => {
    expect(normalised("hello")).toEqual({ content: [{ type: "text", text: "hello" }] });
    expect(normalised("")).toEqual({ content: [{ type: "text", text: "" }] });
    expect(normalised(undefined)).toEqual({ content: [] });
    expect(normalised(null)).toEqual({ content: [{ type: "text", text: "null" }] });
    expect(normalised(42)).toEqual({ content: [{ type: "text", text: "42" }] });
    expect(normalised(false)).toEqual({ content: [{ type: "text", text: "false" }] });
    expect(normalised([1, "a"])).toEqual({ content: [{ type: "text", text: '[1,"a"]' }] });
    expect(normalised({ status: "ok", when: new Date(0), skip: undefined })).toEqual({
      content: [{ type: "text", text: '{"status":"ok","when":"1970-01-01T00:00:00.000Z"}' }],
      structuredContent: { status: "ok", when: "1970-01-01T00:00:00.000Z" },
    });
  });

  it("an MCP result (an object with a content array) passes through as it is", () => {
    const result = {
      content: [
        { type: "text", text: "t" },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "audio", data: "aGk=", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "https://x.example/a", text: "a" } },
        { type: "resource_link", uri: "https://x.example/b", name: "b" },
      ],
      structuredContent: { n: 1 },
      isError: false,
    };
    expect(normalised(result)).toBe(result);
    expect(normalised({ content: [] })).toEqual({ content: [] });
  });

  it("a frame's raw result (toCallToolResult) is only converted; the relay's relayResult of it checks it as it would the value", () => {
    const values: unknown[] = [
      "s",
      undefined,
      { a: 1 },
      [1],
      { content: [5] },
      { content: [], structuredContent: 1 },
    ];
    for (const value of values) expect(relayResult(toCallToolResult(value))).toEqual(relayResult(value));
    const malformed = { content: [{ type: "video" }] };
    expect(toCallToolResult(malformed)).toBe(malformed);
  });

  it("a malformed MCP result becomes an isError result that says which block is wrong", () => {
    const bad: Array<[unknown[], string]> = [
      [[5], "a content block is not an object"],
      [[{ type: "text" }], "a text block needs a string `text`"],
      [[{ type: "image", data: "aGk=" }], "an image block needs base64 `data` and a `mimeType`"],
      [[{ type: "audio", mimeType: "audio/wav" }], "an audio block needs base64 `data` and a `mimeType`"],
      [[{ type: "resource", resource: {} }], "a resource block needs `resource.uri` and its text or blob"],
      [[{ type: "resource_link", uri: "u" }], "a resource_link block needs `uri` and `name`"],
      [[{ type: "text", text: "fine" }, { type: "video" }], 'unknown content type "video"'],
    ];
    for (const [content, problem] of bad)
      expect(normalised({ content })).toEqual(
        errorResult(`The tool returned an invalid MCP result: ${problem}.`),
      );
    expect(normalised({ content: [], structuredContent: [1] })).toEqual(
      errorResult("The tool returned an invalid MCP result: structuredContent must be an object."),
    );
  });

  it("values JSON cannot hold, and results over the frame's room, become isError results", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const noJson = errorResult("The tool returned a value that cannot be turned into JSON.");
    expect(normalised(cyclic)).toEqual(noJson);
    expect(normalised(10n)).toEqual(noJson);
    expect(normalised(() => 1)).toEqual(noJson);
    const tooBig = errorResult(
      `The tool's result is larger than ${MAX_RESULT_BYTES} bytes, the most a relay frame carries.`,
    );
    expect(normalised("x".repeat(MAX_RESULT_BYTES))).toEqual(tooBig);
    // Measured in UTF-8 bytes, not UTF-16 units: a third as many three-byte characters is just as big.
    expect(normalised("€".repeat(MAX_RESULT_BYTES / 3 + 1))).toEqual(tooBig);
    expect(normalised("x".repeat(MAX_RESULT_BYTES - 64)).isError).toBeUndefined();
  });
});

describe("messageOf and errorResult", () => {
  it("a thrown Error or DOMException gives its message (or its name), a string itself, anything else its JSON", () => {
    expect(messageOf(new Error("boom"))).toBe("boom");
    expect(messageOf(new TypeError(""))).toBe("TypeError");
    expect(messageOf(new DOMException("gone", "AbortError"))).toBe("gone");
    expect(messageOf(new DOMException("", "AbortError"))).toBe("AbortError");
    expect(messageOf("plain")).toBe("plain");
    expect(messageOf({ code: 7 })).toBe('{"code":7}');
    expect(messageOf(undefined)).toBe("undefined");
    expect(messageOf(10n)).toBe("10");
    expect(errorResult("why")).toEqual({ isError: true, content: [{ type: "text", text: "why" }] });
    expect(CallToolResultSchema.parse(errorResult("why"))).toEqual(errorResult("why"));
  });
});

describe("runTool", () => {
  it("runs execute with the input and a client holding the call's signal, and normalises what it returns", async () => {
    const signal = new AbortController().signal;
    const seen: unknown[] = [];
    const result = await runTool(
      tool(async (input, client) => {
        seen.push(input, client.signal);
        return { echoed: input };
      }),
      { q: "x" },
      signal,
    );
    expect(seen).toEqual([{ q: "x" }, signal]);
    expect(seen[1]).toBe(signal);
    expect(result).toEqual({
      content: [{ type: "text", text: '{"echoed":{"q":"x"}}' }],
      structuredContent: { echoed: { q: "x" } },
    });
  });

  it("what execute throws or rejects with becomes an isError result with its message", async () => {
    const signal = new AbortController().signal;
    expect(
      await runTool(
        tool(() => {
          throw new Error("sync boom");
        }),
        {},
        signal,
      ),
    ).toEqual(errorResult("sync boom"));
    expect(
      await runTool(
        tool(() => Promise.reject("async boom")),
        {},
        signal,
      ),
    ).toEqual(errorResult("async boom"));
  });

  it("requestUserInteraction runs the page's callback, and refuses once the call is aborted", async () => {
    const controller = new AbortController();
    const asks = tool((_input, client) => client.requestUserInteraction(async () => "the user said yes"));
    expect(await runTool(asks, {}, controller.signal)).toEqual({
      content: [{ type: "text", text: "the user said yes" }],
    });
    let asked = false;
    const asksLate = tool((_input, client) => client.requestUserInteraction(() => (asked = true)));
    controller.abort(new DOMException("The agent cancelled.", "AbortError"));
    expect(await runTool(asksLate, {}, controller.signal)).toEqual(errorResult("The agent cancelled."));
    expect(asked).toBe(false);
  });
});
