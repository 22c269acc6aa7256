// The executor host, as the server uses it in-process (worker isolation) and reads its hello: the
// host program itself is host-main.ts, run inside the sandbox.

export { HostCore } from './host-core.ts';
export { type HostHello, mountPoints, namespaceOf, selfReport } from './self-report.ts';
