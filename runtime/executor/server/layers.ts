// Which sandbox layers are really in force, judged from what the hosts saw from the inside
// compared with the server's own view. Nothing here is assumed from the command line.
import { type HostHello, mountPoints, namespaceOf } from '../host/index.ts';
import type { ComponentWorkers, SandboxLayers } from '../contract/index.ts';
import { platform } from '../../../src/core/platform/index.ts';

export const NO_LAYERS: SandboxLayers = {
  emptyEnv: false,
  unprivilegedUser: false,
  pidNamespace: false,
  networkNamespace: false,
  addressSpaceLimit: false,
  noNewPrivileges: false,
  syscallFilter: false,
  ipcNamespace: false,
  privateTmp: false,
};

const serverView = { netNs: namespaceOf('net'), pidNs: namespaceOf('pid'), ipcNs: namespaceOf('ipc'), uid: process.getuid?.() ?? -1, mounts: mountPoints() };

/** @param masked the directories the sandbox plan gives each host a private tmpfs on */
function observedLayers(hello: HostHello, masked: readonly string[]): SandboxLayers {
  return {
    emptyEnv: hello.envCount === 0,
    // Unprivileged means: not root, and not the server's own user, as the server's namespace sees it.
    unprivilegedUser: hello.outerUid > 0 && hello.outerUid !== serverView.uid,
    pidNamespace: hello.pid === 1 && hello.pidNs !== null && hello.pidNs !== serverView.pidNs,
    networkNamespace: hello.netNs !== null && hello.netNs !== serverView.netNs,
    addressSpaceLimit: hello.addressSpaceLimit !== null,
    noNewPrivileges: hello.noNewPrivs,
    syscallFilter: hello.seccompFilter === true,
    ipcNamespace: hello.ipcNs != null && hello.ipcNs !== serverView.ipcNs,
    // On every such directory a tmpfs that is not the mount the server sees there (mount ids are system-wide).
    privateTmp: masked.length > 0 && masked.every((dir) => {
      const id = hello.tmpfsMounts?.[dir];
      return id !== undefined && id !== serverView.mounts.get(dir)?.id;
    }),
  };
}

/** A layer counts only if every host has it. */
export function commonLayers(hellos: HostHello[], masked: readonly string[]): SandboxLayers {
  if (hellos.length === 0) return { ...NO_LAYERS };
  const all = hellos.map((hello) => observedLayers(hello, masked));
  const out = { ...NO_LAYERS };
  for (const key of Object.keys(out) as (keyof SandboxLayers)[]) out[key] = all.every((l) => l[key]);
  return out;
}

/** What the hosts' component Workers run on; permissions `none` only when every host says so. */
export function workersOf(hellos: HostHello[]): ComponentWorkers {
  const runtime = hellos[0]?.workers?.runtime ?? platform.name;
  const none = hellos.length > 0 && hellos.every((hello) => hello.workers?.permissions === 'none');
  return { runtime, permissions: none ? 'none' : 'unrestricted' };
}
