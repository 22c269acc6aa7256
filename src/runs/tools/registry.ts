// The callable registry of an agent (DESIGN §5 Tools), built from `config.plugins` and
// `policy.plugins` (merged by id, the policy's kept, `enabled: false` left out): a `tools` plugin
// is one tool named by its id, or its component toolset's tools named by alias or capability key;
// an `mcp_server` plugin's tools are the remote server's, named toolNamePrefix + remote name (or
// alias). Skill and package content goes into the context, not here.
import type { AgentRecord } from '../../agents/index.ts';
import type { AgentPluginConfig } from '../../agents/index.ts';
import { mergedPlugins } from '../index.ts';
import type { ToolSpec } from '../models/index.ts';

const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
const DEFAULT_RESULT_MAX_BYTES = 1024 * 1024;

interface Governance {
  approvalPolicy?: { mode?: string; safetyTier?: string };
  mutationIntent?: string;
}

type ToolSource =
  | { kind: 'component'; componentId: string | undefined; componentVersion: number | undefined; entrypoint: string; inputs: Record<string, unknown>; popResult: string | undefined }
  | { kind: 'mcp'; pluginId: string; server: NonNullable<AgentPluginConfig['mcpServer']>; remoteName: string };

export interface RegisteredTool extends ToolSpec, Governance {
  source: ToolSource;
  outputSchema?: Record<string, unknown>;
  timeoutMs: number;
  resultMaxBytes: number;
  /** Described to the model only on discovery (recorded; every registered tool is callable). */
  deferLoading?: boolean;
}

/** The tools an MCP server lists (the client caches its manifest). */
export interface McpLister {
  tools(workspaceId: string, pluginId: string, server: NonNullable<AgentPluginConfig['mcpServer']>): Promise<{ name: string; description?: string; inputSchema?: Record<string, unknown> }[]>;
}

const limits = (plugin: AgentPluginConfig) => ({
  timeoutMs: plugin.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
  resultMaxBytes: plugin.resultMaxBytes ?? DEFAULT_RESULT_MAX_BYTES,
});

function componentTools(plugin: AgentPluginConfig): RegisteredTool[] {
  const toolset = plugin.componentToolset;
  if (!toolset) {
    if (!plugin.id) return [];
    return [
      {
        name: plugin.id,
        ...(plugin.description ?? plugin.routing?.summary ? { description: plugin.description ?? plugin.routing?.summary } : {}),
        ...(plugin.inputSchema ? { inputSchema: plugin.inputSchema as Record<string, unknown> } : {}),
        ...(plugin.outputSchema ? { outputSchema: plugin.outputSchema } : {}),
        ...(plugin.approvalPolicy ? { approvalPolicy: plugin.approvalPolicy } : {}),
        ...(plugin.mutationIntent ? { mutationIntent: plugin.mutationIntent } : {}),
        source: { kind: 'component', componentId: plugin.componentId, componentVersion: plugin.componentVersion, entrypoint: plugin.id, inputs: {}, popResult: undefined },
        ...limits(plugin),
      },
    ];
  }
  const out: RegisteredTool[] = [];
  for (const [key, own] of Object.entries(toolset.tools ?? {})) {
    const tool = { ...toolset.defaultConfig, ...own };
    if (tool.enabled === false) continue;
    const approvalPolicy = tool.approvalPolicy ?? plugin.approvalPolicy;
    const mutationIntent = tool.mutationIntent ?? plugin.mutationIntent;
    const description = tool.description ?? tool.title ?? plugin.description;
    out.push({
      name: tool.alias ?? key,
      ...(description ? { description } : {}),
      ...(tool.inputSchema ? { inputSchema: tool.inputSchema as Record<string, unknown> } : {}),
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...(approvalPolicy ? { approvalPolicy } : {}),
      ...(mutationIntent ? { mutationIntent } : {}),
      ...(tool.deferLoading ? { deferLoading: true } : {}),
      source: { kind: 'component', componentId: plugin.componentId, componentVersion: plugin.componentVersion, entrypoint: tool.entrypoint ?? key, inputs: (tool.inputs as Record<string, unknown> | undefined) ?? {}, popResult: tool.popResult },
      ...limits(plugin),
    });
  }
  return out;
}

async function mcpTools(agent: AgentRecord, plugin: AgentPluginConfig, mcp: McpLister): Promise<RegisteredTool[]> {
  const server = plugin.mcpServer;
  if (!server || !plugin.id) return [];
  const remote = await mcp.tools(agent.workspaceId, plugin.id, server);
  const out: RegisteredTool[] = [];
  for (const tool of remote) {
    const own = { ...plugin.mcpToolset?.defaultConfig, ...plugin.mcpToolset?.configs?.[tool.name] };
    if (own.enabled === false) continue;
    const approvalPolicy = own.approvalPolicy ?? plugin.approvalPolicy;
    const mutationIntent = own.mutationIntent ?? plugin.mutationIntent;
    out.push({
      name: own.alias ?? `${server.toolNamePrefix ?? ''}${tool.name}`,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.inputSchema ? { inputSchema: tool.inputSchema } : {}),
      ...(approvalPolicy ? { approvalPolicy } : {}),
      ...(mutationIntent ? { mutationIntent } : {}),
      ...(own.deferLoading ? { deferLoading: true } : {}),
      source: { kind: 'mcp', pluginId: plugin.id, server, remoteName: tool.name },
      ...limits(plugin),
    });
  }
  return out;
}

/**
 * The agent's registry, by tool name (a later plugin's tool of the same name wins). An MCP server
 * that cannot be listed contributes nothing: a call to one of its tools fails UNKNOWN_TOOL, and
 * `unavailable` names the plugins that failed.
 */
export async function buildRegistry(agent: AgentRecord, mcp: McpLister | null): Promise<{ tools: Map<string, RegisteredTool>; unavailable: string[] }> {
  const tools = new Map<string, RegisteredTool>();
  const unavailable: string[] = [];
  for (const plugin of mergedPlugins(agent)) {
    const kind = plugin.kind ?? 'tools';
    let found: RegisteredTool[] = [];
    if (kind === 'tools') found = componentTools(plugin);
    else if (kind === 'mcp_server') {
      if (!mcp) continue;
      try {
        found = await mcpTools(agent, plugin, mcp);
      } catch {
        unavailable.push(plugin.id ?? '(unnamed)');
      }
    }
    for (const tool of found) tools.set(tool.name, tool);
  }
  return { tools, unavailable };
}

/**
 * Whether a call needs a person's approval (DESIGN §5 Approvals): the tool's permission is
 * `policy.toolPermissions[name]`, else `policy.defaultToolPermission`, else `default`; `full` needs
 * none, `auto_review` is approved at once, `default` asks when the tool's approval mode is
 * `always`, or `conditional` with a safety tier other than `read`.
 */
export function approvalNeed(agent: AgentRecord, tool: RegisteredTool): 'none' | 'auto_review' | 'ask' {
  const permissions = (agent.policy.toolPermissions ?? {}) as Record<string, string>;
  const permission = Object.hasOwn(permissions, tool.name) ? permissions[tool.name] : ((agent.policy.defaultToolPermission as string | undefined) ?? 'default');
  if (permission === 'full') return 'none';
  if (permission === 'auto_review') return 'auto_review';
  const mode = tool.approvalPolicy?.mode;
  if (mode === 'always') return 'ask';
  if (mode === 'conditional' && ['write', 'destructive', 'external', 'execute'].includes(tool.approvalPolicy?.safetyTier ?? '')) return 'ask';
  return 'none';
}
