-- Retention and expiry (issue: hardening, item 3): channels.last_used_at, so the daily Cron Trigger can expire
-- channels never used (or idle for long); and indexes on the ages it prunes by (audit rows, expired challenges
-- and pairing codes), so those deletes seek instead of scanning. Channels that exist when this runs count as
-- used now (hand-written UPDATE at the end): their history is unknown, so they get the full idle period.
ALTER TABLE `channels` ADD `last_used_at` integer;--> statement-breakpoint
CREATE INDEX `channels_last_used` ON `channels` (`last_used_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_created` ON `audit_log` (`created_at`);--> statement-breakpoint
CREATE INDEX `challenges_expires` ON `challenges` (`expires_at`);--> statement-breakpoint
CREATE INDEX `pairing_codes_expires` ON `pairing_codes` (`expires_at`);--> statement-breakpoint
UPDATE `channels` SET `last_used_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000;
