// What others may use of the index channels.
export type { IndexPublisher, IndexSubscriber, IndexTarget } from './types.ts';
export { InProcessChannel, CompositePublisher, noPublisher } from './in-process.ts';
export { RedisIndexPublisher, RedisIndexSubscriber } from './redis.ts';
export { DatabasePoll } from './poll.ts';
