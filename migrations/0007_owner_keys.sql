-- Owner keys (issue 12): a channel may have several owner keys, each labelled and revocable (an account lists
-- and revokes them). Each existing channel's one key moves here as "created with the channel"; the column
-- channels.owner_key_hash stays (its NOT NULL UNIQUE would need the table rebuilt) but no longer authenticates.
CREATE TABLE `owner_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`label` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owner_keys_key_hash_unique` ON `owner_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `owner_keys_channel` ON `owner_keys` (`channel_id`);--> statement-breakpoint
INSERT INTO `owner_keys` (`id`, `channel_id`, `key_hash`, `label`, `created_at`)
  SELECT lower(hex(randomblob(16))), `id`, `owner_key_hash`, 'created with the channel', `created_at` FROM `channels`;
