// Turns request bodies into a revision's content with defaults applied (`visible` = true), and
// merges a PATCH into the latest content, so the digest sees meaning rather than spelling.
import type { ComponentContent, ComponentKind, LowcodeElement, NodeResult } from './record.ts';
import type { ComponentCreateBody, ComponentUpdateBody } from './schema.ts';

type ElementBody = { name: string; code: string; visible?: boolean };
type ResultBody = { name: string; visible?: boolean; schema?: Record<string, unknown> };

const elementsOf = (elements: ElementBody[]): LowcodeElement[] =>
  elements.map((e) => ({ name: e.name, code: e.code, visible: e.visible ?? true }));

const resultsOf = (results: ResultBody[]): NodeResult[] =>
  results.map((r) => (r.schema === undefined ? { name: r.name, visible: r.visible ?? true } : { name: r.name, visible: r.visible ?? true, schema: r.schema }));

/** The first revision's content; the body has passed the schema and ./rules.ts. */
export function contentFromCreate(body: ComponentCreateBody): ComponentContent {
  switch (body.kind) {
    case 'lowcode':
      return { kind: 'lowcode', elements: elementsOf(body.elements ?? []) };
    case 'node':
      return body.results === undefined ? { kind: 'node', source: body.source ?? '' } : { kind: 'node', source: body.source ?? '', results: resultsOf(body.results) };
    case 'json-validator':
      return { kind: 'json-validator', schema: body.schema ?? {} };
  }
}

/** Whether a PATCH body touches the content at all. */
export const touchesContent = (body: ComponentUpdateBody): boolean =>
  body.elements !== undefined || body.source !== undefined || body.results !== undefined || body.schema !== undefined;

/**
 * The content a PATCH asks for: each given field replaces the latest one, absent fields are kept
 * (a node PATCH may change `results` alone). `latest` is null only for a component without revisions.
 */
export function contentFromUpdate(kind: ComponentKind, latest: ComponentContent | null, body: ComponentUpdateBody): ComponentContent {
  switch (kind) {
    case 'lowcode': {
      const previous = latest?.kind === 'lowcode' ? latest.elements : [];
      return { kind, elements: body.elements ? elementsOf(body.elements) : previous };
    }
    case 'node': {
      const previous = latest?.kind === 'node' ? latest : { kind, source: '' };
      const source = body.source ?? previous.source;
      const results = body.results === undefined ? previous.results : body.results === null ? undefined : resultsOf(body.results);
      return results === undefined ? { kind, source } : { kind, source, results };
    }
    case 'json-validator': {
      const previous = latest?.kind === 'json-validator' ? latest.schema : {};
      return { kind, schema: body.schema ?? previous };
    }
  }
}

/** What the content column stores: the content without its kind (the component row has it). */
export function storedContent(content: ComponentContent): Record<string, unknown> {
  const { kind: _kind, ...fields } = content;
  return fields;
}

/** Reads the content column back, trusting it was written by storedContent. */
export function contentFromStored(kind: ComponentKind, stored: Record<string, unknown>): ComponentContent {
  return { ...stored, kind } as ComponentContent;
}
