// Definition digests (src/protocol/digest.ts): RFC 8785 canonical JSON, so member order and number spelling do
// not change a digest, absent members are left out (not null), and any change to a covered member does.
import { describe, expect, it } from "vitest";
import { definitionDigest, digestInput } from "../../src/protocol/digest.js";

const tool = {
  name: "search",
  title: "Search",
  description: "Finds things",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  annotations: { readOnlyHint: true },
};

describe("definitionDigest", () => {
  it("is lowercase hex SHA-256 of the canonical JSON", async () => {
    const canonical =
      '{"annotations":{"readOnlyHint":true},"description":"Finds things","inputSchema":{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"},"name":"search","title":"Search"}';
    const expected = [
      ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical))),
    ]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(await definitionDigest(tool)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores member order and number spelling; absent members are left out, not null", async () => {
    const reordered = {
      annotations: { readOnlyHint: true },
      inputSchema: { required: ["q"], properties: { q: { type: "string" } }, type: "object" },
      description: "Finds things",
      title: "Search",
      name: "search",
    };
    expect(await definitionDigest(reordered)).toBe(await definitionDigest(tool));
    expect(digestInput({ name: "a", description: "d" })).toEqual({ name: "a", description: "d" });
    // An empty annotations object says nothing: a page that always sends one matches a manifest without.
    expect(await definitionDigest({ name: "a", description: "d", annotations: {} })).toBe(
      await definitionDigest({ name: "a", description: "d" }),
    );
    const withLimit = (n: number) => ({ ...tool, inputSchema: { type: "object", maxProperties: n } });
    expect(await definitionDigest(withLimit(1e1))).toBe(await definitionDigest(withLimit(10)));
  });

  it("changes when any covered member changes, and only then", async () => {
    const base = await definitionDigest(tool);
    const variants = [
      { ...tool, name: "search2" },
      { ...tool, title: "Search!" },
      { ...tool, description: "Finds things." },
      { ...tool, inputSchema: { ...tool.inputSchema, required: [] } },
      { ...tool, outputSchema: { type: "object" } },
      { ...tool, annotations: { readOnlyHint: false } },
      { name: tool.name, description: tool.description },
    ];
    const digests = await Promise.all(variants.map(definitionDigest));
    expect(new Set([base, ...digests]).size).toBe(variants.length + 1);
    expect(await definitionDigest({ ...tool, extra: "not covered" } as typeof tool)).toBe(base);
  });
});
