ALTER TABLE `sites` ADD `delisted_at` integer;--> statement-breakpoint
ALTER TABLE `sites` ADD `verify_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `verify_error` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `verify_checked_at` integer;--> statement-breakpoint
CREATE INDEX `sites_updated` ON `sites` (`updated_at`,`host`);--> statement-breakpoint
CREATE INDEX `sites_verify_due` ON `sites` (`status`,`verify_checked_at`);--> statement-breakpoint
ALTER TABLE `tools` ADD `digest` text;--> statement-breakpoint
CREATE INDEX `tools_updated` ON `tools` (`updated_at`,`id`);