// Source checks on save (DESIGN §7): lowcode bodies parse, node modules parse with only node:
// imports, schemas compile. Failures are 422 SOURCE_INVALID, each with a pointer into the body and,
// for code, the line and column in the message. Code is parsed, never transpiled or run, here: a
// node module is transpiled and loaded in the executor's sandbox when it is deployed. These pure
// checks run on a thread of their own with a time limit (./source-checker.ts).
import type { Violation } from '../core/http/index.ts';
import { describeAt } from './build-errors.ts';
import { functionBodyErrors } from './function-body.ts';
import { moduleErrors } from './node-module.ts';
import { schemaErrors } from './guard-check.ts';
import type { ComponentContent, NodeResult } from './record.ts';

export type SourceCheck = { ok: true } | { ok: false; errors: Violation[] };

/** Checks a revision's content. */
export function checkContent(content: ComponentContent): SourceCheck {
  switch (content.kind) {
    case 'lowcode': {
      const errors = content.elements.flatMap((element, i) =>
        functionBodyErrors(element.code).map((e) => ({ pointer: `/elements/${i}/code`, message: describeAt(e) })),
      );
      return errors.length > 0 ? { ok: false, errors } : { ok: true };
    }
    case 'node': {
      const errors = [...sourceErrors(content.source), ...resultSchemaErrors(content.results ?? [])];
      return errors.length > 0 ? { ok: false, errors } : { ok: true };
    }
    case 'json-validator': {
      const errors = schemaErrors(content.schema).map((e) => ({ pointer: `/schema${e.pointer}`, message: e.message }));
      return errors.length > 0 ? { ok: false, errors } : { ok: true };
    }
  }
}

const sourceErrors = (source: string): Violation[] => moduleErrors(source).map((e) => ({ pointer: '/source', message: describeAt(e) }));

/** Declared result schemas end up in generated OpenAPI, so they must compile too. */
function resultSchemaErrors(results: NodeResult[]): Violation[] {
  return results.flatMap((result, i) =>
    result.schema === undefined ? [] : schemaErrors(result.schema).map((e) => ({ pointer: `/results/${i}/schema${e.pointer}`, message: e.message })),
  );
}

/** The code checks of checkContent, on a body that did not pass its schema (best effort). */
export function sourceViolations(body: { elements?: unknown; source?: unknown; schema?: unknown }, kind: unknown): Violation[] {
  if (kind === 'lowcode' && Array.isArray(body.elements)) {
    return body.elements.flatMap((element: unknown, i) => {
      const code = (element as { code?: unknown } | null)?.code;
      return typeof code === 'string' ? functionBodyErrors(code).map((e) => ({ pointer: `/elements/${i}/code`, message: describeAt(e) })) : [];
    });
  }
  if (kind === 'node' && typeof body.source === 'string') {
    return sourceErrors(body.source);
  }
  if (kind === 'json-validator' && body.schema !== undefined) {
    return schemaErrors(body.schema).map((e) => ({ pointer: `/schema${e.pointer}`, message: e.message }));
  }
  return [];
}
