// createRedis (src/core/redis.ts) against a private redis-server (16 databases, 0–15): a database
// the server does not have stops the start with a configuration error; ioredis alone would only
// log it and go on with database 0.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ConfigError } from '../../src/core/config.ts';
import { createRedis } from '../../src/core/redis.ts';
import { silentLogger } from '../../src/core/log.ts';
import { redisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis-server.ts';
import { tempDir } from '../helpers/temp.ts';

const CI = process.env.CI === 'true';
const hasRedis = redisServerBinary() !== null;
if (!hasRedis && !CI) console.log('[skip] createRedis suite: needs a redis-server binary');
if (!hasRedis && CI) {
  test('the createRedis suite can run (required when CI=true)', () => {
    throw new Error('no redis-server binary');
  });
}

describe.skipIf(!hasRedis)('createRedis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('a database the server has is the one used', async () => {
    const client = await createRedis(`${server.url}/15`, silentLogger, 'test');
    await client.set('which', 'fifteen');
    client.disconnect();
    const check = new Redis(`${server.url}/15`);
    expect(await check.get('which')).toBe('fifteen');
    check.disconnect();
    expect(await server.command('GET', 'which')).toBeNull(); // not in database 0
  });

  test('a database the server does not have is a configuration error naming REDIS_URL', async () => {
    const error = await createRedis(`${server.url}/16`, silentLogger, 'test').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('REDIS_URL: the Redis server has no database 16');
  });

  test('npm start with such a database exits 2 before anything is stored: the next start still shows its bootstrap key', async () => {
    const dataDir = tempDir('redis-db-start');
    const start = (db: number) => Bun.spawn([process.execPath, join(import.meta.dir, '../../src/main.ts')], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, DATABASE_URL: `sqlite:${join(dataDir, 'platform.db')}`, REDIS_URL: `${server.url}/${db}`, PORT: '0', RUNTIME_PORT: '0', COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'error' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const refused = start(16);
    expect(await refused.exited).toBe(2);
    expect(await new Response(refused.stderr).text()).toContain('REDIS_URL: the Redis server has no database 16');
    expect(await new Response(refused.stdout).text()).not.toContain('Bootstrap INSTANCE_ADMIN API key');

    const started = start(15);
    const reader = started.stdout.getReader();
    let out = '';
    const deadline = Date.now() + 20_000;
    while (!out.includes('sk-') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    started.kill('SIGTERM');
    await started.exited;
    expect(out).toContain('Bootstrap INSTANCE_ADMIN API key (shown once, store it now)');
  }, 30_000);

  test('a Redis that is down at start is not a configuration error: the client is returned; once Redis is back, the missing database is logged as an error', async () => {
    await server.stop();
    const errors: string[] = [];
    const log = { ...silentLogger, error: (message: string) => void errors.push(message) };
    const client = await createRedis(`${server.url}/16`, log, 'test');
    expect(client.status).not.toBe('ready');
    expect(errors).toEqual([]);
    await server.start();
    for (let i = 0; i < 100 && errors.length === 0; i++) await Bun.sleep(50);
    client.disconnect();
    expect(errors[0]).toContain('redis test: REDIS_URL names a database this Redis server does not have');
  });
});
