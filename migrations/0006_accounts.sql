-- Accounts (issue 12): accounts with passkeys, browser sessions (hashed), pending WebAuthn challenges; channels
-- and sites owned by an account; publisher keys get labels; audit rows keep the agent's name (token label or
-- OAuth client name) as it was when the call ran.
CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer DEFAULT 0 NOT NULL,
	`transports` text,
	`device_type` text,
	`backed_up` integer DEFAULT false NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `passkeys_account` ON `passkeys` (`account_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_seen_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_account` ON `sessions` (`account_id`);--> statement-breakpoint
CREATE INDEX `sessions_expiry` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `webauthn_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`challenge` text NOT NULL,
	`purpose` text NOT NULL,
	`account_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webauthn_challenges_expiry` ON `webauthn_challenges` (`expires_at`);--> statement-breakpoint
ALTER TABLE `audit_log` ADD `agent_label` text;--> statement-breakpoint
ALTER TABLE `channels` ADD `account_id` text;--> statement-breakpoint
CREATE INDEX `channels_account` ON `channels` (`account_id`);--> statement-breakpoint
ALTER TABLE `publisher_keys` ADD `label` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `account_id` text;--> statement-breakpoint
CREATE INDEX `sites_account` ON `sites` (`account_id`);