/**
 * For tests only, never loaded by a running Flotilla: a throwaway `redis-server` on a free port of 127.0.0.1
 * (`startRedisServer`), and whether the binary is there to start one (`redisServerBinary`; tests skip, naming why,
 * when it is not).
 */
export { startRedisServer, redisServerBinary, NO_REDIS_SERVER, type LocalRedisServer, type LocalRedisOptions } from './local-server.js';
