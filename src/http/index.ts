// The control plane's HTTP conventions for Elysia: the plugin (oid, credential, problem+json),
// OpenAPI helpers and allowed methods.

export { type AllowedMethods, allowedMethodsOf } from './allowed-methods.ts';
export { DateTime, documentComponents, EVENT_STREAM, Id, Nullable, operation, projectionOf } from './docs.ts';
export { bearerTokenOf, httpConventions, type HttpLogger } from './plugin.ts';
export { docsPage } from './docs-page.ts';
export { withNamedSchemas } from './named-schemas.ts';
export { observeRequests } from './observe.ts';
export { oidOf } from './request-notes.ts';
