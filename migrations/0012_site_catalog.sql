ALTER TABLE `sites` ADD `catalog_entries` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `catalog_error` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `catalog_checked_at` integer;--> statement-breakpoint
ALTER TABLE `sites` ADD `manifest_source` text;