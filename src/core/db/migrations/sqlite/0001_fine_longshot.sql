CREATE TABLE `audit` (
	`id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`action` text NOT NULL,
	`actor_id` text,
	`execution_account_id` text,
	`resource_type` text NOT NULL,
	`resource_id` text,
	`workspace_id` text,
	`before_version` integer,
	`after_version` integer,
	`status` integer,
	`duration_ms` integer,
	`oid` text,
	`execution_id` text,
	`details` text
);
--> statement-breakpoint
CREATE INDEX `audit_at_idx` ON `audit` (`at`);--> statement-breakpoint
CREATE INDEX `audit_resource_idx` ON `audit` (`resource_type`,`resource_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_actor_idx` ON `audit` (`actor_id`,`at`);--> statement-breakpoint
CREATE TABLE `component_revisions` (
	`id` text PRIMARY KEY NOT NULL,
	`component_id` text NOT NULL,
	`number` integer NOT NULL,
	`digest` text NOT NULL,
	`status` text NOT NULL,
	`content` text NOT NULL,
	`compiled` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`component_id`) REFERENCES `components`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `component_revisions_number_idx` ON `component_revisions` (`component_id`,`number`);--> statement-breakpoint
CREATE INDEX `component_revisions_digest_idx` ON `component_revisions` (`component_id`,`digest`);--> statement-breakpoint
CREATE TABLE `components` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`description` text,
	`latest_revision_id` text,
	`active_revision_id` text,
	`version` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `components_workspace_idx` ON `components` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `deployments` (
	`id` text PRIMARY KEY NOT NULL,
	`component_id` text NOT NULL,
	`revision_id` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`active` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`ready_at` integer,
	FOREIGN KEY (`component_id`) REFERENCES `components`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`revision_id`) REFERENCES `component_revisions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deployments_component_idx` ON `deployments` (`component_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `endpoint_latency` (
	`endpoint_id` text NOT NULL,
	`bucket` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`endpoint_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `endpoint_stats` (
	`endpoint_id` text PRIMARY KEY NOT NULL,
	`invocations` integer NOT NULL,
	`status_2xx` integer NOT NULL,
	`status_3xx` integer NOT NULL,
	`status_4xx` integer NOT NULL,
	`status_5xx` integer NOT NULL,
	`last_invoked_at` integer
);
--> statement-breakpoint
CREATE TABLE `endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`shape` text NOT NULL,
	`status` text NOT NULL,
	`component_id` text,
	`guard_component_id` text,
	`definition` text NOT NULL,
	`contract_status` text,
	`version` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `endpoints_workspace_idx` ON `endpoints` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `endpoints_component_idx` ON `endpoints` (`component_id`);--> statement-breakpoint
CREATE INDEX `endpoints_guard_component_idx` ON `endpoints` (`guard_component_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `endpoints_active_shape_idx` ON `endpoints` (`shape`) WHERE status = 'active';--> statement-breakpoint
CREATE TABLE `index_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `events_root_idx`;--> statement-breakpoint
CREATE INDEX `events_root_created_idx` ON `events` (`root_run_id`,`created_at`);