// Generates the registry bench's seed as SQL: verified sites, their current manifest versions, their tools, and
// the matching tools_fts rows (written the way publishManifest writes them), deterministic for a given seed.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { CITIES, DOMAINS, EXTRAS, LONG_TAIL, PARAMS, SYLLABLES, TLDS, VERBS } from "./vocabulary.mjs";

/**
 * Same as `nameWords` in src/worker/registry/terms.ts (the bench Worker's /bench/check-words
 * compares a sample of seeded rows against the real function, so a drift is caught).
 */
export function nameWords(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_.\-]+/g, " ")
    .toLowerCase()
    .trim();
}

/** mulberry32: a small seeded PRNG, so every run seeds the same data. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks from `items` with Zipf weights 1/rank^s (the first items are the common ones). */
function zipf(items, s = 1) {
  const cumulative = [];
  let total = 0;
  for (let i = 0; i < items.length; i++) cumulative.push((total += 1 / Math.pow(i + 1, s)));
  return (rand) => {
    const x = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo];
  };
}

const pick = (rand, items) => items[Math.floor(rand() * items.length)];
const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const PLURAL_VERBS = new Set(["search", "list", "find", "compare", "export", "track"]);

function plural(noun) {
  const words = noun.split(" ");
  const last = words.pop();
  let p;
  if (/[^aeiou]y$/.test(last)) p = last.slice(0, -1) + "ies";
  else if (/(s|x|ch|sh)$/.test(last)) p = last + "es";
  else p = last + "s";
  return [...words, p].join(" ");
}

/** A tool name in the site's style from its parts: camelCase, snake_case, dotted or kebab-case. */
function styledName(style, verb, nounWords, prefix) {
  const parts = [verb, ...nounWords];
  let name;
  switch (style) {
    case "camel":
      name = parts.map((w, i) => (i === 0 ? w : capitalize(w))).join("");
      break;
    case "snake":
      name = parts.join("_");
      break;
    case "dotted":
      name = `${nounWords.join("_")}.${verb}`;
      break;
    default:
      name = parts.join("-");
  }
  return prefix ? `${prefix}_${name}` : name;
}

function sqlString(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** Verbs, long-tail words and cities, each Zipf-weighted, plus how many tools a site gets. */
function pickersFor(toolsPerSite) {
  return { verb: zipf(VERBS, 1.1), tail: zipf(LONG_TAIL, 0.6), city: zipf(CITIES, 0.8), toolsPerSite };
}

/** Builds one site and its tools (as a manifest would list them, after parsing). */
function makeSite(rand, brand, pickers, now) {
  const domain = pick(rand, DOMAINS);
  const siteWord = pick(rand, domain.siteWords);
  const tld = pick(rand, TLDS);
  const form = rand();
  const hostname =
    form < 0.45
      ? `${brand}.${tld}`
      : form < 0.85
        ? `${brand}-${siteWord}.${tld}`
        : `${siteWord}.${brand}.${tld}`;
  const Brand = capitalize(brand);
  const style = pick(rand, ["camel", "camel", "camel", "snake", "snake", "snake", "dotted", "kebab"]);
  const prefix = rand() < 0.08 ? brand : undefined;
  const created = now - Math.floor(rand() * 365 * 86400_000);
  const site = {
    host: hostname,
    origin: `https://${hostname}`,
    name: `${Brand} ${capitalize(siteWord)}`,
    description: `${Brand} ${siteWord}: ${domain.nouns.slice(0, 3).map(plural).join(", ")} and more, for people in ${pickers.city(rand)}.`,
    createdAt: created,
    verifiedAt: created + 3600_000,
    updatedAt: created + 7200_000,
  };
  const used = new Set();
  const tools = [];
  while (tools.length < pickers.toolsPerSite) {
    const verbEntry = pickers.verb(rand);
    const [verb, verbText, readOnly] = verbEntry;
    const otherDomain = rand() < 0.15 ? pick(rand, DOMAINS) : domain;
    const noun = pick(rand, otherDomain.nouns);
    const usePlural = PLURAL_VERBS.has(verb) && rand() < 0.7;
    const nounText = usePlural ? plural(noun) : noun;
    const name = styledName(style, verb, nounText.replace(/-/g, " ").split(" "), prefix);
    if (used.has(name)) continue;
    used.add(name);

    const sentences = [];
    const det = usePlural
      ? pick(rand, ["", "the user's ", "available "])
      : pick(rand, ["a ", "the ", "one "]);
    sentences.push(`${verbText} ${det}${nounText} ${pick(rand, otherDomain.phrases)}.`);
    const r = rand();
    if (r < 0.35)
      sentences.push(`Useful for ${pickers.tail(rand)} and ${pickers.tail(rand)} ${plural(noun)}.`);
    else if (r < 0.55) sentences.push(`Covers ${pickers.tail(rand)} options in ${pickers.city(rand)}.`);
    else if (r < 0.7) sentences.push(`Popular with ${pickers.tail(rand)} fans.`);
    if (rand() < 0.5) sentences.push(pick(rand, EXTRAS));
    if (rand() < 0.3) sentences.push(`Only for ${Brand} accounts.`);

    const properties = {};
    const required = [];
    if (readOnly && verb !== "get") {
      properties.query = PARAMS.query;
      required.push("query");
      for (const key of ["limit", "sort", "city", "date"]) if (rand() < 0.35) properties[key] = PARAMS[key];
    } else {
      properties.id = PARAMS.id;
      required.push("id");
      for (const key of ["date", "quantity", "notes", "email", "currency"])
        if (rand() < 0.3) properties[key] = PARAMS[key];
    }
    const annotations = { readOnlyHint: readOnly };
    if (["delete", "cancel", "remove"].includes(verb)) annotations.destructiveHint = true;
    if (!readOnly && rand() < 0.3) annotations.idempotentHint = verb === "update";

    const tool = { name };
    if (rand() < 0.7) tool.title = capitalize(`${verb} ${nounText}`);
    tool.description = sentences.join(" ");
    tool.inputSchema = { type: "object", properties, required };
    tool.annotations = annotations;
    tools.push(tool);
  }
  return { site, manifest: { name: site.name, description: site.description, tools } };
}

/**
 * Generates the seed as SQL statements, parent tables first (D1 enforces the foreign keys). Each is a
 * multi-row INSERT kept under 64 KB (D1 refuses statements over 100 KB with SQLITE_TOOBIG).
 */
export function generateSeed({ sites, toolsPerSite, seed = 20260420, now = Date.UTC(2026, 3, 20) }) {
  const rand = prng(seed);
  const pickers = pickersFor(toolsPerSite);
  const brandSyllables = zipf(SYLLABLES, 0.3);
  const brands = new Set();
  const hosts = new Set();

  const STATEMENT_BYTES = 64 * 1024;
  const statements = { sites: [], versions: [], tools: [], fts: [] };
  const buffers = { sites: [], versions: [], tools: [], fts: [] };
  const sizes = { sites: 0, versions: 0, tools: 0, fts: 0 };
  const heads = {
    sites:
      "INSERT INTO sites (host, origin, status, verification_method, verified_at, name, description, current_version, tool_count, created_at, updated_at) VALUES\n",
    versions:
      "INSERT INTO manifest_versions (host, version, manifest, sha256, size_bytes, tool_count, source, created_at) VALUES\n",
    tools:
      "INSERT INTO tools (id, host, version, name, title, description, input_schema, output_schema, annotations, read_only, updated_at) VALUES\n",
    fts: "INSERT INTO tools_fts (rowid, name, words, title, description, host) VALUES\n",
  };
  const flush = (kind) => {
    if (buffers[kind].length === 0) return;
    statements[kind].push(heads[kind] + buffers[kind].join(",\n") + ";\n");
    buffers[kind] = [];
    sizes[kind] = 0;
  };
  const add = (kind, values) => {
    const row = `(${values.map(sqlString).join(", ")})`;
    if (sizes[kind] + row.length > STATEMENT_BYTES) flush(kind);
    buffers[kind].push(row);
    sizes[kind] += row.length + 2;
  };

  let toolId = 0;
  for (let i = 0; i < sites; i++) {
    let brand;
    do {
      const n = rand() < 0.6 ? 2 : 3;
      brand = Array.from({ length: n }, () => brandSyllables(rand)).join("");
    } while (brands.has(brand) || brand.length < 4);
    brands.add(brand);
    let { site, manifest } = makeSite(rand, brand, pickers, now);
    while (hosts.has(site.host)) ({ site, manifest } = makeSite(rand, brand, pickers, now));
    hosts.add(site.host);

    const canonical = JSON.stringify(manifest);
    const size = Buffer.byteLength(canonical);
    add("sites", [
      site.host,
      site.origin,
      "verified",
      "http",
      site.verifiedAt,
      site.name,
      site.description,
      1,
      manifest.tools.length,
      site.createdAt,
      site.updatedAt,
    ]);
    add("versions", [
      site.host,
      1,
      canonical,
      createHash("sha256").update(canonical).digest("hex"),
      size,
      manifest.tools.length,
      "seed",
      site.updatedAt,
    ]);
    for (const tool of manifest.tools) {
      toolId++;
      add("tools", [
        toolId,
        site.host,
        1,
        tool.name,
        tool.title ?? null,
        tool.description,
        JSON.stringify(tool.inputSchema),
        null,
        JSON.stringify(tool.annotations),
        tool.annotations.readOnlyHint === true,
        site.updatedAt,
      ]);
      add("fts", [toolId, tool.name, nameWords(tool.name), tool.title ?? "", tool.description, site.host]);
    }
  }
  const ordered = [];
  for (const kind of ["sites", "versions", "tools", "fts"]) {
    flush(kind);
    ordered.push(...statements[kind]);
  }
  return { statements: ordered, sites, tools: toolId };
}

/** Writes the statements as one SQL file (`wrangler d1 execute DB --local --file` accepts it, slowly). */
export async function writeSeedSql(file, statements) {
  const out = createWriteStream(file);
  for (const statement of statements) if (!out.write(statement)) await once(out, "drain");
  out.end();
  await once(out, "finish");
}

/** A manifest of `toolCount` tools drawn like the seed's, different for every `seed` (for publish timings). */
export function benchManifest(seed, toolCount) {
  return makeSite(prng(seed), "benchpublisher", pickersFor(toolCount), Date.UTC(2026, 3, 20)).manifest;
}
