// Exporting a site's tools in MCP, OpenAI, Anthropic and Gemini function-calling shapes.
import { describe, expect, it, beforeAll } from "vitest";
import { api, expectError, publish, verifiedSite } from "./helpers.js";
import { toGeminiSchema } from "../../src/worker/registry/export.js";

let host: string;
const inputSchema = {
  type: "object",
  properties: {
    product_id: { type: "string", description: "The product to buy" },
    quantity: { type: ["integer", "null"], minimum: 1 },
    color: { const: "red" },
  },
  required: ["product_id"],
  additionalProperties: false,
};

beforeAll(async () => {
  const s = await verifiedSite();
  host = s.host;
  const res = await publish(s.host, s.key, {
    tools: [
      {
        name: "buyProduct",
        title: "Buy",
        description: "Buy a product.",
        inputSchema,
        annotations: { readOnlyHint: "false" },
      },
      {
        name: "fs.search_by_time",
        description: "Find files by time.",
        inputSchema: { type: "object", properties: {} },
        outputSchema: { type: "object" },
      },
      { name: "1st-tool", description: "Starts with a digit.", inputSchema: { type: "object" } },
    ],
  });
  expect(res.status).toBe(201);
});

const exportAs = async (format: string) =>
  (await (await api(`/api/sites/${host}/tools?format=${format}`)).json()) as any;

describe("exporting tools", () => {
  it("gives MCP tool definitions as tools/list would", async () => {
    const out = await exportAs("mcp");
    const buy = out.tools.find((t: any) => t.name === "buyProduct");
    expect(buy).toEqual({
      name: "buyProduct",
      title: "Buy",
      description: "Buy a product.",
      inputSchema,
      annotations: { readOnlyHint: false },
      _meta: { "webmcp-hub/digest": out.digests.buyProduct },
    });
    expect(out.digests.buyProduct).toMatch(/^[0-9a-f]{64}$/);
    expect(out.tools.find((t: any) => t.name === "fs.search_by_time").outputSchema).toEqual({
      type: "object",
    });
    expect(out.names).toEqual({});
  });

  it("gives OpenAI function tools, renaming dotted names and saying so", async () => {
    const out = await exportAs("openai");
    expect(out.tools).toContainEqual({
      type: "function",
      name: "buyProduct",
      description: "Buy a product.",
      parameters: inputSchema,
      strict: false,
    });
    expect(out.tools.map((t: any) => t.name)).toContain("fs_search_by_time");
    expect(out.names).toEqual({ fs_search_by_time: "fs.search_by_time" });
    for (const t of out.tools) expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("gives Anthropic tools with input_schema", async () => {
    const out = await exportAs("anthropic");
    expect(out.tools).toContainEqual({
      name: "buyProduct",
      description: "Buy a product.",
      input_schema: inputSchema,
    });
    expect(out.names).toEqual({ fs_search_by_time: "fs.search_by_time" });
  });

  it("gives Gemini function declarations with an OpenAPI-subset schema and valid names", async () => {
    const out = await exportAs("gemini");
    const decls = out.tools[0].functionDeclarations;
    const buy = decls.find((d: any) => d.name === "buyProduct");
    expect(buy.parameters).toEqual({
      type: "object",
      properties: {
        product_id: { type: "string", description: "The product to buy" },
        quantity: { type: "integer", nullable: true, minimum: 1 },
        color: { enum: ["red"] },
      },
      required: ["product_id"],
    });
    expect(decls.map((d: any) => d.name)).toEqual(expect.arrayContaining(["fs.search_by_time", "_1st-tool"]));
    expect(out.names).toEqual({ "_1st-tool": "1st-tool" });
  });

  it("refuses an unknown format and an unknown site", async () => {
    const err = await expectError(
      await api(`/api/sites/${host}/tools?format=cohere`),
      400,
      "validation_failed",
    );
    expect(err.message).toContain("mcp, openai, anthropic, gemini");
    await expectError(await api(`/api/sites/nowhere.example/tools?format=mcp`), 404, "site_not_found");
  });
});

describe("toGeminiSchema", () => {
  it("turns a multi-type union into anyOf and drops keywords Gemini rejects", () => {
    expect(
      toGeminiSchema({
        type: ["string", "number"],
        $schema: "x",
        additionalProperties: false,
        items: { type: "string" },
      }),
    ).toEqual({
      anyOf: [{ type: "string" }, { type: "number" }],
      items: { type: "string" },
    });
  });
});
