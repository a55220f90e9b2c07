CREATE TABLE `channel_tools` (
	`channel_id` text NOT NULL,
	`host` text NOT NULL,
	`tool_name` text NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `host`, `tool_name`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
