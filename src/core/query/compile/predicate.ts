// One predicate `{field, op, value}` → SQL for the field's resolved expression. The operator
// must be one the field's type (and declaration) accepts; every value is coerced and bound.
import { type SQL, sql } from 'drizzle-orm';
import { type Predicate, at, fail, LIMITS, type Operator } from '../model/index.ts';
import { checkLikePattern } from '../dialect/index.ts';
import { coerce, coerceElement, coerceJson } from './values.ts';
import type { Operand, Scope } from './scope.ts';

const COMPARE: Partial<Record<Operator, SQL>> = {
  eq: sql` = `,
  ne: sql` <> `,
  gt: sql` > `,
  gte: sql` >= `,
  lt: sql` < `,
  lte: sql` <= `,
};

/** A JSON number literal, as text. */
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function compilePredicate(scope: Scope, x: Operand, pred: Predicate): SQL {
  const { dialect } = scope.ctx;
  const { op, value } = pred;
  const vp = at(pred.at, 'value');
  if (!x.ops.includes(op)) fail(at(pred.at, 'op'), `operator ${op} does not apply to field '${pred.field}' (${x.jsonPath ? 'JSON path' : x.type})`);
  const bind = (raw: unknown, pointer: string) => dialect.bind(x.type, coerce(x.type, raw, pointer));
  const json = (): SQL => x.json ?? fail(at(pred.at, 'op'), `operator ${op} needs a JSON or array field`);
  const elements = () => list(value).map((v, i) => coerceElement(x.items, v, at(vp, i)));
  // A JSON path ordered against JSON numbers (gt, gte, lt, lte, between) compares numerically: text
  // order would put 10 before 5. Equality and membership compare text, so 3 matches 3 and "3".
  // Bracket-style values are all strings; for a JSON path (no declared type to coerce to) a
  // numeric-looking one is the number it spells, so both encodings give one tree (DESIGN §6).
  const spelled = (v: unknown) => (pred.bracket && x.number !== undefined && typeof v === 'string' && NUMBER_TEXT.test(v) ? Number(v) : v);
  const numeric = (values: unknown[]) => x.number !== undefined && values.length > 0 && values.map(spelled).every((v) => typeof v === 'number' && Number.isFinite(v));
  const number = (v: unknown) => dialect.bind('number', spelled(v) as number);

  switch (op) {
    case 'eq':
    case 'ne':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (op !== 'eq' && op !== 'ne' && numeric([value])) return sql`${x.number!}${COMPARE[op]}${number(value)}`;
      return sql`${x.sql}${COMPARE[op]}${bind(value, vp)}`;
    case 'in':
    case 'notIn':
    case 'any': {
      if (op === 'any' && x.type === 'array') return dialect.arrayHasAny(json(), elements());
      const items = list(value).map((v, i) => bind(v, at(vp, i)));
      return sql`${x.sql} ${op === 'notIn' ? sql`NOT IN` : sql`IN`} (${sql.join(items, sql`, `)})`;
    }
    case 'between': {
      const [lo, hi] = list(value);
      if (numeric([lo, hi])) return sql`${x.number!} BETWEEN ${number(lo)} AND ${number(hi)}`;
      return sql`${x.sql} BETWEEN ${bind(lo, at(vp, 0))} AND ${bind(hi, at(vp, 1))}`;
    }
    case 'isNull':
      return sql`${x.sql} IS NULL`;
    case 'isNotNull':
      return sql`${x.sql} IS NOT NULL`;
    case 'like':
    case 'notLike':
    case 'ilike':
    case 'notILike': {
      const pattern = String(coerce('string', value, vp));
      checkLikePattern(pattern, vp);
      const match = dialect.like(x.sql, pattern, op === 'ilike' || op === 'notILike');
      return op === 'like' || op === 'ilike' ? match : sql`NOT (${match})`;
    }
    case 'startsWith':
    case 'endsWith':
      return dialect.affix(x.sql, String(coerce('string', value, vp)), op === 'startsWith' ? 'start' : 'end');
    case 'true':
    case 'false':
      return dialect.isBool(x.jsonPath ? json() : x.sql, x.jsonPath, op === 'true');
    case 'contains':
    case 'containedBy': {
      const document = coerceJson(x.items, value, vp);
      // Each level becomes a nested subquery on SQLite, whose expression depth is bounded (1000).
      if (nesting(document) > LIMITS.containmentDepth) fail(vp, `a ${op} value nests objects and arrays at most ${LIMITS.containmentDepth} deep`);
      return dialect.jsonContains(json(), document, op);
    }
    case 'arrayHas':
    case 'jsonArrayHas':
      return dialect.arrayHasAny(json(), [coerceElement(x.items, value, vp)]);
    case 'arrayHasAny':
    case 'jsonArrayHasAny':
      return dialect.arrayHasAny(json(), elements());
    case 'arrayHasAll':
    case 'jsonArrayHasAll':
      return dialect.arrayHasAll(json(), elements());
    case 'arrayContainedBy':
      return dialect.arrayContainedBy(json(), elements());
  }
}

/** How deep objects and arrays nest in a JSON value (a scalar: 0). */
function nesting(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, nesting(item));
  return deepest + 1;
}
