// The OpenAI-compatible model (DESIGN §5 Models): every enabled model but `scripted`, called
// through the official `openai` package (chat completions with tools) at MODEL_BASE_URL. A request
// is never retried: one whose answer was lost may still have been processed (and billed).
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionMessageToolCall, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ReasoningEffort } from 'openai/resources/shared';
import { ModelError, type ModelAction, type ModelProvider, type ModelTurn, type TurnRequest } from './types.ts';

/** How long one model request may take before the tick fails with model_error. */
const REQUEST_TIMEOUT_MS = 120_000;
/** What of the API's error message a run's `error` keeps. */
const ERROR_DETAIL_CHARS = 500;
/** The `openai` package refuses to start without a key; a local server usually wants none. */
const NO_KEY = 'unset';

export interface OpenAIModelOptions {
  baseURL: string;
  apiKey?: string;
  /** Per request; REQUEST_TIMEOUT_MS unless set (tests). */
  timeoutMs?: number;
}

/** The provider of every enabled model but `scripted`: one client for the base URL, reused by every run. */
export function openAIModel(options: OpenAIModelOptions): ModelProvider {
  const timeout = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? NO_KEY,
    // The platform's configuration alone decides what is sent: no ambient OPENAI_* organization or project.
    organization: null,
    project: null,
    maxRetries: 0,
    timeout,
    logLevel: 'off',
  });
  return {
    // The model decides when it is done: an answer without tool calls completes the run.
    finished: () => false,
    async turn(request) {
      let completion: ChatCompletion;
      try {
        completion = await client.chat.completions.create(paramsOf(request), { signal: request.signal, timeout });
      } catch (error) {
        throw modelErrorOf(error, timeout, options.apiKey);
      }
      return turnOf(completion);
    },
  };
}

/** The request: the context before the conversation as one system message, then the conversation as chat turns. */
function paramsOf(request: TurnRequest): ChatCompletionCreateParamsNonStreaming {
  const instructions = request.context.parts.filter((p) => p.section !== 'conversation').map((p) => p.text);
  // The conversation section carried the run's mode; the chat turns below do not.
  instructions.push(`Run mode: ${request.run.mode}`);
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: instructions.join('\n\n') }];
  for (const entry of request.conversation) {
    const previous = messages.at(-1);
    if (entry.role === 'assistant' && entry.calls) {
      const toolCalls = entry.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      // A turn that said something and called tools is one assistant message, as the model gave it.
      if (previous?.role === 'assistant' && !previous.tool_calls && entry.text === '') previous.tool_calls = toolCalls;
      else messages.push({ role: 'assistant', content: entry.text === '' ? null : entry.text, tool_calls: toolCalls });
    } else if (entry.role === 'assistant') {
      messages.push({ role: 'assistant', content: entry.text });
    } else if (entry.role === 'tool' && entry.toolCallId !== undefined) {
      messages.push({ role: 'tool', tool_call_id: entry.toolCallId, content: entry.text });
    } else if (entry.role === 'user') {
      messages.push({ role: 'user', content: entry.text });
    } else {
      // Child results and engine notes: only user, assistant and tool turns travel well between
      // OpenAI-compatible servers after the first system message.
      messages.push({ role: 'user', content: `[${entry.role}${entry.name ? ` ${entry.name}` : ''}] ${entry.text}` });
    }
  }
  const tools: ChatCompletionTool[] = request.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.inputSchema ?? { type: 'object' } },
  }));
  return {
    model: request.model,
    messages,
    // The API refuses an empty list.
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.reasoningEffort ? { reasoning_effort: request.reasoningEffort as ReasoningEffort } : {}),
  };
}

/** The answer: tool calls are acted on and the run goes on; without any, the text completes the run. */
function turnOf(completion: ChatCompletion): ModelTurn {
  const message = completion.choices?.[0]?.message;
  if (!message) throw new ModelError('The model API answered without a message');
  const text = message.content ?? message.refusal ?? '';
  const calls = (message.tool_calls ?? []).map(callOf);
  const actions: ModelAction[] = [];
  if (text !== '') actions.push({ kind: 'say', text });
  actions.push(calls.length > 0 ? { kind: 'tools', calls } : { kind: 'finish', value: text === '' ? null : text });
  return { actions, usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 } };
}

/**
 * One tool call, its arguments parsed. Arguments that are not a JSON object fail the run
 * (model_error): no tool runs on arguments guessed for the model. Empty arguments are `{}`
 * (some servers send "" for a call without any).
 */
function callOf(call: ChatCompletionMessageToolCall): { id: string; name: string; args: Record<string, unknown> } {
  if (call.type !== 'function') throw new ModelError(`The model called a ${String(call.type)} tool; only function tools are offered`);
  const { name, arguments: raw } = call.function;
  if (raw.trim() === '') return { id: call.id, name, args: {} };
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    args = undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ModelError(`The model called the tool ${JSON.stringify(name)} with arguments that are not a JSON object`);
  }
  return { id: call.id, name, args: args as Record<string, unknown> };
}

/** A safe message for the run's `error`: the status and the API's own message, never the key or a header. */
function modelErrorOf(error: unknown, timeoutMs: number, apiKey: string | undefined): ModelError {
  let message: string;
  if (error instanceof APIUserAbortError) message = 'The model request was aborted';
  else if (error instanceof APIConnectionTimeoutError) message = `The model API did not answer within ${timeoutMs / 1000} s`;
  else if (error instanceof APIConnectionError) message = 'The model API could not be reached';
  else if (error instanceof APIError) {
    // The package's message is "<status> <the API's message, or the body>".
    const detail = error.message.startsWith(`${error.status} `) ? error.message.slice(String(error.status).length + 1) : error.message;
    message = `The model API answered ${error.status}: ${detail.slice(0, ERROR_DETAIL_CHARS)}`;
  } else message = `The model API call failed: ${error instanceof Error ? error.message.slice(0, ERROR_DETAIL_CHARS) : 'unknown error'}`;
  // An API may echo what it was sent (a key it refuses, a header).
  if (apiKey) message = message.replaceAll(apiKey, '[redacted]');
  return new ModelError(message);
}
