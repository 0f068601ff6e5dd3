import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeError, FlotillaError, isFlotillaError, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';

/** A Redis client (ioredis). Stores take one so a process shares one connection between them. */
export type RedisClient = Redis;

/** The setting that names Redis, as error messages show it. */
export const REDIS_SETTING_NAME = '--redis-url / FLOTILLA_REDIS_URL';

export const REDIS_DEFAULTS = {
  /** Connecting (TCP + handshake) at start, and each reconnect attempt. */
  connectTimeoutMs: 5_000,
  /** One command; past it the command fails (the turn answers an error; it never hangs on Redis). */
  commandTimeoutMs: 2_000,
  /** Reconnects back off from 100 ms, doubling, up to this. */
  reconnectMaxDelayMs: 5_000,
} as const;

const REDIS_URL_MESSAGE = 'must be a redis:// or rediss:// URL such as redis://redis:6379 or rediss://user:password@redis.example.com:6380/0';

/** redis://[user:password@]host[:port][/db] or rediss:// (TLS). */
export const RedisUrlSchema = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' && /^(\/\d{0,2})?$/.test(url.pathname);
    } catch {
      return false;
    }
  }, REDIS_URL_MESSAGE);

/** Settings of a process that can keep its state in Redis (several replicas share it). */
export const REDIS_SETTINGS = {
  redisUrl: {
    flag: 'redis-url',
    env: 'FLOTILLA_REDIS_URL',
    schema: RedisUrlSchema.optional(),
    help: 'Redis for state that replicas share (progressive sessions, conversation memory, spilled results); files or memory when unset',
    secret: true,
  },
  redisKeyPrefix: {
    flag: 'redis-key-prefix',
    env: 'FLOTILLA_REDIS_KEY_PREFIX',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1 to 64 letters, digits or _ . : -')
      .default('flotilla:'),
    help: 'Prefix of every Redis key (the agent name follows), so several installations can share one Redis',
  },
} as const satisfies SettingsSpec;
export type RedisSettings = Settings<typeof REDIS_SETTINGS>;

/** The URL without its credentials, for messages and logs. */
export function redactRedisUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'redis (unparseable URL)';
  }
}

/** What went wrong with Redis, in words a person reads (ioredis's own messages describe its internals). */
function redisReason(error: unknown): string {
  const message = describeError(error);
  if (/enableOfflineQueue|Connection is closed|max retries per request|ECONNREFUSED|ECONNRESET|EPIPE/i.test(message)) {
    return 'Redis is not reachable (reconnecting in the background)';
  }
  if (/Command timed out/i.test(message)) return 'Redis did not answer in time';
  return message;
}

/** A failure of the shared state store while answering: a clear error for the turn, the process stays up. */
export function stateUnavailable(action: string, error: unknown): FlotillaError {
  if (isFlotillaError(error)) return error;
  return new FlotillaError('upstream_unavailable', `the shared state store (Redis) could not ${action}: ${redisReason(error)}`, {
    remedy: `Try again in a moment; if it keeps failing, check Redis (${REDIS_SETTING_NAME}) and the agent's logs.`,
    cause: error,
  });
}

/** Runs one store operation, turning a Redis failure into `stateUnavailable` (our own FlotillaErrors pass through). */
export async function guarded<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw stateUnavailable(action, error);
  }
}

export interface RedisFromUrlOptions {
  readonly logger: Logger;
  /** How the setting is named in the startup error. */
  readonly setting?: string;
  readonly connectTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
}

/**
 * A connected Redis client, or a `config_invalid` error naming the setting when Redis cannot be reached at start
 * (the process stops with it). Afterwards commands never queue while Redis is away: they fail fast (within the
 * command timeout) and the client reconnects in the background with a bounded backoff; the failure and the
 * recovery are logged once each.
 */
export async function redisFromUrl(url: string, options: RedisFromUrlOptions): Promise<RedisClient> {
  const setting = options.setting ?? REDIS_SETTING_NAME;
  const where = redactRedisUrl(url);
  const logger = options.logger.child({ component: 'redis', redis: where });
  // ioredis is loaded by a process that uses Redis, not by every process that could.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? REDIS_DEFAULTS.connectTimeoutMs,
    commandTimeout: options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(REDIS_DEFAULTS.reconnectMaxDelayMs, 100 * 2 ** Math.min(attempt, 10)),
  });
  let healthy = false;
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
    if (!healthy) return;
    healthy = false;
    logger.warn({ err: error }, 'Redis is unreachable; turns that need shared state fail until it is back');
  });
  client.on('ready', () => {
    if (!healthy) logger.info('Redis connected');
    healthy = true;
  });
  try {
    await client.connect();
    const pong: string = await client.ping();
    if (pong !== 'PONG') throw new Error(`PING answered ${JSON.stringify(pong)}`);
  } catch (error) {
    client.disconnect();
    // ioredis rejects with "Connection is closed."; the socket's own error (ECONNREFUSED, NOAUTH…) says more.
    const reason = describeError(describeError(error) === 'Connection is closed.' ? (lastError ?? error) : error);
    throw new FlotillaError('config_invalid', `cannot reach Redis at ${where} (${setting}): ${reason}`, {
      remedy: `Check that Redis is running and reachable at the URL given by ${setting} (host, port, password, TLS with rediss://), or unset it to keep state in this process.`,
      cause: error,
    });
  }
  return client;
}

/** Closes a client made by `redisFromUrl` (QUIT, or a hard disconnect when Redis is away). */
export async function closeRedis(client: RedisClient): Promise<void> {
  try {
    if (client.status === 'ready') {
      await client.quit();
      return;
    }
  } catch {
    // Fall through to the hard disconnect.
  }
  client.disconnect();
}
