// What a host uses of the component Worker's code without running it: the failure outcome it
// answers for a Worker that died. The Worker program itself is component-worker.ts.

export { failed } from './outcome.ts';
