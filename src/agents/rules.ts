// Agent body rules TypeBox cannot express (DESIGN §4): metadata size and reserved keys, the
// cross-field plugin rules and the enabled-model check, each reported as a pointed violation.
import type { ProblemCode, Violation } from '../core/http/index.ts';
import { plainHttpRefusal } from '../core/lib/index.ts';
import {
  agentCreateValidator,
  agentUpdateValidator,
  METADATA_MAX_BYTES,
  type AgentConfig,
  type AgentPluginConfig,
  type AgentPolicy,
} from './schema.ts';

export interface AgentRuleOptions {
  /** Models enabled for the instance (`ENABLED_MODELS`). */
  enabledModels: readonly string[];
  /** `MCP_ALLOW_HTTP_LOOPBACK`: an MCP url may be http:// to a loopback host. Default false. */
  allowHttpLoopback?: boolean;
}

type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 6901 escaping of one reference token. */
const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

const violation = (pointer: string, message: string, code: ProblemCode): Violation => ({ pointer, message, code });

/**
 * Violations of the rules beyond the schema. Safe on any parsed JSON (it only looks at what has
 * the right shape), so it can run beside the schema check and everything is reported at once.
 */
export function agentRuleViolations(body: unknown, options: AgentRuleOptions): Violation[] {
  const out: Violation[] = [];
  if (!isRecord(body)) return out;
  metadataViolations(body.metadata, out);
  const config = body.config;
  if (isRecord(config)) {
    const model = config.model;
    // An empty or non-string model is the schema's to report, once.
    if (typeof model === 'string' && model.length > 0 && !options.enabledModels.includes(model)) {
      out.push(violation('/config/model', `Model "${model}" is not enabled on this instance`, 'MODEL_NOT_ENABLED'));
    }
    pluginListViolations(config.plugins, '/config/plugins', options, out);
  }
  if (isRecord(body.policy)) pluginListViolations(body.policy.plugins, '/policy/plugins', options, out);
  return out;
}

function metadataViolations(metadata: unknown, out: Violation[]): void {
  if (!isRecord(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (key.startsWith('__')) {
      out.push(
        violation(
          `/metadata/${escapePointerToken(key)}`,
          'Top-level metadata keys starting with "__" are reserved for the backend',
          'RESERVED_METADATA_KEY',
        ),
      );
    }
  }
  // The limit is on what is stored: the metadata as UTF-8 JSON.
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes > METADATA_MAX_BYTES) {
    out.push(
      violation('/metadata', `Metadata is ${bytes} bytes as UTF-8 JSON; at most ${METADATA_MAX_BYTES} are allowed`, 'METADATA_TOO_LARGE'),
    );
  }
}

/** The block each plugin kind needs; `tools` (also the default kind) is handled apart. */
const KIND_BLOCK = { mcp_server: 'mcpServer', skill: 'skill', package: 'package' } as const;

function pluginListViolations(plugins: unknown, pointer: string, options: AgentRuleOptions, out: Violation[]): void {
  if (!Array.isArray(plugins)) return;
  plugins.forEach((plugin: unknown, index) => {
    if (isRecord(plugin)) pluginViolations(plugin, `${pointer}/${index}`, options, out);
  });
}

function pluginViolations(plugin: JsonRecord, pointer: string, options: AgentRuleOptions, out: Violation[]): void {
  const kind = plugin.kind === undefined ? 'tools' : plugin.kind;
  if (kind === 'tools') {
    if (plugin.componentId === undefined && plugin.componentToolset === undefined) {
      out.push(
        violation(`${pointer}/componentId`, 'A plugin of kind tools requires componentId or componentToolset', 'VALIDATION_FAILED'),
      );
    }
  } else if (kind === 'mcp_server' || kind === 'skill' || kind === 'package') {
    const block = KIND_BLOCK[kind];
    if (plugin[block] === undefined) {
      out.push(violation(`${pointer}/${block}`, `A plugin of kind ${kind} requires ${block}`, 'VALIDATION_FAILED'));
    }
  }
  // An unknown kind is the schema's to report.
  if (isRecord(plugin.mcpServer)) {
    mcpUrlViolations(plugin.mcpServer, `${pointer}/mcpServer`, options, out);
    mcpAuthViolations(plugin.mcpServer, `${pointer}/mcpServer`, out);
  }
}

/** https://, or http:// to a loopback host with MCP_ALLOW_HTTP_LOOPBACK (DESIGN §5 Tools). */
function mcpUrlViolations(mcp: JsonRecord, pointer: string, options: AgentRuleOptions, out: Violation[]): void {
  // Anything but a parsable http(s) URL is the schema's to report (format and pattern), once.
  if (typeof mcp.url !== 'string' || !/^https?:/i.test(mcp.url) || !URL.canParse(mcp.url)) return;
  const refusal = plainHttpRefusal(new URL(mcp.url), options.allowHttpLoopback ?? false);
  if (refusal) out.push(violation(`${pointer}/url`, `The MCP url ${refusal}`, 'VALIDATION_FAILED'));
}

function mcpAuthViolations(mcp: JsonRecord, pointer: string, out: Violation[]): void {
  const requireField = (field: string, mode: string) => {
    if (mcp[field] === undefined) {
      out.push(violation(`${pointer}/${field}`, `authMode ${mode} requires ${field}`, 'VALIDATION_FAILED'));
    }
  };
  switch (mcp.authMode) {
    case 'bearer':
      requireField('bearerSecretId', 'bearer');
      break;
    case 'basic':
      requireField('basicUsername', 'basic');
      requireField('basicPasswordSecretId', 'basic');
      break;
    case 'header':
      // An empty list would authenticate with nothing, which is what `none` is for.
      if (mcp.headers === undefined || (Array.isArray(mcp.headers) && mcp.headers.length === 0)) {
        out.push(violation(`${pointer}/headers`, 'authMode header requires at least one header binding', 'VALIDATION_FAILED'));
      }
      break;
    default:
      break;
  }
}

/** Schema and rule violations of an update body together, for callers that want one list. */
export function agentUpdateViolations(body: unknown, options: AgentRuleOptions): Violation[] {
  return [...agentUpdateValidator.violations(body), ...agentRuleViolations(body, options)];
}

/** Schema and rule violations of a create body together. */
export function agentCreateViolations(body: unknown, options: AgentRuleOptions): Violation[] {
  return [...agentCreateValidator.violations(body), ...agentRuleViolations(body, options)];
}

/**
 * Drops what the client may send but the platform does not store: `package.metadata` of every
 * plugin (read-only, deprecated). Returns a new body; the input is left untouched.
 */
export function stripIgnoredFields<T extends { config?: AgentConfig; policy?: AgentPolicy }>(body: T): T {
  const out = { ...body };
  if (body.config?.plugins) out.config = { ...body.config, plugins: body.config.plugins.map(stripPlugin) };
  if (body.policy?.plugins) out.policy = { ...body.policy, plugins: body.policy.plugins.map(stripPlugin) };
  return out;
}

function stripPlugin(plugin: AgentPluginConfig): AgentPluginConfig {
  if (plugin.package?.metadata === undefined) return plugin;
  const { metadata: _ignored, ...pkg } = plugin.package;
  return { ...plugin, package: pkg };
}
