DROP INDEX "audit_resource_idx";--> statement-breakpoint
ALTER TABLE "audit" DROP CONSTRAINT "audit_pkey";--> statement-breakpoint
ALTER TABLE "audit" ADD COLUMN "seq" bigserial PRIMARY KEY NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_change_resource_idx" ON "audit" USING btree ("resource_type","resource_id","at") WHERE kind = 'change';