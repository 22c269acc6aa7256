// What a host observes about its own confinement, sent in its hello. The server reports a sandbox
// layer only when a running host saw it from the inside, so status() never claims more than is true.
import { readFileSync, readlinkSync } from 'node:fs';
import { HOST_ALLOCATOR_VARIABLE, type ComponentWorkers } from '../contract/index.ts';
import { WORKERS } from './threads.ts';

export interface HostHello {
  pid: number;
  uid: number;
  /** The uid as the parent user namespace sees it (differs from `uid` inside a user namespace). */
  outerUid: number;
  envCount: number;
  /** Namespace links such as 'net:[4026531840]'; the server compares them with its own. */
  netNs: string | null;
  pidNs: string | null;
  /** Soft address-space limit in bytes, null when unlimited. */
  addressSpaceLimit: number | null;
  noNewPrivs: boolean;
  /** A seccomp filter is in force on the host (/proc/self/status `Seccomp: 2`). */
  seccompFilter: boolean;
  /** Why the host runs without its syscall filter, when it does. */
  syscallFilterError?: string;
  ipcNs?: string | null;
  /** Mount points of tmpfs mounts (the last mount on each) with their system-wide mount ids. */
  tmpfsMounts?: Record<string, number>;
  /** The runtime of the host and the permissions its component Workers start with. */
  workers?: ComponentWorkers;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function namespaceOf(kind: 'net' | 'pid' | 'ipc'): string | null {
  try {
    return readlinkSync(`/proc/self/ns/${kind}`);
  } catch {
    return null;
  }
}

/**
 * The mount on each mount point (the last one, which is what a path reaches) from
 * /proc/self/mountinfo ("id parent major:minor root mountpoint options [optional fields] - fstype
 * source options"): its mount id (unique on the system) and file system type.
 */
export function mountPoints(): Map<string, { id: number; fstype: string }> {
  const out = new Map<string, { id: number; fstype: string }>();
  for (const row of read('/proc/self/mountinfo').split('\n')) {
    const fields = row.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash === -1 || fields[4] === undefined) continue;
    out.set(fields[4], { id: Number(fields[0]), fstype: fields[dash + 1] ?? '' });
  }
  return out;
}

/** Maps a uid through /proc/self/uid_map ("inside outside count" ranges) to the parent namespace. */
function outerUid(uid: number): number {
  for (const row of read('/proc/self/uid_map').split('\n')) {
    const [inside, outside, count] = row.trim().split(/\s+/).map(Number);
    if (inside === undefined || outside === undefined || count === undefined) continue;
    if (uid >= inside && uid < inside + count) return outside + (uid - inside);
  }
  return -1;
}

/**
 * What Deno sets in its own environment whatever it is started with: a PATH of only its
 * node-compatibility directory (a `node` that runs Deno) and DENO_NODE_SHIM_ACTIVE. Neither comes
 * from the server.
 */
function denoOwn(name: string, value: string | undefined): boolean {
  if (!('Deno' in globalThis)) return false;
  return name === 'DENO_NODE_SHIM_ACTIVE' || (name === 'PATH' && value !== undefined && /^[^:]*\/node_compat_bin$/.test(value));
}

export function selfReport(syscallFilterError?: string): HostHello {
  const limit = /^Max address space\s+(\S+)/m.exec(read('/proc/self/limits'))?.[1];
  const status = read('/proc/self/status');
  const uid = process.getuid?.() ?? -1;
  return {
    pid: process.pid,
    uid,
    outerUid: outerUid(uid),
    // The allocator setting is the server's own choice of a number (HOST_ALLOCATOR_VARIABLE), not its environment.
    envCount: Object.keys(process.env).filter((name) => name !== HOST_ALLOCATOR_VARIABLE && !denoOwn(name, process.env[name])).length,
    netNs: namespaceOf('net'),
    pidNs: namespaceOf('pid'),
    addressSpaceLimit: limit === undefined || limit === 'unlimited' ? null : Number(limit),
    noNewPrivs: /^NoNewPrivs:\s+1/m.test(status),
    seccompFilter: /^Seccomp:\s+2/m.test(status),
    ipcNs: namespaceOf('ipc'),
    tmpfsMounts: Object.fromEntries([...mountPoints()].filter(([, m]) => m.fstype === 'tmpfs').map(([path, m]) => [path, m.id])),
    workers: WORKERS,
    ...(syscallFilterError === undefined ? {} : { syscallFilterError }),
  };
}
