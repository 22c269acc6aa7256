// What src/core/ holds at its top: the validated configuration, the logger and the Redis client
// with the platform's defaults. Its folders (http/, db/, identity/, …) have their own index.ts.

export { type Config, ConfigError, loadConfig, withBoundPorts } from './config.ts';
export { createLogger, type Logger } from './log.ts';
export { createRedis, indexKeys, type IndexKeys, REDIS_COMMAND_TIMEOUT_MS, redisAnswers, SNAPSHOT_TTL_SECONDS } from './redis.ts';
