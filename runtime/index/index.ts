// The compiled index of Endpoints the runtime serves: the holder, its sync with the control
// plane's changes, and the compiled records the invoker reads.

export type { CompiledEndpoint } from './compiled.ts';
export { IndexHolder } from './holder.ts';
export type { PreparedStatic } from './static-response.ts';
export { IndexSync } from './sync.ts';
