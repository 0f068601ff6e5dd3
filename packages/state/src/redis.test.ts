import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError, parseSettings, silentLogger } from '@flotilla/core';
import { createRedisKeyspace } from './keyspace.js';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from './local-server.js';
import { closeRedis, REDIS_SETTINGS, redactRedisUrl, redisFromUrl, type RedisClient } from './redis.js';

const REDIS = redisServerBinary();
const skipped = REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : '';

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return isFlotillaError(error) ? { code: error.code, message: error.message } : { code: 'not a FlotillaError', message: String(error) };
  }
  return { code: 'no error', message: '' };
}

describe('Redis settings', () => {
  it('accept redis:// and rediss:// URLs and name the setting otherwise', () => {
    expect(parseSettings(REDIS_SETTINGS, { 'redis-url': 'rediss://u:p@redis.example.com:6380/2' }, {}, 't').redisUrl).toBe('rediss://u:p@redis.example.com:6380/2');
    expect(parseSettings(REDIS_SETTINGS, {}, { FLOTILLA_REDIS_URL: 'redis://redis:6379' }, 't')).toEqual({ redisUrl: 'redis://redis:6379', redisKeyPrefix: 'flotilla:' });
    expect(() => parseSettings(REDIS_SETTINGS, { 'redis-url': 'http://secret@redis:6379' }, {}, 't')).toThrow(/--redis-url \/ FLOTILLA_REDIS_URL: must be a redis:\/\/ .*\(given\)/);
    expect(() => parseSettings(REDIS_SETTINGS, { 'redis-key-prefix': 'a b' }, {}, 't')).toThrow(/--redis-key-prefix/);
  });
  it('never show the password', () => {
    expect(redactRedisUrl('redis://user:hunter2@redis:6379/1')).toBe('redis://redis:6379/1');
  });
});

describe.skipIf(REDIS === undefined)(`Redis connection and keyspace${skipped}`, () => {
  let server: LocalRedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    server = await startRedisServer();
    client = await redisFromUrl(server.url, { logger: silentLogger() });
  });
  afterAll(async () => {
    await closeRedis(client);
    await server.stop();
  });

  it('refuses to start against an unreachable Redis, naming the setting and not the password', async () => {
    const down = `redis://admin:hunter2@127.0.0.1:${server.port + 1 === 65536 ? 1 : server.port + 1}`;
    const error = await failure(redisFromUrl(down, { logger: silentLogger(), connectTimeoutMs: 1_000 }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(--redis-url \/ FLOTILLA_REDIS_URL\): .*ECONNREFUSED/);
    expect(error.message).not.toContain('hunter2');
  });

  it('keeps values with an expiry, bounded, the first to expire going first', async () => {
    let now = 1_000_000;
    const space = createRedisKeyspace({ client, prefix: `t:${randomUUID()}:`, maxEntries: 3, maxValueBytes: 100, what: 'thing', now: () => now });
    for (let i = 0; i < 5; i += 1) await space.put(`id-${i}`, `v${i}`, now + 60_000 + i);
    expect(await space.size()).toBe(3);
    expect(await space.get('id-0')).toBeUndefined();
    expect(await space.get('id-4')).toBe('v4');
    // Touching id-2 moves its expiry past the others: id-3 now expires first and goes at the next put.
    expect(await space.get('id-2', { expiresAt: now + 120_000 })).toBe('v2');
    await space.put('id-5', 'v5', now + 60_005);
    expect(await space.get('id-3')).toBeUndefined();
    expect(await space.get('id-2')).toBe('v2');
    now += 61_000;
    expect(await space.get('id-4')).toBeUndefined();
    expect(await space.size()).toBe(1);
    await space.delete('id-2');
    expect(await space.get('id-2')).toBeUndefined();
    expect(await space.size()).toBe(0);
  });

  it('refuses a value over the cap with a clear error', async () => {
    const space = createRedisKeyspace({ client, prefix: `t:${randomUUID()}:`, maxEntries: 3, maxValueBytes: 10, what: 'conversation memory' });
    const error = await failure(space.put('id', 'x'.repeat(11), Date.now() + 1_000));
    expect(error).toEqual({ code: 'payload_too_large', message: 'the conversation memory is 11 bytes; the shared state store keeps at most 10 bytes each' });
  });

  it('fails a command fast and clearly while Redis is away, and works again when it is back', async () => {
    const own = await startRedisServer();
    const c = await redisFromUrl(own.url, { logger: silentLogger() });
    const space = createRedisKeyspace({ client: c, prefix: 'away:', maxEntries: 10, maxValueBytes: 100, what: 'progressive session' });
    await space.put('a', '1', Date.now() + 60_000);
    await own.stop();
    const error = await failure(space.get('a'));
    expect(error.code).toBe('upstream_unavailable');
    // Fast: refused at once for want of a connection ("not reachable"), not queued until the command timeout ("did
    // not answer in time").
    expect(error.message).toBe('the shared state store (Redis) could not read a progressive session: Redis is not reachable (reconnecting in the background)');
    const again = await startRedisServer({ port: own.port });
    try {
      const deadline = Date.now() + 30_000;
      while (c.status !== 'ready' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await space.get('a')).toBeUndefined();
      await space.put('a', '2', Date.now() + 60_000);
      expect(await space.get('a')).toBe('2');
    } finally {
      await closeRedis(c);
      await again.stop();
    }
  });
});
