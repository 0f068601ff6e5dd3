export {
  REDIS_SETTINGS,
  REDIS_DEFAULTS,
  REDIS_SETTING_NAME,
  RedisUrlSchema,
  redisFromUrl,
  closeRedis,
  redactRedisUrl,
  stateUnavailable,
  guarded,
  type RedisClient,
  type RedisSettings,
  type RedisFromUrlOptions,
} from './redis.js';
export { createRedisKeyspace, luaScript, memberOf, transaction, type RedisKeyspace, type RedisKeyspaceOptions } from './keyspace.js';
