// Publishing manifests: validation, immutable versions, atomicity, refresh from the well-known URL.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError, publish, tool, verifiedSite } from "./helpers.js";

async function count(sql: string, ...bind: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...bind)
    .first<{ n: number }>())!.n;
}

describe("publishing a manifest", () => {
  it("stores version 1, indexes its tools and serves it back with string hints as booleans", async () => {
    const { host, key } = await verifiedSite();
    const manifest = {
      name: "Stamp shop",
      description: "Stamps for collectors",
      tools: [
        tool("add-stamp", { annotations: { readOnlyHint: "false", destructiveHint: "false" } }),
        tool("get-stamps", { annotations: { readOnlyHint: "true" }, title: "List stamps" }),
      ],
    };
    const res = await publish(host, key, manifest);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ host, version: 1, toolCount: 2, unchanged: false });
    const got = (await (await api(`/api/sites/${host}/manifest`)).json()) as any;
    expect(got).toMatchObject({ host, version: 1, current: true, source: "api" });
    expect(got.manifest.tools[0].annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(got.manifest.tools[1].annotations).toEqual({ readOnlyHint: true });
    const site = (await (await api(`/api/sites/${host}`)).json()) as any;
    expect(site.site).toMatchObject({ name: "Stamp shop", currentVersion: 1, toolCount: 2 });
    expect(site.manifest.tools.map((t: any) => [t.name, t.readOnly])).toEqual([
      ["add-stamp", false],
      ["get-stamps", true],
    ]);
    expect(await count("SELECT count(*) AS n FROM tools_fts WHERE host = ?", host)).toBe(2);
  });

  it("keeps every version immutable and readable, newest current", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [tool("one")] });
    await publish(host, key, { tools: [tool("two"), tool("three")] });
    const v1 = (await (await api(`/api/sites/${host}/manifest?version=1`)).json()) as any;
    expect(v1.manifest.tools.map((t: any) => t.name)).toEqual(["one"]);
    expect(v1.current).toBe(false);
    const versions = (await (await api(`/api/sites/${host}/manifest/versions`)).json()) as any;
    expect(versions.versions.map((v: any) => [v.version, v.toolCount, v.current])).toEqual([
      [2, 2, true],
      [1, 1, false],
    ]);
    // The index holds only the current tools.
    expect(await count("SELECT count(*) AS n FROM tools WHERE host = ?", host)).toBe(2);
    expect(await count("SELECT count(*) AS n FROM tools_fts WHERE host = ?", host)).toBe(2);
    await expectError(await api(`/api/sites/${host}/manifest?version=9`), 404, "not_found");
    await expectError(await api(`/api/sites/${host}/manifest?version=abc`), 400, "validation_failed");
  });

  it("does not make a new version when the manifest is unchanged", async () => {
    const { host, key } = await verifiedSite();
    expect((await publish(host, key, { tools: [tool("same")] })).status).toBe(201);
    const again = await publish(host, key, { tools: [tool("same")] });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ version: 1, unchanged: true });
  });

  it("fills in an empty object schema for a tool without inputSchema (WebMCP makes it optional)", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [{ name: "ping", description: "Answers pong." }] });
    const got = (await (await api(`/api/sites/${host}/manifest`)).json()) as any;
    expect(got.manifest.tools[0].inputSchema).toEqual({ type: "object", properties: {} });
  });

  const invalid: Array<[string, unknown, string, string]> = [
    ["an empty tool list", { tools: [] }, "invalid_manifest", "tools"],
    ["a name with spaces", { tools: [tool("add stamp")] }, "invalid_manifest", "tools[0].name"],
    ["a 129-character name", { tools: [tool("x".repeat(129))] }, "invalid_manifest", "tools[0].name"],
    [
      "a missing description",
      { tools: [{ name: "a", inputSchema: { type: "object" } }] },
      "invalid_manifest",
      "tools[0].description",
    ],
    [
      "a non-object input schema",
      { tools: [tool("a", { inputSchema: { type: "string" } })] },
      "invalid_manifest",
      "tools[0].inputSchema.type",
    ],
    [
      "a schema with a bad keyword type",
      { tools: [tool("a", { inputSchema: { type: "object", properties: { n: { type: "numbr" } } } })] },
      "invalid_manifest",
      "tools[0].inputSchema",
    ],
    [
      "required that is not a list",
      { tools: [tool("a", { inputSchema: { type: "object", required: "name" } })] },
      "invalid_manifest",
      "tools[0].inputSchema.required",
    ],
    [
      "an invalid regex pattern",
      {
        tools: [
          tool("a", {
            inputSchema: { type: "object", properties: { s: { type: "string", pattern: "([" } } },
          }),
        ],
      },
      "invalid_manifest",
      "tools[0].inputSchema.properties.s.pattern",
    ],
    [
      "a hint that is neither boolean nor 'true'/'false'",
      { tools: [tool("a", { annotations: { readOnlyHint: "yes" } })] },
      "invalid_manifest",
      "tools[0].annotations.readOnlyHint",
    ],
    ["a misspelt key", { tools: [tool("a", { inputschema: {} })] }, "invalid_manifest", "tools[0]"],
    [
      "duplicate tool names",
      { tools: [tool("a"), tool("b"), tool("a")] },
      "duplicate_tool_name",
      "tools[2].name",
    ],
    [
      "too many tools",
      { tools: Array.from({ length: 257 }, (_, i) => tool(`t${i}`)) },
      "invalid_manifest",
      "tools",
    ],
  ];
  it.each(invalid)(
    "refuses %s, points at the field, and stores nothing",
    async (_what, manifest, code, path) => {
      const { host, key } = await verifiedSite();
      await publish(host, key, { tools: [tool("kept")] });
      const err = await expectError(await publish(host, key, manifest), 422, code);
      expect(err.issues?.some((i) => i.path.startsWith(path))).toBe(true);
      const site = (await (await api(`/api/sites/${host}`)).json()) as any;
      expect(site.site.currentVersion).toBe(1);
      expect(site.manifest.tools.map((t: any) => t.name)).toEqual(["kept"]);
      expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", host)).toBe(1);
    },
  );

  it("refuses a schema number too large for JSON (1e999 parses as Infinity, which would be stored as null)", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [tool("kept")] });
    const body = `{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"n":{"type":"number","minimum":1e999}}}}]}`;
    const res = await api(`/api/sites/${host}/manifest`, {
      method: "PUT",
      body,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
    const err = await expectError(res, 422, "invalid_manifest");
    expect(err.issues?.some((i) => i.path.startsWith("tools[0].inputSchema.properties.n.minimum"))).toBe(
      true,
    );
    expect(JSON.stringify(err)).toMatch(/too large to represent/);
    expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", host)).toBe(1);
  });

  it("refuses malformed JSON and a manifest over 256 KiB", async () => {
    const { host, key } = await verifiedSite();
    await expectError(
      await api(`/api/sites/${host}/manifest`, {
        method: "PUT",
        body: "{",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      }),
      400,
      "invalid_json",
    );
    const big = { tools: [tool("big", { description: "x".repeat(4000) })], description: "y".repeat(300_000) };
    await expectError(await publish(host, key, big), 413, "payload_too_large");
    expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", host)).toBe(0);
  });

  it("requires the site's own, unrevoked publisher key", async () => {
    const a = await verifiedSite();
    const b = await verifiedSite();
    const m = { tools: [tool("t")] };
    await expectError(
      await api(`/api/sites/${a.host}/manifest`, { method: "PUT", json: m }),
      401,
      "unauthorized",
    );
    await expectError(await publish(a.host, "whp_" + "B".repeat(43), m), 401, "unauthorized");
    await expectError(await publish(a.host, "not-a-key", m), 401, "unauthorized");
    await expectError(await publish(a.host, b.key, m), 403, "forbidden");
    // Rotation: the new key works, the old one stops.
    const rotated = await api(`/api/sites/${a.host}/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}` },
    });
    expect(rotated.status).toBe(201);
    const { publisherKey } = (await rotated.json()) as { publisherKey: string };
    await expectError(await publish(a.host, a.key, m), 401, "unauthorized");
    expect((await publish(a.host, publisherKey, m)).status).toBe(201);
  });

  it("refuses to publish for an unverified site", async () => {
    const res = await api("/api/sites", { method: "POST", json: { origin: "http://127.0.0.1:1" } });
    const host = ((await res.json()) as any).site.host;
    // No key exists for a pending site, so any key is refused.
    await expectError(
      await publish(host, "whp_" + "C".repeat(43), { tools: [tool("t")] }),
      401,
      "unauthorized",
    );
    await expectError(await api(`/api/sites/${host}/manifest`), 404, "site_not_found");
  });
});

describe("refreshing a manifest from the site", () => {
  it("pulls /.well-known/webmcp.json and publishes it as a new version", async () => {
    const s = await verifiedSite();
    await s.origin_.setRoutes({
      "/.well-known/webmcp.json": {
        body: JSON.stringify({ tools: [tool("from-site")] }),
        headers: { "content-type": "application/json" },
      },
    });
    const res = await api(`/api/sites/${s.host}/manifest/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ version: 1, toolCount: 1 });
    const got = (await (await api(`/api/sites/${s.host}/manifest`)).json()) as any;
    expect(got.source).toBe("refresh");
  });

  it("reports an invalid or missing remote manifest and stores nothing", async () => {
    const s = await verifiedSite();
    const missing = await expectError(
      await api(`/api/sites/${s.host}/manifest/refresh`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}` },
      }),
      502,
      "upstream_failed",
    );
    expect(missing.message).toContain("404");
    await s.origin_.setRoutes({
      "/.well-known/webmcp.json": { body: JSON.stringify({ tools: [tool("a"), tool("a")] }) },
    });
    const dup = await expectError(
      await api(`/api/sites/${s.host}/manifest/refresh`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}` },
      }),
      422,
      "duplicate_tool_name",
    );
    expect(dup.message).toContain("webmcp.json");
    expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", s.host)).toBe(0);
  });
});

describe("the manifest JSON Schema", () => {
  it("is served at /schema/manifest.json, generated from the zod schema", async () => {
    const res = await api("/schema/manifest.json");
    expect(res.status).toBe(200);
    const schema = (await res.json()) as any;
    expect(schema.type).toBe("object");
    expect(schema.required).toContain("tools");
    expect(schema.properties.tools.maxItems).toBe(256);
    const toolSchema = schema.properties.tools.items;
    expect(toolSchema.required).toEqual(expect.arrayContaining(["name", "description"]));
    expect(toolSchema.properties.name.pattern).toBe("^[A-Za-z0-9_.-]{1,128}$");
  });
});
