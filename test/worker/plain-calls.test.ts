// POST /api/channels/:id/calls: one call over plain HTTP, or a model's output in the four shapes of seed 004.
import { describe, expect, it } from "vitest";
import { parseFunctionCalls } from "../../src/protocol/index.js";
import { api, expectError } from "./helpers.js";
import { connectProvider, createChannel, echoTool } from "./relay-helpers.js";

describe("reading function calls from model output", () => {
  it.each([
    ["a JSON array", '[{"function":"a","arguments":{"x":1}},{"function":"b","arguments":{}}]', ["a", "b"]],
    [
      "function_call tags",
      'Sure.\n<function_call name="a">\n{"x": 1}\n</function_call>\n<function_call name="b">{}</function_call>',
      ["a", "b"],
    ],
    ["a fenced json block", 'Here:\n```json\n{"function": "a", "arguments": {"x": 1}}\n```', ["a"]],
    ["a single object", '{"function":"a","arguments":"{\\"x\\":1}"}', ["a"]],
  ])("reads %s", (_what, text, names) => {
    const calls = parseFunctionCalls(text);
    expect(calls.map((c) => c.name)).toEqual(names);
    expect(calls[0]!.arguments).toEqual({ x: 1 });
  });

  it("says what is wrong with text that holds no call", () => {
    expect(() => parseFunctionCalls("I think you should buy it.")).toThrow(/No function call found/);
    expect(() => parseFunctionCalls('<function_call name="a">{oops</function_call>')).toThrow(
      /not valid JSON/,
    );
    expect(() => parseFunctionCalls('[{"arguments":{}}]')).toThrow(/no "function" name/);
  });
});

describe("plain HTTP calls", () => {
  it("runs one call with the agent token and returns its result and status", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool()] })).serve((c) => ({
      content: [{ type: "text", text: `echo ${c.arguments.text}` }],
    }));
    const res = await api(`/api/channels/${ch.id}/calls`, {
      method: "POST",
      json: { name: "echo", arguments: { text: "hi" } },
      headers: { authorization: `Bearer ${ch.agentToken}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      results: [
        {
          name: "echo",
          arguments: { text: "hi" },
          status: "ok",
          result: { content: [{ type: "text", text: "echo hi" }] },
        },
      ],
    });
  });

  it("runs every call found in a model's text, in order", async () => {
    const ch = await createChannel();
    const seen: string[] = [];
    (await connectProvider(ch, { tools: [echoTool()] })).serve((c) => {
      seen.push(String(c.arguments.text));
      return { content: [{ type: "text", text: "ok" }] };
    });
    const text =
      '<function_call name="echo">{"text":"1"}</function_call><function_call name="echo">{"text":"2"}</function_call><function_call name="missing">{}</function_call>';
    const res = await api(`/api/channels/${ch.id}/calls`, {
      method: "POST",
      json: { text },
      headers: { authorization: `Bearer ${ch.agentToken}` },
    });
    const body = (await res.json()) as any;
    expect(body.results.map((r: any) => r.status)).toEqual(["ok", "ok", "invalid"]);
    expect(body.results[2].result.isError).toBe(true);
    expect(seen).toEqual(["1", "2"]);
  });

  it("refuses a missing token, the owner key, and unparseable text", async () => {
    const ch = await createChannel();
    await expectError(
      await api(`/api/channels/${ch.id}/calls`, { method: "POST", json: { name: "echo" } }),
      401,
      "unauthorized",
    );
    await expectError(
      await api(`/api/channels/${ch.id}/calls`, {
        method: "POST",
        json: { name: "echo" },
        headers: { authorization: `Bearer ${ch.ownerKey}` },
      }),
      401,
      "unauthorized",
    );
    const bad = await expectError(
      await api(`/api/channels/${ch.id}/calls`, {
        method: "POST",
        json: { text: "no calls here" },
        headers: { authorization: `Bearer ${ch.agentToken}` },
      }),
      400,
      "validation_failed",
    );
    expect(bad.issues?.[0]?.path).toBe("text");
    await expectError(
      await api(`/api/channels/${ch.id}/calls`, {
        method: "POST",
        json: { name: "echo", bogus: 1 },
        headers: { authorization: `Bearer ${ch.agentToken}` },
      }),
      400,
      "validation_failed",
    );
  });
});
