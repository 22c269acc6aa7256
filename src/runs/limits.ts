// The run-time limits an agent's config and policy set (DESIGN §5 Scheduling): the lower of the
// config's value (else its default) and the policy's when it sets one.
import type { AgentRecord } from '../agents/index.ts';

export interface RunLimits {
  maxActiveRootRuns: number;
  maxChildRuns: number;
  maxConcurrentChildRuns: number;
  maxTicks: number;
  childFailureMode: 'fail_parent' | 'merge_partial';
}

const DEFAULTS = { maxActiveRootRuns: 1, maxChildRuns: 128, maxConcurrentChildRuns: 4, maxTicks: 50 } as const;

const lower = (agent: Pick<AgentRecord, 'config' | 'policy'>, name: keyof typeof DEFAULTS): number => {
  const configured = agent.config[name];
  const fromConfig = typeof configured === 'number' ? configured : DEFAULTS[name];
  const capped = agent.policy[name];
  return typeof capped === 'number' ? Math.min(fromConfig, capped) : fromConfig;
};

export function runLimits(agent: Pick<AgentRecord, 'config' | 'policy'>): RunLimits {
  const mode = agent.policy.childFailureMode ?? agent.config.childFailureMode;
  return {
    maxActiveRootRuns: lower(agent, 'maxActiveRootRuns'),
    maxChildRuns: lower(agent, 'maxChildRuns'),
    maxConcurrentChildRuns: lower(agent, 'maxConcurrentChildRuns'),
    maxTicks: lower(agent, 'maxTicks'),
    childFailureMode: mode === 'merge_partial' ? 'merge_partial' : 'fail_parent',
  };
}

export interface MemoryLimits {
  enabled: boolean;
  maxRecallEntries: number;
  maxRecallChars: number;
}

export function memoryLimits(agent: Pick<AgentRecord, 'config'>): MemoryLimits {
  const policy = (agent.config.memoryPolicy ?? {}) as { enabled?: boolean; maxRecallEntries?: number; maxRecallChars?: number };
  return { enabled: policy.enabled !== false, maxRecallEntries: policy.maxRecallEntries ?? 8, maxRecallChars: policy.maxRecallChars ?? 4000 };
}
