CREATE TABLE "audit" (
	"id" uuid PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"kind" text NOT NULL,
	"action" text NOT NULL,
	"actor_id" uuid,
	"execution_account_id" uuid,
	"resource_type" text NOT NULL,
	"resource_id" uuid,
	"workspace_id" uuid,
	"before_version" integer,
	"after_version" integer,
	"status" integer,
	"duration_ms" integer,
	"oid" text,
	"execution_id" uuid,
	"details" jsonb
);
--> statement-breakpoint
CREATE TABLE "component_revisions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"component_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"digest" text NOT NULL,
	"status" text NOT NULL,
	"content" jsonb NOT NULL,
	"compiled" text,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "components" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"description" text,
	"latest_revision_id" uuid,
	"active_revision_id" uuid,
	"version" integer NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"component_id" uuid NOT NULL,
	"revision_id" uuid NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"active" boolean NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"ready_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "endpoint_latency" (
	"endpoint_id" uuid NOT NULL,
	"bucket" integer NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "endpoint_latency_endpoint_id_bucket_pk" PRIMARY KEY("endpoint_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "endpoint_stats" (
	"endpoint_id" uuid PRIMARY KEY NOT NULL,
	"invocations" integer NOT NULL,
	"status_2xx" integer NOT NULL,
	"status_3xx" integer NOT NULL,
	"status_4xx" integer NOT NULL,
	"status_5xx" integer NOT NULL,
	"last_invoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "endpoints" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"shape" text NOT NULL,
	"status" text NOT NULL,
	"component_id" uuid,
	"guard_component_id" uuid,
	"definition" jsonb NOT NULL,
	"contract_status" jsonb,
	"version" integer NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "index_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" integer NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "events_root_idx";--> statement-breakpoint
ALTER TABLE "component_revisions" ADD CONSTRAINT "component_revisions_component_id_components_id_fk" FOREIGN KEY ("component_id") REFERENCES "components"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "components" ADD CONSTRAINT "components_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_component_id_components_id_fk" FOREIGN KEY ("component_id") REFERENCES "components"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_revision_id_component_revisions_id_fk" FOREIGN KEY ("revision_id") REFERENCES "component_revisions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_at_idx" ON "audit" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_resource_idx" ON "audit" USING btree ("resource_type","resource_id","at");--> statement-breakpoint
CREATE INDEX "audit_actor_idx" ON "audit" USING btree ("actor_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "component_revisions_number_idx" ON "component_revisions" USING btree ("component_id","number");--> statement-breakpoint
CREATE INDEX "component_revisions_digest_idx" ON "component_revisions" USING btree ("component_id","digest");--> statement-breakpoint
CREATE INDEX "components_workspace_idx" ON "components" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "deployments_component_idx" ON "deployments" USING btree ("component_id","created_at");--> statement-breakpoint
CREATE INDEX "endpoints_workspace_idx" ON "endpoints" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "endpoints_component_idx" ON "endpoints" USING btree ("component_id");--> statement-breakpoint
CREATE INDEX "endpoints_guard_component_idx" ON "endpoints" USING btree ("guard_component_id");--> statement-breakpoint
CREATE UNIQUE INDEX "endpoints_active_shape_idx" ON "endpoints" USING btree ("shape") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "events_root_created_idx" ON "events" USING btree ("root_run_id","created_at");