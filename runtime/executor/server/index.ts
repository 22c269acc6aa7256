// The server side of the executor: assembling it, its hosts (a sandboxed process or in-process)
// and the sandbox plan; executor/index.ts builds the executor from these.

export { assembleExecutor } from './executor.ts';
export { startInProcessHost } from './inprocess-host.ts';
export { commonLayers, NO_LAYERS } from './layers.ts';
export { spawnProcessHost } from './process-host.ts';
export { planSandbox } from './sandbox.ts';
