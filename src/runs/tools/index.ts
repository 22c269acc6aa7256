// src/runs/tools: what other folders use.
export { RegistryToolHost } from './host.ts';
export { McpClients } from './mcp.ts';
