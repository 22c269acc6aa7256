// List tables take their columns from the drizzle schema (src/core/query/table-fields.ts): only the
// fields a list names, each with the schema's column, type and nullability.
import { expect, test } from 'bun:test';
import { fieldsOf, tableName } from '../../../src/core/query/index.ts';
import * as pg from '../../../src/core/db/schema/pg.ts';
import { apiKeysResource } from '../../../src/accounts/list.ts';

test('a named field carries its column, type and nullability; extra adds what the schema does not say', () => {
  expect(tableName(pg.agents)).toBe('agents');
  expect(fieldsOf(pg.agents, ['id', 'desc', 'version', 'createdAt', 'config'], { config: { jsonPaths: true } })).toEqual({
    id: { column: 'id', type: 'uuid' },
    desc: { column: 'desc', type: 'string', nullable: true },
    version: { column: 'version', type: 'integer' },
    createdAt: { column: 'created_at', type: 'timestamp' },
    config: { column: 'config', type: 'json', jsonPaths: true },
  });
  expect(fieldsOf(pg.deployments, ['active'])).toEqual({ active: { column: 'active', type: 'boolean' } });
});

test('a name the table lacks fails at load', () => {
  expect(() => fieldsOf(pg.agents, ['nope' as 'id'])).toThrow("agents: no column 'nope'");
});

test('an allowlist: columns a list does not name are not fields (an API key\'s hash never is)', () => {
  expect(Object.keys(apiKeysResource.table.fields)).not.toContain('keyHash');
  expect(Object.keys(pg.apiKeys)).toContain('keyHash');
});
