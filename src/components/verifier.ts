// What a deployment needs from the executor (DESIGN §10): transpile a node module, load it in the
// sandbox and confirm its default export is a function. The server never transpiles it (issue #20). runtime/executor's Executor satisfies it.

interface NodeRevisionToVerify {
  /** The revision id; the executor keys Workers by it. */
  id: string;
  /** The component's workspace: the module loads only in a host that runs that workspace's code. */
  tenant: string;
  kind: 'node';
  /** The module as submitted (TypeScript or JavaScript): the sandbox transpiles it. */
  source: string;
}

export type VerifyResult = { ok: true } | { ok: false; error: string };

export interface ComponentVerifier {
  verify(revision: NodeRevisionToVerify): Promise<VerifyResult>;
}
