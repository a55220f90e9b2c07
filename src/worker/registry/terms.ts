// The search index's term impacts: for every current tool, each distinct term it contains and how well that term
// alone matches it, precomputed at publish time (table `tool_terms`), so a one-word search reads its best
// matches in index order instead of scoring every match (bm25 over "get" must score 30% of the registry).
//
// A term's impact is BM25's per-document factor with fixed field weights (the tool's name words 16, title 4,
// description 1, host 2) and a fixed average length (AVG_TOKENS): for one word, BM25's IDF is the same for
// every match, so this factor alone orders the matches exactly as a single-word BM25 would. It is stored
// negated (smaller = better), the convention of FTS5's bm25(). The whole name, lower-cased and without
// separators ("getradar"), is stored too, under WHOLE_NAME_PREFIX, so a one-word search for a tool's exact
// name finds it without every "get…" name becoming a prefix expansion of "get".
//
// Tokens follow FTS5's `unicode61 remove_diacritics 2` (the tools_fts tokenizer): letters and digits,
// diacritics removed, lower-cased. Migration 0003 backfills existing rows with an ASCII approximation of this;
// a site's next publish writes the exact terms.

/** Field weights of a term's occurrences. */
export const TERM_WEIGHTS = { name: 16, title: 4, description: 1, host: 2 } as const;
/** BM25 parameters, and the document length (in tokens) a typical tool has. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
export const AVG_TOKENS = 24;
/** Prefix of the whole-name term: sorts before letters and digits, and no token contains it. */
export const WHOLE_NAME_PREFIX = "=";
/** Terms longer than this are cut (a 300-character "word" is not something anyone types). */
export const MAX_TERM_LENGTH = 64;

/** "buyProduct" → "buy product", "fs.search_by_time" → "fs search by time": lets search find name parts. */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_.\-]+/g, " ")
    .toLowerCase()
    .trim();
}

/** Text → tokens, as FTS5's unicode61 tokenizer with remove_diacritics 2 makes them. */
export function tokens(text: string): string[] {
  return (
    text
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{Co}]+/gu)
      ?.map((t) => t.slice(0, MAX_TERM_LENGTH)) ?? []
  );
}

export interface TermSource {
  name: string;
  title: string | null;
  description: string;
  host: string;
}

/** BM25's per-document factor for `weight` (the weighted count of a term's occurrences) in `length` tokens. */
export function termImpact(weight: number, length: number): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / AVG_TOKENS);
  return -((weight * (BM25_K1 + 1)) / (weight + norm));
}

/** The distinct terms of a tool and their impacts (negative; smaller = better match). */
export function toolTerms(tool: TermSource): Array<[term: string, impact: number]> {
  const fields: Array<[string[], number]> = [
    [tokens(nameWords(tool.name)), TERM_WEIGHTS.name],
    [tokens(tool.title ?? ""), TERM_WEIGHTS.title],
    [tokens(tool.description), TERM_WEIGHTS.description],
    [tokens(tool.host), TERM_WEIGHTS.host],
  ];
  const weights = new Map<string, number>();
  let length = 0;
  for (const [words, weight] of fields) {
    length += words.length;
    for (const word of words) weights.set(word, (weights.get(word) ?? 0) + weight);
  }
  const whole = tokens(tool.name).join("").slice(0, MAX_TERM_LENGTH);
  const out: Array<[string, number]> = [...weights].map(([term, w]) => [term, termImpact(w, length)]);
  if (whole) out.push([WHOLE_NAME_PREFIX + whole, termImpact(TERM_WEIGHTS.name, length)]);
  return out;
}
