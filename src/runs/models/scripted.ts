// The `scripted` model (DESIGN §5 Models): deterministic, plays `input.script` one step per tick.
// Token counts are characters / 4, rounded up: the prompt's, and the step's as JSON.
import type { ModelAction, ModelProvider, ModelTurn, TurnRequest } from './types.ts';
import { scriptOf, type ScriptStep } from './script.ts';

function actionOf(step: ScriptStep): ModelAction {
  if ('say' in step) return { kind: 'say', text: step.say };
  if ('tools' in step) return { kind: 'tools', calls: step.tools.map((c) => ({ name: c.name, args: c.args ?? {} })) };
  if ('delegate' in step) return { kind: 'delegate', inputs: step.delegate.map((d) => d.input ?? null) };
  if ('sleep' in step) return { kind: 'sleep', ms: step.sleep };
  if ('echoContext' in step) return { kind: 'echoContext' };
  if ('finish' in step) return { kind: 'finish', value: step.finish };
  return { kind: 'fail', message: step.fail };
}

export const scriptedModel: ModelProvider = {
  finished(run, tickIndex) {
    return tickIndex >= scriptOf(run.input).length;
  },
  async turn({ run, tickIndex, context }: TurnRequest): Promise<ModelTurn> {
    const step = scriptOf(run.input)[tickIndex]!;
    return {
      actions: [actionOf(step)],
      usage: { promptTokens: Math.ceil(context.promptChars / 4), completionTokens: Math.ceil(JSON.stringify(step).length / 4) },
    };
  },
};
