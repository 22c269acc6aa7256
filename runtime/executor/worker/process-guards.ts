// What component code may not do to its Worker or its host, taken away before any component code
// runs. On Deno, whose permissions ("none") do not cover them: ending the Worker (self.close(),
// Deno.exit(), process.exit(), which Deno does without the host noticing, so every invocation in it
// would wait for its deadline) and sending signals (Deno.kill). On both platforms:
// process.getBuiltinModule, which would hand over the modules a node component may not import
// (src/components/node-module.ts), such as node:net, whose sockets take raw file descriptors.
// Each becomes a function that throws: the invocation fails as a component error, the Worker lives.

const refuse = (name: string) =>
  function refused(): never {
    throw new Error(`${name} is not available to component code`);
  };

/** Replaces `object[key]` (when present) for good: neither writable nor configurable afterwards. */
function lock(object: object | undefined, key: string, name: string): void {
  if (!object || !(key in object)) return;
  Object.defineProperty(object, key, { value: refuse(name), writable: false, configurable: false, enumerable: false });
}

export function installProcessGuards(): void {
  const process = (globalThis as { process?: object }).process;
  lock(process, 'getBuiltinModule', 'process.getBuiltinModule');
  const deno = (globalThis as { Deno?: object }).Deno;
  if (!deno) return;
  lock(deno, 'exit', 'Deno.exit');
  lock(deno, 'kill', 'Deno.kill');
  lock(process, 'exit', 'process.exit');
  lock(process, 'kill', 'process.kill');
  lock(process, 'abort', 'process.abort');
  lock(globalThis, 'close', 'close');
}
