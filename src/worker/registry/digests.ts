// Definition digests in the registry (ARCHITECTURE.md "Live tools checked against the registry"). Decisions:
// - What is digested is the tool exactly as stored with its manifest version: the parsed manifest (inputSchema
//   defaulted, string hints already booleans) after the JSON round trip into manifest_versions.manifest. Publish
//   digests `JSON.parse(stored text)`, so a digest recomputed later from any stored version always agrees.
// - "Stored with the version": a version's digests are derived from its stored manifest JSON (no second copy
//   that could disagree); GET /api/sites/:host/manifest?version=N answers them as `digests` (name → digest).
//   The current version's are also in `tools.digest`, which search, pages, exports and /mcp/registry read.
// - Rows published before digests existed (null) are filled by the daily maintenance, BACKFILL_PER_RUN rows a
//   run, from their own version's stored manifest; until then the REST views show `digest: null` and the
//   exports and /mcp/registry leave the digest out.
import { sql } from "drizzle-orm";
import { definitionDigest } from "../../protocol/digest.js";
import type { Manifest } from "../../protocol/index.js";
import { atomically, type Db } from "../db/client.js";

/** Tool rows given a digest per maintenance run: bounded work; the rest wait for the next run. */
export const BACKFILL_PER_RUN = 500;

/** Each tool's definition digest, by name, for a manifest as stored (see the header). */
export async function manifestDigests(manifest: Pick<Manifest, "tools">): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const tool of manifest.tools) out[tool.name] = await definitionDigest(tool);
  return out;
}

/** The digests of a stored manifest's JSON text (manifest_versions.manifest). */
export async function storedManifestDigests(text: string): Promise<Record<string, string>> {
  const parsed: unknown = JSON.parse(text);
  const tools =
    typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { tools?: unknown }).tools)
      ? ((parsed as { tools: unknown[] }).tools as Manifest["tools"])
      : [];
  return manifestDigests({ tools });
}

/**
 * Gives up to `limit` tool rows with no digest theirs, computed from their version's stored manifest, in one
 * batch. Only rows whose version is still stored are chosen, so a run never stalls on one it cannot fill.
 * Returns how many rows were filled.
 */
export async function backfillDigests(db: Db, limit = BACKFILL_PER_RUN): Promise<number> {
  const rows = await db.all<{ id: number; host: string; version: number; name: string }>(
    sql`SELECT t.id, t.host, t.version, t.name FROM tools t
      WHERE t.digest IS NULL AND EXISTS (SELECT 1 FROM manifest_versions mv
        WHERE mv.host = t.host AND mv.version = t.version)
      LIMIT ${limit}`,
  );
  if (rows.length === 0) return 0;
  const byVersion = new Map<string, Array<(typeof rows)[number]>>();
  for (const row of rows) {
    const key = JSON.stringify([row.host, row.version]);
    byVersion.set(key, [...(byVersion.get(key) ?? []), row]);
  }
  const updates = [];
  for (const [key, group] of byVersion) {
    const [host, version] = JSON.parse(key) as [string, number];
    const [stored] = await db.all<{ manifest: string }>(
      sql`SELECT manifest FROM manifest_versions WHERE host = ${host} AND version = ${version}`,
    );
    if (!stored) continue;
    const digests = await storedManifestDigests(stored.manifest);
    for (const row of group) {
      const digest = digests[row.name];
      // A row the manifest does not name cannot happen (rows are written from it); leave it rather than guess.
      if (digest === undefined) continue;
      updates.push(sql`UPDATE tools SET digest = ${digest} WHERE id = ${row.id} AND digest IS NULL`);
    }
  }
  if (updates.length === 0) return 0;
  await atomically(db, updates);
  return updates.length;
}
