// The contract check: a response the in-process app gave is one its OpenAPI document declares
// (the status for that path and method) with a body matching the declared schema (ajv, 2020-12).
import { appendFile } from 'node:fs/promises';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOC_ID = 'https://control-plane.test/openapi.json';
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export interface ContractCheck {
  /** The document has this operation (the fallbacks' 404 and 405 for other paths and methods are outside it). */
  declares(method: string, path: string): boolean;
  /** What is wrong with this response against the document; empty when it conforms. */
  violations(method: string, path: string, response: { status: number; body: unknown; headers: Headers }): string[];
}

/** Loads the document once from the app (GET /api/v1/docs/json) and checks responses against it. */
export async function openApiContract(app: App): Promise<ContractCheck> {
  const doc = (await (await app.handle(new Request('http://localhost/api/v1/docs/json'))).json()) as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', (value: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)));
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const compiled = new Map<string, ValidateFunction>();
  // A literal segment beats a parameter (/endpoints/settings before /endpoints/{endpointId}).
  const templates = Object.keys(doc.paths)
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`), params: (template.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.params - b.params);

  const templateOf = (path: string) => {
    const pathname = new URL(path, 'http://localhost').pathname;
    return templates.find((t) => t.pattern.test(pathname))?.template;
  };
  return {
    declares: (method, path) => doc.paths[templateOf(path) ?? '']?.[method.toLowerCase()] !== undefined,
    violations(method, path, response) {
      const pathname = new URL(path, 'http://localhost').pathname;
      const template = templateOf(path);
      if (!template) return [`${method} ${pathname}: no path of the document matches`];
      const operation = doc.paths[template]![method.toLowerCase()];
      if (!operation) return [`${method} ${template}: the document has no such operation`];
      const declared = operation.responses[String(response.status)];
      if (!declared) return [`${method} ${template}: status ${response.status} is not declared (${Object.keys(operation.responses).join(', ')})`];
      const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      if (!declared.content) return response.body === null || response.body === undefined || response.body === '' ? [] : [`${method} ${template} ${response.status}: a body where none is declared`];
      if (!declared.content[mediaType]) return [`${method} ${template} ${response.status}: media type ${mediaType} is not declared (${Object.keys(declared.content).join(', ')})`];
      if (mediaType !== 'application/json' && mediaType !== 'application/problem+json') return [];
      const ref = `${DOC_ID}#/${pointer('paths', template, method.toLowerCase(), 'responses', String(response.status), 'content', mediaType, 'schema')}`;
      let validate = compiled.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        compiled.set(ref, validate);
      }
      if (validate(response.body)) return [];
      return (validate.errors ?? []).map((e) => `${method} ${template} ${response.status}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    },
  };
}

type App = { handle(request: Request): Response | Promise<Response> };

/**
 * The app's handler, which with OPENAPI_CONTRACT=1 checks every response to an operation of the
 * document against it and throws on a violation (`=log`: appends it to /tmp/openapi-violations.log).
 * Streams (anything not JSON) are checked for status and media type only, never read.
 */
export function contractChecked(app: App): (request: Request) => Promise<Response> {
  const mode = process.env.OPENAPI_CONTRACT;
  if (!mode) return async (request) => app.handle(request);
  let contract: Promise<ContractCheck> | undefined;
  return async (request) => {
    const response = await app.handle(request);
    const url = new URL(request.url);
    const path = url.pathname + url.search;
    if (!url.pathname.startsWith('/api/v1/') || url.pathname.startsWith('/api/v1/docs')) return response;
    contract ??= openApiContract(app);
    const check = await contract;
    if (!check.declares(request.method, path)) return response;
    const json = /json/.test(response.headers.get('content-type') ?? '');
    const text = json ? await response.clone().text() : '';
    const violations = check.violations(request.method, path, { status: response.status, body: text ? (JSON.parse(text) as unknown) : null, headers: response.headers });
    if (violations.length === 0) return response;
    if (mode === 'log') await appendFile('/tmp/openapi-violations.log', violations.join('\n') + '\n');
    else throw new Error(`OpenAPI contract: ${violations.join('; ')}`);
    return response;
  };
}
