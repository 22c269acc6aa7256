CREATE TABLE `agent_memory` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`run_id` text NOT NULL,
	`summary` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_memory_agent_idx` ON `agent_memory` (`agent_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `runs` ADD `mode` text DEFAULT 'execute' NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `output` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `error` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `tool_calls` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `prompt_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `completion_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `approval_timeout_ms` integer DEFAULT 86400000 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `idempotency_key` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `idempotency_body` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `lease_owner` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `lease_expires_at` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `state` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `cancel_reason` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `spawn_tick` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `spawn_index` integer;--> statement-breakpoint
CREATE INDEX `runs_parent_idx` ON `runs` (`parent_run_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `runs_idempotency_idx` ON `runs` (`agent_id`,`created_by`,`idempotency_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `runs_spawn_idx` ON `runs` (`parent_run_id`,`spawn_tick`,`spawn_index`);