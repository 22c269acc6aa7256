// What a deployment needs from the executor (DESIGN §10): load a transpiled node module in the
// sandbox and confirm its default export is a function. runtime/executor's Executor satisfies it.

export interface NodeRevisionToVerify {
  /** The revision id; the executor keys Workers by it. */
  id: string;
  /** The component's workspace: the module loads only in a host that runs that workspace's code. */
  tenant: string;
  kind: 'node';
  /** The transpiled JavaScript module (componentRevisions.compiled). */
  source: string;
}

export type VerifyResult = { ok: true } | { ok: false; error: string };

export interface ComponentVerifier {
  verify(revision: NodeRevisionToVerify): Promise<VerifyResult>;
}
