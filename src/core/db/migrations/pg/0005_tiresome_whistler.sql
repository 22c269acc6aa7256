CREATE TABLE "revision_approvals" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"revision_id" uuid NOT NULL,
	"principal_id" uuid NOT NULL,
	"roles" jsonb NOT NULL,
	"workspace_ids" jsonb NOT NULL,
	"approved_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "revision_approvals" ADD CONSTRAINT "revision_approvals_revision_id_component_revisions_id_fk" FOREIGN KEY ("revision_id") REFERENCES "component_revisions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "revision_approvals_revision_idx" ON "revision_approvals" USING btree ("revision_id");--> statement-breakpoint
-- Approvals recorded in approved_by (INSTANCE_ADMINs', and the System authority's for revisions that
-- ran before approvals existed) keep counting everywhere: they become approvals with [INSTANCE_ADMIN].
INSERT INTO "revision_approvals" ("revision_id", "principal_id", "roles", "workspace_ids", "approved_at")
SELECT "id", "approved_by", '["INSTANCE_ADMIN"]'::jsonb, '[]'::jsonb, "created_at" FROM "component_revisions"
WHERE "approved_by" IS NOT NULL ORDER BY "created_at", "number";--> statement-breakpoint
-- Saving a revision now counts as its author's approval, unless saved from inside an execution
-- (api.platform: the audit row names an execution). For revisions saved before, the author's roles
-- and workspaces as they are now stand for those held then: the only record there is. An
-- INSTANCE_ADMIN's own saves were approved above; the rest were made from inside an execution.
INSERT INTO "revision_approvals" ("revision_id", "principal_id", "roles", "workspace_ids", "approved_at")
SELECT r."id", r."created_by", p."roles",
       COALESCE((SELECT jsonb_agg(m."workspace_id" ORDER BY m."position") FROM "memberships" m WHERE m."principal_id" = p."id"), '[]'::jsonb),
       r."created_at"
FROM "component_revisions" r JOIN "principals" p ON p."id" = r."created_by"
WHERE r."approved_by" IS NULL
  AND p."kind" IN ('USER', 'SERVICE_ACCOUNT')
  AND NOT (p."roles" ? 'INSTANCE_ADMIN')
  AND NOT EXISTS (SELECT 1 FROM "audit" a
                  WHERE a."kind" = 'change' AND a."resource_type" = 'component' AND a."resource_id" = r."component_id"
                    AND a."execution_id" IS NOT NULL AND a."details"->>'revisionId' = r."id"::text)
ORDER BY r."created_at", r."number";--> statement-breakpoint
ALTER TABLE "component_revisions" DROP COLUMN "approved_by";