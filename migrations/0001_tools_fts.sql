-- Full-text index over the current tools (FTS5; drizzle has no virtual tables, so this migration is hand-written).
-- rowid = tools.id. Rows are written by the publish batch itself, in the same transaction as the tools rows,
-- because `words` (camelCase and separators split into words) is computed by the Worker.
CREATE VIRTUAL TABLE `tools_fts` USING fts5(
	`name`,
	`words`,
	`title`,
	`description`,
	`host`,
	tokenize = 'unicode61 remove_diacritics 2'
);
