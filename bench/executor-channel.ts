// Server↔executor channel designs under HTTP load, each as a share of raw Bun.serve measured in
// the same run, plus CPU time per request over the whole process tree (less sensitive to other
// load on the machine than req/s). Every design answers each request by running a trivial
// component somewhere else and returning its result.
//
//   bun bench/executor-channel.ts [seconds=5] [connections=64] [rounds=3] [designs,comma,separated]
//
// Needs `wrk` on PATH. Designs:
//   raw                   Bun.serve returning a constant (the ceiling)
//   inproc-worker         a Worker in the server process, batched postMessage
//   ipc-worker            Bun's built-in process IPC to a host that relays to a Worker
//   sock-host             socketpair, frames batched per tick (setImmediate), host runs the code itself
//   sock-worker           the same, host relays to a Worker (batched both ways)
//   sock-worker-micro     the same, but batches flushed per microtask instead of per tick
//   executor-worker       the real executor, isolation=worker
//   executor-process      the real executor, isolation=process (sandboxed, 2 hosts)
//   executor-process-1    the same with 1 host
//
// Then, without HTTP: the real executor alone, 64 calls in flight, as calls/s and as CPU per call
// of the server process (the host processes' CPU is not included there).
import { connectFd, type ChannelSocket } from '../runtime/executor/host/fd-socket.ts';
import { npmStartEnv, treeCpuMicros } from './lib/process.ts';

const role = process.argv[2] ?? '';
const INPUT = {
  method: 'GET', path: '/orders/42', params: { id: '42' }, query: { expand: 'lines' }, body: null,
  headers: { accept: 'application/json', 'user-agent': 'wrk', host: '127.0.0.1' }, inputs: { region: 'eu' },
};
type Input = typeof INPUT;
const component = (input: Input) => ({ id: input.params.id, ok: true });
const reply = (id: number, input: Input) =>
  JSON.stringify({ id, kind: 'results', results: [{ name: 'default', value: component(input), visible: true }], logs: [] });

/** Newline-delimited JSON frames; JSON.stringify never emits a raw newline. */
function lineReader(onLine: (line: string) => void): (chunk: Uint8Array) => void {
  let rest = '';
  const dec = new TextDecoder();
  return (chunk) => {
    const text = rest + dec.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (nl > start) onLine(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  };
}

function batcher(write: (data: string) => void, schedule: (fn: () => void) => void): (line: string) => void {
  let buf: string[] = [];
  const flush = () => {
    const b = buf;
    buf = [];
    write(b.join('\n') + '\n');
  };
  return (line) => {
    if (buf.push(line) === 1) schedule(flush);
  };
}

const scheduler = (design: string) => (design.endsWith('-micro') ? queueMicrotask : setImmediate);

/** Worker side of the prototypes: runs the component for each frame. */
function workerMain(design: string): void {
  const post = batcher((d) => postMessage(d), scheduler(design));
  addEventListener('message', (e) => {
    for (const line of String((e as MessageEvent).data).split('\n')) {
      if (!line) continue;
      const m = JSON.parse(line) as { id: number; input: Input };
      void Promise.resolve().then(() => post(reply(m.id, m.input)));
    }
  });
}

async function hostMain(design: string): Promise<void> {
  const spawnWorker = () => new Worker(import.meta.path, { argv: ['worker', design] });
  if (design === 'ipc-worker') {
    const w = spawnWorker();
    w.onmessage = (e) => process.send!(e.data);
    process.on('message', (m) => w.postMessage(m));
    process.on('disconnect', () => process.exit(0));
    return;
  }
  let sock: ChannelSocket | undefined;
  const send = batcher((d) => void sock?.write(d), scheduler(design));
  let onLine: (line: string) => void;
  if (design === 'sock-host') {
    onLine = (line) => {
      const m = JSON.parse(line) as { id: number; input: Input };
      void Promise.resolve().then(() => send(reply(m.id, m.input)));
    };
  } else {
    const w = spawnWorker();
    w.onmessage = (e) => void sock?.write(`${e.data}\n`);
    onLine = batcher((d) => w.postMessage(d), scheduler(design));
  }
  const read = lineReader((l) => onLine(l));
  sock = await connectFd(3, { data: (_s, d) => read(d), close: () => process.exit(0) });
}

type Call = (input: Input) => Promise<unknown>;

async function serverMain(design: string): Promise<void> {
  const pending = new Map<number, (v: unknown) => void>();
  let nextId = 1;
  const onLine = (line: string) => {
    const m = JSON.parse(line) as { id: number };
    const resolve = pending.get(m.id);
    pending.delete(m.id);
    resolve?.(m);
  };
  const expect = (send: (line: string) => void): Call => (input) => {
    const id = nextId++;
    const { promise, resolve } = Promise.withResolvers<unknown>();
    pending.set(id, resolve);
    send(JSON.stringify({ id, executionId: 'e', oid: 'o', revision: 1, input }));
    return promise;
  };
  let call: Call | undefined;
  if (design.startsWith('executor-')) {
    const { createExecutor } = await import('../runtime/executor/index.ts');
    const executor = await createExecutor({
      isolation: design === 'executor-worker' ? 'worker' : 'process',
      hosts: design === 'executor-process-1' ? 1 : 2,
      log: () => {},
    });
    const revision = {
      id: 'bench', tenant: 'bench', kind: 'lowcode' as const,
      elements: [{ name: 'default', code: 'return { id: input.params.id, ok: true }', visible: true }],
    };
    const currentUser = { id: 'u', kind: 'USER' as const, name: 'bench', roles: [] };
    call = (input) => executor.execute({ revision, input, executionId: 'e', oid: 'o', currentUser, timeoutMs: 10_000 });
  } else if (design === 'inproc-worker') {
    const w = new Worker(import.meta.path, { argv: ['worker', design] });
    w.onmessage = (e) => String(e.data).split('\n').forEach((l) => l && onLine(l));
    call = expect(batcher((d) => w.postMessage(d), setImmediate));
  } else if (design === 'ipc-worker') {
    const p = Bun.spawn([process.execPath, import.meta.path, 'host', design], {
      stdio: ['ignore', 'inherit', 'inherit'],
      ipc: (m) => String(m).split('\n').forEach((l) => l && onLine(l)),
    });
    call = expect(batcher((d) => p.send(d), setImmediate));
  } else if (design !== 'raw') {
    const p = Bun.spawn([process.execPath, import.meta.path, 'host', design], { stdio: ['ignore', 'inherit', 'inherit', 'socket-fd'] });
    const read = lineReader(onLine);
    const sock = await connectFd(p.stdio[3] as number, { data: (_s, d) => read(d) });
    call = expect(batcher((d) => void sock.write(d), scheduler(design)));
  }
  const server = Bun.serve({
    port: 0,
    fetch: call
      ? async (req) => Response.json(await call({ ...INPUT, path: new URL(req.url).pathname }))
      : () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }),
  });
  console.log(`PORT ${server.port}`);
}

async function wrk(port: number, seconds: number, conns: number): Promise<{ rps: number; p99: string }> {
  const p = Bun.spawn(['wrk', '-t1', `-c${conns}`, `-d${seconds}s`, '--latency', `http://127.0.0.1:${port}/orders/42`], { stdout: 'pipe' });
  const out = await new Response(p.stdout).text();
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), p99: /99%\s+(\S+)/.exec(out)?.[1] ?? '?' };
}

/** The executor without HTTP in front: calls/s with 64 in flight, and this process's CPU per call. */
async function directMain(isolation: 'process' | 'worker', hosts: number): Promise<void> {
  const { createExecutor } = await import('../runtime/executor/index.ts');
  const executor = await createExecutor({ isolation, hosts, log: () => {} });
  const revision = {
    id: 'bench', tenant: 'bench', kind: 'lowcode' as const,
    elements: [{ name: 'default', code: 'return { id: input.params.id, ok: true }', visible: true }],
  };
  const currentUser = { id: 'u', kind: 'USER' as const, name: 'bench', roles: [] };
  const run = async (n: number) => {
    let left = n;
    const lane = async () => {
      while (left-- > 0) await executor.execute({ revision, input: INPUT, executionId: 'e', oid: 'o', currentUser, timeoutMs: 10_000 });
    };
    await Promise.all(Array.from({ length: 64 }, lane));
  };
  await run(20_000);
  const calls = 200_000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(calls);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ callsPerSecond: calls / seconds, serverCpuPerCall: (cpu.user + cpu.system) / calls }));
  await executor.close();
}

async function startServer(design: string): Promise<{ pid: number; port: number; stop: () => Promise<void> }> {
  // Every design's server runs with the allocator settings `npm start` gives the platform.
  const srv = Bun.spawn([process.execPath, import.meta.path, 'server', design], { stdout: 'pipe', stderr: 'inherit', env: { ...process.env, ...npmStartEnv() } });
  const reader = srv.stdout.getReader();
  let text = '';
  while (!/PORT \d+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${design}: server exited`);
    text += new TextDecoder().decode(value);
  }
  return {
    pid: srv.pid,
    port: Number(/PORT (\d+)/.exec(text)?.[1]),
    stop: async () => {
      srv.kill('SIGKILL');
      await srv.exited;
      await Bun.sleep(200); // let hosts notice their channel closed and exit
    },
  };
}

async function main(): Promise<void> {
  const [seconds = 5, conns = 64, rounds = 3] = process.argv.slice(2, 5).map(Number);
  const designs = (process.argv[5] ?? 'raw,inproc-worker,ipc-worker,sock-host,sock-worker,sock-worker-micro,executor-worker,executor-process,executor-process-1').split(',');
  const samples = new Map<string, { rps: number; p99: string; cpu: number }[]>();
  for (let round = 0; round < rounds; round++) {
    for (const design of designs) {
      const server = await startServer(design);
      await wrk(server.port, 1, conns); // warm-up (JIT, Workers)
      const cpu0 = await treeCpuMicros(server.pid);
      const r = await wrk(server.port, seconds, conns);
      const cpu = ((await treeCpuMicros(server.pid)) - cpu0) / Math.max(1, r.rps * seconds);
      samples.set(design, [...(samples.get(design) ?? []), { ...r, cpu }]);
      await server.stop();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const direct: string[] = [];
  for (const [isolation, hosts] of [['worker', 1], ['process', 2], ['process', 1]] as const) {
    const p = Bun.spawn([process.execPath, import.meta.path, 'direct', isolation, String(hosts)], { stdout: 'pipe', stderr: 'inherit' });
    const r = JSON.parse(await new Response(p.stdout).text()) as { callsPerSecond: number; serverCpuPerCall: number };
    direct.push(`executor ${isolation}${isolation === 'process' ? ` (${hosts} host${hosts > 1 ? 's' : ''})` : ''}: ${r.callsPerSecond.toFixed(0)} calls/s, ${r.serverCpuPerCall.toFixed(1)} µs server CPU per call`);
  }
  const rawRps = median((samples.get('raw') ?? []).map((s) => s.rps)) || 1;
  const rawCpu = median((samples.get('raw') ?? []).map((s) => s.cpu)) || 1;
  console.log(`wrk -t1 -c${conns}, ${seconds}s × ${rounds} rounds (medians; ratios against raw Bun.serve in the same run)`);
  console.log('design                  req/s   ×raw   CPU µs/req  ×raw-CPU  p99 (per round)');
  for (const [design, rs] of samples) {
    const rps = median(rs.map((s) => s.rps));
    const cpu = median(rs.map((s) => s.cpu));
    console.log(
      `${design.padEnd(20)} ${rps.toFixed(0).padStart(8)}  ${(rps / rawRps).toFixed(2)}×  ${cpu.toFixed(1).padStart(9)}   ${(rawCpu / cpu).toFixed(2)}×    ${rs.map((s) => s.p99).join(' ')}`,
    );
  }
  console.log('\nwithout HTTP, 64 calls in flight:');
  for (const line of direct) console.log(`  ${line}`);
}

if (role === 'server') await serverMain(process.argv[3] ?? 'raw');
else if (role === 'direct') await directMain(process.argv[3] === 'worker' ? 'worker' : 'process', Number(process.argv[4] ?? 2));
else if (role === 'host') await hostMain(process.argv[3] ?? 'sock-worker');
else if (role === 'worker') workerMain(process.argv[3] ?? 'sock-worker');
else await main();
