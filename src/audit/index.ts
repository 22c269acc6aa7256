// The audit trail: recording a change, and its list and routes.

export { AuditLister, auditRoutes } from './list.ts';
export { recordChange } from './record.ts';
export { auditResponseSchemas } from './responses.ts';
