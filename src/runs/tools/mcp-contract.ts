// What the tool registry sees of MCP servers (DESIGN §5 Tools): a server's configuration (an
// mcp_server plugin's `mcpServer` block), the tools it lists, and the one error with its codes.

export interface McpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

export interface McpServerConfig {
  transport?: 'streamable_http' | 'sse';
  url?: string;
  manifestTtlMs?: number;
  connectTimeoutMs?: number;
  toolNamePrefix?: string;
  authMode?: 'none' | 'bearer' | 'basic' | 'header';
  bearerSecretId?: string;
  basicUsername?: string;
  basicPasswordSecretId?: string;
  headers?: { name: string; secretId?: string; value?: string; prefix?: string }[];
}

/**
 * UNREACHABLE: no connection, a refused request (HTTP 401, 404…) or a connection lost; TIMEOUT:
 * the handshake or a call passed its limit; TOOL_ERROR: the server answered with an error or a
 * malformed answer; BAD_CONFIG: the configuration cannot be used (url, auth fields, a missing
 * secret), found before any request. Messages name fields and secret ids, never a secret's value.
 */
type McpErrorCode = 'UNREACHABLE' | 'TIMEOUT' | 'TOOL_ERROR' | 'BAD_CONFIG';

export class McpError extends Error {
  override name = 'McpError';

  constructor(
    readonly code: McpErrorCode,
    message: string,
  ) {
    super(message);
  }
}
