// Contract validation of an Endpoint definition (issue 4 item 4): is everything it names usable,
// and is its response mode consistent? Errors block activation; warnings are advice.
import type { Principal, Rights } from '../core/identity/index.ts';
import type { Orm } from '../core/db/index.ts';
import {
  type ComponentKind,
  type ComponentLookup,
  type ResolvedRevision,
  type ContractIssue,
  type ContractStatus,
  type EndpointRecord,
  staticHeaderViolations,
  executionAccountIdOf,
  executionModeOf,
  type EndpointSettings,
} from '../core/definitions/index.ts';


interface GuardCompiler {
  compile(schema: unknown): { ok: true } | { ok: false; errors: { pointer: string; message: string }[] };
  lint(schema: unknown): { code: string; message: string; pointer: string }[];
}

export interface ContractDeps {
  components: ComponentLookup;
  guards: GuardCompiler;
  principal(q: Orm, id: string): Promise<Principal | null>;
  /** The instance's execution defaults, which an Endpoint without its own policy follows. */
  settings(q: Orm): Promise<EndpointSettings>;
}

/** Runs every read through `q`, so it can run inside the caller's transaction. */
export async function validateContract(q: Orm, endpoint: EndpointRecord, deps: ContractDeps): Promise<ContractStatus> {
  const errors: ContractIssue[] = [];
  const warnings: ContractIssue[] = [];
  const error = (code: string, message: string, pointer?: string) => errors.push({ code, message, ...(pointer ? { pointer } : {}) });
  const warn = (code: string, message: string, pointer?: string) => warnings.push({ code, message, ...(pointer ? { pointer } : {}) });

  checkResponseMode(endpoint, error);
  checkStaticHeaders(endpoint, warn);
  if (endpoint.componentId) await checkComponent(q, endpoint, endpoint.componentId, deps, error, warn);
  if (endpoint.guard) await checkGuard(q, endpoint, deps, error, warn);
  else if (endpoint.validationFailure) warn('UNUSED_VALIDATION_FAILURE', 'validationFailure is set but there is no guard', '/validationFailure');
  await checkExecutionPolicy(q, endpoint, deps, error, warn);
  if (endpoint.componentId && errors.length === 0) await checkApproval(q, endpoint, endpoint.componentId, deps, warn);

  return { valid: errors.length === 0, errors, warnings, checkedAt: new Date().toISOString() };
}

type Report = (code: string, message: string, pointer?: string) => void;

function checkResponseMode(e: EndpointRecord, error: Report): void {
  if (e.staticResponse && e.componentId) error('INCONSISTENT_RESPONSE_MODE', 'staticResponse is for Endpoints without a component', '/staticResponse');
  if (!e.staticResponse && !e.componentId) error('NO_RESPONSE', 'An Endpoint needs a componentId or a staticResponse', '/componentId');
  if (e.staticResponse && (e.popResult || e.noResult || e.legacyResults)) {
    error('INCONSISTENT_RESPONSE_MODE', 'popResult, noResult and legacyResults need a component', e.popResult ? '/popResult' : e.noResult ? '/noResult' : '/legacyResults');
  }
  if (e.noResult && e.popResult) error('INCONSISTENT_RESPONSE_MODE', 'noResult and popResult exclude each other', '/popResult');
  if (e.legacyResults && (e.popResult || e.noResult)) error('INCONSISTENT_RESPONSE_MODE', 'legacyResults excludes popResult and noResult', '/legacyResults');
  if (e.componentDigest && !e.componentId) error('DIGEST_WITHOUT_COMPONENT', 'componentDigest pins a revision of componentId, which is not set', '/componentDigest');
}

/**
 * A definition stored before a header rule (hop-by-hop names, header syntax) may still hold what
 * create and PATCH now refuse. The runtime leaves such a header out and serves the rest, so this
 * is advice, not a reason to stop serving; a PATCH that sends the header again is refused (422).
 */
function checkStaticHeaders(e: EndpointRecord, warn: Report): void {
  for (const v of staticHeaderViolations(e)) warn('STATIC_HEADER_DROPPED', `${v.message}; stored before this rule, it is not sent`, v.pointer);
}

async function checkComponent(q: Orm, e: EndpointRecord, componentId: string, deps: ContractDeps, error: Report, warn: Report): Promise<void> {
  const resolved = await deps.components.resolve(q, componentId, e.componentDigest);
  if (!resolved || resolved.component.workspaceId !== e.workspaceId) {
    error('COMPONENT_NOT_FOUND', 'No such component in the Endpoint\'s workspace', '/componentId');
    return;
  }
  const { component, revision } = resolved;
  if (component.kind === 'json-validator') {
    error('COMPONENT_KIND', 'A json-validator component validates input (guard); it cannot answer a request', '/componentId');
    return;
  }
  if (e.componentDigest && !revision) {
    // A pinned node revision that exists but is not deployed yet is like no selected ready revision.
    if (component.kind === 'node' && (await deps.components.hasDigest(q, componentId, e.componentDigest))) {
      warn('COMPONENT_NOT_READY', 'The pinned node revision has not been deployed and activated; invocations answer 503 until it is', '/componentDigest');
    } else {
      error('UNKNOWN_DIGEST', 'componentDigest names no revision of the component', '/componentDigest');
    }
    return;
  }
  if (!revision) {
    if (component.kind === 'node') warn('COMPONENT_NOT_READY', 'The node component has no selected ready revision; invocations answer 503 until one is activated', '/componentId');
    else error('NO_ACTIVE_REVISION', 'The component has no active revision', '/componentId');
    return;
  }
  if (e.popResult) checkPopResult(component.kind, revision, e.popResult, error, warn);
}

function checkPopResult(kind: ComponentKind, revision: ResolvedRevision, name: string, error: Report, warn: Report): void {
  if (kind === 'lowcode') {
    const elements = (revision.content.elements ?? []) as { name: string; code?: string; visible?: boolean }[];
    const element = elements.find((el) => el.name === name);
    // api.result(name, …) can produce any name at run time: only code that never calls it rules one out.
    if (!element && elements.some((el) => el.code?.includes('api.result'))) {
      warn('POP_RESULT_UNDECLARED', `No element is named ${name}; it can only come from api.result, checked when the component runs`, '/popResult');
    } else if (!element) error('POP_RESULT_UNKNOWN', `No element named ${name} in the bound revision`, '/popResult');
    else if (element.visible === false) error('POP_RESULT_INVISIBLE', `Element ${name} is not visible`, '/popResult');
    return;
  }
  const declared = revision.content.results as { name: string; visible?: boolean }[] | undefined;
  if (!declared || declared.length === 0) {
    if (name !== 'default') warn('POP_RESULT_UNDECLARED', `The node component declares no results; ${name} cannot be checked before it runs`, '/popResult');
    return;
  }
  const result = declared.find((r) => r.name === name);
  if (!result && name !== 'default') error('POP_RESULT_UNKNOWN', `The node component declares no result named ${name}`, '/popResult');
  else if (result && result.visible === false) error('POP_RESULT_INVISIBLE', `Result ${name} is not visible`, '/popResult');
}

async function checkGuard(q: Orm, e: EndpointRecord, deps: ContractDeps, error: Report, warn: Report): Promise<void> {
  const guard = e.guard!;
  if (guard.type === 'inline') {
    const compiled = deps.guards.compile(guard.schema);
    if (!compiled.ok) for (const err of compiled.errors) error('GUARD_INVALID', err.message, `/guard/schema${err.pointer}`);
    for (const w of deps.guards.lint(guard.schema)) warn(w.code, w.message, `/guard/schema${w.pointer}`);
    return;
  }
  const resolved = await deps.components.resolve(q, guard.componentId, guard.componentDigest);
  if (!resolved || resolved.component.workspaceId !== e.workspaceId) {
    error('COMPONENT_NOT_FOUND', 'No such json-validator component in the Endpoint\'s workspace', '/guard/componentId');
  } else if (resolved.component.kind !== 'json-validator') {
    error('COMPONENT_KIND', 'A component guard must be a json-validator component', '/guard/componentId');
  } else if (!resolved.revision) {
    error(guard.componentDigest ? 'UNKNOWN_DIGEST' : 'NO_ACTIVE_REVISION', 'The guard component has no usable revision', guard.componentDigest ? '/guard/componentDigest' : '/guard/componentId');
  } else {
    for (const w of deps.guards.lint(resolved.revision.content.schema)) warn(w.code, w.message, `/guard${w.pointer}`);
  }
}

async function checkExecutionPolicy(q: Orm, e: EndpointRecord, deps: ContractDeps, error: Report, warn: Report): Promise<void> {
  const policy = e.executionPolicy;
  if (!policy) return;
  if (policy.mode === 'CALLER') {
    if (policy.serviceAccountId) warn('IGNORED_SERVICE_ACCOUNT', 'serviceAccountId is used only in SERVICE_ACCOUNT mode', '/executionPolicy/serviceAccountId');
    return;
  }
  if (!policy.serviceAccountId) {
    error('EXECUTION_ACCOUNT_MISSING', 'SERVICE_ACCOUNT mode needs serviceAccountId', '/executionPolicy/serviceAccountId');
    return;
  }
  const account = await deps.principal(q, policy.serviceAccountId);
  if (!account || account.kind !== 'SERVICE_ACCOUNT') error('EXECUTION_ACCOUNT_UNUSABLE', 'No service account with this id', '/executionPolicy/serviceAccountId');
  else if (!account.active || !account.platformAccess) error('EXECUTION_ACCOUNT_UNUSABLE', 'The service account must be active and have platform access', '/executionPolicy/serviceAccountId');
}

/**
 * Executing as a service account, only code approved for it runs (spec, Authentication rule 9,
 * for every account): warns when no revision is, since invocations then answer 403. Checked
 * against the account's rights now, as the definition index does; a node component without a
 * ready revision has had its own warning.
 */
async function checkApproval(q: Orm, e: EndpointRecord, componentId: string, deps: ContractDeps, warn: Report): Promise<void> {
  const settings = await deps.settings(q);
  if (executionModeOf(e.executionPolicy, settings) !== 'SERVICE_ACCOUNT') return;
  const accountId = executionAccountIdOf(e.executionPolicy, settings);
  const account = accountId === undefined ? null : await deps.principal(q, accountId);
  if (!account || account.kind !== 'SERVICE_ACCOUNT') return;
  const resolved = await deps.components.resolve(q, componentId, e.componentDigest);
  if (!resolved?.revision) return;
  if ((await deps.components.revisionAs(q, componentId, e.componentDigest, account)) !== null) return;
  const pointer = e.executionPolicy ? '/executionPolicy/serviceAccountId' : '/componentId';
  warn('REVISION_NOT_APPROVED', 'No revision of the component is approved to run as the execution service account, so invocations answer 403 until one is: its author, or a principal who approves it (POST /components/{id}/revisions/{revisionId}/approve), must hold every role of the account (ENDPOINT_INVOKE aside) and belong to every workspace of it', pointer);
}
