// SQLite tables (the embedded default). Mirrors ./pg.ts column for column: ids as TEXT uuids,
// timestamps as INTEGER epoch ms, JSON as TEXT, booleans as 0/1, arrays as JSON TEXT.
import { sql } from 'drizzle-orm';
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
  /** One of executionMode's values (DESIGN §5). */
  mode: text('mode').notNull().default('execute'),
  output: json<unknown>('output'),
  error: text('error'),
  toolCalls: integer('tool_calls').notNull().default(0),
  promptTokens: integer('prompt_tokens').notNull().default(0),
  completionTokens: integer('completion_tokens').notNull().default(0),
  approvalTimeoutMs: integer('approval_timeout_ms').notNull().default(86400000),
  /** Idempotency-Key of the start request, with its body as canonical JSON; null once 24 h old. */
  idempotencyKey: text('idempotency_key'),
  idempotencyBody: text('idempotency_body'),
  /** The engine process executing the run, and until when (DESIGN §5 Durability). */
  leaseOwner: text('lease_owner'),
  leaseExpiresAt: ts('lease_expires_at'),
  /** The engine's state between ticks (what happened so far, what the run waits for). */
  state: json<unknown>('state'),
  /** Why a cancelling run is being stopped: its stopReason once cancelled. */
  cancelReason: text('cancel_reason'),
  /** A delegated child: the parent's tick that spawned it and its place in the delegation. */
  spawnTick: integer('spawn_tick'),
  spawnIndex: integer('spawn_index'),
}, (t) => [
  index('runs_agent_idx').on(t.agentId, t.createdAt),
  index('runs_root_idx').on(t.rootRunId),
  index('runs_status_idx').on(t.status, t.createdAt),
  index('runs_parent_idx').on(t.parentRunId, t.createdAt),
  uniqueIndex('runs_idempotency_idx').on(t.agentId, t.createdBy, t.idempotencyKey),
  uniqueIndex('runs_spawn_idx').on(t.parentRunId, t.spawnTick, t.spawnIndex),
]);

/**
 * A tool call of a run (DESIGN §5 Tools): one row per call of a tick, so that a tick that runs
 * again after a takeover finds what its calls did and repeats no side effect.
 */
export const toolCalls = sqliteTable('tool_calls', {
  id: id('id').primaryKey(),
  runId: id('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  tickIndex: integer('tick_index').notNull(),
  callIndex: integer('call_index').notNull(),
  name: text('name').notNull(),
  args: json<unknown>('args'),
  /** requested → (waiting_approval →) started → completed | failed. */
  status: text('status').notNull(),
  /** The failure code (UNKNOWN_TOOL, INVALID_ARGS, REJECTED, TIMEOUT, RESULT_TOO_LARGE, TOOL_ERROR, INTERRUPTED). */
  code: text('code'),
  mutationIntent: text('mutation_intent'),
  /** What the model sees of the outcome. */
  result: text('result'),
  createdAt: ts('created_at').notNull(),
  endedAt: ts('ended_at'),
}, (t) => [uniqueIndex('tool_calls_tick_idx').on(t.runId, t.tickIndex, t.callIndex)]);

/** Approvals of tool calls and plans (DESIGN §5 Approvals). */
export const approvals = sqliteTable('approvals', {
  id: id('id').primaryKey(),
  runId: id('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  kind: text('kind').$type<'tool_call' | 'plan'>().notNull(),
  toolCallId: id('tool_call_id'),
  toolName: text('tool_name'),
  args: json<unknown>('args'),
  plan: json<unknown>('plan'),
  status: text('status').$type<'pending' | 'approved' | 'rejected' | 'expired'>().notNull(),
  requestedAt: ts('requested_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
  resolvedAt: ts('resolved_at'),
  resolvedBy: text('resolved_by'),
  reason: text('reason'),
}, (t) => [index('approvals_run_idx').on(t.runId, t.requestedAt), index('approvals_status_idx').on(t.status, t.expiresAt)]);

/** Secrets for MCP credentials: values encrypted with AES-GCM under SECRETS_KEY, never returned. */
export const secrets = sqliteTable('secrets', {
  id: id('id').primaryKey(),
  workspaceId: id('workspace_id').notNull().references(() => workspaces.id),
  name: text('name').notNull(),
  /** base64 of iv (12 bytes) ‖ ciphertext ‖ tag. */
  value: text('value').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
}, (t) => [index('secrets_workspace_idx').on(t.workspaceId, t.createdAt)]);

/** An agent's memory: one record per completed root run (DESIGN §5 Memory). */
export const agentMemory = sqliteTable('agent_memory', {
  id: id('id').primaryKey(),
  agentId: id('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
  runId: id('run_id').notNull(),
  summary: text('summary').notNull(),
  createdAt: ts('created_at').notNull(),
}, (t) => [index('agent_memory_agent_idx').on(t.agentId, t.createdAt)]);

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
  // Serves run-tree listings sorted by time (and plain rootRunId lookups by its prefix).
  index('events_root_created_idx').on(t.rootRunId, t.createdAt),
]);

// --- Components, deployments, Endpoints, the definition index, audit and statistics ------------

export const components = sqliteTable('components', {
  id: id('id').primaryKey(),
  workspaceId: id('workspace_id').notNull().references(() => workspaces.id),
  name: text('name').notNull(),
  kind: text('kind').$type<'lowcode' | 'node' | 'json-validator'>().notNull(),
  description: text('description'),
  latestRevisionId: id('latest_revision_id'),
  /** lowcode/json-validator: the latest active revision; node: the selected ready revision. */
  activeRevisionId: id('active_revision_id'),
  version: integer('version').notNull(),
  createdBy: id('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
}, (t) => [index('components_workspace_idx').on(t.workspaceId, t.createdAt)]);

export const componentRevisions = sqliteTable('component_revisions', {
  id: id('id').primaryKey(),
  componentId: id('component_id').notNull().references(() => components.id, { onDelete: 'cascade' }),
  number: integer('number').notNull(),
  digest: text('digest').notNull(),
  status: text('status').$type<'active' | 'pending' | 'superseded'>().notNull(),
  /** The canonical content: {elements} | {source, results} | {schema}. */
  content: json<Record<string, unknown>>('content').notNull(),
  /**
   * node: what an older server transpiled at save time. No longer written nor read: modules are
   * transpiled in the executor's sandbox (issue #20); the column stays for old databases.
   */
  compiled: text('compiled'),
  createdBy: id('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
}, (t) => [
  uniqueIndex('component_revisions_number_idx').on(t.componentId, t.number),
  index('component_revisions_digest_idx').on(t.componentId, t.digest),
]);

/**
 * Approvals of a revision to run as a service account (spec, Authentication rule 9, extended to
 * every account): its author's by saving it, an activator's, or an explicit one. Each keeps the
 * approver's roles and workspaces as they were then: it counts for the accounts those cover.
 */
export const revisionApprovals = sqliteTable('revision_approvals', {
  /** Insertion order: the first approval by an INSTANCE_ADMIN is the one `approvedBy` names. */
  seq: integer('seq').primaryKey(),
  revisionId: id('revision_id').notNull().references(() => componentRevisions.id, { onDelete: 'cascade' }),
  principalId: id('principal_id').notNull(),
  roles: json<string[]>('roles').notNull(),
  workspaceIds: json<string[]>('workspace_ids').notNull(),
  approvedAt: ts('approved_at').notNull(),
}, (t) => [index('revision_approvals_revision_idx').on(t.revisionId)]);

export const deployments = sqliteTable('deployments', {
  id: id('id').primaryKey(),
  componentId: id('component_id').notNull().references(() => components.id, { onDelete: 'cascade' }),
  revisionId: id('revision_id').notNull().references(() => componentRevisions.id, { onDelete: 'cascade' }),
  status: text('status').$type<'building' | 'ready' | 'failed'>().notNull(),
  error: text('error'),
  active: bool('active').notNull(),
  createdBy: id('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
  readyAt: ts('ready_at'),
}, (t) => [index('deployments_component_idx').on(t.componentId, t.createdAt)]);

export const endpoints = sqliteTable('endpoints', {
  id: id('id').primaryKey(),
  workspaceId: id('workspace_id').notNull().references(() => workspaces.id),
  name: text('name').notNull(),
  description: text('description'),
  method: text('method').notNull(),
  path: text('path').notNull(),
  /** Method + path with named segments blanked (`GET /orders/:`): equal shapes conflict. */
  shape: text('shape').notNull(),
  status: text('status').$type<'active' | 'disabled'>().notNull(),
  componentId: id('component_id'),
  /** The json-validator component of a component guard (denormalised for dependency lookups). */
  guardComponentId: id('guard_component_id'),
  /** Everything else of the definition (guard, response mode, policy, inputs, timeoutMs…). */
  definition: json<Record<string, unknown>>('definition').notNull(),
  contractStatus: json<Record<string, unknown>>('contract_status'),
  version: integer('version').notNull(),
  createdBy: id('created_by').notNull(),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
}, (t) => [
  index('endpoints_workspace_idx').on(t.workspaceId, t.createdAt),
  index('endpoints_component_idx').on(t.componentId),
  index('endpoints_guard_component_idx').on(t.guardComponentId),
  // Two active definitions can never share a shape, whatever the race between activations.
  uniqueIndex('endpoints_active_shape_idx').on(t.shape).where(sql`status = 'active'`),
]);

/** One row: the definition index version, bumped in the transaction of every runtime-affecting change. */
export const indexState = sqliteTable('index_state', {
  id: integer('id').primaryKey(),
  version: integer('version').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

export const audit = sqliteTable('audit', {
  /**
   * Insertion order and the storage key (SQLite's rowid): rows append in place, with no separate
   * primary-key index to keep. `id` is the public identifier; it is not indexed, since invocation
   * rows arrive by the thousand per second and every index adds to the cost of each one.
   */
  seq: integer('seq').primaryKey(),
  id: id('id').notNull(),
  at: ts('at').notNull(),
  /** `change` (control plane) or `invocation` (runtime). */
  kind: text('kind').$type<'change' | 'invocation'>().notNull(),
  action: text('action').notNull(),
  actorId: id('actor_id'),
  executionAccountId: id('execution_account_id'),
  resourceType: text('resource_type').notNull(),
  resourceId: id('resource_id'),
  workspaceId: id('workspace_id'),
  beforeVersion: integer('before_version'),
  afterVersion: integer('after_version'),
  status: integer('status'),
  durationMs: integer('duration_ms'),
  oid: text('oid'),
  executionId: id('execution_id'),
  details: json<Record<string, unknown>>('details'),
}, (t) => [
  // Monotonic keys: each insert appends at the right edge of the index.
  index('audit_at_idx').on(t.at),
  // Changes by resource; invocation rows (kind 'invocation') stay out of it, and out of any index
  // on actor: each one would double the cost of writing them. Their filters are bounded by `at`.
  index('audit_change_resource_idx').on(t.resourceType, t.resourceId, t.at).where(sql`kind = 'change'`),
]);

export const endpointStats = sqliteTable('endpoint_stats', {
  endpointId: id('endpoint_id').primaryKey(),
  invocations: integer('invocations').notNull(),
  status2xx: integer('status_2xx').notNull(),
  status3xx: integer('status_3xx').notNull(),
  status4xx: integer('status_4xx').notNull(),
  status5xx: integer('status_5xx').notNull(),
  lastInvokedAt: ts('last_invoked_at'),
});

/** Invocation counts per latency bucket (bounds in src/core/statistics/statistics.ts); incremented atomically. */
export const endpointLatency = sqliteTable('endpoint_latency', {
  endpointId: id('endpoint_id').notNull(),
  bucket: integer('bucket').notNull(),
  count: integer('count').notNull(),
}, (t) => [primaryKey({ columns: [t.endpointId, t.bucket] })]);
