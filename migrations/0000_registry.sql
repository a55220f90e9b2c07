CREATE TABLE `challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`token` text NOT NULL,
	`claim_secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`host`) REFERENCES `sites`(`host`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `challenges_claim_secret_hash_unique` ON `challenges` (`claim_secret_hash`);--> statement-breakpoint
CREATE INDEX `challenges_host` ON `challenges` (`host`);--> statement-breakpoint
CREATE TABLE `manifest_versions` (
	`host` text NOT NULL,
	`version` integer NOT NULL,
	`manifest` text NOT NULL,
	`sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`tool_count` integer NOT NULL,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`host`) REFERENCES `sites`(`host`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `manifest_versions_host_version` ON `manifest_versions` (`host`,`version`);--> statement-breakpoint
CREATE TABLE `publisher_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`host`) REFERENCES `sites`(`host`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `publisher_keys_key_hash_unique` ON `publisher_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `publisher_keys_host` ON `publisher_keys` (`host`);--> statement-breakpoint
CREATE TABLE `sites` (
	`host` text PRIMARY KEY NOT NULL,
	`origin` text NOT NULL,
	`status` text NOT NULL,
	`verification_method` text,
	`verified_at` integer,
	`name` text,
	`description` text,
	`current_version` integer,
	`tool_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sites_status_updated` ON `sites` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `tools` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`host` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`title` text,
	`description` text NOT NULL,
	`input_schema` text NOT NULL,
	`output_schema` text,
	`annotations` text DEFAULT '{}' NOT NULL,
	`read_only` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`host`) REFERENCES `sites`(`host`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tools_host_name` ON `tools` (`host`,`name`);--> statement-breakpoint
CREATE INDEX `tools_read_only` ON `tools` (`read_only`);