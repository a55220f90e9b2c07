-- provider_tokens.paired_from_page: whether a pairing came from a browser page (Sec-Fetch-* of a page), so the
-- channel console can mark providers paired by a script (issue: hardening, item 7). Null for older tokens.
ALTER TABLE `provider_tokens` ADD `paired_from_page` integer;