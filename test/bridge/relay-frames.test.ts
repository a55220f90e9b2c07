// The provider's side of the relay frames (src/bridge/relay-frames.ts) on its own, in Node: tools become the
// hub's ToolDescriptors, the `tools` frame keeps within the hub's limits (what is left out is said, by name
// where it can be), and a result too big for a frame becomes an isError result instead of a frame the hub
// would refuse by closing the socket. Every frame made here is checked against the hub's own zod schemas.
import { describe, expect, it } from "vitest";
import {
  backoffMs,
  frameText,
  toDescriptor,
  toolsFrameText,
  type ToolDefinition,
} from "../../src/bridge/relay-frames.js";
import { ProviderFrameSchema, ToolsFrameSchema, type ProviderFrame } from "../../src/protocol/frames.js";
import { LIMITS } from "../../src/protocol/limits.js";
import { utf8ByteLength } from "../../src/protocol/measure.js";
import { ToolDescriptorSchema } from "../../src/protocol/tool.js";

const MAX_TOOLS = LIMITS.toolsPerProvider;
const MAX_FRAME_BYTES = LIMITS.frameBytes;

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `${name} does a thing`,
  inputSchema: { type: "object" },
  ...extra,
});

/** The frame's tools, after checking the hub would accept the frame and that it fits. */
function sentTools(text: string) {
  expect(utf8ByteLength(text)).toBeLessThanOrEqual(LIMITS.frameBytes);
  const frame = ToolsFrameSchema.parse(JSON.parse(text));
  return frame.tools;
}

describe("toDescriptor", () => {
  it("keeps name, title, description and schemas, and turns the known hints into booleans", () => {
    const descriptor = toDescriptor(
      tool("find", {
        title: "Find things",
        outputSchema: { type: "object", properties: { n: { type: "number" } } },
        annotations: {
          readOnlyHint: "true",
          destructiveHint: "false",
          idempotentHint: true,
          openWorldHint: 1,
          untrustedContentHint: false,
          title: "not a hint",
          debugging: true,
        },
      }),
    );
    expect(descriptor).toEqual({
      name: "find",
      title: "Find things",
      description: "find does a thing",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { n: { type: "number" } } },
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
        untrustedContentHint: false,
      },
    });
    expect(ToolDescriptorSchema.parse(descriptor)).toEqual(descriptor);
    expect(toDescriptor(tool("plain"))).toEqual({
      name: "plain",
      description: "plain does a thing",
      inputSchema: { type: "object" },
      annotations: {},
    });
  });

  it("cuts a long title to the hub's length, and leaves out an empty one", () => {
    const long = toDescriptor(tool("t", { title: "T".repeat(LIMITS.titleMax + 10) }))!;
    expect(long.title).toBe("T".repeat(LIMITS.titleMax));
    expect(ToolDescriptorSchema.parse(long).title).toHaveLength(LIMITS.titleMax);
    expect(toDescriptor(tool("t", { title: "" }))).not.toHaveProperty("title");
  });

  it("is null for what the hub would refuse: a bad name, no description, a description over its limit", () => {
    for (const name of ["", "has space", "é", "a/b", "x".repeat(LIMITS.toolNameMax + 1)])
      expect(toDescriptor(tool(name))).toBeNull();
    expect(toDescriptor(tool("x".repeat(LIMITS.toolNameMax)))).not.toBeNull();
    expect(toDescriptor(tool("t", { description: "" }))).toBeNull();
    expect(toDescriptor(tool("t", { description: "d".repeat(LIMITS.descriptionMax + 1) }))).toBeNull();
    const longest = toDescriptor(tool("t", { description: "d".repeat(LIMITS.descriptionMax) }));
    expect(ToolDescriptorSchema.parse(longest)).toEqual(longest);
  });
});

describe("toolsFrameText", () => {
  it("sends every tool the hub takes and says which it left out", () => {
    const { text, sent, warnings } = toolsFrameText([
      tool("a"),
      tool("bad name"),
      tool("b", { description: "" }),
      tool("c"),
    ]);
    expect(sent).toBe(2);
    expect(sentTools(text).map((t) => t.name)).toEqual(["a", "c"]);
    expect(warnings).toEqual([
      'the tool "bad name" cannot be relayed (name or description).',
      'the tool "b" cannot be relayed (name or description).',
    ]);
    expect(toolsFrameText([])).toEqual({ text: '{"type":"tools","tools":[]}', sent: 0, warnings: [] });
  });

  it(`sends at most ${MAX_TOOLS} tools, the first ones`, () => {
    const tools = Array.from({ length: MAX_TOOLS + 44 }, (_, i) => tool(`t${i}`));
    const { text, sent, warnings } = toolsFrameText(tools);
    expect(sent).toBe(MAX_TOOLS);
    expect(sentTools(text).map((t) => t.name)).toEqual(tools.slice(0, MAX_TOOLS).map((t) => t.name));
    expect(warnings).toEqual([`a tab relays at most ${MAX_TOOLS} tools; 44 left out.`]);
  });

  it("a tool too big for a frame on its own is left out by name with its size, and the others still go", () => {
    const huge = tool("huge", {
      inputSchema: { type: "object", description: "€".repeat(MAX_FRAME_BYTES / 3) },
    });
    const size = utf8ByteLength(JSON.stringify(toDescriptor(huge)));
    const { text, sent, warnings } = toolsFrameText([tool("a"), huge, tool("b")]);
    expect(sent).toBe(2);
    expect(sentTools(text).map((t) => t.name)).toEqual(["a", "b"]);
    expect(warnings).toEqual([
      `the tool "huge" is ${size} bytes, more than a relay frame carries (${MAX_FRAME_BYTES}); left out.`,
    ]);
    // In JavaScript's UTF-16 units the schema is a third of the limit: it is the UTF-8 bytes that count.
    expect(JSON.stringify(huge).length).toBeLessThan(MAX_FRAME_BYTES / 2);
  });

  it("tools that fit one by one but not together are trimmed from the end until the frame fits", () => {
    const big = (i: number) =>
      tool(`t${i}`, {
        description: "d".repeat(LIMITS.descriptionMax),
        inputSchema: { type: "object", description: "s".repeat(4000) },
      });
    const tools = Array.from({ length: MAX_TOOLS }, (_, i) => big(i));
    const { text, sent, warnings } = toolsFrameText(tools);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(MAX_TOOLS);
    expect(sentTools(text).map((t) => t.name)).toEqual(tools.slice(0, sent).map((t) => t.name));
    expect(warnings).toEqual([
      `the tools' definitions are over the hub's ${MAX_FRAME_BYTES}-byte frame limit; ${MAX_TOOLS - sent} left out.`,
    ]);
  });
});

describe("frameText", () => {
  it("a frame within the limit is its JSON", () => {
    const frames: ProviderFrame[] = [
      { type: "result", id: "c1", result: { content: [{ type: "text", text: "ok" }] } },
      { type: "log", level: "info", data: { n: 1 } },
      { type: "ping" },
    ];
    for (const frame of frames) {
      const text = frameText(frame)!;
      expect(text).toBe(JSON.stringify(frame));
      expect(ProviderFrameSchema.parse(JSON.parse(text))).toEqual(frame);
    }
  });

  it("a result over the limit becomes an isError result for the same call, which the hub accepts", () => {
    const frame = {
      type: "result" as const,
      id: "call-7",
      result: { content: [{ type: "text" as const, text: "x".repeat(MAX_FRAME_BYTES) }] },
    };
    const size = utf8ByteLength(JSON.stringify(frame));
    const text = frameText(frame)!;
    expect(utf8ByteLength(text)).toBeLessThan(1024);
    expect(ProviderFrameSchema.parse(JSON.parse(text))).toEqual({
      type: "result",
      id: "call-7",
      result: {
        isError: true,
        content: [
          {
            type: "text",
            text: `The tool's answer was ${size} bytes as a relay frame; a frame may be at most ${MAX_FRAME_BYTES} bytes.`,
          },
        ],
      },
    });
  });

  it("any other frame over the limit is not sent (null), as the hub would close the socket", () => {
    expect(frameText({ type: "log", level: "info", data: "x".repeat(MAX_FRAME_BYTES) })).toBeNull();
    // Counted in UTF-8 bytes: a third as many three-byte characters is over the limit too.
    expect(frameText({ type: "log", level: "info", data: "€".repeat(MAX_FRAME_BYTES / 3) })).toBeNull();
  });
});

describe("backoffMs", () => {
  it("doubles from 500 ms, capped at 30 s, with jitter in the upper half", () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const base = Math.min(30_000, 500 * 2 ** attempt);
      for (let i = 0; i < 20; i++) {
        const delay = backoffMs(attempt);
        expect(delay).toBeGreaterThanOrEqual(base / 2);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
  });
});
