// Runs `wrk` (Debian's wrk 4.x, a separate process) against a URL and parses its report.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WrkOptions {
  seconds: number;
  connections: number;
  /** wrk threads; 1 leaves the other core to the server on a 2-core machine. */
  threads?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkResult {
  requests: number;
  requestsPerSecond: number;
  /** Latency percentiles in milliseconds (wrk's --latency distribution). */
  p50: number;
  p90: number;
  p99: number;
  /** Responses outside 2xx/3xx, and socket errors (connect, read, write, timeout): both must be 0. */
  non2xx: number;
  socketErrors: number;
}

/** Throws unless `wrk` is on PATH. */
export function requireWrk(): void {
  if (!Bun.which('wrk')) throw new Error('wrk not found on PATH (Debian: apt-get install -y wrk)');
}

let scriptDir: string | null = null;

/** A Lua script setting method and body (wrk's -H sets headers, but a body needs a script). */
function requestScript(method: string, body: string | undefined): string {
  scriptDir ??= mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const file = join(scriptDir, `${method}-${Bun.hash(body ?? '').toString(16)}.lua`);
  const lines = [`wrk.method = ${luaString(method)}`];
  if (body !== undefined) lines.push(`wrk.body = ${luaString(body)}`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const luaString = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;

export async function wrk(url: string, o: WrkOptions): Promise<WrkResult> {
  const args = ['wrk', `-t${o.threads ?? 1}`, `-c${o.connections}`, `-d${o.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(o.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if ((o.method && o.method !== 'GET') || o.body !== undefined) args.push('-s', requestScript(o.method ?? 'GET', o.body));
  args.push(url);
  const p = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${err || out}`);
  return parseWrk(out);
}

/** Parses wrk's text report; durations become milliseconds. */
function parseWrk(out: string): WrkResult {
  const percentile = (p: number) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`wrk output without a ${p}% line:\n${out}`);
    return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[m[2]!]!;
  };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`wrk output without Requests/sec:\n${out}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    requestsPerSecond: Number(rps[1]),
    p50: percentile(50),
    p90: percentile(90),
    p99: percentile(99),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}
