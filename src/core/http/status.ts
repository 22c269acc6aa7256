// HTTP status facts shared by the runtime's responses and the OpenAPI documents describing them.

/** Statuses that carry no content (RFC 9110): no body and no content type, whatever was given. */
export const carriesNoContent = (status: number): boolean => status === 204 || status === 205 || status === 304;
