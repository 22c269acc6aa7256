// src/runs/models: what other folders use.
export { openAIModel } from './openai.ts';
export { scriptViolations } from './script.ts';
export { scriptedModel } from './scripted.ts';
export { type ModelAction, ModelError, type ModelProvider, type ToolSpec } from './types.ts';
