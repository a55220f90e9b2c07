-- tool_terms: each current tool's terms and their impacts, the index one-word searches read in impact order
-- (src/worker/registry/terms.ts explains the scores). Hand-edited after drizzle-kit generate: WITHOUT ROWID
-- (the primary key is the table; drizzle cannot declare it) and the backfill below.
CREATE TABLE `tool_terms` (
	`tool_id` integer NOT NULL,
	`term` text NOT NULL,
	`impact` real NOT NULL,
	PRIMARY KEY(`tool_id`, `term`),
	FOREIGN KEY (`tool_id`) REFERENCES `tools`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `tool_terms_rank` ON `tool_terms` (`term`,`impact`,`tool_id`);
--> statement-breakpoint
-- Backfill the tools published before this migration: the fields, weights and formula of toolTerms() in
-- terms.ts, with ASCII-only tokenizing (SQL has no Unicode classes); a site's next publish writes exact terms.
INSERT INTO `tool_terms` (`tool_id`, `term`, `impact`)
WITH RECURSIVE
	fields(id, weight, txt) AS (
		SELECT t.id, 16, f.words FROM tools t JOIN tools_fts f ON f.rowid = t.id
		UNION ALL SELECT id, 4, coalesce(title, '') FROM tools
		UNION ALL SELECT id, 1, description FROM tools
		UNION ALL SELECT id, 2, host FROM tools
	),
	clean1(id, weight, txt) AS (SELECT id, weight, replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(txt), '!', ' '), '"', ' '), '#', ' '), '$', ' '), '%', ' '), '&', ' '), '''', ' '), '(', ' '), ')', ' '), '*', ' '), '+', ' '), ',', ' ') FROM fields),
	clean2(id, weight, txt) AS (SELECT id, weight, replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt, '-', ' '), '.', ' '), '/', ' '), ':', ' '), ';', ' '), '<', ' '), '=', ' '), '>', ' '), '?', ' '), '@', ' '), '[', ' '), '\', ' ') FROM clean1),
	cleaned(id, weight, rest) AS (SELECT id, weight, replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt, ']', ' '), '^', ' '), '_', ' '), '`', ' '), '{', ' '), '|', ' '), '}', ' '), '~', ' '), char(9), ' '), char(10), ' '), char(13), ' ') || ' ' FROM clean2),
	split(id, weight, token, rest) AS (
		SELECT id, weight, NULL, ltrim(rest) FROM cleaned
		UNION ALL
		SELECT id, weight, substr(rest, 1, instr(rest, ' ') - 1), ltrim(substr(rest, instr(rest, ' ') + 1))
		FROM split WHERE rest <> ''
	),
	toks(id, weight, token) AS (SELECT id, weight, substr(token, 1, 64) FROM split WHERE token <> ''),
	lengths(id, n) AS (SELECT id, count(*) FROM toks GROUP BY id),
	weights(id, token, w) AS (SELECT id, token, sum(weight) FROM toks GROUP BY id, token)
SELECT w.id, w.token, -((w.w * 2.2) / (w.w + 1.2 * (0.25 + 0.75 * l.n / 24.0)))
FROM weights w JOIN lengths l ON l.id = w.id
UNION ALL
SELECT t.id, '=' || substr(replace(replace(replace(lower(t.name), '_', ''), '.', ''), '-', ''), 1, 64), -((16 * 2.2) / (16 + 1.2 * (0.25 + 0.75 * l.n / 24.0)))
FROM tools t JOIN lengths l ON l.id = t.id;
