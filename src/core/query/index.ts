// The list engine (DESIGN §6): what route handlers and resource declarations may use.
export { fieldsOf, tableName } from './table-fields.ts';
export { parseListQueryPartly } from './parse/index.ts';
export {
  defineResource,
  defineTable,
  type ListResource,
} from './model/index.ts';
export { type ListResult,  runList } from './run.ts';

export type { FilterInput } from './run.ts';
export { listInWorkspaces, workspaceScope } from './scope.ts';
export { withRecords } from './records.ts';
