// Postgres tables (scale-out). Mirrors ./sqlite.ts column for column: ids as uuid,
// timestamps as timestamptz(3), JSON and arrays as jsonb, booleans as boolean.
import { pgTable, text, integer, boolean, jsonb, timestamp, uuid, primaryKey, index, uniqueIndex } from 'drizzle-orm/pg-core';

const id = (name: string) => uuid(name);
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const json = <T>(name: string) => jsonb(name).$type<T>();
const bool = (name: string) => boolean(name);

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: json<unknown>('value').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

export const workspaces = pgTable('workspaces', {
  id: id('id').primaryKey(),
  name: text('name').notNull().unique(),
  createdAt: ts('created_at').notNull(),
});

export const principals = pgTable('principals', {
  id: id('id').primaryKey(),
  kind: text('kind').$type<'USER' | 'SERVICE_ACCOUNT' | 'SYSTEM'>().notNull(),
  name: text('name').notNull(),
  email: text('email'),
  roles: json<string[]>('roles').notNull(),
  platformAccess: bool('platform_access').notNull(),
  active: bool('active').notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
}, (t) => [uniqueIndex('principals_email_idx').on(t.email)]);

export const memberships = pgTable('memberships', {
  principalId: id('principal_id').notNull().references(() => principals.id, { onDelete: 'cascade' }),
  workspaceId: id('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
}, (t) => [primaryKey({ columns: [t.principalId, t.workspaceId] }), index('memberships_workspace_idx').on(t.workspaceId)]);

export const groups = pgTable('groups', {
  id: id('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const groupMembers = pgTable('group_members', {
  groupId: id('group_id').notNull().references(() => groups.id, { onDelete: 'cascade' }),
  principalId: id('principal_id').notNull().references(() => principals.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.groupId, t.principalId] }), index('group_members_principal_idx').on(t.principalId)]);

export const apiKeys = pgTable('api_keys', {
  id: id('id').primaryKey(),
  principalId: id('principal_id').notNull().references(() => principals.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull().unique(),
  expiresAt: ts('expires_at'),
  revokedAt: ts('revoked_at'),
  lastUsedAt: ts('last_used_at'),
  createdAt: ts('created_at').notNull(),
}, (t) => [index('api_keys_principal_idx').on(t.principalId)]);

export const agents = pgTable('agents', {
  id: id('id').primaryKey(),
  workspaceId: id('workspace_id').notNull().references(() => workspaces.id),
  name: text('name').notNull(),
  desc: text('desc'),
  status: text('status').$type<'ACTIVE' | 'PAUSED' | 'DISABLED'>().notNull(),
  ownerId: id('owner_id').notNull(),
  ownerType: text('owner_type').$type<'USER' | 'GROUP' | 'SERVICE_ACCOUNT'>().notNull(),
  serviceAccountUserId: id('service_account_user_id'),
  metadata: json<Record<string, unknown>>('metadata').notNull(),
  config: json<Record<string, unknown>>('config').notNull(),
  policy: json<Record<string, unknown>>('policy').notNull(),
  version: integer('version').notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
}, (t) => [index('agents_workspace_idx').on(t.workspaceId, t.createdAt)]);

export const runs = pgTable('runs', {
  id: id('id').primaryKey(),
  agentId: id('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  workspaceId: id('workspace_id').notNull(),
  rootRunId: id('root_run_id').notNull(),
  parentRunId: id('parent_run_id'),
  status: text('status').notNull(),
  stopReason: text('stop_reason'),
  input: json<unknown>('input'),
  createdBy: text('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
  startedAt: ts('started_at'),
  endedAt: ts('ended_at'),
  tickCount: integer('tick_count').notNull(),
  eventSeq: integer('event_seq').notNull(),
}, (t) => [
  index('runs_agent_idx').on(t.agentId, t.createdAt),
  index('runs_root_idx').on(t.rootRunId),
  index('runs_status_idx').on(t.status, t.createdAt),
]);

export const events = pgTable('events', {
  id: id('id').primaryKey(),
  runId: id('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  rootRunId: id('root_run_id').notNull(),
  parentRunId: id('parent_run_id'),
  seq: integer('seq').notNull(),
  type: text('type').notNull(),
  tickIndex: integer('tick_index'),
  actor: text('actor').notNull(),
  data: json<unknown>('data'),
  createdAt: ts('created_at').notNull(),
}, (t) => [
  uniqueIndex('events_run_seq_idx').on(t.runId, t.seq),
  index('events_run_type_idx').on(t.runId, t.type),
  index('events_root_idx').on(t.rootRunId),
]);
