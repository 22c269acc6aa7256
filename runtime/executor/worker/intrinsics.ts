// Built-ins the Worker's own code relies on, taken when the Worker starts, before any component
// code runs: whatever a component does to the globals JSON or Buffer, the Worker serializes with
// the real JSON.stringify (so its lines and outcomes are valid JSON) and measures with the real
// Buffer.byteLength (so the result and api.platform limits hold), and prints api.log values with
// the runtime's own inspect (Deno's or Bun's: the two format alike).
export const stringify = JSON.stringify;
export const inspect: (value: unknown) => string =
  'Deno' in globalThis ? (globalThis as unknown as { Deno: { inspect(value: unknown): string } }).Deno.inspect : Bun.inspect;
export const utf8Length = Buffer.byteLength.bind(Buffer);
