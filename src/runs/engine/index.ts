// src/runs/engine: the run engine (DESIGN §5), and what a tool host is given.
export { RunEngine } from './engine.ts';
export { type ToolCallRequest, type ToolHost } from './tool-host.ts';
export { type ToolCallLedger, type ToolCallRow } from './ledger.ts';
export { engineObserver, runGauges } from './metrics.ts';
