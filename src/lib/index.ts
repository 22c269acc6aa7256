// The process around the composition root: guards that keep it serving past a stray error, and
// how a start that fails ends.

export { installProcessGuards } from './process-guards.ts';
export { failStart } from './start-failure.ts';
