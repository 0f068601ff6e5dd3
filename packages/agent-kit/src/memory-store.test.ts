import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError, silentLogger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { closeRedis, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import { boundedMemoryStore, CONVERSATION_STORE_LIMITS } from './memory-store.js';
import { redisMemoryStore } from './redis-memory-store.js';
import type { MemoryStore } from './domain.js';

interface Memory {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly offset: number;
  readonly note?: string;
}

/** A store holding at most `max` conversations of at most `maxEntryBytes` each; `now` is the clock where the store takes one. */
type MakeStore = (max: number, now: () => number, maxEntryBytes?: number) => MemoryStore<Memory>;

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

  it('refuses a memory larger than the cap with a clear error, keeping the previous one', async () => {
    const store = make(10, Date.now, 1_000);
    await store.save('ctx', memory(0));
    let message = '';
    try {
      await store.save('ctx', { ...memory(1), note: 'x'.repeat(2_000) });
    } catch (error) {
      message = isFlotillaError(error) ? `${error.code}: ${error.message}` : String(error);
    }
    expect(message).toMatch(/^payload_too_large: the conversation memory is \d+ bytes; (the shared state store|this agent) keeps at most 1000 bytes each$/);
    expect(await store.load('ctx')).toEqual(memory(0));
  });
}

describe('memory store contract: in process (bounded)', () =>
  memoryStoreContract((max, _now, maxEntryBytes) => boundedMemoryStore<Memory>({ maxEntries: max, ...(maxEntryBytes === undefined ? {} : { maxEntryBytes }) })));

/** The value of a store metric for `store` (and `reason`), read back from the registry. */
async function metricValue(metrics: FlotillaMetrics, name: 'storeBytes' | 'storeEntries' | 'storeEvictions', store: string, reason?: string): Promise<number | undefined> {
  const { values } = await metrics[name].get();
  return values.find((v) => {
    const labels: Readonly<Record<string, unknown>> = v.labels;
    return labels.store === store && (reason === undefined || labels.reason === reason);
  })?.value;
}

describe('memory store in process: bounded in bytes as well as entries', () => {
  /** A memory whose size (JSON and key) is close to `bytes`. */
  const sized = (bytes: number): Memory => ({ ...memory(0), note: 'y'.repeat(bytes - 200) });

  it('stays under its byte cap with 350 conversations each near the per-entry cap, and the metrics say so', async () => {
    const metrics = createMetrics();
    const store = boundedMemoryStore<Memory>({ metrics });
    const { maxBytes, maxEntryBytes } = CONVERSATION_STORE_LIMITS;
    for (let i = 0; i < 350; i += 1) await store.save(`ctx-${i}`, sized(maxEntryBytes - 100));
    expect(store.bytes).toBeLessThanOrEqual(maxBytes);
    expect(store.bytes).toBeGreaterThan(maxBytes - maxEntryBytes);
    // Each memory is under maxEntryBytes: at least maxBytes / maxEntryBytes of them fit, far fewer than 350.
    const kept = store.size;
    expect(kept).toBeGreaterThanOrEqual(Math.floor(maxBytes / maxEntryBytes));
    expect(kept).toBeLessThan(350);
    // The newest are kept, the oldest went.
    expect(await store.load('ctx-349')).toBeDefined();
    expect(await store.load('ctx-0')).toBeUndefined();
    expect(await metricValue(metrics, 'storeBytes', 'conversation')).toBe(store.bytes);
    expect(await metricValue(metrics, 'storeEntries', 'conversation')).toBe(kept);
    expect(await metricValue(metrics, 'storeEvictions', 'conversation', 'bytes_cap')).toBe(350 - kept);
    expect(await metricValue(metrics, 'storeEvictions', 'conversation', 'entries_cap')).toBeUndefined();
  });

  it('evicts the least recently used first when over its byte cap', async () => {
    const store = boundedMemoryStore<Memory>({ maxBytes: 3_000, maxEntryBytes: 1_000 });
    for (const id of ['a', 'b', 'c']) await store.save(id, sized(950));
    // Reading "a" makes "b" the least recently used; "d" needs the room of one.
    expect(await store.load('a')).toBeDefined();
    await store.save('d', sized(950));
    expect(await store.load('b')).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(await store.load(id)).toBeDefined();
    // A small memory takes only its own room: nothing else goes.
    await store.save('e', memory(0));
    expect(store.size).toBe(4);
    expect(store.bytes).toBeLessThanOrEqual(3_000);
  });

  it('counts the contextId: a huge id is refused like a huge memory, and nothing else is evicted', async () => {
    const metrics = createMetrics();
    const store = boundedMemoryStore<Memory>({ metrics, maxBytes: 10_000, maxEntryBytes: 2_000 });
    for (const id of ['a', 'b', 'c']) await store.save(id, memory(0));
    const before = store.bytes;
    await expect(store.save('x'.repeat(900_000), memory(0))).rejects.toMatchObject({ code: 'payload_too_large', details: { max_bytes: 2_000 } });
    expect(store.size).toBe(3);
    expect(store.bytes).toBe(before);
    expect(await metricValue(metrics, 'storeBytes', 'conversation')).toBe(before);
    expect(await metricValue(metrics, 'storeEvictions', 'conversation', 'bytes_cap')).toBeUndefined();
  });

  it('counts evictions by the entries cap and by age, and gives the bytes back when a memory is forgotten', async () => {
    let now = 1_000_000;
    const metrics = createMetrics();
    const store = boundedMemoryStore<Memory>({ metrics, store: 'supervisor_conversation', maxEntries: 2, ttlMs: 60_000, now: () => now });
    for (const id of ['a', 'b', 'c']) await store.save(id, memory(0));
    expect(await metricValue(metrics, 'storeEvictions', 'supervisor_conversation', 'entries_cap')).toBe(1);
    now += 60_001;
    expect(await store.load('b')).toBeUndefined();
    expect(await metricValue(metrics, 'storeEvictions', 'supervisor_conversation', 'ttl')).toBe(1);
    await store.save('c', undefined);
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
    expect(await metricValue(metrics, 'storeEntries', 'supervisor_conversation')).toBe(0);
    expect(await metricValue(metrics, 'storeBytes', 'supervisor_conversation')).toBe(0);
  });
});

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

  memoryStoreContract((max, now, maxValueBytes) => redisMemoryStore<Memory>({ client, keyPrefix: prefix(), maxConversations: max, now, ...(maxValueBytes === undefined ? {} : { maxValueBytes }) }));

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
