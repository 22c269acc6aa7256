// Hard limits of the list engine (DESIGN §6). Every one is checked before any SQL is built, so
// parsing and compiling stay bounded in time and memory whatever a client sends.

export const LIMITS = {
  /** Whole query string, in characters. */
  queryLength: 200_000,
  /** One parameter's raw value (a JSON string, a comma list), in characters. */
  paramLength: 65_536,
  /** Parameters handed to qs (`parameterLimit`). */
  parameters: 4_000,
  /** Bracket nesting handed to qs (`depth`, with `strictDepth`): a depth-8 tree inside a CTE's case entry. */
  bracketDepth: 26,
  /** Nesting of a JSON parameter, checked by a linear scan before JSON.parse. */
  jsonDepth: 40,
  /** Filter tree depth, counting every level from the root. */
  depth: 8,
  /** Predicates across the whole request (filter, CTE filters, case conditions). */
  predicates: 200,
  /** Values of one list operator (`in`, `arrayHasAny`, …) and qs `arrayLimit`. */
  listValues: 1_000,
  /** Bound list values across the whole request, below both databases' parameter limits. */
  totalValues: 5_000,
  /** One string value, in characters (also keeps LIKE patterns under SQLite's pattern limit). */
  stringLength: 4_096,
  limitMax: 10_000,
  limitDefault: 100,
  offsetMax: Number.MAX_SAFE_INTEGER,
  sortEntries: 16,
  distinctEntries: 16,
  groupByEntries: 16,
  fieldEntries: 100,
  joins: 4,
  ctes: 4,
  castEntries: 32,
  caseBranches: 16,
  /** Nesting of projection expressions (fn inside coalesce inside case …). */
  exprDepth: 8,
  fnArgs: 8,
  jsonPathSegments: 8,
  /** Nesting of a contains/containedBy value (SQLite compiles each level to a subquery). */
  containmentDepth: 12,
  nameLength: 128,
  /** Violations reported in one problem. */
  violations: 50,
} as const;
