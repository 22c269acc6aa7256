// The endpoint runtime, for the composition root (src/compose.ts): build it from its parts and
// serve it on a bound port.

export { createRuntime } from './create.ts';
export { serveRuntime } from './serve.ts';
