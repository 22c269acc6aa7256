// Body rules beyond the schema (DESIGN §7): which content fields a kind takes, unique element and
// result names, and no NUL characters. Safe on any parsed JSON, so it runs beside the schema check.
import type { Violation } from '../core/http/index.ts';
import { COMPONENT_KINDS, type ComponentKind } from './record.ts';

type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 6901 escaping of one reference token. */
const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

const CONTENT_FIELDS = ['elements', 'source', 'results', 'schema'] as const;

/** The content fields each kind takes; the first one is required at create. */
const FIELDS_OF: Record<ComponentKind, readonly (typeof CONTENT_FIELDS)[number][]> = {
  lowcode: ['elements'],
  node: ['source', 'results'],
  'json-validator': ['schema'],
};

const isKind = (value: unknown): value is ComponentKind => COMPONENT_KINDS.includes(value as ComponentKind);

/** Create: the body's own kind decides; a missing or unknown kind is the schema's to report. */
export function createRuleViolations(body: unknown): Violation[] {
  if (!isRecord(body) || !isKind(body.kind)) return isRecord(body) ? commonViolations(body) : [];
  const out = fieldViolations(body, body.kind);
  const required = FIELDS_OF[body.kind][0]!;
  if (body[required] === undefined) out.push({ pointer: `/${required}`, message: `Required for a ${body.kind} component` });
  return [...out, ...commonViolations(body)];
}

/** PATCH: the stored kind decides. */
export function updateRuleViolations(body: unknown, kind: ComponentKind): Violation[] {
  if (!isRecord(body)) return [];
  return [...fieldViolations(body, kind), ...commonViolations(body)];
}

function fieldViolations(body: JsonRecord, kind: ComponentKind): Violation[] {
  return CONTENT_FIELDS.filter((f) => body[f] !== undefined && !FIELDS_OF[kind].includes(f)).map((f) => ({
    pointer: `/${f}`,
    message: `Not a field of a ${kind} component (it takes ${FIELDS_OF[kind].join(', ')})`,
  }));
}

function commonViolations(body: JsonRecord): Violation[] {
  const out: Violation[] = [];
  duplicateNames(body.elements, '/elements', 'element', out);
  duplicateNames(body.results, '/results', 'result', out);
  for (const field of CONTENT_FIELDS) nulViolations(body[field], `/${field}`, out);
  return out;
}

function duplicateNames(list: unknown, pointer: string, what: string, out: Violation[]): void {
  if (!Array.isArray(list)) return;
  const seen = new Set<string>();
  list.forEach((item: unknown, index) => {
    if (!isRecord(item) || typeof item.name !== 'string') return;
    if (seen.has(item.name)) out.push({ pointer: `${pointer}/${index}/name`, message: `Duplicate ${what} name "${item.name}"` });
    seen.add(item.name);
  });
}

/** Postgres cannot store U+0000 in JSON text, so it is refused on both databases alike. */
function nulViolations(value: unknown, pointer: string, out: Violation[]): void {
  if (out.length >= 100) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push({ pointer, message: 'NUL characters (U+0000) are not allowed' });
  } else if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => nulViolations(item, `${pointer}/${index}`, out));
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${escapePointerToken(key)}`;
      if (key.includes('\u0000')) out.push({ pointer: at, message: 'NUL characters (U+0000) are not allowed' });
      nulViolations(item, at, out);
    }
  }
}
