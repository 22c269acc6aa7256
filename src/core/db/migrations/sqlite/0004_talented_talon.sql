ALTER TABLE `component_revisions` ADD `approved_by` text;--> statement-breakpoint
-- Revisions written before approvals existed keep running where they run: the active ones, those an
-- INSTANCE_ADMIN saved, and those an Endpoint pins by digest count as approved, by the System authority.
UPDATE `component_revisions` SET `approved_by` = '00000000-0000-4000-8000-000000000001'
WHERE `status` = 'active'
   OR `created_by` IN (SELECT `id` FROM `principals` WHERE `roles` LIKE '%"INSTANCE_ADMIN"%')
   OR EXISTS (SELECT 1 FROM `endpoints` e WHERE e.`component_id` = `component_revisions`.`component_id` AND json_extract(e.`definition`, '$.componentDigest') = `component_revisions`.`digest`);
