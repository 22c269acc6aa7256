// The sandbox itself under process isolation: what a host observes about its confinement, the
// private copy, host crashes and replacement, orderly close, and that no host or process a
// component started outlives the server.
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExecutor } from '../../../runtime/executor/index.ts';
import { alive, descendants, withArgs, waitUntil } from './fixtures/proc.ts';
import { worldWritableDirs } from '../../../runtime/executor/server/private-tmp.ts';
import { hostAllocatorSetting, removeOrphanedCopies } from '../../../runtime/executor/server/sandbox.ts';
import { baseInput, both, failureOf, node, request, resultOf } from './helpers.ts';
import { tempDir } from '../../helpers/temp.ts';

/** What the sandbox masks on this machine: every directory anyone may write. */
const writable = worldWritableDirs();

const executor = await createExecutor({ isolation: 'process', hosts: 2, log: () => {} });
const layers = executor.status().layers;
afterAll(() => executor.close());

const inspect = both(`const fs = await import('node:fs'); const os = await import('node:os');
  return {
    pid: process.pid, uid: process.getuid(), gid: process.getgid(), envKeys: Object.keys(process.env),
    interfaces: Object.keys(os.networkInterfaces()),
    procs: fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).map(Number),
    limits: fs.readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max address space')),
    files: fs.readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max open files')),
    tasks: fs.readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max processes')),
    cores: fs.readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max core file size')),
    nnp: fs.readFileSync('/proc/self/status', 'utf8').includes('NoNewPrivs:\\t1'),
    seccomp: fs.readFileSync('/proc/self/status', 'utf8').includes('Seccomp:\\t2'),
    cwd: process.cwd(),
    ipcNs: fs.readlinkSync('/proc/self/ns/ipc'),
    tmp: (() => {
      const dirs = api.input().inputs.writable ?? [];
      if (dirs.length === 0) return null;
      const markers = dirs.map((d) => { const m = d + '/host-' + crypto.randomUUID(); try { fs.writeFileSync(m, 'x'); return m; } catch (e) { return 'failed ' + e.code; } });
      // One quota for all of them: 40 MiB in the first and 40 MiB in the last cannot both fit.
      const fill = (d) => { try { fs.writeFileSync(d + '/fill', Buffer.alloc(40 * 1024 * 1024)); return 'written'; } catch (e) { return e.code; } };
      const fills = [fill(dirs[0]), fill(dirs.at(-1))];
      for (const d of dirs) fs.rmSync(d + '/fill', { force: true });
      return { markers, fills };
    })(),
  };`).node;

// io_uring_setup(1, params) through libc's syscall() (number 425 on x86-64 and arm64): a ring's fd,
// or -1. Run here first, outside the sandbox, to know whether the machine offers io_uring at all.
const IO_URING_SETUP = `const { dlopen, ptr } = await import('bun:ffi');
  const libc = dlopen('libc.so.6', { syscall: { args: ['i64', 'i64', 'ptr'], returns: 'i64' }, close: { args: ['i32'], returns: 'i32' } });
  const fd = Number(libc.symbols.syscall(425, 1, ptr(new Uint8Array(120))));
  if (fd >= 0) libc.symbols.close(fd);
  return fd;`;
const ioUringOutside = (await new Function(`return (async () => { ${IO_URING_SETUP} })()`)()) >= 0;

describe('sandbox (process isolation)', () => {
  // One test per layer: it checks from inside a host what status() claims, and where the machine
  // does not allow the layer it is skipped with the layer named, instead of pretending.
  const observations: Record<keyof typeof layers, (seen: Record<string, unknown>) => void> = {
    emptyEnv: (seen) => expect(seen.envKeys).toEqual([]),
    unprivilegedUser: (seen) => expect(seen).toMatchObject({ uid: 65534, gid: 65534 }),
    pidNamespace: (seen) => {
      expect(seen.pid).toBe(1);
      expect(seen.procs as number[]).not.toContain(process.pid);
    },
    networkNamespace: (seen) => expect(seen.interfaces).toEqual([]),
    addressSpaceLimit: (seen) => {
      expect(String(seen.limits)).not.toContain('unlimited');
      // With it, open files per host and (as root) the threads all hosts may run together.
      expect(String(seen.files).split(/\s+/).slice(3, 5)).toEqual(['1024', '1024']);
      // No core dumps: a host that crashes (a memory bomb ends it by design) writes nothing anywhere.
      expect(String(seen.cores).split(/\s+/).slice(4, 6)).toEqual(['0', '0']);
      if (process.getuid?.() === 0) expect(Number(String(seen.tasks).split(/\s+/)[2])).toBe(Math.max(512, Math.floor(Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) / 4)));
    },
    noNewPrivileges: (seen) => expect(seen.nnp).toBe(true),
    syscallFilter: (seen) => expect(seen.seccomp).toBe(true),
    ipcNamespace: (seen) => expect(seen.ipcNs).not.toBe(readlinkSync('/proc/self/ns/ipc')),
    privateTmp: (seen) => {
      const tmp = seen.tmp as { markers: string[]; fills: string[] };
      expect(writable).toContain('/tmp');
      expect(tmp.markers.every((m) => m.startsWith('/'))).toBe(true); // each directory took a file…
      for (const m of tmp.markers) expect(existsSync(m)).toBe(false); // …that the server's never saw
      // 64 MiB in all, not the machine's disk (with one directory found, both fills go to it).
      expect(tmp.fills).toEqual(['written', 'ENOSPC']);
    },
  };
  for (const [layer, check] of Object.entries(observations) as [keyof typeof layers, (seen: Record<string, unknown>) => void][]) {
    const name = layers[layer]
      ? `layer ${layer}: reported and observed from inside a host`
      : `layer ${layer} [skipped: missing on this machine, status() reports it as false]`;
    test.skipIf(!layers[layer])(name, async () => {
      check(resultOf(await executor.execute(request(inspect, { input: baseInput({ inputs: { writable } }) }))) as Record<string, unknown>);
    });
  }

  test.skipIf(!layers.syscallFilter)('a Unix socket on the file system cannot be reached from a host (the network namespace does not cover it)', async () => {
    const { chmodSync, mkdtempSync } = await import('node:fs');
    const dir = tempDir('sock');
    chmodSync(dir, 0o755);
    const path = join(dir, 'listener.sock');
    let connections = 0;
    const listener = Bun.listen({ unix: path, socket: { open: () => void connections++, data() {} } });
    try {
      chmodSync(path, 0o777); // reachable for the host's uid, but for the filter
      const tries = both(`const net = await import('node:net');
        const viaNet = await new Promise((resolve) => {
          const s = net.createConnection(${JSON.stringify(path)});
          s.on('connect', () => { s.destroy(); resolve('connected'); });
          s.on('error', (e) => resolve(e.code ?? e.message));
        });
        let viaBun;
        try { const s = await Bun.connect({ unix: ${JSON.stringify(path)}, socket: { data() {} } }); s.end(); viaBun = 'connected'; }
        catch (e) { viaBun = e.code ?? e.message; }
        return { viaNet, viaBun };`).node;
      const seen = resultOf(await executor.execute(request(tries))) as { viaNet: string; viaBun: string };
      expect(seen.viaNet).not.toBe('connected');
      expect(seen.viaBun).not.toBe('connected');
      expect(connections).toBe(0);
      // Outside the sandbox the same socket answers, so the refusal above is the filter's.
      const s = await Bun.connect({ unix: path, socket: { data() {} } });
      s.end();
      expect(await waitUntil(() => connections === 1, 2000)).toBe(true);
    } finally {
      listener.stop(true);
    }
  });

  test.skipIf(!layers.syscallFilter || !ioUringOutside)(
    ioUringOutside ? 'io_uring cannot be set up from a host (its operations would bypass the filter)' : 'io_uring rule [skipped: io_uring is unavailable on this machine outside the sandbox too]',
    async () => {
      expect(resultOf(await executor.execute(request(both(IO_URING_SETUP).node)))).toBe(-1);
    },
  );

  test.skipIf(!layers.syscallFilter)('memfd_create is refused in a host (its memory would escape every limit), and works outside', async () => {
    const MEMFD = `const { dlopen } = await import('bun:ffi');
      const libc = dlopen('libc.so.6', { memfd_create: { args: ['cstring', 'u32'], returns: 'i32' }, close: { args: ['i32'], returns: 'i32' } });
      const fd = libc.symbols.memfd_create(Buffer.from('x\\0'), 0);
      if (fd >= 0) libc.symbols.close(fd);
      return fd;`;
    expect(await new Function(`return (async () => { ${MEMFD} })()`)()).toBeGreaterThanOrEqual(0);
    expect(resultOf(await executor.execute(request(both(MEMFD).node)))).toBe(-1);
  });

  test.skipIf(!layers.privateTmp)(
    layers.privateTmp
      ? 'an executor whose code lives below /tmp still starts hosts (its private /tmp would hide the code)'
      : 'code below /tmp [skipped: sandbox layer "privateTmp" is missing on this machine]',
    async () => {
      const checkout = tempDir('checkout-under-tmp');
      try {
        chmodSync(checkout, 0o755);
        const root = join(import.meta.dir, '..', '..', '..');
        for (const dir of ['runtime', join('src', 'core')]) cpSync(join(root, dir), join(checkout, dir), { recursive: true });
        const child = Bun.spawn([process.execPath, join(import.meta.dir, 'fixtures', 'run-one.ts'), join(checkout, 'runtime', 'executor', 'index.ts')], {
          stdout: 'pipe',
          stderr: 'pipe',
        });
        const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
        const report = JSON.parse(out.trim().split('\n').at(-1) || 'null') as { outcome: unknown; layers: Record<string, boolean> } | null;
        expect(report, err).not.toBeNull();
        expect(resultOf(report!.outcome as never)).toBe(7);
        expect(report!.layers.privateTmp).toBe(true);
      } finally {
        rmSync(checkout, { recursive: true, force: true });
      }
    },
    60_000,
  );

  test('hosts run with / as their working directory', async () => {
    const seen = resultOf(await executor.execute(request(inspect))) as Record<string, unknown>;
    expect(seen.cwd).toBe('/');
  });

  test('a host that dies fails its invocations with 502 and is replaced', async () => {
    const f = failureOf(await executor.execute(request(both('process.abort();').node)));
    expect(f).toMatchObject({ status: 502, code: 'EXECUTOR_CRASHED' });
    expect(await waitUntil(() => executor.status().hostsReady === executor.status().hostsTotal, 20_000)).toBe(true);
    expect(resultOf(await executor.execute(request(both('return 7;').node)))).toBe(7);
  }, 30_000);

  test('hosts can run from a private copy of Bun and the host program, removed on close', async () => {
    const copied = await createExecutor({ isolation: 'process', hosts: 1, privateCopy: true, log: () => {} });
    let dir = '';
    try {
      const seen = resultOf(await copied.execute(request(both('return { exec: process.execPath, main: Bun.main };').node))) as {
        exec: string;
        main: string;
      };
      expect(seen.exec.startsWith(join(tmpdir(), 'bun-executor-'))).toBe(true);
      dir = seen.exec.slice(0, seen.exec.lastIndexOf('/'));
      expect(seen.main.startsWith(dir)).toBe(true);
      expect(existsSync(dir)).toBe(true);
    } finally {
      await copied.close();
    }
    expect(existsSync(dir)).toBe(false);
  }, 20_000);

  test.skipIf(process.getuid?.() !== 0)('a TMPDIR the hosts cannot pass through stops the start with a message naming it, and leaves no copy', async () => {
    // Outside every directory hosts get a private /tmp on (/run is not world-writable), 0700.
    const closed = mkdtempSync('/run/tmpdir-closed-');
    chmodSync(closed, 0o700);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = closed;
    try {
      const error = await createExecutor({ isolation: 'process', hosts: 1, privateCopy: true, log: () => {} }).catch((e: unknown) => e);
      expect((error as Error).message).toBe(`executor hosts run as uid 65534, which cannot reach the private copy of Bun made in TMPDIR (${closed}): set TMPDIR to a directory every user may pass through (such as /tmp)`);
      expect(readdirSync(closed)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(closed, { recursive: true, force: true });
    }
  }, 20_000);

  test('a private copy left by a server that died is removed; one whose server lives, and other names, are kept', () => {
    const dir = tempDir('orphans');
    let dead = 4_000_000;
    for (;;) {
      try {
        process.kill(dead, 0);
        dead--;
      } catch {
        break;
      }
    }
    for (const name of [`bun-executor-${dead}-aaaa`, `bun-executor-${process.pid}-bbbb`, 'bun-executor-cccc', 'unrelated', `bun-executor-${dead}-dddd`]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'bun'), 'x');
    }
    // Another user's (a server in another PID namespace may share the directory): kept.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(join(dir, `bun-executor-${dead}-dddd`), 65534, 65534);
    removeOrphanedCopies(dir);
    expect(readdirSync(dir).sort()).toEqual([`bun-executor-${process.pid}-bbbb`, 'bun-executor-cccc', ...(asRoot ? [`bun-executor-${dead}-dddd`] : []), 'unrelated'].sort());
    rmSync(dir, { recursive: true, force: true });
  });

  test('every start in process isolation removes orphaned copies, whether it makes a copy itself or not', async () => {
    const tmp = tempDir('orphans-start');
    const orphan = join(tmp, 'bun-executor-4194999-zzzz');
    mkdirSync(orphan);
    writeFileSync(join(orphan, 'bun'), 'x');
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let started: Awaited<ReturnType<typeof createExecutor>> | undefined;
    try {
      started = await createExecutor({ isolation: 'process', hosts: 1, log: () => {} });
      expect(existsSync(orphan)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await started?.close();
    }
  }, 20_000);

  test('a host gets the server\'s allocator setting and nothing else of its environment; component code sees an empty env', async () => {
    const saved = { delay: process.env.MIMALLOC_PURGE_DELAY, canary: process.env.SANDBOX_TEST_CANARY };
    process.env.MIMALLOC_PURGE_DELAY = '-1';
    process.env.SANDBOX_TEST_CANARY = 'canary-2f1c';
    let tuned: Awaited<ReturnType<typeof createExecutor>> | undefined;
    try {
      tuned = await createExecutor({ isolation: 'process', hosts: 1, log: () => {} });
      const seen = resultOf(await tuned.execute(request(both(`const fs = await import('node:fs');
        return { environ: fs.readFileSync('/proc/self/environ', 'utf8').split('\\0').filter(Boolean), env: Object.keys(process.env) };`).node))) as { environ: string[]; env: string[] };
      expect(seen).toEqual({ environ: ['MIMALLOC_PURGE_DELAY=-1'], env: [] });
      // The one allocator number is not the server's environment: the layer still counts.
      expect(tuned.status().layers.emptyEnv).toBe(layers.emptyEnv);
    } finally {
      await tuned?.close();
      for (const [name, value] of [['MIMALLOC_PURGE_DELAY', saved.delay], ['SANDBOX_TEST_CANARY', saved.canary]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }, 20_000);

  test('close() lets in-flight invocations finish, then refuses new ones and stops the hosts', async () => {
    // Without the syscall filter, so that the component can leave a process behind.
    const closing = await createExecutor({ isolation: 'process', hosts: 1, syscallFilter: false, log: () => {} });
    const marker = String(800_000 + Math.floor(Math.random() * 100_000));
    const slow = closing.execute(request(node(`export default async () => {
      Bun.spawn(['sleep', '${marker}']).unref();
      await new Promise((r) => setTimeout(r, 500)); return 'finished';
    }`)));
    await Bun.sleep(100);
    const closed = closing.close();
    expect(resultOf(await slow)).toBe('finished');
    await closed;
    expect(failureOf(await closing.execute(request(both('return 1;').node)))).toMatchObject({ status: 502 });
    // The process the component left behind died with its host's namespace.
    expect(await waitUntil(() => withArgs('sleep', marker).length === 0, 10_000)).toBe(true);
  }, 30_000);

  test('hosts, and processes components started, do not outlive a killed server', async () => {
    const marker = String(700_000 + Math.floor(Math.random() * 100_000));
    const child = Bun.spawn([process.execPath, join(import.meta.dir, 'fixtures', 'executor-child.ts'), marker], {
      stdout: 'pipe',
      stderr: 'inherit',
    });
    const leftovers = () => withArgs('sleep', marker);
    try {
      let text = '';
      const reader = child.stdout.getReader();
      while (!text.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const report = JSON.parse(text.slice(text.indexOf('READY ') + 6)) as { outcome: unknown; hosts: { pid: number; start: string }[] };
      expect(resultOf(report.outcome as never)).toBe('spawned');
      expect(report.hosts.length).toBeGreaterThanOrEqual(2);
      expect(await waitUntil(() => leftovers().length === 1, 5000)).toBe(true);

      child.kill('SIGKILL');
      await child.exited;
      expect(await waitUntil(() => report.hosts.every((p) => !alive(p)), 10_000)).toBe(true);
      expect(await waitUntil(() => leftovers().length === 0, 10_000)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      for (const pid of [...leftovers(), ...descendants(child.pid).map((p) => p.pid)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }, 30_000);
});

describe('hostAllocatorSetting', () => {
  test('passes the server\'s allocator setting on when it is a number, and nothing else', () => {
    expect(hostAllocatorSetting({ MIMALLOC_PURGE_DELAY: '-1', SECRET: 'x' })).toEqual(['MIMALLOC_PURGE_DELAY=-1']);
    expect(hostAllocatorSetting({ MIMALLOC_PURGE_DELAY: '1000' })).toEqual(['MIMALLOC_PURGE_DELAY=1000']);
    for (const value of [undefined, '', 'x', '-1 SECRET=y', '1e3', '12345678901']) {
      expect(hostAllocatorSetting({ MIMALLOC_PURGE_DELAY: value })).toEqual([]);
    }
  });
});
