// One row per constraint of the Agent body (spec field tables and Limits, DESIGN §4): a body just
// inside the bound that must pass and one just outside that must fail at exactly `pointer`.
// Shared by the schema test and the HTTP tests (PATCH/POST each body, expect 2xx or 422 there).
import { AgentEnums, MCP_URL_MAX_LENGTH, METADATA_MAX_BYTES, METADATA_MAX_KEYS } from '../../src/agents/schema.ts';
import type { ProblemCode } from '../../src/core/http/problem.ts';

type Body = Record<string, unknown>;

export interface ConstraintRow {
  /** Unique: the pointer pattern and the constraint, e.g. `/config/maxTicks maximum 1000`. */
  name: string;
  /** `update` rows are PATCH bodies, `create` rows POST bodies. */
  operation: 'update' | 'create';
  /** Just inside the bound: must be accepted. */
  valid: Body;
  /** More bodies that must be accepted (every enum member, the other end of a range…). */
  alsoValid: Body[];
  /** Just outside the bound: must be refused, with every violation at `pointer`. */
  invalid: Body;
  pointer: string;
  /** Set for the violations of rules.ts (cross-field, metadata, model). */
  code?: ProblemCode;
}

/**
 * What the bodies refer to. HTTP tests pass real ids so that references checked at update time
 * (owner, service account, workspace) resolve; every valid body is meant for a freshly created
 * agent (status ACTIVE, version 0, owned by `userId`) because some set `status` or `version`.
 */
export interface RowContext {
  enabledModel: string;
  userId: string;
  serviceAccountUserId: string;
  workspaceId: string;
}

const SCHEMA_ROW_CONTEXT: RowContext = {
  enabledModel: 'scripted',
  userId: '6f1d3c2a-8b4e-4a7f-9c10-2d3e4f5a6b7c',
  serviceAccountUserId: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d',
  workspaceId: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f',
};

/** Enabled models the schema test passes to the rules; matches the default `ENABLED_MODELS`. */
export const ROW_ENABLED_MODELS: readonly string[] = [SCHEMA_ROW_CONTEXT.enabledModel];

const UUID_A = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const UUID_B = '9e8d7c6b-5a49-4382-b716-05f4e3d2c1b0';
const MCP_URL = 'https://mcp.example.com/mcp';
const INPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { city: { type: 'string', description: 'City to look up' } },
};

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** An object somewhere in a body: its pointer, and how to build a whole body with given fields there. */
interface Place {
  operation: ConstraintRow['operation'];
  pointer: string;
  body: (fields: Body) => Body;
}

/** The object under `key` of `parent`, holding `base` plus the fields of each row. */
const child = (parent: Place, key: string, base: Body = {}): Place => ({
  operation: parent.operation,
  pointer: `${parent.pointer}/${escapeToken(key)}`,
  body: (fields) => parent.body({ [key]: { ...base, ...fields } }),
});

/** The first element of the array under `key` of `parent`. */
const firstItem = (parent: Place, key: string, base: Body = {}): Place => ({
  operation: parent.operation,
  pointer: `${parent.pointer}/${escapeToken(key)}/0`,
  body: (fields) => parent.body({ [key]: [{ ...base, ...fields }] }),
});

/** Builds the table; pure, so each caller gets fresh bodies it may mutate. */
export function constraintRows(ctx: RowContext = SCHEMA_ROW_CONTEXT): ConstraintRow[] {
  const rows: ConstraintRow[] = [];

  /** A row whose failing pointer is `place.pointer + suffix`. */
  const add = (
    place: Place,
    suffix: string,
    label: string,
    valid: Body,
    invalid: Body,
    extra: { alsoValid?: Body[]; code?: ProblemCode } = {},
  ) => {
    const pointer = `${place.pointer}${suffix}`;
    rows.push({
      name: `${pointer} ${label}`,
      operation: place.operation,
      valid: place.body(valid),
      alsoValid: (extra.alsoValid ?? []).map(place.body),
      invalid: place.body(invalid),
      pointer,
      ...(extra.code ? { code: extra.code } : {}),
    });
  };
  const at = (field: string) => `/${escapeToken(field)}`;

  // ---- constraint kinds, each applied to a field of a place
  const unknownProperty = (p: Place) => add(p, '/unexpected', 'additionalProperties false', {}, { unexpected: true });
  const minLength1 = (p: Place, f: string) => add(p, at(f), 'minLength 1', { [f]: 'x' }, { [f]: '' });
  const maxLength = (p: Place, f: string, n: number) =>
    add(p, at(f), `maxLength ${n}`, { [f]: 'a'.repeat(n) }, { [f]: 'a'.repeat(n + 1) });
  const maxItems = (p: Place, f: string, n: number) => {
    const list = (k: number) => Array.from({ length: k }, (_, i) => `item ${i}`);
    add(p, at(f), `maxItems ${n}`, { [f]: list(n) }, { [f]: list(n + 1) });
  };
  const enumeration = (p: Place, f: string, values: readonly string[]) =>
    add(p, at(f), `enum ${values.join('|')}`, { [f]: values[0] }, { [f]: 'not-a-member' }, {
      alsoValid: values.slice(1).map((v) => ({ [f]: v })),
    });
  const integerRange = (p: Place, f: string, min: number, max?: number) => {
    add(p, at(f), `minimum ${min}`, { [f]: min }, { [f]: min - 1 });
    if (max !== undefined) add(p, at(f), `maximum ${max}`, { [f]: max }, { [f]: max + 1 });
    add(p, at(f), 'integer', { [f]: min }, { [f]: min + 0.5 });
  };
  const uuid = (p: Place, f: string, value: string) => add(p, at(f), 'format uuid', { [f]: value }, { [f]: 'not-a-uuid' });
  const uuidList = (p: Place, f: string, value = UUID_B) =>
    add(p, `${at(f)}/1`, 'items format uuid', { [f]: [UUID_A, value] }, { [f]: [UUID_A, 'not-a-uuid'] });
  const uri = (p: Place, f: string) =>
    add(p, at(f), 'format uri', { [f]: 'https://example.com/x' }, { [f]: 'not a uri' });
  const stringList = (p: Place, f: string) => add(p, `${at(f)}/1`, 'items string', { [f]: ['a', 'b'] }, { [f]: ['a', 1] });
  const string = (p: Place, f: string) => add(p, at(f), 'string', { [f]: '' }, { [f]: 1 });
  const boolean = (p: Place, f: string) => add(p, at(f), 'boolean', { [f]: false }, { [f]: 'true' }, { alsoValid: [{ [f]: true }] });
  const object = (p: Place, f: string, value: Body = {}) => add(p, at(f), 'object', { [f]: value }, { [f]: [] });
  const array = (p: Place, f: string) => add(p, at(f), 'array', { [f]: [] }, { [f]: {} });

  // ---- shared blocks
  const approvalRows = (owner: Place) => {
    const approval = child(owner, 'approvalPolicy');
    object(owner, 'approvalPolicy');
    unknownProperty(approval);
    enumeration(approval, 'mode', AgentEnums.approvalMode);
    enumeration(approval, 'safetyTier', AgentEnums.safetyTier);
  };
  const governanceRows = (p: Place) => {
    enumeration(p, 'mutationIntent', AgentEnums.mutationIntent);
    enumeration(p, 'reversibility', AgentEnums.reversibility);
    enumeration(p, 'targetScope', AgentEnums.targetScope);
    string(p, 'sideEffectSummary');
  };
  const inputSchemaRows = (owner: Place) => {
    const f = 'inputSchema';
    const { type: _type, ...withoutType } = INPUT_SCHEMA;
    const { additionalProperties: _ap, ...withoutAdditional } = INPUT_SCHEMA;
    const withCity = (city: unknown) => ({ [f]: { ...INPUT_SCHEMA, properties: { city } } });
    const valid = { [f]: INPUT_SCHEMA };
    add(owner, '/inputSchema', 'object', valid, { [f]: 'object' }, {
      // Other JSON Schema keywords are fine, and a tool may take no arguments.
      alsoValid: [
        { [f]: { ...INPUT_SCHEMA, required: ['city'], title: 'Lookup', $schema: 'https://json-schema.org/draft/2020-12/schema' } },
        { [f]: { type: 'object', additionalProperties: false } },
      ],
    });
    add(owner, '/inputSchema/type', 'required', valid, { [f]: withoutType });
    add(owner, '/inputSchema/type', 'const object', valid, { [f]: { ...INPUT_SCHEMA, type: 'array' } });
    add(owner, '/inputSchema/additionalProperties', 'required', valid, { [f]: withoutAdditional });
    add(owner, '/inputSchema/additionalProperties', 'const false', valid, { [f]: { ...INPUT_SCHEMA, additionalProperties: true } });
    add(owner, '/inputSchema/properties', 'object', valid, { [f]: { ...INPUT_SCHEMA, properties: [] } });
    add(owner, '/inputSchema/properties/city', 'object', valid, withCity(true));
    add(owner, '/inputSchema/properties/city/description', 'required', valid, withCity({ type: 'string' }));
    add(owner, '/inputSchema/properties/city/description', 'minLength 1', valid, withCity({ type: 'string', description: '' }));
    add(owner, '/inputSchema/properties/city/description', 'string', valid, withCity({ type: 'string', description: 7 }));
  };
  const componentToolConfigRows = (p: Place) => {
    unknownProperty(p);
    boolean(p, 'enabled');
    boolean(p, 'deferLoading');
    minLength1(p, 'alias');
    string(p, 'title');
    string(p, 'description');
    minLength1(p, 'entrypoint');
    object(p, 'inputs', { units: 'metric' });
    minLength1(p, 'popResult');
    inputSchemaRows(p);
    object(p, 'outputSchema', { type: 'object' });
    approvalRows(p);
    governanceRows(p);
    stringList(p, 'sideEffectCategories');
  };
  const mcpToolConfigRows = (p: Place) => {
    unknownProperty(p);
    boolean(p, 'enabled');
    boolean(p, 'deferLoading');
    minLength1(p, 'alias');
    approvalRows(p);
    governanceRows(p);
  };

  const pluginRows = (owner: Place) => {
    // kind omitted = tools, backed by a component
    const tools = firstItem(owner, 'plugins', { id: 'weather', name: 'Weather', componentId: 'weather-component' });
    add(owner, '/plugins/0', 'items object', { plugins: [{ id: 'weather', componentId: 'c' }] }, { plugins: ['weather'] });
    unknownProperty(tools);
    add(tools, '/contractVersion', 'maximum 1', { contractVersion: 1 }, { contractVersion: 2 });
    add(tools, '/contractVersion', 'minimum 1', { contractVersion: 1 }, { contractVersion: 0 });
    minLength1(tools, 'id');
    add(tools, '/kind', 'enum tools|mcp_server|skill|package', { kind: 'tools' }, { kind: 'widget' }, {
      alsoValid: [
        { kind: 'mcp_server', mcpServer: { url: MCP_URL } },
        { kind: 'skill', skill: { content: '# Skill' } },
        { kind: 'package', package: { externalId: 'ext-1' } },
      ],
    });
    minLength1(tools, 'name');
    string(tools, 'description');
    const routing = child(tools, 'routing');
    object(tools, 'routing');
    unknownProperty(routing);
    string(routing, 'title');
    string(routing, 'summary');
    enumeration(tools, 'executionMode', AgentEnums.pluginExecutionMode);
    minLength1(tools, 'componentId');
    integerRange(tools, 'componentVersion', 0);
    inputSchemaRows(tools);
    object(tools, 'outputSchema', { type: 'object' });
    approvalRows(tools);
    governanceRows(tools);
    stringList(tools, 'sideEffectCategories');
    integerRange(tools, 'timeoutMs', 1000);
    integerRange(tools, 'resultMaxBytes', 512);
    boolean(tools, 'autoDiscovery');
    boolean(tools, 'enabled');

    // cross-field: a kind requires its block
    const bare = firstItem(owner, 'plugins', { id: 'p', name: 'P' });
    const code: ProblemCode = 'VALIDATION_FAILED';
    add(bare, '/componentId', 'kind tools (default) requires componentId or componentToolset', { componentId: 'c' }, {}, {
      code,
      alsoValid: [{ componentToolset: {} }],
    });
    add(bare, '/componentId', 'kind tools requires componentId or componentToolset', { kind: 'tools', componentToolset: { tools: {} } }, { kind: 'tools' }, { code });
    add(bare, '/mcpServer', 'kind mcp_server requires mcpServer', { kind: 'mcp_server', mcpServer: { url: MCP_URL } }, { kind: 'mcp_server' }, { code });
    add(bare, '/skill', 'kind skill requires skill', { kind: 'skill', skill: { content: '# Skill' } }, { kind: 'skill' }, { code });
    add(bare, '/package', 'kind package requires package', { kind: 'package', package: { externalId: 'ext-1' } }, { kind: 'package' }, { code });

    // component toolset
    const toolset = child(tools, 'componentToolset');
    object(tools, 'componentToolset');
    unknownProperty(toolset);
    object(toolset, 'tools', { lookup: { alias: 'lookup_city' } });
    componentToolConfigRows(child(toolset, 'defaultConfig'));
    const toolMap = child(toolset, 'tools');
    componentToolConfigRows(child(toolMap, 'lookup'));
    // Record keys are escaped in the pointer (RFC 6901).
    minLength1(child(toolMap, 'geo/lookup~v2'), 'alias');

    // MCP server
    const mcpPlugin = firstItem(owner, 'plugins', { id: 'github', name: 'GitHub', kind: 'mcp_server', mcpServer: { url: MCP_URL } });
    const mcp = child(mcpPlugin, 'mcpServer', { url: MCP_URL });
    object(mcpPlugin, 'mcpServer');
    unknownProperty(mcp);
    enumeration(mcp, 'transport', AgentEnums.mcpTransport);
    uri(mcp, 'url');
    add(mcp, '/url', 'http(s) only', { url: 'HTTPS://mcp.example.com/mcp' }, { url: 'ftp://mcp.example.com/mcp' });
    // Plain http is a rule (MCP_ALLOW_HTTP_LOOPBACK, off by default and in these rows): refused for
    // every host, loopback included; test/agents/mcp-url.test.ts turns the flag on.
    add(mcp, '/url', 'https only (rule)', { url: 'https://127.0.0.1:8443/mcp' }, { url: 'http://mcp.example.com/mcp' }, { code: 'VALIDATION_FAILED' });
    add(mcp, '/url', 'https only, loopback too, without MCP_ALLOW_HTTP_LOOPBACK (rule)', { url: 'https://localhost/mcp' }, { url: 'http://127.0.0.1:8080/mcp' }, { code: 'VALIDATION_FAILED' });
    add(mcp, '/url', 'absolute with a host', { url: 'https://mcp.example.com' }, { url: 'https:///mcp' });
    const longUrl = (length: number) => 'https://mcp.example.com/' + 'a'.repeat(length - 'https://mcp.example.com/'.length);
    add(mcp, '/url', `maxLength ${MCP_URL_MAX_LENGTH}`, { url: longUrl(MCP_URL_MAX_LENGTH) }, { url: longUrl(MCP_URL_MAX_LENGTH + 1) });
    integerRange(mcp, 'manifestTtlMs', 1000);
    integerRange(mcp, 'connectTimeoutMs', 1000);
    minLength1(mcp, 'toolNamePrefix');
    add(mcp, '/authMode', 'enum none|bearer|basic|header', { authMode: 'none' }, { authMode: 'oauth' }, {
      alsoValid: [
        { authMode: 'bearer', bearerSecretId: 'secret-1' },
        { authMode: 'basic', basicUsername: 'bot', basicPasswordSecretId: 'secret-2' },
        { authMode: 'header', headers: [{ name: 'X-Api-Key', secretId: 'secret-3' }] },
      ],
    });
    minLength1(mcp, 'bearerSecretId');
    minLength1(mcp, 'bearerSecretDataId');
    string(mcp, 'basicUsername');
    minLength1(mcp, 'basicPasswordSecretId');
    minLength1(mcp, 'basicPasswordSecretDataId');
    add(mcp, '/bearerSecretId', 'required by authMode bearer', { authMode: 'bearer', bearerSecretId: 's' }, { authMode: 'bearer', bearerSecretDataId: 'r' }, { code });
    add(mcp, '/basicUsername', 'required by authMode basic', { authMode: 'basic', basicUsername: 'bot', basicPasswordSecretId: 's' }, { authMode: 'basic', basicPasswordSecretId: 's' }, { code });
    add(mcp, '/basicPasswordSecretId', 'required by authMode basic', { authMode: 'basic', basicUsername: 'bot', basicPasswordSecretId: 's' }, { authMode: 'basic', basicUsername: 'bot' }, { code });
    add(mcp, '/headers', 'required by authMode header', { authMode: 'header', headers: [{ name: 'X-Key', value: 'v' }] }, { authMode: 'header' }, { code });
    add(mcp, '/headers', 'non-empty for authMode header', { authMode: 'header', headers: [{ name: 'X-Key', value: 'v' }] }, { authMode: 'header', headers: [] }, { code });
    array(mcp, 'headers');
    add(mcp, '/headers/0', 'items object', { headers: [{ name: 'X-Key' }] }, { headers: ['X-Key'] });
    const header = firstItem(mcp, 'headers', { name: 'X-Api-Key', secretId: 'secret-1' });
    unknownProperty(header);
    minLength1(header, 'name');
    minLength1(header, 'secretId');
    minLength1(header, 'secretDataId');
    string(header, 'value');
    string(header, 'prefix');

    // MCP toolset
    const mcpToolset = child(mcpPlugin, 'mcpToolset');
    object(mcpPlugin, 'mcpToolset');
    unknownProperty(mcpToolset);
    object(mcpToolset, 'configs', { search_issues: { alias: 'search' } });
    mcpToolConfigRows(child(mcpToolset, 'defaultConfig'));
    mcpToolConfigRows(child(child(mcpToolset, 'configs'), 'search_issues'));

    // skill
    const skillPlugin = firstItem(owner, 'plugins', { id: 'style', name: 'Style guide', kind: 'skill', skill: { content: '# Style' } });
    const skill = child(skillPlugin, 'skill', { content: '# Style' });
    object(skillPlugin, 'skill');
    unknownProperty(skill);
    enumeration(skill, 'format', AgentEnums.contentFormat);
    minLength1(skill, 'content');
    uuidList(skill, 'pluginIds');
    integerRange(skill, 'maxPromptChars', 256, 64000);

    // package
    const pkgPlugin = firstItem(owner, 'plugins', { id: 'pkg', name: 'Package', kind: 'package', package: { externalId: 'ext-1' } });
    const pkg = child(pkgPlugin, 'package', { externalId: 'ext-1' });
    add(pkgPlugin, '/package', 'object', { package: { externalId: 'ext-1' } }, { package: 'ext-1' });
    add(pkgPlugin, '/package/externalId', 'required', { package: { externalId: 'ext-1' } }, { package: { content: '# Package' } });
    unknownProperty(pkg);
    minLength1(pkg, 'externalId');
    enumeration(pkg, 'format', AgentEnums.contentFormat);
    minLength1(pkg, 'content');
    uuidList(pkg, 'pluginIds');
    integerRange(pkg, 'maxPromptChars', 256, 64000);
    const catalog = child(pkg, 'metadata');
    object(pkg, 'metadata', { license: 'MIT' });
    unknownProperty(catalog);
    for (const f of ['avatarUrl', 'websiteUrl', 'documentationUrl', 'termsOfServiceUrl', 'privacyPolicyUrl', 'supportUrl', 'publisherUrl']) {
      uri(catalog, f);
    }
    minLength1(catalog, 'publisherName');
    minLength1(catalog, 'license');
    stringList(catalog, 'categories');
    stringList(catalog, 'tags');
  };

  const runLimitRows = (p: Place) => {
    integerRange(p, 'maxActiveRootRuns', 1, 32);
    integerRange(p, 'maxChildRuns', 1, 128);
    integerRange(p, 'maxConcurrentChildRuns', 1, 32);
    integerRange(p, 'maxTicks', 1, 1000);
    enumeration(p, 'childFailureMode', AgentEnums.childFailureMode);
  };

  // ---- the update body
  const root: Place = { operation: 'update', pointer: '', body: (fields) => fields };
  unknownProperty(root);
  minLength1(root, 'name');
  string(root, 'desc');
  enumeration(root, 'status', AgentEnums.status);
  uuid(root, 'serviceAccountUserId', ctx.serviceAccountUserId);
  add(root, '/ownerId', 'format uuid', { ownerId: ctx.userId, ownerType: 'USER' }, { ownerId: 'not-a-uuid', ownerType: 'USER' });
  // Only USER can pass with a user's id at the HTTP level; the other members are tried in the schema test.
  add(root, '/ownerType', 'enum USER|GROUP|SERVICE_ACCOUNT', { ownerId: ctx.userId, ownerType: 'USER' }, { ownerId: ctx.userId, ownerType: 'TEAM' });
  integerRange(root, 'version', 0);

  object(root, 'metadata', { team: 'support', nested: { any: ['json', 1, true, null] } });
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  add(root, '/metadata', `maxProperties ${METADATA_MAX_KEYS}`, { metadata: keys(METADATA_MAX_KEYS) }, { metadata: keys(METADATA_MAX_KEYS + 1) });
  // {"k":"…"} is 8 bytes plus the value; é is 2 bytes in UTF-8, so the second pair checks bytes, not characters.
  const filler = METADATA_MAX_BYTES - 8;
  add(root, '/metadata', `at most ${METADATA_MAX_BYTES} bytes of UTF-8 JSON`, { metadata: { k: 'x'.repeat(filler) } }, { metadata: { k: 'x'.repeat(filler + 1) } }, { code: 'METADATA_TOO_LARGE' });
  add(root, '/metadata', `at most ${METADATA_MAX_BYTES} bytes counted in UTF-8`, { metadata: { k: 'é'.repeat(filler / 2) } }, { metadata: { k: `${'é'.repeat(filler / 2)}a` } }, { code: 'METADATA_TOO_LARGE' });
  add(root, '/metadata/__internal', 'reserved top-level key', { metadata: { _internal: 1 } }, { metadata: { _internal: 1, __internal: 1 } }, {
    code: 'RESERVED_METADATA_KEY',
    // Only top-level keys are reserved.
    alsoValid: [{ metadata: { nested: { __internal: 1 } } }],
  });
  add(root, '/metadata/__a~1b~0c', 'reserved key, pointer escaped', { metadata: { 'a/b~c': 1 } }, { metadata: { '__a/b~c': 1 } }, { code: 'RESERVED_METADATA_KEY' });

  // config
  const config = child(root, 'config');
  object(root, 'config');
  unknownProperty(config);
  add(config, '/model', 'minLength 1', { model: ctx.enabledModel }, { model: '' });
  add(config, '/model', 'enabled for the instance', { model: ctx.enabledModel }, { model: 'model-not-enabled' }, { code: 'MODEL_NOT_ENABLED' });
  enumeration(config, 'reasoningEffort', AgentEnums.reasoningEffort);
  enumeration(config, 'executionMode', AgentEnums.executionMode);
  enumeration(config, 'planningPolicy', AgentEnums.planningPolicy);
  enumeration(config, 'workMode', AgentEnums.workMode);
  enumeration(config, 'persona', AgentEnums.persona);
  minLength1(config, 'systemInstructions');
  stringList(config, 'toolNames');
  uuidList(config, 'pluginIds');
  array(config, 'plugins');
  runLimitRows(config);

  const definition = child(config, 'definition');
  object(config, 'definition');
  unknownProperty(definition);
  maxLength(definition, 'identity', 500);
  maxLength(definition, 'mission', 2000);
  for (const f of ['responsibilities', 'operatingPrinciples', 'successCriteria']) {
    maxItems(definition, f, 24);
    stringList(definition, f);
  }

  const memory = child(config, 'memoryPolicy');
  object(config, 'memoryPolicy');
  unknownProperty(memory);
  boolean(memory, 'enabled');
  integerRange(memory, 'maxRecallEntries', 1, 64);
  integerRange(memory, 'maxRecallChars', 128, 64000);

  const release = child(config, 'release');
  object(config, 'release');
  unknownProperty(release);
  minLength1(release, 'versionLabel');
  minLength1(release, 'changeSummary');

  const automation = child(config, 'automation');
  object(config, 'automation');
  unknownProperty(automation);
  enumeration(automation, 'defaultDeliveryMode', AgentEnums.deliveryMode);
  const routing = child(automation, 'approvalRouting');
  object(automation, 'approvalRouting');
  unknownProperty(routing);
  enumeration(routing, 'mode', AgentEnums.approvalRoutingMode);
  uuidList(routing, 'delegateUserIds', ctx.userId);
  uuidList(routing, 'notifyUserIds', ctx.userId);
  const notification = child(automation, 'notificationPolicy');
  object(automation, 'notificationPolicy');
  unknownProperty(notification);
  integerRange(notification, 'dedupeWindowSeconds', 0, 604800);
  integerRange(notification, 'maxAttempts', 1, 32);
  boolean(notification, 'auditTrail');

  pluginRows(config);

  // policy
  const policy = child(root, 'policy');
  object(root, 'policy');
  unknownProperty(policy);
  enumeration(policy, 'defaultToolPermission', AgentEnums.toolPermission);
  object(policy, 'toolPermissions', { web_search: 'full' });
  const permissions = child(policy, 'toolPermissions');
  enumeration(permissions, 'web_search', AgentEnums.toolPermission);
  enumeration(permissions, 'fs/read~all', AgentEnums.toolPermission);
  stringList(policy, 'toolNames');
  uuidList(policy, 'pluginIds');
  array(policy, 'plugins');
  runLimitRows(policy);
  pluginRows(policy);

  // ---- the create body: the update fields plus workspaceId, name required; version is checked, then ignored
  const created: Place = { operation: 'create', pointer: '', body: (fields) => ({ name: 'Support agent', ...fields }) };
  const bare: Place = { operation: 'create', pointer: '', body: (fields) => fields };
  add(bare, '/name', 'required', { name: 'Support agent' }, { desc: 'no name' });
  minLength1(created, 'name');
  uuid(created, 'workspaceId', ctx.workspaceId);
  add(created, '/version', 'integer ≥ 0 (a new agent starts at 0 whatever is sent)', { version: 3 }, { version: -1 });
  unknownProperty(created);
  integerRange(child(created, 'config'), 'maxTicks', 1, 1000);
  add(created, '/metadata/__internal', 'reserved top-level key', { metadata: { internal: 1 } }, { metadata: { __internal: 1 } }, { code: 'RESERVED_METADATA_KEY' });

  return rows;
}
