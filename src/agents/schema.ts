// Every Agent type of the spec as one TypeBox schema module (DESIGN §4), compiled once at load:
// the configuration, the policy and the request bodies; plugins are in ./plugin-schema.ts.
// `default` values are documentation only: the app stores what the client sent, never a filled-in copy.
import { Type, type Static } from '@sinclair/typebox';
import { compile, StringEnum, Strict, NamedRecord, JsonObject, Uuid, NonEmpty, UuidList, StringList } from '../core/http/index.ts';
import { AgentEnums, AgentPluginConfig } from './plugin-schema.ts';

export { AgentEnums, AgentPluginConfig, MCP_URL_MAX_LENGTH } from './plugin-schema.ts';
export type * from './plugin-schema.ts';

// ---------------------------------------------------------------------------------------------
// Agent configuration

const AgentDefinition = Strict(
  {
    identity: Type.Optional(Type.String({ maxLength: 500, description: 'Who the agent is' })),
    mission: Type.Optional(Type.String({ maxLength: 2000, description: 'What the agent is for' })),
    responsibilities: Type.Optional(Type.Array(Type.String(), { maxItems: 24, description: 'What the agent is responsible for' })),
    operatingPrinciples: Type.Optional(Type.Array(Type.String(), { maxItems: 24, description: 'Applied on every turn' })),
    successCriteria: Type.Optional(Type.Array(Type.String(), { maxItems: 24, description: 'How success is judged' })),
  },
  {
    title: 'AgentDefinition',
    description: 'Operator-owned identity loaded on every autonomous turn; learned memory cannot change it',
  },
);

export const AgentMemoryPolicy = Strict(
  {
    enabled: Type.Optional(
      Type.Boolean({ default: true, description: 'Whether durable cross-run memory may be loaded and persisted' }),
    ),
    maxRecallEntries: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'Memory records recalled into one run' })),
    maxRecallChars: Type.Optional(
      Type.Integer({ minimum: 128, maximum: 64000, description: 'Total character budget for recalled summaries in one run' }),
    ),
  },
  { title: 'AgentMemoryPolicy', description: 'Cross-run memory defaults' },
);

const AgentReleaseConfig = Strict(
  {
    versionLabel: Type.Optional(NonEmpty({ description: 'Operator-facing release label' })),
    changeSummary: Type.Optional(NonEmpty({ description: 'Short change summary' })),
  },
  { title: 'AgentReleaseConfig', description: 'Release metadata of the current definition' },
);

const AgentAutomationApprovalRouting = Strict(
  {
    mode: Type.Optional(StringEnum(AgentEnums.approvalRoutingMode, { description: 'What happens at an approval gate' })),
    delegateUserIds: Type.Optional(UuidList('Users who receive delegated approval or escalation')),
    notifyUserIds: Type.Optional(UuidList('Users notified at an approval gate or escalation path')),
  },
  { title: 'AgentAutomationApprovalRouting', description: 'Reserved metadata for escalation and delegation' },
);

const AgentAutomationNotificationPolicy = Strict(
  {
    dedupeWindowSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 604800, description: 'Suggested dedupe window (s) keyed by one automation trigger' }),
    ),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 32, description: 'Suggested maximum delivery attempts' })),
    auditTrail: Type.Optional(Type.Boolean({ default: true, description: 'Whether deliveries are audited' })),
  },
  {
    title: 'AgentAutomationNotificationPolicy',
    description: 'Reserved for inbox fan-out and future chat delivery',
  },
);

const AgentAutomationPolicyConfig = Strict(
  {
    defaultDeliveryMode: Type.Optional(
      StringEnum(AgentEnums.deliveryMode, { description: 'Used when the caller does not override it' }),
    ),
    approvalRouting: Type.Optional(AgentAutomationApprovalRouting),
    notificationPolicy: Type.Optional(AgentAutomationNotificationPolicy),
  },
  { title: 'AgentAutomationPolicyConfig', description: 'Automation defaults' },
);

const ChildFailureMode = () =>
  StringEnum(AgentEnums.childFailureMode, { description: "Parent's reaction when a delegated child fails" });

export const AgentConfig = Strict(
  {
    model: Type.Optional(NonEmpty({ description: 'Execution model identifier; must be enabled for the instance' })),
    reasoningEffort: Type.Optional(StringEnum(AgentEnums.reasoningEffort, { description: 'Passed to assistant threads' })),
    executionMode: Type.Optional(StringEnum(AgentEnums.executionMode, { description: 'Default mode for Agent turns' })),
    planningPolicy: Type.Optional(
      StringEnum(AgentEnums.planningPolicy, {
        description: 'Default for agent-loop turns: standard runs normally, review_required creates a reviewed plan before interactive execution',
      }),
    ),
    workMode: Type.Optional(StringEnum(AgentEnums.workMode, { description: 'Kind of work the agent is tuned for' })),
    persona: Type.Optional(
      StringEnum(AgentEnums.persona, { description: 'Applied beneath runtime policy and explicit instructions' }),
    ),
    systemInstructions: Type.Optional(
      NonEmpty({ description: 'Extra per-agent instructions; runtime policy keeps higher priority' }),
    ),
    definition: Type.Optional(AgentDefinition),
    memoryPolicy: Type.Optional(AgentMemoryPolicy),
    release: Type.Optional(AgentReleaseConfig),
    automation: Type.Optional(AgentAutomationPolicyConfig),
    toolNames: Type.Optional(
      StringList('Additional registered tool names; the runtime still exposes the whole callable tool registry'),
    ),
    pluginIds: Type.Optional(
      UuidList('Default registry plugins applied to every run unless more runtime plugin ids are supplied'),
    ),
    plugins: Type.Optional(Type.Array(AgentPluginConfig, { description: 'Primary plugin contract surface; provider-governed' })),
    maxActiveRootRuns: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 32, default: 1, description: 'Root runs beyond capacity stay queued' }),
    ),
    maxChildRuns: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 128, description: 'Delegated child runs a parent may spawn per execution plan' }),
    ),
    maxConcurrentChildRuns: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 32, default: 4, description: 'Remaining delegated steps wait for a later parent tick' }),
    ),
    maxTicks: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Ticks allowed for one run' })),
    childFailureMode: Type.Optional(ChildFailureMode()),
  },
  { title: 'AgentConfig', description: 'Identity and runtime defaults' },
);

export const AgentPolicy = Strict(
  {
    defaultToolPermission: Type.Optional(
      StringEnum(AgentEnums.toolPermission, { description: 'Approval mode for tool calls without a per-tool override' }),
    ),
    toolPermissions: Type.Optional(
      NamedRecord(StringEnum(AgentEnums.toolPermission), { description: 'Approval mode keyed by runtime tool name' }),
    ),
    toolNames: Type.Optional(
      StringList('Extra policy-managed tool names; permissions govern operations without truncating the callable registry'),
    ),
    pluginIds: Type.Optional(UuidList('Policy-enforced plugin ids, merged in regardless of run-level plugin selection')),
    plugins: Type.Optional(
      Type.Array(AgentPluginConfig, {
        description: 'Policy-managed plugins merged with config plugins before execution-time routing narrows the active surface',
      }),
    ),
    maxActiveRootRuns: Type.Optional(Type.Integer({ minimum: 1, maximum: 32, description: 'Cap on active root runs' })),
    maxChildRuns: Type.Optional(Type.Integer({ minimum: 1, maximum: 128, description: 'Cap on child runs per execution plan' })),
    maxConcurrentChildRuns: Type.Optional(Type.Integer({ minimum: 1, maximum: 32, description: 'Cap on concurrent child runs' })),
    maxTicks: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Cap on ticks of one run' })),
    childFailureMode: Type.Optional(ChildFailureMode()),
  },
  {
    title: 'AgentPolicy',
    description: 'Persisted policy constraints; execution-time route metadata stays derived from the current turn',
  },
);

// ---------------------------------------------------------------------------------------------
// Request bodies

/** Limits of `metadata` (spec Limits). The byte limit and `__` keys are checked in rules.ts. */
export const METADATA_MAX_KEYS = 64;
export const METADATA_MAX_BYTES = 16 * 1024;

const updateFields = {
  name: Type.Optional(NonEmpty({ description: 'Display name' })),
  desc: Type.Optional(Type.String({ description: 'Operator-facing description' })),
  status: Type.Optional(StringEnum(AgentEnums.status, { description: 'Lifecycle state' })),
  serviceAccountUserId: Type.Optional(
    Uuid({ description: 'Service-account execution principal; must be active with platform access' }),
  ),
  ownerId: Type.Optional(Uuid({ description: 'Owner id; must name a principal of ownerType' })),
  ownerType: Type.Optional(StringEnum(AgentEnums.ownerType, { description: 'Owner type' })),
  metadata: Type.Optional(
    JsonObject({
      maxProperties: METADATA_MAX_KEYS,
      description:
        'Replaces the metadata; values of any JSON type; at most 16 KiB as UTF-8 JSON and 64 top-level keys; top-level keys starting with __ are reserved',
    }),
  ),
  config: Type.Optional(AgentConfig),
  policy: Type.Optional(AgentPolicy),
};

const versionField = Type.Integer({ minimum: 0, description: 'Optimistic-locking version; when given it must equal the stored one' });

export const AgentUpdateBody = Strict(
  {
    ...updateFields,
    version: Type.Optional(versionField),
  },
  {
    title: 'AgentUpdateBody',
    description: 'All fields optional; a supplied config, policy or metadata replaces the stored one',
  },
);

export const AgentCreateBody = Strict(
  {
    ...updateFields,
    name: NonEmpty({ description: 'Display name' }),
    workspaceId: Type.Optional(Uuid({ description: "Workspace to create in; defaults to the caller's first workspace" })),
    // Create takes the update body's fields (DESIGN §4); there is no stored version to match yet,
    // so it is checked for shape and otherwise ignored: a new agent starts at version 0.
    version: Type.Optional(Type.Integer({ minimum: 0, description: 'Accepted as in the update body and ignored: a new agent starts at version 0' })),
  },
  {
    title: 'AgentCreateBody',
    description: 'Update fields plus workspaceId; name required; status defaults to ACTIVE, owner to the caller',
  },
);

type AgentDefinition = Static<typeof AgentDefinition>;
export type AgentMemoryPolicy = Static<typeof AgentMemoryPolicy>;
type AgentReleaseConfig = Static<typeof AgentReleaseConfig>;
type AgentAutomationApprovalRouting = Static<typeof AgentAutomationApprovalRouting>;
type AgentAutomationNotificationPolicy = Static<typeof AgentAutomationNotificationPolicy>;
type AgentAutomationPolicyConfig = Static<typeof AgentAutomationPolicyConfig>;
export type AgentConfig = Static<typeof AgentConfig>;
export type AgentPolicy = Static<typeof AgentPolicy>;
export type AgentUpdateBody = Static<typeof AgentUpdateBody>;
export type AgentCreateBody = Static<typeof AgentCreateBody>;

export const agentUpdateValidator = compile(AgentUpdateBody);
export const agentCreateValidator = compile(AgentCreateBody);
