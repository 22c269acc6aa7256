// The Agent plugin types of the spec (tools, component toolsets, MCP servers, skills, packages) and
// the enumerations they share with the configuration, as TypeBox schemas (DESIGN §4).
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, Strict, NamedRecord, JsonObject, NonEmpty, UuidList, StringList } from '../core/http/index.ts';

// ---------------------------------------------------------------------------------------------
// Enumerations (exported so tests can try every member)

export const AgentEnums = {
  status: ['ACTIVE', 'PAUSED', 'DISABLED'],
  ownerType: ['USER', 'GROUP', 'SERVICE_ACCOUNT'],
  reasoningEffort: ['low', 'medium', 'high', 'xhigh'],
  executionMode: ['interactive', 'execute', 'background', 'automation'],
  planningPolicy: ['standard', 'review_required'],
  workMode: ['balanced', 'coding', 'business', 'analyst', 'operator', 'creative'],
  persona: ['friendly', 'pragmatic', 'professional', 'concise', 'calm', 'mentor', 'assertive'],
  childFailureMode: ['fail_parent', 'merge_partial'],
  toolPermission: ['default', 'auto_review', 'full'],
  deliveryMode: ['INBOX', 'DIRECT_RUN'],
  approvalRoutingMode: ['block', 'delegate', 'notify'],
  pluginKind: ['tools', 'mcp_server', 'skill', 'package'],
  pluginExecutionMode: ['sync', 'background'],
  mutationIntent: ['read', 'write', 'destructive', 'external'],
  reversibility: ['reversible', 'operator_reversible', 'irreversible', 'unknown'],
  targetScope: ['assistant_thread', 'agent', 'tenant', 'external'],
  mcpTransport: ['streamable_http', 'sse'],
  mcpAuthMode: ['none', 'bearer', 'basic', 'header'],
  contentFormat: ['markdown'],
  approvalMode: ['none', 'always', 'conditional'],
  safetyTier: ['read', 'write', 'destructive', 'external', 'execute'],
} as const;

const MutationIntent = () =>
  StringEnum(AgentEnums.mutationIntent, { description: 'What the call does to state' });
const Reversibility = () =>
  StringEnum(AgentEnums.reversibility, { description: 'Whether its effect can be undone, and by whom' });
const TargetScope = () => StringEnum(AgentEnums.targetScope, { description: 'Where its effect lands' });
const SideEffectSummary = () =>
  Type.String({ description: 'Recorded in approval, evidence and audit surfaces' });

// ---------------------------------------------------------------------------------------------
// Plugin building blocks

const AgentPluginApprovalConfig = Strict(
  {
    mode: Type.Optional(StringEnum(AgentEnums.approvalMode, { description: 'When a call needs approval' })),
    safetyTier: Type.Optional(StringEnum(AgentEnums.safetyTier, { description: 'Risk tier shown to the approver' })),
  },
  { title: 'AgentPluginApprovalConfig', description: 'Approval enforced before execution' },
);

/** One declared argument of a tool: any JSON Schema keywords, but it must say what it means. */
const DescribedProperty = Type.Object(
  { description: NonEmpty({ description: 'What the argument means; the model reads it' }) },
  { additionalProperties: true, description: 'JSON Schema of one argument; `description` is required' },
);

/**
 * A tool's argument schema. It is itself a JSON Schema document, so other keywords (`required`,
 * `title`, `$schema`…) are allowed; what the spec demands is pinned so a violation points at
 * exactly the missing piece, e.g. `/inputSchema/properties/city/description`. Only the declared
 * top-level properties need a description: they are the tool's arguments.
 */
const AgentToolInputSchema = Type.Object(
  {
    type: Type.Literal('object', { description: 'Must be "object"' }),
    additionalProperties: Type.Literal(false, { description: 'Must be false: undeclared arguments are refused' }),
    properties: Type.Optional(NamedRecord(DescribedProperty, { description: 'Declared arguments by name' })),
  },
  {
    title: 'AgentToolInputSchema',
    additionalProperties: true,
    description: 'Strict object schema: type object, additionalProperties false, a description on every declared property',
  },
);

const AgentPluginRoutingConfig = Strict(
  {
    title: Type.Optional(Type.String({ description: 'Canonical English title used for tool selection' })),
    summary: Type.Optional(Type.String({ description: 'Canonical English summary used for tool selection' })),
  },
  { title: 'AgentPluginRoutingConfig', description: 'English capability metadata for tool selection' },
);

const AgentPluginComponentToolConfig = Strict(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Tool available for selection and execution' })),
    deferLoading: Type.Optional(Type.Boolean({ description: 'Tool deferred behind discovery instead of eagerly exposed' })),
    alias: Type.Optional(NonEmpty({ description: 'Explicit local tool alias' })),
    title: Type.Optional(Type.String({ description: 'Operator-facing title' })),
    description: Type.Optional(Type.String({ description: 'Tool-specific description' })),
    entrypoint: Type.Optional(
      NonEmpty({ description: 'Implementation entrypoint, handed to the component as api.input().agentTool.entrypoint; defaults to the tool key' }),
    ),
    inputs: Type.Optional(JsonObject({ description: 'Static inputs, handed to the component as api.input().agentTool.inputs' })),
    popResult: Type.Optional(NonEmpty({ description: 'Named component result to return when the executor supports result popping' })),
    inputSchema: Type.Optional(AgentToolInputSchema),
    outputSchema: Type.Optional(JsonObject({ description: 'Expected output' })),
    approvalPolicy: Type.Optional(AgentPluginApprovalConfig),
    mutationIntent: Type.Optional(MutationIntent()),
    reversibility: Type.Optional(Reversibility()),
    targetScope: Type.Optional(TargetScope()),
    sideEffectSummary: Type.Optional(SideEffectSummary()),
    sideEffectCategories: Type.Optional(StringList('Normalized side-effect categories')),
  },
  { title: 'AgentPluginComponentToolConfig', description: 'One governed tool contract backed by the component' },
);

const AgentPluginComponentToolset = Strict(
  {
    defaultConfig: Type.Optional(AgentPluginComponentToolConfig),
    tools: Type.Optional(NamedRecord(AgentPluginComponentToolConfig, { description: 'Tools keyed by stable capability name' })),
  },
  { title: 'AgentPluginComponentToolset', description: 'Several governed tool contracts backed by one component' },
);

const AgentPluginMcpHeaderBinding = Strict(
  {
    name: Type.Optional(NonEmpty({ description: 'Header name sent' })),
    secretId: Type.Optional(NonEmpty({ description: 'Tenant secret whose value is sent' })),
    secretDataId: Type.Optional(NonEmpty({ description: 'Pinned revision of the secret' })),
    value: Type.Optional(Type.String({ description: 'Static value used when no secret is read' })),
    prefix: Type.Optional(Type.String({ description: 'Static prefix put before the resolved secret value' })),
  },
  { title: 'AgentPluginMcpHeaderBinding', description: 'Extra header resolved from tenant secrets before the call' },
);

/** Longest accepted MCP URL; the same bound the `uri` format applies (validate.ts). */
export const MCP_URL_MAX_LENGTH = 2048;

const AgentPluginMcpConfig = Strict(
  {
    transport: Type.Optional(StringEnum(AgentEnums.mcpTransport, { description: 'Transport to the remote server' })),
    // The pattern only looks at the scheme and the first authority character (anchored, no
    // backtracking) and the length is bounded first, as the spec's Limits guidance asks. Plain
    // http is the rules' to refuse (rules.ts): it depends on MCP_ALLOW_HTTP_LOOPBACK and the host.
    url: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]',
        maxLength: MCP_URL_MAX_LENGTH,
        description: 'Absolute HTTPS endpoint of the remote server; http:// only for loopback hosts (localhost, 127.0.0.0/8, ::1) when the instance sets MCP_ALLOW_HTTP_LOOPBACK=true',
      }),
    ),
    manifestTtlMs: Type.Optional(Type.Integer({ minimum: 1000, description: 'Manifest cache time-to-live (ms)' })),
    connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000, description: 'Connection and handshake timeout (ms)' })),
    toolNamePrefix: Type.Optional(NonEmpty({ description: 'Prefix for local tool names derived from remote names' })),
    authMode: Type.Optional(
      StringEnum(AgentEnums.mcpAuthMode, {
        description: 'bearer needs bearerSecretId; basic needs basicUsername and basicPasswordSecretId; header needs headers',
      }),
    ),
    bearerSecretId: Type.Optional(NonEmpty({ description: 'Secret holding the bearer token' })),
    bearerSecretDataId: Type.Optional(NonEmpty({ description: 'Optional revision id of the bearer secret' })),
    basicUsername: Type.Optional(Type.String({ description: 'Basic-auth user name' })),
    basicPasswordSecretId: Type.Optional(NonEmpty({ description: 'Secret holding the basic-auth password' })),
    basicPasswordSecretDataId: Type.Optional(NonEmpty({ description: 'Optional revision id of the password secret' })),
    headers: Type.Optional(
      Type.Array(AgentPluginMcpHeaderBinding, { description: 'Extra headers resolved from tenant secrets before the call' }),
    ),
  },
  { title: 'AgentPluginMcpConfig', description: 'Remote MCP server; used when kind is mcp_server' },
);

const AgentPluginMcpToolConfig = Strict(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Tool available for selection and execution' })),
    deferLoading: Type.Optional(Type.Boolean({ description: 'Tool deferred behind discovery instead of eagerly exposed' })),
    alias: Type.Optional(NonEmpty({ description: 'Explicit local tool alias' })),
    approvalPolicy: Type.Optional(AgentPluginApprovalConfig),
    mutationIntent: Type.Optional(MutationIntent()),
    reversibility: Type.Optional(Reversibility()),
    targetScope: Type.Optional(TargetScope()),
    sideEffectSummary: Type.Optional(SideEffectSummary()),
  },
  { title: 'AgentPluginMcpToolConfig', description: 'Governance of one remote MCP tool' },
);

const AgentPluginMcpToolset = Strict(
  {
    defaultConfig: Type.Optional(AgentPluginMcpToolConfig),
    configs: Type.Optional(NamedRecord(AgentPluginMcpToolConfig, { description: 'Per-remote-tool overrides keyed by remote tool name' })),
  },
  { title: 'AgentPluginMcpToolset', description: 'Governance of the remote tools; used when kind is mcp_server' },
);

const ContentFormat = () =>
  StringEnum(AgentEnums.contentFormat, { default: 'markdown', description: 'Content format; markdown is the only one in this version' });
const MarkdownContent = () => Type.String({ format: 'markdown', minLength: 1, description: 'Markdown content' });
const MaxPromptChars = () =>
  Type.Integer({ minimum: 256, maximum: 64000, description: 'Characters of the content put into the prompt at most' });

const AgentPluginSkillConfig = Strict(
  {
    format: Type.Optional(ContentFormat()),
    content: Type.Optional(MarkdownContent()),
    pluginIds: Type.Optional(UuidList('Plugins this skill depends on (one level)')),
    maxPromptChars: Type.Optional(MaxPromptChars()),
  },
  { title: 'AgentPluginSkillConfig', description: 'Skill content; used when kind is skill' },
);

const CatalogUrl = (description: string) => Type.Optional(Type.String({ format: 'uri', description }));

const AgentPluginPackageMetadata = Strict(
  {
    avatarUrl: CatalogUrl('Avatar image'),
    websiteUrl: CatalogUrl('Publisher or product website'),
    documentationUrl: CatalogUrl('Documentation'),
    termsOfServiceUrl: CatalogUrl('Terms of service'),
    privacyPolicyUrl: CatalogUrl('Privacy policy'),
    supportUrl: CatalogUrl('Support'),
    publisherUrl: CatalogUrl('Publisher'),
    publisherName: Type.Optional(NonEmpty({ description: 'Publisher name' })),
    license: Type.Optional(NonEmpty({ description: 'License identifier' })),
    categories: Type.Optional(StringList('Catalog categories')),
    tags: Type.Optional(StringList('Catalog tags')),
  },
  {
    title: 'AgentPluginPackageMetadata',
    deprecated: true,
    readOnly: true,
    description: 'Read-only and deprecated disabled catalog metadata; validated, then ignored (never stored)',
  },
);

const AgentPluginPackageConfig = Strict(
  {
    externalId: NonEmpty({ description: 'Package id in the external catalog' }),
    format: Type.Optional(ContentFormat()),
    content: Type.Optional(MarkdownContent()),
    pluginIds: Type.Optional(UuidList('Package dependencies')),
    metadata: Type.Optional(AgentPluginPackageMetadata),
    maxPromptChars: Type.Optional(MaxPromptChars()),
  },
  {
    title: 'AgentPluginPackageConfig',
    description: 'Packaged content; used when kind is package',
  },
);

export const AgentPluginConfig = Strict(
  {
    contractVersion: Type.Optional(Type.Literal(1, { default: 1, description: 'Plugin contract version; exactly 1 in this version' })),
    id: Type.Optional(NonEmpty({ description: 'Stable plugin id' })),
    kind: Type.Optional(
      StringEnum(AgentEnums.pluginKind, {
        default: 'tools',
        description: 'tools needs componentId or componentToolset; mcp_server needs mcpServer; skill needs skill; package needs package',
      }),
    ),
    name: Type.Optional(NonEmpty({ description: 'Display name' })),
    description: Type.Optional(Type.String({ description: 'What the plugin does' })),
    routing: Type.Optional(AgentPluginRoutingConfig),
    executionMode: Type.Optional(StringEnum(AgentEnums.pluginExecutionMode, { description: 'Run inline or in the background' })),
    componentId: Type.Optional(NonEmpty({ description: 'Component executed when the plugin runs' })),
    componentVersion: Type.Optional(Type.Integer({ minimum: 0, description: 'Optional fixed component version' })),
    componentToolset: Type.Optional(AgentPluginComponentToolset),
    mcpServer: Type.Optional(AgentPluginMcpConfig),
    mcpToolset: Type.Optional(AgentPluginMcpToolset),
    skill: Type.Optional(AgentPluginSkillConfig),
    package: Type.Optional(AgentPluginPackageConfig),
    inputSchema: Type.Optional(AgentToolInputSchema),
    outputSchema: Type.Optional(JsonObject({ description: 'Structured output expected from the provider' })),
    approvalPolicy: Type.Optional(AgentPluginApprovalConfig),
    mutationIntent: Type.Optional(MutationIntent()),
    reversibility: Type.Optional(Reversibility()),
    targetScope: Type.Optional(TargetScope()),
    sideEffectSummary: Type.Optional(SideEffectSummary()),
    sideEffectCategories: Type.Optional(StringList('Normalized side-effect categories')),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1000, description: 'Maximum runtime (ms)' })),
    resultMaxBytes: Type.Optional(Type.Integer({ minimum: 512, description: 'Maximum serialized result size (bytes)' })),
    autoDiscovery: Type.Optional(
      Type.Boolean({ default: false, description: 'Surface as summary-only discovery context before explicit attachment' }),
    ),
    enabled: Type.Optional(Type.Boolean({ default: true, description: 'Whether the plugin is used' })),
  },
  { title: 'AgentPluginConfig', description: 'Primary plugin contract surface; provider-governed' },
);

type AgentPluginApprovalConfig = Static<typeof AgentPluginApprovalConfig>;
type AgentToolInputSchema = Static<typeof AgentToolInputSchema>;
type AgentPluginRoutingConfig = Static<typeof AgentPluginRoutingConfig>;
type AgentPluginComponentToolConfig = Static<typeof AgentPluginComponentToolConfig>;
type AgentPluginComponentToolset = Static<typeof AgentPluginComponentToolset>;
type AgentPluginMcpHeaderBinding = Static<typeof AgentPluginMcpHeaderBinding>;
type AgentPluginMcpConfig = Static<typeof AgentPluginMcpConfig>;
type AgentPluginMcpToolConfig = Static<typeof AgentPluginMcpToolConfig>;
type AgentPluginMcpToolset = Static<typeof AgentPluginMcpToolset>;
type AgentPluginSkillConfig = Static<typeof AgentPluginSkillConfig>;
type AgentPluginPackageMetadata = Static<typeof AgentPluginPackageMetadata>;
type AgentPluginPackageConfig = Static<typeof AgentPluginPackageConfig>;
export type AgentPluginConfig = Static<typeof AgentPluginConfig>;
