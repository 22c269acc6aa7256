// The runtime's immutable, compiled view of the definition index: router, guards and code
// revisions, built once per index version and swapped atomically.
import type { CodeRevision, ResultSelection } from '../executor/contract/index.ts';
import type { Router } from '../router/index.ts';
import type { CompiledGuard } from '../guard/index.ts';
import type { PreparedStatic } from './static-response.ts';
import type { IndexSnapshot, SnapshotEndpoint, EndpointSettings } from '../../src/core/definitions/index.ts';
import type { Rights } from '../../src/core/identity/index.ts';

export interface CompiledEndpoint {
  id: string;
  definition: SnapshotEndpoint['definition'];
  component: SnapshotEndpoint['component'];
  /** What the executor runs; null when no component or no usable revision (node without a ready one). */
  code: CodeRevision | null;
  /**
   * When the Endpoint executes as a service account: what runs as it (spec, Authentication rule 9,
   * extended to every account; ../run-as.ts). Null when the account was missing at build;
   * undefined when the Endpoint does not execute as a service account.
   */
  runAs: CompiledRunAs | null | undefined;
  revisionDigest: string | null;
  guard: CompiledGuard | null;
  /** Node results the revision declares with a `schema`, by name: a value must match it to be answered. */
  resultSchemas: ReadonlyMap<string, CompiledGuard> | null;
  /** The serialised static response, when the Endpoint has one. */
  prepared: PreparedStatic | null;
  /** Declared at build time so the request path never re-reads the definition for them. */
  /** A body is read and passed on (every method but GET). */
  hasBody: boolean;
  /** The results the response mode shows (undefined: all visible ones), for the executor. */
  results: ResultSelection | undefined;
  /** The guard checks the body (POST, PUT, PATCH); for GET it checks the query, for DELETE the body if one is sent, else the query. */
  guardsBody: boolean;
}

interface CompiledRunAs {
  accountId: string;
  /** The account's rights the approval was judged by, when the index was built. */
  rights: Rights;
  /** What runs as the account; null when no revision is approved for it. */
  code: CodeRevision | null;
  resultSchemas: ReadonlyMap<string, CompiledGuard> | null;
}

export interface RuntimeIndex {
  version: number;
  builtAt: string;
  settings: EndpointSettings;
  router: Router<CompiledEndpoint>;
  endpoints: number;
}

