// Tool calls of runs (DESIGN §5 Tools): `tool_call.requested` → the args checked against the
// tool's inputSchema → approval when needed → `tool_call.started` → `tool_call.completed
// {resultBytes}` or `tool_call.failed {code}`. Component tools run on the executor with
// `api.input().agentTool = {entrypoint, inputs, args}`, as the agent's service account, else as
// the run's creator, and only a revision approved for that account's rights (rule 9).
//
// At most once: every call is a row of tool_calls. A tick that runs again after a takeover finds
// its calls there: a finished one answers what it answered, one that had started and never
// finished fails INTERRUPTED (unless its mutationIntent is `read`, which runs again), one waiting
// for approval goes on waiting.
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../core/db/index.ts';
import type { Logger } from '../../core/index.ts';
import { principalRights } from '../../core/identity/index.ts';
import { TableComponentLookup } from '../../core/definitions/index.ts';
import type { AgentRecord } from '../../agents/index.ts';
import type { AgentPluginConfig } from '../../agents/index.ts';
import { compileGuardSchema, type CompiledGuard } from '../../../runtime/guard/index.ts';
import type { CodeRevision, Executor } from '../../../runtime/executor/index.ts';
import type { NewEvent } from '../index.ts';
import type { ToolSpec } from '../models/index.ts';
import type { ToolCallLedger, ToolCallRow } from '../engine/index.ts';
import type { ToolCallRequest, ToolHost } from '../engine/index.ts';
import { approvalNeed, buildRegistry, type McpLister, type RegisteredTool } from './registry.ts';

type FailureCode = 'UNKNOWN_TOOL' | 'INVALID_ARGS' | 'REJECTED' | 'TIMEOUT' | 'RESULT_TOO_LARGE' | 'TOOL_ERROR' | 'INTERRUPTED';

/** Calls a remote MCP tool (src/runs/tools/mcp.ts). */
interface McpCaller extends McpLister {
  call(workspaceId: string, pluginId: string, server: NonNullable<AgentPluginConfig['mcpServer']>, remoteName: string, args: Record<string, unknown>, options: { timeoutMs: number; signal: AbortSignal }): Promise<{ text: string; isError: boolean }>;
}

export interface ToolHostDeps {
  db: Database;
  ledger: ToolCallLedger;
  executor: Executor | null;
  mcp: McpCaller | null;
  log: Logger;
}

/** The end of a call: what the model sees, and the event that says it. */
interface Outcome {
  ok: boolean;
  text: string;
}

export class RegistryToolHost implements ToolHost {
  private readonly guards = new Map<string, CompiledGuard | null>();
  private readonly lookup: TableComponentLookup;

  constructor(private readonly deps: ToolHostDeps) {
    this.lookup = new TableComponentLookup(deps.db);
  }

  async list(agent: AgentRecord): Promise<ToolSpec[]> {
    const { tools } = await buildRegistry(agent, this.deps.mcp);
    return [...tools.values()].map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), ...(t.inputSchema ? { inputSchema: t.inputSchema } : {}) }));
  }

  async call(request: ToolCallRequest): Promise<Outcome> {
    const { run, tickIndex, callIndex, call } = request;
    const { ledger } = this.deps;
    const { tools } = await buildRegistry(request.agent, this.deps.mcp);
    const tool = tools.get(call.name);
    let row = await ledger.find(run.id, tickIndex, callIndex);
    if (row) {
      if (row.status === 'completed' || row.status === 'failed') return { ok: row.status === 'completed', text: row.result ?? '' };
      if (row.status === 'started' && row.mutationIntent !== 'read') return this.fail(request, row, 'INTERRUPTED', 'The call was interrupted (the process executing the run stopped) and is not run again');
    } else {
      row = {
        id: crypto.randomUUID(),
        runId: run.id,
        tickIndex,
        callIndex,
        name: call.name,
        args: call.args,
        status: 'requested',
        code: null,
        mutationIntent: tool?.mutationIntent ?? null,
        result: null,
        createdAt: new Date(),
        endedAt: null,
      };
      await ledger.insert(row, [{ type: 'tool_call.requested', actor: 'agent', tickIndex, data: { toolCallId: row.id, name: call.name, args: call.args } }]);
    }
    if (!tool) return this.fail(request, row, 'UNKNOWN_TOOL', `No tool named ${call.name}`);
    const invalid = this.invalidArgs(tool, call.args);
    if (invalid) return this.fail(request, row, 'INVALID_ARGS', invalid);

    if (row.status !== 'started') {
      const need = approvalNeed(request.agent, tool);
      if (need === 'auto_review') {
        await request.emit([{ type: 'tool_call.approval_resolved', actor: 'system', data: { toolCallId: row.id, decision: 'approved', by: 'auto_review' } }]);
      } else if (need === 'ask') {
        const decision = await request.approve({ toolCallId: row.id, name: call.name, args: call.args, existing: await ledger.approvalOf(row.id) });
        if (decision === 'aborted') return { ok: false, text: '' };
        if (decision === 'rejected') return this.fail(request, row, 'REJECTED', 'The call was rejected');
      }
      await ledger.update(run.id, row.id, { status: 'started' }, [{ type: 'tool_call.started', actor: 'system', tickIndex, data: { toolCallId: row.id, name: call.name } }]);
    }

    let result: { ok: true; json: string } | { ok: false; code: FailureCode; message: string };
    try {
      result = tool.source.kind === 'component' ? await this.runComponent(request, tool, row.id) : await this.runMcp(request, tool);
    } catch (error) {
      this.deps.log.warn('tool call failed', { runId: run.id, tool: call.name, error: error instanceof Error ? error.message : String(error) });
      result = { ok: false, code: 'TOOL_ERROR', message: 'The tool failed' };
    }
    if (request.signal.aborted) return { ok: false, text: '' };
    if (!result.ok) return this.fail(request, row, result.code, result.message);
    const bytes = Buffer.byteLength(result.json);
    if (bytes > tool.resultMaxBytes) return this.fail(request, row, 'RESULT_TOO_LARGE', `The result has ${bytes} bytes, more than the tool's resultMaxBytes (${tool.resultMaxBytes})`);
    await ledger.update(run.id, row.id, { status: 'completed', result: result.json, endedAt: new Date() }, [{ type: 'tool_call.completed', actor: 'system', tickIndex, data: { toolCallId: row.id, name: call.name, resultBytes: bytes } }]);
    return { ok: true, text: result.json };
  }

  private async fail(request: ToolCallRequest, row: ToolCallRow, code: FailureCode, message: string): Promise<Outcome> {
    const text = JSON.stringify({ error: code, message });
    const event: NewEvent = { type: 'tool_call.failed', actor: 'system', tickIndex: request.tickIndex, data: { toolCallId: row.id, name: row.name, code, message } };
    await this.deps.ledger.update(request.run.id, row.id, { status: 'failed', code, result: text, endedAt: new Date() }, [event]);
    return { ok: false, text };
  }

  /** The args' violations of the tool's inputSchema, as one message; null when they satisfy it. */
  private invalidArgs(tool: RegisteredTool, args: Record<string, unknown>): string | null {
    if (!tool.inputSchema) return null;
    const key = JSON.stringify(tool.inputSchema);
    let guard = this.guards.get(key);
    if (guard === undefined) {
      const compiled = compileGuardSchema(tool.inputSchema);
      guard = compiled.ok ? compiled.guard : null;
      if (this.guards.size > 1000) this.guards.clear();
      this.guards.set(key, guard);
    }
    if (!guard) return `The tool's inputSchema cannot be used to check arguments`;
    if (guard.check(args)) return null;
    return guard
      .violations(args)
      .map((v) => `${v.pointer || '/'}: ${v.message}`)
      .join('; ');
  }

  private async runComponent(request: ToolCallRequest, tool: RegisteredTool, toolCallId: string): Promise<{ ok: true; json: string } | { ok: false; code: FailureCode; message: string }> {
    const source = tool.source as Extract<RegisteredTool['source'], { kind: 'component' }>;
    const { executor, db } = this.deps;
    if (!executor) return { ok: false, code: 'TOOL_ERROR', message: 'No executor in this process' };
    if (!source.componentId) return { ok: false, code: 'TOOL_ERROR', message: 'The tool names no component' };
    const accountId = request.agent.serviceAccountUserId ?? request.run.createdBy;
    const prepared = await db.read(async (q) => {
      const { components, componentRevisions } = db.t;
      const [component] = await q.select().from(components).where(and(eq(components.id, source.componentId!), eq(components.workspaceId, request.agent.workspaceId)));
      if (!component) return { error: 'The component does not exist in the agent\'s workspace' } as const;
      if (component.kind === 'json-validator') return { error: 'A json-validator component cannot be a tool' } as const;
      let digest: string | undefined;
      if (source.componentVersion !== undefined) {
        const [pinned] = await q.select({ digest: componentRevisions.digest }).from(componentRevisions).where(and(eq(componentRevisions.componentId, component.id), eq(componentRevisions.number, source.componentVersion)));
        if (!pinned) return { error: `The component has no revision ${source.componentVersion}` } as const;
        digest = pinned.digest;
      }
      const rights = (await principalRights(db, q, [accountId])).get(accountId);
      if (!rights) return { error: 'The account the tool runs as does not exist' } as const;
      const revisionId = await this.lookup.revisionAs(q, component.id, digest, rights);
      if (!revisionId) return { error: `REVISION_NOT_APPROVED: no revision of the component is approved for the rights of the account it runs as (${accountId})` } as const;
      const [revision] = await q.select().from(componentRevisions).where(eq(componentRevisions.id, revisionId));
      if (!revision) return { error: 'The revision is gone' } as const;
      return { error: undefined, component, revision, rights };
    });
    if (prepared.error !== undefined) return { ok: false, code: 'TOOL_ERROR', message: prepared.error };
    const { component, revision, rights } = prepared;
    const content = revision.content as { elements?: { name: string; code: string; visible: boolean }[]; source?: string; results?: { name: string; visible?: boolean }[] };
    const code: CodeRevision =
      component.kind === 'lowcode'
        ? { id: revision.id, tenant: component.workspaceId, kind: 'lowcode', elements: content.elements ?? [] }
        : { id: revision.id, tenant: component.workspaceId, kind: 'node', source: content.source ?? '', hidden: (content.results ?? []).filter((r) => r.visible === false).map((r) => r.name) };
    const agentTool = { entrypoint: source.entrypoint, inputs: source.inputs, args: request.call.args };
    const execution = executor.execute({
      revision: code,
      input: { method: 'POST', path: '/agent-tool', params: {}, query: {}, body: request.call.args, headers: {}, inputs: source.inputs, agentTool },
      executionId: toolCallId,
      oid: toolCallId,
      currentUser: { id: accountId, kind: rights.kind, name: accountId, roles: [...rights.roles] },
      ...(source.popResult ? { results: { only: source.popResult } } : {}),
      timeoutMs: tool.timeoutMs,
      // A cancelled run's tool call ends at once, its Worker terminated.
      signal: request.signal,
    });
    const aborted = new Promise<null>((resolve) => request.signal.addEventListener('abort', () => resolve(null), { once: true }));
    const outcome = await Promise.race([execution, aborted]);
    if (!outcome) return { ok: false, code: 'TOOL_ERROR', message: 'The run was cancelled' };
    if (outcome.kind === 'failed') {
      if (outcome.code === 'EXECUTION_TIMEOUT') return { ok: false, code: 'TIMEOUT', message: `The tool ran longer than its timeoutMs (${tool.timeoutMs})` };
      if (outcome.code === 'RESULT_TOO_LARGE') return { ok: false, code: 'RESULT_TOO_LARGE', message: outcome.message };
      return { ok: false, code: 'TOOL_ERROR', message: outcome.message };
    }
    if (outcome.kind === 'thrown') return { ok: false, code: 'TOOL_ERROR', message: `The tool threw (status ${outcome.status})${outcome.bodyJson ? `: ${outcome.bodyJson.slice(0, 2000)}` : ''}` };
    const visible = outcome.results.filter((r) => r.visible || r.name === source.popResult);
    if (source.popResult) {
      const popped = visible.find((r) => r.name === source.popResult);
      return { ok: true, json: popped?.json ?? 'null' };
    }
    return { ok: true, json: `{${visible.map((r) => `${JSON.stringify(r.name)}:${r.json ?? 'null'}`).join(',')}}` };
  }

  private async runMcp(request: ToolCallRequest, tool: RegisteredTool): Promise<{ ok: true; json: string } | { ok: false; code: FailureCode; message: string }> {
    const source = tool.source as Extract<RegisteredTool['source'], { kind: 'mcp' }>;
    if (!this.deps.mcp) return { ok: false, code: 'TOOL_ERROR', message: 'MCP is not available in this process' };
    try {
      const result = await this.deps.mcp.call(request.agent.workspaceId, source.pluginId, source.server, source.remoteName, request.call.args, { timeoutMs: tool.timeoutMs, signal: request.signal });
      if (result.isError) return { ok: false, code: 'TOOL_ERROR', message: result.text.slice(0, 2000) };
      return { ok: true, json: JSON.stringify(result.text) };
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { ok: false, code: code === 'TIMEOUT' ? 'TIMEOUT' : 'TOOL_ERROR', message: error instanceof Error ? error.message : 'The MCP server failed' };
    }
  }
}
