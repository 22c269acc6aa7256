// Which JSON Schema keywords a guard accepts without enforcing (annotations), and the ones it
// refuses with a hint, so a user learns at save time what will not be checked at run time.

/** Annotations: kept meaningful for documentation (OpenAPI), never checked. */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'contentMediaType',
  'contentEncoding',
]);

const CONDITIONAL = 'Conditional schemas (if/then/else) are not supported; express the alternatives with anyOf or oneOf';
const DYNAMIC = 'Dynamic and anchored references are not supported; use $ref to "#" or "#/$defs/<name>"';

/** Keywords refused outright, each with what to write instead. */
export const UNSUPPORTED: Readonly<Record<string, string>> = {
  if: CONDITIONAL,
  then: CONDITIONAL,
  else: CONDITIONAL,
  dependentSchemas: 'dependentSchemas is not supported; use anyOf with required lists',
  dependentRequired: 'dependentRequired is not supported; use anyOf with required lists',
  dependencies: 'dependencies (draft 7) is not supported; use anyOf with required lists',
  unevaluatedProperties: 'unevaluatedProperties is not supported; use additionalProperties',
  unevaluatedItems: 'unevaluatedItems is not supported; use items with prefixItems',
  additionalItems: 'additionalItems (draft 7) is not supported; use items with prefixItems (draft 2020-12)',
  $dynamicRef: DYNAMIC,
  $dynamicAnchor: DYNAMIC,
  $recursiveRef: DYNAMIC,
  $recursiveAnchor: DYNAMIC,
  $anchor: DYNAMIC,
  $vocabulary: '$vocabulary is not supported: guards use the draft 2020-12 validation vocabulary',
  contentSchema: 'contentSchema is not supported',
  nullable: 'nullable is OpenAPI 3.0, not JSON Schema; use a type array such as ["string", "null"]',
};

/** `$schema` values a guard accepts: the 2020-12 dialect, and draft 7 whose subset here means the same. */
export const DIALECTS: ReadonlySet<string> = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
  'http://json-schema.org/draft-07/schema',
  'http://json-schema.org/draft-07/schema#',
]);
