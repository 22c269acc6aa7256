// Worker entry: serves the invocations of exactly one revision, speaking the line protocol with
// its host (or, in worker isolation, with the server). The first line is always the revision (L).
import type { CodeRevision } from '../contract/index.ts';
import { eachLine, field, line, payload } from '../wire/index.ts';
import { compileRevision, describe, type Runner } from './compile.ts';
import { Invocation, type RunRequest } from './invocation.ts';
import { encodeError, encodeSuccess, failed, isOutOfMemory } from './outcome.ts';
import { installLeftoverGuard } from './leftovers.ts';
import { stringify } from './intrinsics.ts';
import { installProcessGuards } from './process-guards.ts';

installProcessGuards();

let runner: Promise<Runner> | undefined;
/** The runner once compiled: calls skip a promise turn. */
let ready: Runner | undefined;
/** Results the revision declares hidden (node). */
let hidden: ReadonlySet<string> = new Set();
const live = new Map<number, Invocation>();
/** Each running invocation's secret (from its R/V line), echoed in every line about it. */
const secrets = new Map<number, readonly [number, number]>();
/** The same line as line(tag, [id, ...secret], payload), without the array and its spread (one per invocation). */
const lineFor = (tag: 'D' | 'C', id: number, payload: string): string => {
  const secret = secrets.get(id);
  return secret ? `${tag} ${id} ${secret[0]} ${secret[1]}\t${payload}` : `${tag} ${id} -1 -1\t${payload}`;
};

/** The revision failed to load: once its invocations are answered the Worker asks to be replaced. */
let loadFailed = false;
const leftovers = installLeftoverGuard(() => live.size > 0 && ready !== undefined);

let outbox: string[] = [];
function send(text: string): void {
  if (outbox.push(text) === 1) setImmediate(flush);
}
function flush(): void {
  const batch = outbox.join('\n');
  outbox = [];
  postMessage(batch);
}

async function run(id: number, secret: readonly [number, number], json: string): Promise<void> {
  secrets.set(id, secret);
  let inv: Invocation | undefined;
  let out: string;
  let outOfMemory = false;
  try {
    const request = JSON.parse(json) as RunRequest;
    // JSON has no undefined: without a body the key did not travel. api.input() lists it anyway (DESIGN §7).
    if (!Object.hasOwn(request.input, 'body')) request.input.body = undefined;
    inv = new Invocation(request, hidden, (call, method, path, bodyJson) => {
      // The body goes as the JSON text that was checked against the limit, spliced in.
      const head = stringify({ call, method, path });
      send(lineFor('C', id, bodyJson === undefined ? head : `${head.slice(0, -1)},"body":${bodyJson}}`));
    });
    live.set(id, inv);
    if (!runner) throw new Error('no revision loaded');
    await (ready ?? (await runner))(inv);
    out = encodeSuccess(inv);
  } catch (err) {
    outOfMemory = isOutOfMemory(err);
    out = inv ? encodeError(inv, err) : failed(500, 'COMPONENT_ERROR', describe(err));
  }
  // A stray error may have answered it already (see below).
  if (inv && live.get(id) !== inv) return;
  finish(id, out, outOfMemory);
}

function finish(id: number, out: string, outOfMemory: boolean): void {
  live.get(id)?.end();
  live.delete(id);
  send(lineFor('D', id, out));
  secrets.delete(id);
  if (outOfMemory) send(line('O', []));
  if (live.size > 0) return;
  leftovers.sweep();
  // A module that failed to load is not retried in this Worker: a fresh one loads it again.
  if (loadFailed) send(line('E', []));
}

async function verify(id: number, secret: readonly [number, number]): Promise<void> {
  secrets.set(id, secret);
  let out: string;
  try {
    if (!runner) throw new Error('no revision loaded');
    await runner;
    out = '{"kind":"verified","ok":true}';
  } catch (err) {
    out = stringify({ kind: 'verified', ok: false, error: describe(err) });
  }
  send(lineFor('D', id, out));
  secrets.delete(id);
}

function platformReply(id: number, json: string): void {
  const inv = live.get(id);
  if (!inv) return;
  const reply = JSON.parse(json) as { call: number; status?: unknown; body?: unknown; error?: unknown };
  inv.platformReply(reply.call, reply);
}

function handle(text: string): void {
  switch (text[0]) {
    case 'L': {
      ready = undefined;
      const revision = JSON.parse(payload(text)) as CodeRevision;
      hidden = new Set(revision.kind === 'node' ? revision.hidden ?? [] : []);
      const compiling = compileRevision(revision);
      runner = compiling;
      compiling.then(
        (r) => {
          if (runner === compiling) ready = r;
        },
        () => {
          loadFailed = true; // reported per invocation
        },
      );
      break;
    }
    case 'R':
      void run(field(text, 0), [field(text, 2), field(text, 3)], payload(text));
      break;
    case 'V':
      void verify(field(text, 0), [field(text, 2), field(text, 3)]);
      break;
    case 'P':
      platformReply(field(text, 0), payload(text));
      break;
  }
}

addEventListener('message', (event) => {
  const data: unknown = (event as MessageEvent).data;
  if (typeof data === 'string') eachLine(data, handle);
});

// An error no invocation awaited (a timer callback, an unawaited promise) came from this revision's
// code: the invocations still running end with it (500 COMPONENT_ERROR, as an uncaught error), and
// the Worker keeps serving. Without these handlers Bun ends the Worker.
function strayError(err: unknown): void {
  const outOfMemory = isOutOfMemory(err);
  const out = outOfMemory ? failed(502, 'EXECUTOR_RESOURCE_LIMIT', 'the component ran out of memory') : failed(500, 'COMPONENT_ERROR', describe(err));
  for (const id of [...live.keys()]) finish(id, out, false);
  if (outOfMemory) send(line('O', []));
}
process.on('uncaughtException', strayError);
process.on('unhandledRejection', strayError);
