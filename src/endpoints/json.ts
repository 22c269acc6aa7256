// The Endpoint as the API returns it.
import type { EndpointRecord } from '../core/definitions/index.ts';

export function endpointJson(e: EndpointRecord) {
  const { createdAt, updatedAt, ...rest } = e;
  return { ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() };
}
