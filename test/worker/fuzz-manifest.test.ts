// Fuzz: PUT /api/sites/:host/manifest on a verified site with near-valid manifests (built from ManifestSchema,
// with hostile JSON Schemas, names and sizes), raw text, wrong media types and keys. Every answer is a
// documented one, and a refused publish stores nothing: the version count and the indexed tools are unchanged.
import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ManifestSchema } from "../../src/protocol/index.js";
import { expectDocumentedAnswer } from "../support/fuzz-answers.js";
import {
  fromZod,
  fuzzRuns,
  hostileValue,
  jsonText,
  objectSchemaArb,
  rawBodyText,
  toolNameArb,
  validManifestArb,
  nearValid,
} from "../support/fuzz-arbitraries.js";
import { api, publish, tool, verifiedSite } from "./helpers.js";

const RUNS = fuzzRuns(env.FUZZ_RUNS, 100);

async function count(sql: string, ...bind: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...bind)
    .first<{ n: number }>())!.n;
}

const manifestArb = fromZod(ManifestSchema, {
  "tools.*.name": fc.oneof({ arbitrary: toolNameArb, weight: 4 }, fc.constantFrom("dup", "dup")),
  "tools.*.inputSchema": objectSchemaArb,
  "tools.*.outputSchema": objectSchemaArb,
  "tools.*.pages.*": fc.oneof(
    fc.constantFrom("/", "/a", "/a?b=c#d", "//evil.example", "/\u0000"),
    hostileValue,
  ),
});

const bodyArb = fc.oneof(
  { arbitrary: validManifestArb.map(jsonText), weight: 3 },
  { arbitrary: nearValid(validManifestArb).map(jsonText), weight: 3 },
  { arbitrary: manifestArb.map(jsonText), weight: 4 },
  { arbitrary: rawBodyText, weight: 1 },
);

const contentTypeArb = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 8 },
  fc.constantFrom("application/manifest+json; charset=utf-8", "text/plain", "application/jsonx", ""),
);

describe("fuzzing manifest publishing", () => {
  let site: Awaited<ReturnType<typeof verifiedSite>>;
  beforeAll(async () => {
    site = await verifiedSite();
    expect((await publish(site.host, site.key, { name: "Fuzz", tools: [tool("first")] })).status).toBe(201);
  });

  it("refuses a manifest with an unpaired surrogate in a schema key as invalid JSON, storing nothing", async () => {
    // Found by the fuzz below: @cfworker/json-schema encodes keys with encodeURI, which throws URIError on a
    // lone surrogate, and the publish answered 500 internal_error.
    const before = await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", site.host);
    const body =
      '{"tools":[{"name":"lone","description":"A tool.","inputSchema":{"type":"object","properties":{"\\udfff":{}}}}]}';
    const res = await api(`/api/sites/${site.host}/manifest`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${site.key}` },
      body,
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_json");
    expect(error.message).toContain("unpaired UTF-16 surrogate");
    expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", site.host)).toBe(before);
  });

  it(
    "answers every manifest with a documented status and stores nothing from a refused one",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyArb,
          contentTypeArb,
          fc.oneof({ arbitrary: fc.constant("valid"), weight: 9 }, fc.constantFrom("wrong", "none")),
          async (body, contentType, auth) => {
            const versionsBefore = await count(
              "SELECT count(*) AS n FROM manifest_versions WHERE host = ?",
              site.host,
            );
            const toolsBefore = await count("SELECT count(*) AS n FROM tools WHERE host = ?", site.host);
            const headers: Record<string, string> = {};
            if (contentType) headers["content-type"] = contentType;
            if (auth === "valid") headers.authorization = `Bearer ${site.key}`;
            if (auth === "wrong") headers.authorization = "Bearer whp_not_a_real_key";
            const res = await api(`/api/sites/${site.host}/manifest`, { method: "PUT", headers, body });
            const status = res.status;
            const answer = (await expectDocumentedAnswer(res, "PUT manifest")) as {
              version?: number;
              toolCount?: number;
            };
            const versionsAfter = await count(
              "SELECT count(*) AS n FROM manifest_versions WHERE host = ?",
              site.host,
            );
            const toolsAfter = await count("SELECT count(*) AS n FROM tools WHERE host = ?", site.host);
            if (status === 201) {
              expect(versionsAfter).toBe(versionsBefore + 1);
              expect(toolsAfter).toBe(answer.toolCount);
              // What was stored reads back, and is valid by the same schema.
              const got = (await expectDocumentedAnswer(
                await api(`/api/sites/${site.host}/manifest?version=${answer.version}`),
                "GET manifest",
              )) as { manifest: unknown };
              expect(ManifestSchema.safeParse(got.manifest).success).toBe(true);
            } else {
              expect({ versionsAfter, toolsAfter }).toEqual({
                versionsAfter: versionsBefore,
                toolsAfter: toolsBefore,
              });
            }
          },
        ),
        { numRuns: RUNS },
      );
      // The site still answers, its current version is the newest.
      const view = (await expectDocumentedAnswer(await api(`/api/sites/${site.host}`), "GET site")) as {
        site: { currentVersion: number };
      };
      expect(view.site.currentVersion).toBe(
        await count("SELECT max(version) AS n FROM manifest_versions WHERE host = ?", site.host),
      );
    },
    30_000 + RUNS * 500,
  );
});
