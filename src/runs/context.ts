// The context a tick gives the model (DESIGN §5 "A tick"), in this order: the platform's runtime
// policy, the operator's definition, persona and work mode, system instructions, skill and package
// content, recalled memory, and the run's conversation. Only sections with content are present.
import type { AgentRecord } from '../agents/index.ts';
import type { AgentPluginConfig } from '../agents/index.ts';

type SectionName = 'policy' | 'definition' | 'persona' | 'workMode' | 'systemInstructions' | 'skills' | 'memory' | 'conversation';

interface ContextPart {
  section: SectionName;
  text: string;
}

/** One entry of what happened so far in a run. */
export interface ConversationEntry {
  role: 'user' | 'assistant' | 'tool' | 'child' | 'system';
  text: string;
  /** An assistant entry that called tools: the calls, with the model's ids. */
  calls?: { id: string; name: string; args: Record<string, unknown> }[];
  /** A tool entry: which call it answers. */
  toolCallId?: string;
  name?: string;
}

export interface AssembledContext {
  parts: ContextPart[];
  promptChars: number;
  memory: { entries: number; chars: number };
}

const DEFAULT_MAX_PROMPT_CHARS = 8000;

const RUNTIME_POLICY = [
  'You are an agent run by the API platform.',
  'The runtime policy comes first; the operator definition below is loaded on every tick and is never changed by memory.',
  'Use only the tools you are given; a tool call may need approval and may be rejected.',
].join('\n');

/** The agent's plugins: config and policy merged by id (the policy's kept), disabled ones left out. */
export function mergedPlugins(agent: Pick<AgentRecord, 'config' | 'policy'>): AgentPluginConfig[] {
  const byId = new Map<string, AgentPluginConfig>();
  const anonymous: AgentPluginConfig[] = [];
  for (const source of [agent.config.plugins, agent.policy.plugins]) {
    if (!Array.isArray(source)) continue;
    for (const plugin of source as AgentPluginConfig[]) {
      if (plugin.id === undefined) anonymous.push(plugin);
      else byId.set(plugin.id, plugin);
    }
  }
  return [...anonymous, ...byId.values()].filter((p) => p.enabled !== false);
}

function definitionText(definition: Record<string, unknown> | undefined): string | null {
  if (!definition) return null;
  const lines: string[] = [];
  if (typeof definition.identity === 'string') lines.push(`Identity: ${definition.identity}`);
  if (typeof definition.mission === 'string') lines.push(`Mission: ${definition.mission}`);
  for (const [key, title] of [['responsibilities', 'Responsibilities'], ['operatingPrinciples', 'Operating principles'], ['successCriteria', 'Success criteria']] as const) {
    const items = definition[key];
    if (Array.isArray(items) && items.length > 0) lines.push(`${title}:\n${items.map((i) => `- ${String(i)}`).join('\n')}`);
  }
  return lines.length > 0 ? lines.join('\n') : null;
}

function skillsText(plugins: AgentPluginConfig[]): string | null {
  const blocks: string[] = [];
  for (const plugin of plugins) {
    const block = plugin.kind === 'skill' ? plugin.skill : plugin.kind === 'package' ? plugin.package : undefined;
    const content = block?.content;
    if (typeof content !== 'string' || content.length === 0) continue;
    const max = block?.maxPromptChars ?? DEFAULT_MAX_PROMPT_CHARS;
    const title = plugin.name ?? plugin.id ?? plugin.kind;
    blocks.push(`## ${title}\n${content.slice(0, max)}`);
  }
  return blocks.length > 0 ? blocks.join('\n\n') : null;
}

function memoryText(recalled: readonly string[]): string | null {
  return recalled.length > 0 ? recalled.map((summary) => `- ${summary}`).join('\n') : null;
}

const entryText = (e: ConversationEntry) =>
  e.calls ? `${e.role}: calls ${e.calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join(', ')}` : e.name ? `${e.role} ${e.name}: ${e.text}` : `${e.role}: ${e.text}`;

const conversationText = (mode: string, entries: readonly ConversationEntry[]) => [`mode: ${mode}`, ...entries.map(entryText)].join('\n');

export function assembleContext(
  agent: Pick<AgentRecord, 'config' | 'policy'>,
  run: { mode: string },
  recalled: readonly string[],
  conversation: readonly ConversationEntry[],
): AssembledContext {
  const config = agent.config as Record<string, unknown>;
  const candidates: [SectionName, string | null][] = [
    ['policy', RUNTIME_POLICY],
    ['definition', definitionText(config.definition as Record<string, unknown> | undefined)],
    ['persona', typeof config.persona === 'string' ? `Persona: ${config.persona}` : null],
    ['workMode', typeof config.workMode === 'string' ? `Work mode: ${config.workMode}` : null],
    ['systemInstructions', typeof config.systemInstructions === 'string' ? config.systemInstructions : null],
    ['skills', skillsText(mergedPlugins(agent))],
    ['memory', memoryText(recalled)],
    ['conversation', conversationText(run.mode, conversation)],
  ];
  const parts = candidates.filter((c): c is [SectionName, string] => c[1] !== null).map(([section, text]) => ({ section, text }));
  return {
    parts,
    promptChars: parts.reduce((n, p) => n + p.text.length, 0),
    memory: { entries: recalled.length, chars: recalled.reduce((n, s) => n + s.length, 0) },
  };
}

/** The newest summaries within the budget: the one that would pass it and all older ones are left out. */
export function recallWithin(newestFirst: readonly string[], maxEntries: number, maxChars: number): string[] {
  const out: string[] = [];
  let chars = 0;
  for (const summary of newestFirst.slice(0, maxEntries)) {
    if (chars + summary.length > maxChars) break;
    out.push(summary);
    chars += summary.length;
  }
  return out;
}
