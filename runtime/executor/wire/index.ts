// The line format between the server and its hosts, and between a host and its Workers: lines,
// a reader that splits a byte stream into them, a writer that batches them.

export { BatchWriter } from './batch-writer.ts';
export { lineReader } from './line-reader.ts';
export { eachLine, field, line, payload } from './lines.ts';
