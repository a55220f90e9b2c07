ALTER TABLE `audit_log` ADD `verification` text;--> statement-breakpoint
ALTER TABLE `channels` ADD `verification_policy` text DEFAULT 'all' NOT NULL;