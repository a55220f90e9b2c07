ALTER TABLE `sites` ADD `cloud_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `tools` ADD `cloud` integer DEFAULT false NOT NULL;