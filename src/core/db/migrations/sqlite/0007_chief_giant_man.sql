CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`kind` text NOT NULL,
	`tool_call_id` text,
	`tool_name` text,
	`args` text,
	`plan` text,
	`status` text NOT NULL,
	`requested_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`resolved_at` integer,
	`resolved_by` text,
	`reason` text,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approvals_run_idx` ON `approvals` (`run_id`,`requested_at`);--> statement-breakpoint
CREATE INDEX `approvals_status_idx` ON `approvals` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `secrets_workspace_idx` ON `secrets` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tool_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`tick_index` integer NOT NULL,
	`call_index` integer NOT NULL,
	`name` text NOT NULL,
	`args` text,
	`status` text NOT NULL,
	`code` text,
	`mutation_intent` text,
	`result` text,
	`created_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tool_calls_tick_idx` ON `tool_calls` (`run_id`,`tick_index`,`call_index`);