// Per-Endpoint statistics: the runtime's recorder adds them, the control plane reads them. A folder
// of its own, apart from definitions/, so that the recorder's writer thread loads only this.
export { addStatistics, bucketOf, LATENCY_BOUNDS_MS, readStatistics, type StatisticsDelta } from './statistics.ts';
