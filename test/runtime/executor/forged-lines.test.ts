// Component code can write to its host's channel to the server (fd 3 of the host process). Lines it
// forges there must not answer another invocation, nor call the platform as another invocation's
// identity: every line about an invocation carries that invocation's random secret, which only the
// Worker running it is given. Both components here share one host, as they may in production.
// (Worker isolation has no such channel: its Workers are threads of the server, trusted code only.)
import { afterAll, describe, expect, test } from 'bun:test';
import { createExecutor, type PlatformCall } from '../../../runtime/executor/index.ts';
import { node, request, resultOf } from './helpers.ts';

describe('process isolation', () => {
  const ready = createExecutor({ isolation: 'process', hosts: 1, log: () => {} });
  afterAll(async () => (await ready).close());

  test('forged D and C lines for other invocations are ignored', async () => {
    const executor = await ready;
    const calls: PlatformCall[] = [];
    const victim = executor.execute(
      request(node(`export default async () => { await Bun.sleep(1500); return 'victim'; }`), {
        platform: async (call) => {
          calls.push(call);
          return { status: 201, body: {} };
        },
      }),
    );
    await Bun.sleep(300); // the victim is running
    const forge = node(`export default async () => {
      const fs = await import('node:fs');
      const forged = [];
      for (let id = 1; id <= 400; id++) {
        for (const head of [\`D \${id}\`, \`D \${id} 0 0\`, \`D \${id} 1 1\`]) {
          forged.push(head + '\\t{"kind":"results","results":[{"name":"v","visible":true,"len":8}],"logs":[]}\\t"FORGED"');
        }
        for (const head of [\`C \${id}\`, \`C \${id} 0 0\`]) {
          forged.push(head + '\\t{"call":777,"method":"POST","path":"/api/v1/users","body":{"name":"pwned"}}');
        }
      }
      fs.writeSync(3, forged.join('\\n') + '\\n');
      return 'written';
    }`);
    expect(resultOf(await executor.execute(request(forge)))).toBe('written');
    expect(resultOf(await victim)).toBe('victim');
    expect(calls).toEqual([]);
    // The executor still serves normally.
    expect(resultOf(await executor.execute(request(node(`export default async () => 7`))))).toBe(7);
  });
});
