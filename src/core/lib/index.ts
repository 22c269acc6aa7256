// Small helpers without a part of their own: ids, calendar formats, a mutex, a TTL cache,
// process liveness.

export { isDate, isDateTime, isTime } from './calendar.ts';
export { isUuid } from './ids.ts';
export { Mutex } from './mutex.ts';
export { processAlive } from './process-alive.ts';
export { type RefreshAhead, TtlCache } from './ttl-cache.ts';
export { canonicalJson } from './canonical-json.ts';
export { plainHttpRefusal } from './loopback.ts';
