ALTER TABLE `component_revisions` ADD `approved_by` text;--> statement-breakpoint
-- Revisions written before approvals existed: those of an INSTANCE_ADMIN, and those running now, keep running.
UPDATE `component_revisions` SET `approved_by` = `created_by` WHERE `status` = 'active' OR `created_by` IN (SELECT `id` FROM `principals` WHERE `roles` LIKE '%"INSTANCE_ADMIN"%');
