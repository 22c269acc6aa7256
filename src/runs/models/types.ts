// The model behind an agent's ticks, one interface for every provider (DESIGN §5 Models): the
// embedded `scripted` model now, the OpenAI-compatible one beside it.
import type { AssembledContext, ConversationEntry } from '../index.ts';

/** What the model decided in one tick, acted on in this order. */
export type ModelAction =
  | { kind: 'say'; text: string }
  /** `id`: the model's own id of the call (OpenAI's tool_call_id), echoed with its result. */
  | { kind: 'tools'; calls: { id?: string; name: string; args: Record<string, unknown> }[] }
  | { kind: 'delegate'; inputs: unknown[] }
  | { kind: 'sleep'; ms: number }
  | { kind: 'echoContext' }
  | { kind: 'finish'; value: unknown }
  | { kind: 'fail'; message: string };

export interface ModelTurn {
  actions: ModelAction[];
  usage: { promptTokens: number; completionTokens: number };
}

/** A tool the model may call, as the registry describes it. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  inputSchema?: Record<string, unknown>;
}

export interface TurnRequest {
  run: { id: string; input: unknown; mode: string };
  tickIndex: number;
  /** The agent's config.model (else the first enabled model). */
  model: string;
  reasoningEffort?: string;
  context: AssembledContext;
  conversation: readonly ConversationEntry[];
  tools: readonly ToolSpec[];
  signal: AbortSignal;
}

/** A failure of the model itself: the run fails with stopReason model_error. */
export class ModelError extends Error {
  override name = 'ModelError';
}

export interface ModelProvider {
  /** True when the run has nothing more to do before tick `tickIndex` (the end of a script costs no tick). */
  finished(run: { input: unknown }, tickIndex: number): boolean;
  /** The model's turn for tick `tickIndex`; aborted through `signal` when the run is cancelled. */
  turn(request: TurnRequest): Promise<ModelTurn>;
}
