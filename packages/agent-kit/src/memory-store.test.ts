import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError, silentLogger } from '@flotilla/core';
import { closeRedis, NO_REDIS_SERVER, redisFromUrl, redisServerBinary, startRedisServer, type LocalRedisServer, type RedisClient } from '@flotilla/state';
import { boundedMemoryStore } from './memory-store.js';
import { redisMemoryStore } from './redis-memory-store.js';
import type { MemoryStore } from './workflow.js';

interface Memory {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly offset: number;
  readonly note?: string;
}

/** A store holding at most `max` conversations; `now` is the clock where the store takes one. */
type MakeStore = (max: number, now: () => number) => MemoryStore<Memory>;

const memory = (offset: number): Memory => ({ tool: 'list_interfaces', args: { site: 'ams1', role: ['switch', 'router'], deep: { n: null } }, offset, note: 'é ✓' });

/** One contract, every implementation: what the workflow relies on between turns. */
function memoryStoreContract(make: MakeStore): void {
  it('keeps a memory per conversation, as it was saved', async () => {
    const store = make(10, Date.now);
    expect(await store.load('unknown')).toBeUndefined();
    await store.save('ctx-1', memory(0));
    await store.save('ctx-2', memory(45));
    expect(await store.load('ctx-1')).toEqual(memory(0));
    await store.save('ctx-1', memory(90));
    expect(await store.load('ctx-1')).toEqual(memory(90));
    expect(await store.load('ctx-2')).toEqual(memory(45));
  });

  it('forgets a conversation saved without memory', async () => {
    const store = make(10, Date.now);
    await store.save('ctx', memory(0));
    await store.save('ctx', undefined);
    expect(await store.load('ctx')).toBeUndefined();
    await store.save('never-saved', undefined);
    expect(await store.load('never-saved')).toBeUndefined();
  });

  it('stays bounded, dropping the least recently used', async () => {
    let now = 1_000_000;
    const clock = (): number => (now += 1);
    const store = make(3, clock);
    for (const id of ['a', 'b', 'c']) await store.save(id, memory(0));
    // Reading "a" makes "b" the least recently used.
    expect(await store.load('a')).toEqual(memory(0));
    await store.save('d', memory(1));
    expect(await store.load('b')).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(await store.load(id)).toBeDefined();
  });
}

describe('memory store contract: in process (bounded)', () => memoryStoreContract((max) => boundedMemoryStore<Memory>(max)));

const REDIS = redisServerBinary();
describe.skipIf(REDIS === undefined)(`memory store contract: redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
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
  const prefix = (): string => `test:${randomUUID()}:memory:`;

  memoryStoreContract((max, now) => redisMemoryStore<Memory>({ client, keyPrefix: prefix(), maxConversations: max, now }));

  it('expires a memory its TTL after the last use, which a load renews', async () => {
    let now = 5_000_000;
    const keyPrefix = prefix();
    const store = redisMemoryStore<Memory>({ client, keyPrefix, ttlSeconds: 60, now: () => now });
    await store.save('ctx', memory(0));
    now += 50_000;
    expect(await store.load('ctx')).toEqual(memory(0));
    now += 50_000;
    expect(await store.load('ctx')).toEqual(memory(0));
    now += 61_000;
    expect(await store.load('ctx')).toBeUndefined();
    // Redis's own TTL is set too (the clock above is not Redis's).
    await store.save('real', memory(1));
    const keys = await client.keys(`${keyPrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(await client.pttl(key)).toBeGreaterThan(0);
  });

  it('refuses a memory larger than the cap with a clear error, keeping the previous one', async () => {
    const store = redisMemoryStore<Memory>({ client, keyPrefix: prefix(), maxValueBytes: 1_000 });
    await store.save('ctx', memory(0));
    let message = '';
    try {
      await store.save('ctx', { ...memory(1), note: 'x'.repeat(2_000) });
    } catch (error) {
      message = isFlotillaError(error) ? `${error.code}: ${error.message}` : String(error);
    }
    expect(message).toMatch(/^payload_too_large: the conversation memory is \d+ bytes; the shared state store keeps at most 1000 bytes each$/);
    expect(await store.load('ctx')).toEqual(memory(0));
  });

  it('is shared by the stores of every replica on the same prefix, and checks values when asked to', async () => {
    const keyPrefix = prefix();
    const a = redisMemoryStore<Memory>({ client, keyPrefix });
    const b = redisMemoryStore<Memory>({ client, keyPrefix, parse: (value) => ((value as Memory).offset > 100 ? undefined : (value as Memory)) });
    await a.save('ctx', memory(45));
    expect(await b.load('ctx')).toEqual(memory(45));
    await a.save('ctx', memory(500));
    expect(await b.load('ctx')).toBeUndefined();
    expect(await redisMemoryStore<Memory>({ client, keyPrefix: prefix() }).load('ctx')).toBeUndefined();
  });
});
