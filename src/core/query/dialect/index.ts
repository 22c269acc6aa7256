// Picks the dialect implementation for a runner.
import type { Dialect } from '../model/types.ts';
import { postgres } from './postgres.ts';
import { sqlite } from './sqlite.ts';
import type { SqlDialect } from './types.ts';

export const dialectFor = (name: Dialect): SqlDialect => (name === 'postgres' ? postgres : sqlite);
export type { SqlDialect } from './types.ts';
