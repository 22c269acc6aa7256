// What a deployment needs from the executor (DESIGN §10): load a transpiled node module in the
// sandbox and confirm its default export is a function. runtime/executor's Executor satisfies it.

export interface NodeRevisionToVerify {
  /** The revision id; the executor keys Workers by it. */
  id: string;
  kind: 'node';
  /** The transpiled JavaScript module (componentRevisions.compiled). */
  source: string;
}

export type VerifyResult = { ok: true } | { ok: false; error: string };

export interface ComponentVerifier {
  verify(revision: NodeRevisionToVerify): Promise<VerifyResult>;
}
