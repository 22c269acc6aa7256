// The platform for programs beside src/ (tests, benches): start a whole process of a role
// (./compose.ts, what main.ts runs), or build the control plane alone (./platform.ts).
export { start } from './compose.ts';
export { createPlatform, type Platform } from './platform.ts';
