// Picks the dialect implementation for a runner.
import type { Dialect } from '../model/index.ts';
import { postgres } from './postgres.ts';
import { sqlite } from './sqlite.ts';
import type { SqlDialect } from './types.ts';

export const dialectFor = (name: Dialect): SqlDialect => (name === 'postgres' ? postgres : sqlite);
export type { SqlDialect } from './types.ts';

export { flatten, quoteName } from './flatten.ts';
export { checkLikePattern } from './patterns.ts';
export { postgres } from './postgres.ts';
export { sqlite } from './sqlite.ts';
export { type Bindable, type JsonScalar, TRUNC_UNITS, type TruncUnit } from './types.ts';
