// State shared while compiling one request: the dialect, the resource, generated SQL aliases,
// compiled CTEs and the trusted per-table scopes. Generated aliases (t0, t1, w1, c0 …) are the
// only names besides server definitions that appear in the SQL; client aliases never do.
import type { SQL } from 'drizzle-orm';
import type { FilterNode, ListResource, TableDef, ScalarType, ValueType } from '../model/index.ts';
import type { SqlDialect } from '../dialect/index.ts';

/** A column a CTE exposes: its output name, generated SQL name and type. */
interface CteColumn {
  key: string;
  name: string;
  type: ValueType;
  nullable: boolean;
  items?: ScalarType;
}

export interface CompiledCte {
  /** Generated SQL name (w1, w2 …). */
  name: string;
  body: SQL;
  columns: CteColumn[];
  /** Keys of the columns no two of its rows share (what a join may match one row by). */
  unique: readonly string[];
}

export type Source =
  | { kind: 'table'; alias: string; table: TableDef }
  | { kind: 'cte'; alias: string; cte: CompiledCte };

export class Ctx {
  readonly dialect: SqlDialect;
  readonly resource: ListResource;
  /** Trusted predicates per table name, ANDed wherever that table is read; 'all' = unrestricted. */
  readonly tableScopes: ReadonlyMap<string, FilterNode | 'all'>;
  /** Compiled CTEs by client name, in definition order. */
  readonly ctes = new Map<string, CompiledCte>();
  private aliases = 0;
  private cteCount = 0;

  constructor(dialect: SqlDialect, resource: ListResource, tableScopes: ReadonlyMap<string, FilterNode | 'all'>) {
    this.dialect = dialect;
    this.resource = resource;
    this.tableScopes = tableScopes;
  }

  /**
   * Fails closed: a table read through a join or CTE needs a scope from the route (or an
   * explicit 'all'), otherwise a client could read rows the route never checked.
   */
  requireScope(table: TableDef): void {
    if (!this.tableScopes.has(table.name)) throw new Error(`runList: no table scope given for '${table.name}'`);
  }

  /** A fresh table alias: t0, t1, … */
  alias(): string {
    return `t${this.aliases++}`;
  }

  /** A fresh CTE name: w1, w2, … */
  cteName(): string {
    return `w${++this.cteCount}`;
  }
}
