// The HTTP headers an MCP server's authMode asks for, with the secrets read at call time (so a
// deleted secret stops working at once). Refusals name the field or the secret id, never a value.
import { McpError, type McpServerConfig } from './mcp-contract.ts';

type Reveal = (workspaceId: string, secretId: string) => Promise<string | null>;

/** The headers and, for redaction, every secret-bearing string they hold. */
export interface Credentials {
  headers: Record<string, string>;
  secrets: string[];
}

/** RFC 9110 token: what a header name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the transports set themselves; a binding replacing one would break the protocol. */
const TRANSPORT_HEADERS = new Set(['accept', 'connection', 'content-length', 'content-type', 'host', 'last-event-id', 'mcp-protocol-version', 'mcp-session-id', 'transfer-encoding']);
/** A header value is Latin-1 text without line breaks or NUL (fetch would refuse it, naming the value). */
const UNSENDABLE = /[\r\n\0]|[^\u0000-\u00ff]/;

const bad = (message: string) => new McpError('BAD_CONFIG', message);

export async function credentialsFor(workspaceId: string, server: McpServerConfig, reveal: Reveal): Promise<Credentials> {
  const secrets: string[] = [];
  const secret = async (id: string | undefined, field: string): Promise<string> => {
    if (id === undefined || id === '') throw bad(`authMode ${server.authMode} needs ${field}`);
    let value: string | null;
    try {
      value = await reveal(workspaceId, id);
    } catch (error) {
      throw bad(`Secret ${id} (${field}) could not be read: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
    if (value === null) throw bad(`Secret ${id} (${field}) does not exist in the agent's workspace`);
    secrets.push(value);
    return value;
  };
  const headers: Record<string, string> = {};
  const set = (name: string, value: string, where: string, fromSecret: boolean) => {
    if (UNSENDABLE.test(value)) throw bad(`The value of header ${name} (${where}) contains a line break, NUL or a character beyond Latin-1`);
    headers[name] = value;
    if (fromSecret) secrets.push(value);
  };

  const mode = server.authMode ?? 'none';
  switch (mode) {
    case 'none':
      break;
    case 'bearer':
      set('authorization', `Bearer ${await secret(server.bearerSecretId, 'bearerSecretId')}`, 'bearerSecretId', true);
      break;
    case 'basic': {
      const user = server.basicUsername;
      if (user === undefined) throw bad('authMode basic needs basicUsername');
      // RFC 7617: the user-id cannot hold a colon, the password can.
      if (user.includes(':')) throw bad('basicUsername may not contain ":"');
      const password = await secret(server.basicPasswordSecretId, 'basicPasswordSecretId');
      set('authorization', `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`, 'basicPasswordSecretId', true);
      break;
    }
    case 'header': {
      const bindings = server.headers ?? [];
      if (bindings.length === 0) throw bad('authMode header needs at least one entry in headers');
      for (const [index, binding] of bindings.entries()) {
        const where = `headers/${index}`;
        const name = binding.name?.toLowerCase() ?? '';
        if (!TOKEN.test(name)) throw bad(`${where}/name must be a header name (an RFC 9110 token)`);
        if (TRANSPORT_HEADERS.has(name)) throw bad(`${where}/name: ${name} is set by the MCP transport and cannot be configured`);
        if (name in headers) throw bad(`${where}/name: header ${name} is configured twice`);
        const value = binding.secretId !== undefined ? await secret(binding.secretId, `${where}/secretId`) : binding.value;
        if (value === undefined) throw bad(`${where} needs secretId or value`);
        set(name, (binding.prefix ?? '') + value, where, binding.secretId !== undefined);
      }
      break;
    }
    default:
      throw bad(`Unknown authMode ${String(mode satisfies never)}`);
  }
  return { headers, secrets };
}
