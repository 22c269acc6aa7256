// The Agent body schemas and rules against the constraint table, plus what the table cannot say:
// everything is reported at once, {} is valid, ignored fields are stripped, real bodies pass.
import { describe, expect, test } from 'bun:test';
import { Kind, type TSchema } from '@sinclair/typebox';
import {
  AgentConfig,
  AgentCreateBody,
  AgentEnums,
  AgentMemoryPolicy,
  AgentPluginConfig,
  AgentUpdateBody,
  agentCreateValidator,
  agentUpdateValidator,
  type AgentUpdateBody as UpdateBody,
} from '../../src/agents/schema.ts';
import { agentCreateViolations, agentRuleViolations, agentUpdateViolations, stripIgnoredFields } from '../../src/agents/rules.ts';
import { constraintRows, ROW_ENABLED_MODELS, type ConstraintRow } from './constraints.ts';

const options = { enabledModels: ROW_ENABLED_MODELS };
const rows = constraintRows();

const violationsOf = (operation: ConstraintRow['operation'], body: unknown) =>
  operation === 'update' ? agentUpdateViolations(body, options) : agentCreateViolations(body, options);
const validatorOf = (operation: ConstraintRow['operation']) =>
  operation === 'update' ? agentUpdateValidator : agentCreateValidator;

describe('constraint table', () => {
  test('row names are unique', () => {
    const names = rows.map((row) => `${row.operation} ${row.name}`);
    expect(names.length - new Set(names).size).toBe(0);
  });

  for (const row of rows) {
    test(`${row.operation} ${row.name}`, () => {
      for (const body of [row.valid, ...row.alsoValid]) {
        expect({ body, violations: violationsOf(row.operation, body) }).toEqual({ body, violations: [] });
        expect(validatorOf(row.operation).check(body)).toBe(true);
      }
      const violations = violationsOf(row.operation, row.invalid);
      expect(violations.length).toBeGreaterThan(0);
      // Every violation lands exactly on the row's pointer: the body is wrong in one way only.
      expect(violations.map((v) => v.pointer)).toEqual(violations.map(() => row.pointer));
      if (row.code) {
        expect(violations.map((v) => v.code)).toContain(row.code);
      } else {
        expect(violations.every((v) => v.code === undefined)).toBe(true);
        expect(validatorOf(row.operation).check(row.invalid)).toBe(false);
      }
    });
  }

  test('every constrained field of both schemas has a row', () => {
    const constrained = new Set<string>();
    collectConstrained(AgentUpdateBody, '', constrained);
    collectConstrained(AgentCreateBody, '', constrained);
    const covered = new Set(
      rows.map((row) => schemaPathOf(row.operation === 'update' ? AgentUpdateBody : AgentCreateBody, row.pointer)),
    );
    expect([...constrained].filter((path) => !covered.has(path))).toEqual([]);
  });

  test('the table has a row for every limit of the spec', () => {
    expect(rows.length).toBeGreaterThan(500);
  });
});

// ---- schema walking for the coverage check: `*` stands for any array index or record key,
// `?` for an unknown property of a closed object.

type Node = TSchema & Record<string, unknown>;
const CONSTRAINT_KEYWORDS = ['minimum', 'maximum', 'minLength', 'maxLength', 'maxItems', 'maxProperties', 'format', 'pattern', 'const'];

function collectConstrained(schema: Node, path: string, out: Set<string>): void {
  const kind = schema[Kind];
  if (kind === 'Union' || kind === 'Integer' || CONSTRAINT_KEYWORDS.some((k) => k in schema)) out.add(path);
  if (kind === 'Object') {
    if (schema.additionalProperties === false) out.add(`${path}/?`);
    for (const [key, property] of Object.entries(schema.properties as Record<string, Node>)) {
      collectConstrained(property, `${path}/${key}`, out);
    }
  } else if (kind === 'Record') {
    for (const value of Object.values(schema.patternProperties as Record<string, Node>)) collectConstrained(value, `${path}/*`, out);
  } else if (kind === 'Array') {
    collectConstrained(schema.items as Node, `${path}/*`, out);
  }
}

function schemaPathOf(schema: Node, pointer: string): string {
  let node: Node | undefined = schema;
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === undefined) return `${path}/!`;
    const kind: unknown = node[Kind];
    if (kind === 'Object') {
      const properties = node.properties as Record<string, Node>;
      const property = Object.hasOwn(properties, token) ? properties[token] : undefined;
      if (property === undefined) return `${path}/?`;
      node = property;
      path += `/${token}`;
    } else if (kind === 'Record') {
      node = Object.values(node.patternProperties as Record<string, Node>)[0];
      path += '/*';
    } else if (kind === 'Array') {
      node = node.items as Node;
      path += '/*';
    } else {
      return `${path}/!`;
    }
  }
  return path;
}

// ---- behaviour beyond single constraints

describe('agent update body', () => {
  test('{} is a valid update', () => {
    expect(agentUpdateViolations({}, options)).toEqual([]);
    expect(agentUpdateValidator.check({})).toBe(true);
  });

  test('a create body needs only a name', () => {
    expect(agentCreateViolations({ name: 'Support agent' }, options)).toEqual([]);
    expect(agentCreateViolations({}, options).map((v) => v.pointer)).toEqual(['/name']);
  });

  test('every owner type is accepted', () => {
    for (const ownerType of AgentEnums.ownerType) {
      expect(agentUpdateViolations({ ownerType, ownerId: '6f1d3c2a-8b4e-4a7f-9c10-2d3e4f5a6b7c' }, options)).toEqual([]);
    }
  });

  test('all violations are reported at once, schema and rules together', () => {
    const body = {
      name: '',
      status: 'GONE',
      surprise: true,
      metadata: { __owner: 'me', ok: 1 },
      config: {
        model: 'not-enabled',
        maxTicks: 0,
        maxChildRuns: 2.5,
        plugins: [
          { id: 'github', kind: 'mcp_server' },
          { id: 'weather', componentId: 'c', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
          { id: 'pkg', kind: 'package', package: { metadata: { supportUrl: 'nope' } } },
        ],
      },
      policy: {
        toolPermissions: { web_search: 'always' },
        plugins: [{ kind: 'mcp_server', mcpServer: { url: 'http://insecure.example.com', authMode: 'basic' } }],
      },
    };
    const pointers = agentUpdateViolations(body, options).map((v) => v.pointer).sort();
    expect(pointers).toEqual(
      [
        '/name',
        '/status',
        '/surprise',
        '/metadata/__owner',
        '/config/model',
        '/config/maxTicks',
        '/config/maxChildRuns',
        '/config/plugins/0/mcpServer',
        '/config/plugins/1/inputSchema/additionalProperties',
        '/config/plugins/1/inputSchema/properties/city/description',
        '/config/plugins/2/package/externalId',
        '/config/plugins/2/package/metadata/supportUrl',
        '/policy/toolPermissions/web_search',
        '/policy/plugins/0/mcpServer/url',
        '/policy/plugins/0/mcpServer/basicUsername',
        '/policy/plugins/0/mcpServer/basicPasswordSecretId',
      ].sort(),
    );
  });

  test('a record key with a line break is still validated', () => {
    // TypeBox matches record keys with ^(.*)$, which a line break escapes; the schema must not.
    const violations = agentUpdateViolations({ policy: { toolPermissions: { 'a\nb': 'always' } } }, options);
    expect(violations.map((v) => v.pointer)).toEqual(['/policy/toolPermissions/a\nb']);
  });

  test('the rules tolerate bodies of the wrong shape', () => {
    for (const body of [null, [], 'x', 1, { metadata: 'x', config: [], policy: { plugins: {} } }, { config: { plugins: [null, 1] } }]) {
      expect(agentRuleViolations(body, options)).toEqual([]);
    }
  });

  test('defaults are documented, not materialized', () => {
    expect(AgentConfig.properties.maxActiveRootRuns.default).toBe(1);
    expect(AgentConfig.properties.maxConcurrentChildRuns.default).toBe(4);
    expect(AgentMemoryPolicy.properties.enabled.default).toBe(true);
    expect(AgentPluginConfig.properties.kind.default).toBe('tools');
    expect(AgentPluginConfig.properties.contractVersion.default).toBe(1);
    const body = { config: { memoryPolicy: {} } };
    expect(agentUpdateValidator.check(body)).toBe(true);
    expect(body).toEqual({ config: { memoryPolicy: {} } });
  });

  test('a large realistic body passes', () => {
    const body = realisticBody();
    expect(JSON.stringify(body).length).toBeGreaterThan(8000);
    expect(agentUpdateViolations(body, options)).toEqual([]);
    const { version: _version, ...createBody } = body;
    expect(agentCreateViolations({ ...createBody, workspaceId: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f' }, options)).toEqual([]);
  });
});

describe('stripIgnoredFields', () => {
  const catalog = { license: 'MIT', supportUrl: 'https://example.com/support' };
  const body: UpdateBody = {
    name: 'Agent',
    config: {
      model: 'scripted',
      plugins: [
        { id: 'pkg', kind: 'package', package: { externalId: 'ext-1', content: '# Pkg', metadata: catalog } },
        { id: 'weather', componentId: 'c' },
      ],
    },
    policy: { maxTicks: 5, plugins: [{ id: 'pkg2', kind: 'package', package: { externalId: 'ext-2', metadata: catalog } }] },
  };

  test('drops package.metadata from config and policy plugins, keeps everything else', () => {
    expect(stripIgnoredFields(body)).toEqual({
      name: 'Agent',
      config: {
        model: 'scripted',
        plugins: [
          { id: 'pkg', kind: 'package', package: { externalId: 'ext-1', content: '# Pkg' } },
          { id: 'weather', componentId: 'c' },
        ],
      },
      policy: { maxTicks: 5, plugins: [{ id: 'pkg2', kind: 'package', package: { externalId: 'ext-2' } }] },
    });
  });

  test('does not mutate its input', () => {
    const before = structuredClone(body);
    stripIgnoredFields(body);
    expect(body).toEqual(before);
  });

  test('leaves bodies without plugins as they are', () => {
    expect(stripIgnoredFields({})).toEqual({});
    expect(stripIgnoredFields({ config: { maxTicks: 3 }, metadata: { a: 1 } })).toEqual({ config: { maxTicks: 3 }, metadata: { a: 1 } });
  });
});

function realisticBody() {
  const approval = { mode: 'conditional', safetyTier: 'write' } as const;
  const tool = (name: string) => ({
    enabled: true,
    deferLoading: false,
    alias: `${name}_tool`,
    title: `Tool ${name}`,
    description: `Runs ${name}`,
    entrypoint: name,
    inputs: { region: 'eu', retries: 2 },
    popResult: 'result',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: { type: 'string', description: 'What to look for', maxLength: 200 },
        limit: { type: 'integer', description: 'How many results', minimum: 1, maximum: 50 },
      },
    },
    outputSchema: { type: 'object', properties: { items: { type: 'array' } } },
    approvalPolicy: approval,
    mutationIntent: 'read',
    reversibility: 'reversible',
    targetScope: 'tenant',
    sideEffectSummary: 'Reads tenant data',
    sideEffectCategories: ['read', 'tenant-data'],
  });
  const plugins = [
    {
      contractVersion: 1,
      id: 'crm',
      kind: 'tools',
      name: 'CRM',
      description: 'Customer records',
      routing: { title: 'CRM', summary: 'Look up and update customer records' },
      executionMode: 'sync',
      componentId: 'crm-component',
      componentVersion: 3,
      componentToolset: { defaultConfig: { enabled: true, approvalPolicy: approval }, tools: { lookup: tool('lookup'), update: tool('update') } },
      approvalPolicy: approval,
      mutationIntent: 'write',
      reversibility: 'operator_reversible',
      targetScope: 'tenant',
      sideEffectSummary: 'Changes customer records',
      sideEffectCategories: ['crm'],
      timeoutMs: 30000,
      resultMaxBytes: 65536,
      autoDiscovery: false,
      enabled: true,
    },
    {
      id: 'github',
      kind: 'mcp_server',
      name: 'GitHub',
      mcpServer: {
        transport: 'streamable_http',
        url: 'https://mcp.github.example.com/v1/mcp?tenant=acme',
        manifestTtlMs: 300000,
        connectTimeoutMs: 5000,
        toolNamePrefix: 'gh_',
        authMode: 'header',
        headers: [
          { name: 'Authorization', secretId: 'gh-token', secretDataId: 'rev-7', prefix: 'Bearer ' },
          { name: 'X-Tenant', value: 'acme' },
        ],
      },
      mcpToolset: {
        defaultConfig: { enabled: true, deferLoading: true, approvalPolicy: { mode: 'always', safetyTier: 'external' } },
        configs: { search_issues: { alias: 'gh_search', mutationIntent: 'read', reversibility: 'unknown', targetScope: 'external', sideEffectSummary: 'none' } },
      },
      inputSchema: { type: 'object', additionalProperties: false, properties: {} },
    },
    {
      id: 'tone',
      kind: 'skill',
      name: 'Tone of voice',
      skill: { format: 'markdown', content: '# Tone\n\nBe kind.'.repeat(50), pluginIds: ['3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b'], maxPromptChars: 4000 },
    },
    {
      id: 'handbook',
      kind: 'package',
      name: 'Handbook',
      package: {
        externalId: 'acme-handbook',
        format: 'markdown',
        content: '# Handbook',
        pluginIds: [],
        maxPromptChars: 64000,
        metadata: {
          avatarUrl: 'https://cdn.example.com/a.png',
          websiteUrl: 'https://example.com',
          documentationUrl: 'https://example.com/docs',
          termsOfServiceUrl: 'https://example.com/tos',
          privacyPolicyUrl: 'https://example.com/privacy',
          supportUrl: 'mailto:support@example.com',
          publisherUrl: 'https://example.com/publisher',
          publisherName: 'Acme',
          license: 'CC-BY-4.0',
          categories: ['docs'],
          tags: ['internal', 'handbook'],
        },
      },
    },
  ];
  return {
    name: 'Support agent',
    desc: 'Answers customer tickets',
    status: 'ACTIVE',
    ownerId: '6f1d3c2a-8b4e-4a7f-9c10-2d3e4f5a6b7c',
    ownerType: 'USER',
    serviceAccountUserId: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d',
    metadata: { team: 'support', costCenter: 4711, labels: ['tier-1'], nested: { deep: { ok: true } }, note: null },
    config: {
      model: 'scripted',
      reasoningEffort: 'high',
      executionMode: 'automation',
      planningPolicy: 'review_required',
      workMode: 'business',
      persona: 'professional',
      systemInstructions: 'Always cite the ticket id.',
      definition: {
        identity: 'Acme support agent',
        mission: 'Resolve tickets quickly and kindly.',
        responsibilities: Array.from({ length: 24 }, (_, i) => `Responsibility ${i}`),
        operatingPrinciples: ['Be accurate', 'Escalate when unsure'],
        successCriteria: ['Ticket closed', 'Customer satisfied'],
      },
      memoryPolicy: { enabled: true, maxRecallEntries: 16, maxRecallChars: 8000 },
      release: { versionLabel: 'v2.1', changeSummary: 'Adds the CRM toolset' },
      automation: {
        defaultDeliveryMode: 'INBOX',
        approvalRouting: { mode: 'delegate', delegateUserIds: ['6f1d3c2a-8b4e-4a7f-9c10-2d3e4f5a6b7c'], notifyUserIds: [] },
        notificationPolicy: { dedupeWindowSeconds: 3600, maxAttempts: 5, auditTrail: true },
      },
      toolNames: ['web_search', 'calculator'],
      pluginIds: ['3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b'],
      plugins,
      maxActiveRootRuns: 4,
      maxChildRuns: 16,
      maxConcurrentChildRuns: 4,
      maxTicks: 200,
      childFailureMode: 'merge_partial',
    },
    policy: {
      defaultToolPermission: 'auto_review',
      toolPermissions: { web_search: 'full', 'crm.update': 'default' },
      toolNames: ['crm.update'],
      pluginIds: ['9e8d7c6b-5a49-4382-b716-05f4e3d2c1b0'],
      plugins: [plugins[0]],
      maxActiveRootRuns: 8,
      maxChildRuns: 32,
      maxConcurrentChildRuns: 8,
      maxTicks: 500,
      childFailureMode: 'fail_parent',
    },
    version: 0,
  };
}
