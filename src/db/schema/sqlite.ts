// SQLite tables (the embedded default). Mirrors ./pg.ts column for column: ids as TEXT uuids,
// timestamps as INTEGER epoch ms, JSON as TEXT, booleans as 0/1, arrays as JSON TEXT.
import { sqliteTable, text, integer, primaryKey, index, uniqueIndex } from 'drizzle-orm/sqlite-core';

const id = (name: string) => text(name);
const ts = (name: string) => integer(name, { mode: 'timestamp_ms' });
const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>();
const bool = (name: string) => integer(name, { mode: 'boolean' });

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: json<unknown>('value').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

export const workspaces = sqliteTable('workspaces', {
  id: id('id').primaryKey(),
  name: text('name').notNull().unique(),
  createdAt: ts('created_at').notNull(),
});

export const principals = sqliteTable('principals', {
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

export const memberships = sqliteTable('memberships', {
  principalId: id('principal_id').notNull().references(() => principals.id, { onDelete: 'cascade' }),
  workspaceId: id('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
}, (t) => [primaryKey({ columns: [t.principalId, t.workspaceId] }), index('memberships_workspace_idx').on(t.workspaceId)]);

export const groups = sqliteTable('groups', {
  id: id('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const groupMembers = sqliteTable('group_members', {
  groupId: id('group_id').notNull().references(() => groups.id, { onDelete: 'cascade' }),
  principalId: id('principal_id').notNull().references(() => principals.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.groupId, t.principalId] }), index('group_members_principal_idx').on(t.principalId)]);

export const apiKeys = sqliteTable('api_keys', {
  id: id('id').primaryKey(),
  principalId: id('principal_id').notNull().references(() => principals.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull().unique(),
  expiresAt: ts('expires_at'),
  revokedAt: ts('revoked_at'),
  lastUsedAt: ts('last_used_at'),
  createdAt: ts('created_at').notNull(),
}, (t) => [index('api_keys_principal_idx').on(t.principalId)]);

export const agents = sqliteTable('agents', {
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

export const runs = sqliteTable('runs', {
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

export const events = sqliteTable('events', {
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
