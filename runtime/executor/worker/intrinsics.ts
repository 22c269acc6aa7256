// Built-ins the Worker's own code relies on, taken when the Worker starts, before any component
// code runs: whatever a component does to the globals JSON or Buffer, the Worker serializes with
// the real JSON.stringify (so its lines and outcomes are valid JSON) and measures with the real
// Buffer.byteLength (so the result and api.platform limits hold).
export const stringify = JSON.stringify;
export const utf8Length = Buffer.byteLength.bind(Buffer);
