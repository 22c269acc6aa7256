// A seccomp filter for executor hosts, installed by the host on itself before it runs any
// component code: no new programs (execve), no new processes (fork, vfork, clone without
// CLONE_THREAD), and none of the calls that reach other processes or widen the kernel's attack
// surface (ptrace, namespaces, mount, bpf, perf events, userfaultfd, keyrings), and no new Unix
// sockets: the network namespace leaves no interface to reach, but a socket on the file system (a
// database's, say) would still connect. io_uring is refused too, as its socket and file operations
// never pass through this filter, and so is memfd_create: memory written to such a file counts
// against neither the address-space limit nor any process's resident size, so the kernel's
// out-of-memory killer would pick an innocent process (another workspace's host) for it. The
// host's channel to the server is a socket it inherits, so it keeps working. Threads stay
// allowed, so Bun Workers start as before. Calls through `bun:ffi` (a component may dlopen libc)
// meet the same filter, since it is the kernel that enforces it. The filter is irrevocable and
// applies to every thread of the host (TSYNC) and to anything they could start. libc is reached
// through bun:ffi on Bun and Deno.dlopen on Deno (./libc.ts).
import { openLibc } from './libc.ts';

interface Arch {
  audit: number;
  seccomp: number;
  /** Always refused with EPERM. */
  denied: number[];
  /** Refused for AF_UNIX only. */
  socket: number;
  clone: number;
  clone3: number;
}

// Linux syscall numbers per architecture (asm/unistd_64.h; asm-generic/unistd.h for arm64).
const ARCHES: Record<string, Arch> = {
  x64: {
    audit: 0xc000003e, // AUDIT_ARCH_X86_64
    seccomp: 317,
    // execve, execveat, fork, vfork, ptrace, unshare, setns, mount, umount2, pivot_root, bpf,
    // perf_event_open, userfaultfd, keyctl, add_key, request_key, process_vm_readv/writev,
    // io_uring_setup, memfd_create
    denied: [59, 322, 57, 58, 101, 272, 308, 165, 166, 155, 321, 298, 323, 250, 248, 249, 310, 311, 425, 319],
    socket: 41,
    clone: 56,
    clone3: 435,
  },
  arm64: {
    audit: 0xc00000b7, // AUDIT_ARCH_AARCH64
    seccomp: 277,
    denied: [221, 281, 117, 97, 268, 40, 39, 41, 280, 241, 282, 219, 217, 218, 270, 271, 425, 279],
    socket: 198,
    clone: 220,
    clone3: 435,
  },
};

const SECCOMP_SET_MODE_FILTER = 1;
const SECCOMP_FILTER_FLAG_TSYNC = 1;
const PR_SET_NO_NEW_PRIVS = 38;
const CLONE_THREAD = 0x00010000;
const AF_UNIX = 1;
const X32_SYSCALL_BIT = 0x40000000;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_ENOSYS = 0x00050000 | 38;

// Classic BPF opcodes.
const LD_ABS_W = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const JSET = 0x45;
const RET = 0x06;
// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little endian).
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter program for an architecture. */
function filterProgram(arch: Arch): Insn[] {
  const p: Insn[] = [];
  // A foreign architecture (e.g. 32-bit calls on a 64-bit kernel) or the x32 ABI: refuse.
  p.push([LD_ABS_W, 0, 0, ARCH], [JEQ, 1, 0, arch.audit], [RET, 0, 0, RET_EPERM]);
  p.push([LD_ABS_W, 0, 0, NR]);
  if (arch.audit === ARCHES.x64!.audit) p.push([JGE, 0, 1, X32_SYSCALL_BIT], [RET, 0, 0, RET_EPERM]);
  for (const nr of arch.denied) p.push([JEQ, 0, 1, nr], [RET, 0, 0, RET_EPERM]);
  // socket(AF_UNIX, …) refused; any other family allowed (nothing to reach in the namespace).
  p.push([JEQ, 0, 4, arch.socket], [LD_ABS_W, 0, 0, ARG0_LOW], [JEQ, 0, 1, AF_UNIX], [RET, 0, 0, RET_EPERM], [RET, 0, 0, RET_ALLOW]);
  // clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone.
  p.push([JEQ, 0, 1, arch.clone3], [RET, 0, 0, RET_ENOSYS]);
  p.push([JEQ, 0, 3, arch.clone], [LD_ABS_W, 0, 0, ARG0_LOW], [JSET, 1, 0, CLONE_THREAD], [RET, 0, 0, RET_EPERM]);
  p.push([RET, 0, 0, RET_ALLOW]);
  return p;
}

/** Installs the filter on the whole process; returns why not when it cannot. */
export async function installSyscallFilter(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const arch = ARCHES[process.arch];
  if (!arch) return { ok: false, reason: `no filter for architecture ${process.arch}` };
  let libc;
  try {
    libc = await openLibc();
  } catch (error) {
    return { ok: false, reason: `libc not loadable: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    const program = filterProgram(arch);
    const filter = new Uint8Array(program.length * 8);
    const view = new DataView(filter.buffer);
    program.forEach(([code, jt, jf, k], i) => {
      view.setUint16(i * 8, code, true);
      view.setUint8(i * 8 + 2, jt);
      view.setUint8(i * 8 + 3, jf);
      view.setUint32(i * 8 + 4, k >>> 0, true);
    });
    // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
    const fprog = new Uint8Array(16);
    const fview = new DataView(fprog.buffer);
    fview.setUint16(0, program.length, true);
    fview.setBigUint64(8, libc.address(filter), true);
    // Required for an unprivileged filter; the sandbox sets it already (setpriv --nnp).
    if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) return { ok: false, reason: 'prctl(PR_SET_NO_NEW_PRIVS) failed' };
    const result = libc.syscall(arch.seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, fprog);
    if (Number(result) !== 0) return { ok: false, reason: `seccomp(SET_MODE_FILTER, TSYNC) returned ${result}` };
    return { ok: true };
  } finally {
    libc.close();
  }
}
