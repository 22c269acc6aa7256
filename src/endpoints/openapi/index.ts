// The OpenAPI document of the published Endpoints: paths, operations, schemas and responses.

export { buildOperation } from './operation.ts';
export { operationIds, paramNames, type PathSegment, shapeOf, splitPath, templateOf } from './paths.ts';
export { responseComponents } from './responses.ts';
export { type JsonObject, LEGACY_RESULTS_SCHEMA, PROBLEM_SCHEMA, SchemaComponents } from './schemas.ts';
