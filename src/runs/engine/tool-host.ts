// What stands behind a model's tool calls, as the engine's loop sees it (DESIGN §5 Tools): the
// registry's host (src/runs/tools/host.ts), or none.
import type { AgentRecord } from '../../agents/index.ts';
import type { NewEvent } from '../index.ts';
import type { ToolSpec } from '../models/index.ts';
import type { EngineRun } from './store.ts';

export interface ToolCallRequest {
  run: EngineRun;
  agent: AgentRecord;
  tickIndex: number;
  /** The call's place in its tick (a tick that runs again finds its calls by it). */
  callIndex: number;
  call: { id?: string; name: string; args: Record<string, unknown> };
  signal: AbortSignal;
  /** Appends the call's events to the run (fenced by the lease). */
  emit(events: NewEvent[]): Promise<void>;
  /**
   * Asks a person to approve the call (or goes on waiting for the approval asked before a
   * takeover) and waits: the run is waiting_approval meanwhile. `aborted`: the run was cancelled,
   * or the approval expired and the run has failed.
   */
  approve(ask: { toolCallId: string; name: string; args: Record<string, unknown>; existing: string | null }): Promise<'approved' | 'rejected' | 'aborted'>;
}

/** Runs the tools a model calls; the engine's loop is the same whatever stands behind it. */
export interface ToolHost {
  /** The tools the agent's registry offers the model. */
  list(agent: AgentRecord): Promise<ToolSpec[]>;
  /** Runs one call, emitting its tool_call.* events; returns what the model sees of its outcome. */
  call(request: ToolCallRequest): Promise<{ ok: boolean; text: string }>;
}

/** A host with no tools: every call fails UNKNOWN_TOOL. */
export const noTools: ToolHost = {
  async list() {
    return [];
  },
  async call({ call, emit }) {
    const toolCallId = crypto.randomUUID();
    await emit([
      { type: 'tool_call.requested', actor: 'agent', data: { toolCallId, name: call.name, args: call.args } },
      { type: 'tool_call.failed', actor: 'system', data: { toolCallId, name: call.name, code: 'UNKNOWN_TOOL' } },
    ]);
    return { ok: false, text: JSON.stringify({ tool: call.name, error: 'UNKNOWN_TOOL' }) };
  },
};

