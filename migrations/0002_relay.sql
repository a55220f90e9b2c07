CREATE TABLE `agent_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_token_hash_unique` ON `agent_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `agent_tokens_channel` ON `agent_tokens` (`channel_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`seq` integer NOT NULL,
	`agent_token_id` text,
	`provider_id` text,
	`provider_label` text,
	`origin` text,
	`tool` text NOT NULL,
	`arg_bytes` integer NOT NULL,
	`arg_sha256` text NOT NULL,
	`status` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`message` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_channel_time` ON `audit_log` (`channel_id`,`created_at`,`seq`);--> statement-breakpoint
CREATE INDEX `audit_channel_tool` ON `audit_log` (`channel_id`,`tool`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`owner_key_hash` text NOT NULL,
	`strict_names` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channels_owner_key_hash_unique` ON `channels` (`owner_key_hash`);--> statement-breakpoint
CREATE TABLE `pairing_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `pairing_codes_channel` ON `pairing_codes` (`channel_id`);--> statement-breakpoint
CREATE TABLE `provider_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`kind` text NOT NULL,
	`label` text NOT NULL,
	`origin` text,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `provider_tokens_token_hash_unique` ON `provider_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `provider_tokens_channel` ON `provider_tokens` (`channel_id`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
