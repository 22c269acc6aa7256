// Which sandbox layers process isolation lacks, and what each needs (issue #24: isolation fails
// closed). Read by the start (refuse, or warn with COMPONENT_ISOLATION_DEGRADED=allow) and /readyz.
import type { ExecutorStatus, SandboxLayers } from './contract/index.ts';

export const LAYER_FIXES: Record<keyof SandboxLayers, string> = {
  emptyEnv: 'hosts start with an empty environment: env must be on PATH',
  unprivilegedUser: 'setpriv must be on PATH and permitted (in a container: do not drop SETUID/SETGID)',
  pidNamespace: 'unshare must be on PATH and user namespaces allowed (in a container: a seccomp profile that permits unshare/clone with namespace flags, e.g. --security-opt seccomp=unconfined or a custom profile)',
  networkNamespace: 'as pidNamespace: unshare with user and network namespaces',
  addressSpaceLimit: 'prlimit must be on PATH and permitted',
  noNewPrivileges: 'setpriv --no-new-privs must be permitted',
  syscallFilter: 'seccomp filters must be allowed (in a container: not --security-opt no-new-privileges conflicts, a kernel with seccomp)',
  ipcNamespace: 'as pidNamespace: unshare with an IPC namespace',
  privateTmp: 'a mount namespace with sh, env and mount on PATH (in a container: the namespaces above)',
};

/** The layers a process-isolation executor does not have; none for worker isolation (it has none by design). */
export function missingLayers(status: Pick<ExecutorStatus, 'isolation' | 'layers'>): (keyof SandboxLayers)[] {
  if (status.isolation !== 'process') return [];
  return (Object.keys(status.layers) as (keyof SandboxLayers)[]).filter((layer) => !status.layers[layer]);
}
