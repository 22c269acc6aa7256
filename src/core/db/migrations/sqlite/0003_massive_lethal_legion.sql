PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_audit` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
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
-- Existing rows get their seq in time order (the old table had none).
INSERT INTO `__new_audit`("id", "at", "kind", "action", "actor_id", "execution_account_id", "resource_type", "resource_id", "workspace_id", "before_version", "after_version", "status", "duration_ms", "oid", "execution_id", "details") SELECT "id", "at", "kind", "action", "actor_id", "execution_account_id", "resource_type", "resource_id", "workspace_id", "before_version", "after_version", "status", "duration_ms", "oid", "execution_id", "details" FROM `audit` ORDER BY "at", "id";--> statement-breakpoint
DROP TABLE `audit`;--> statement-breakpoint
ALTER TABLE `__new_audit` RENAME TO `audit`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `audit_at_idx` ON `audit` (`at`);--> statement-breakpoint
CREATE INDEX `audit_change_resource_idx` ON `audit` (`resource_type`,`resource_id`,`at`) WHERE kind = 'change';