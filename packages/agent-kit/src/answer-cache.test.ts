import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { closeRedis, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import { AnswerCache, ANSWER_CACHE_DEFAULTS, meteredAnswerCache, redisAnswerCache, withAnswerCache, type AnswerCacheStore } from './answer-cache.js';
import type { RunTurn } from './domain.js';
import { boundedMemoryStore } from './memory-store.js';
import type { Classification } from './rules.js';

interface Cached {
  readonly answer: string;
  readonly options: readonly string[];
  readonly memory: { readonly offset: number; readonly note: string | null } | undefined;
}

const cached = (answer: string, pad = 0): Cached => ({ answer: `${answer}${'x'.repeat(pad)}`, options: ['next page'], memory: { offset: 20, note: 'é ✓' } });

/** A store with room for `room` answers of ~1 KiB each (in bytes or in entries), under the clock `now`. */
type MakeStore = (limits: { readonly ttlMs: number; readonly maxEntryBytes: number; readonly room: number }, now: () => number) => AnswerCacheStore<Cached>;

/** One contract, every implementation: what the workflow and the metered wrapper rely on. */
function answerCacheContract(make: MakeStore): void {
  const limits = { ttlMs: 60_000, maxEntryBytes: 4_096, room: 3 };

  it('keeps an answer by key, as it was kept', async () => {
    const store = make(limits, Date.now);
    expect(await store.get('unknown')).toBeUndefined();
    await store.set('k1', cached('one'));
    await store.set('k2', cached('two'));
    expect(await store.get('k1')).toEqual(cached('one'));
    await store.set('k1', cached('uno'));
    expect(await store.get('k1')).toEqual(cached('uno'));
    expect(await store.get('k2')).toEqual(cached('two'));
    expect(store.size).toBe(2);
    expect(store.bytes).toBeGreaterThan(0);
  });

  it('expires an answer after the TTL', async () => {
    let now = 1_000_000;
    const store = make(limits, () => now);
    await store.set('k', cached('one'));
    now += limits.ttlMs - 1_000;
    expect(await store.get('k')).toEqual(cached('one'));
    now += 2_000;
    expect(await store.get('k')).toBeUndefined();
  });

  it('never keeps an answer over the per-answer cap', async () => {
    const store = make(limits, Date.now);
    expect(await store.set('big', cached('big', limits.maxEntryBytes))).toBe(0);
    expect(await store.get('big')).toBeUndefined();
  });

  it('stays bounded: the oldest answers go first, and the evictions are reported', async () => {
    let now = 1_000_000;
    const store = make(limits, () => (now += 1));
    let evicted = 0;
    for (const key of ['a', 'b', 'c', 'd', 'e']) evicted += await store.set(key, cached(key, 1_000));
    expect(evicted).toBe(2);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('b')).toBeUndefined();
    for (const key of ['c', 'd', 'e']) expect(await store.get(key)).toEqual(cached(key, 1_000));
    expect(store.size).toBe(3);
  });
}

describe('answer cache contract: in process', () =>
  answerCacheContract(({ ttlMs, maxEntryBytes, room }, now) => new AnswerCache<Cached>({ ttlMs, maxEntryBytes, maxBytes: room * 1_100 }, now)));

describe('answer cache in process', () => {
  it('is bounded in entries as well as bytes: tiny answers cannot pile up past the count cap', async () => {
    const cache = new AnswerCache<Cached>({ ...ANSWER_CACHE_DEFAULTS, maxEntries: 3 });
    let evicted = 0;
    for (const key of ['a', 'b', 'c', 'd', 'e']) evicted += await cache.set(key, cached(key));
    expect(evicted).toBe(2);
    expect(cache.size).toBe(3);
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('e')).toEqual(cached('e'));
  });

  it('counts a key in UTF-8 bytes, as the value', async () => {
    const cache = new AnswerCache<Cached>();
    const key = 'é'.repeat(100);
    await cache.set(key, cached('one'));
    expect(cache.bytes).toBe(Buffer.byteLength(JSON.stringify(cached('one')), 'utf8') + 200);
  });
});

const REDIS = redisServerBinary();
describe.skipIf(REDIS === undefined)(`answer cache contract: redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
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

  answerCacheContract(({ ttlMs, maxEntryBytes, room }, now) => redisAnswerCache<Cached>({ client, keyPrefix: `test:${randomUUID()}:answers:`, limits: { ttlMs, maxEntryBytes }, maxEntries: room, now }));

  it('is shared by every replica on the same prefix, and expires in Redis too (PX)', async () => {
    const keyPrefix = `test:${randomUUID()}:answers:`;
    const ttlMs = 60_000;
    const a = redisAnswerCache<Cached>({ client, keyPrefix, limits: { ttlMs, maxEntryBytes: 4_096 }, now: () => 1_000_000 });
    const b = redisAnswerCache<Cached>({ client, keyPrefix, limits: { ttlMs, maxEntryBytes: 4_096 }, now: () => 1_000_000 });
    await a.set('k', cached('from a'));
    expect(await b.get('k')).toEqual(cached('from a'));
    // Redis itself drops the answer at the TTL, whoever reads it (or nobody): the key carries the TTL as its expiry.
    const keys = await client.keys(`${keyPrefix}v:*`);
    expect(keys).toHaveLength(1);
    const left = await client.pttl(keys[0] ?? '');
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(ttlMs);
  });

  it('metered, turns a Redis that went away into misses, logged once, and works again when it is back', async () => {
    const own = await startRedisServer();
    const c = await redisFromUrl(own.url, { logger: silentLogger() });
    const lines: string[] = [];
    const destination = new PassThrough();
    destination.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').trim().split('\n')));
    const metrics = createMetrics();
    const cache = meteredAnswerCache(metrics, { store: redisAnswerCache<Cached>({ client: c, keyPrefix: 'away:' }), logger: createLogger({ name: 't', destination }) });
    try {
      await cache.set('k', cached('one'));
      expect(await cache.get('k')).toEqual(cached('one'));
      await own.stop();
      expect(await cache.get('k')).toBeUndefined();
      expect(await cache.set('k', cached('two'))).toBe(0);
      expect(await cache.get('k')).toBeUndefined();
      expect(await requests(metrics, 'hit')).toBe(1);
      expect(await requests(metrics, 'miss')).toBe(2);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines.filter((line) => line.includes('the answer cache failed'))).toHaveLength(1);
    } finally {
      await closeRedis(c);
    }
  });
});

async function requests(metrics: FlotillaMetrics, outcome: 'hit' | 'miss'): Promise<number> {
  return (await metrics.cacheRequests.get()).values.find((v) => v.labels.cache === 'answer' && v.labels.outcome === outcome)?.value ?? 0;
}

describe('metered answer cache', () => {
  it('counts hits, misses and evictions, and reports entries and bytes', async () => {
    const metrics = createMetrics();
    const cache = meteredAnswerCache<Cached>(metrics, { limits: { ...ANSWER_CACHE_DEFAULTS, maxBytes: 2_500 } });
    expect(await cache.get('a')).toBeUndefined();
    for (const key of ['a', 'b', 'c']) await cache.set(key, cached(key, 1_000));
    expect(await cache.get('c')).toEqual(cached('c', 1_000));
    expect(await requests(metrics, 'hit')).toBe(1);
    expect(await requests(metrics, 'miss')).toBe(1);
    expect((await metrics.cacheEvictions.get()).values.find((v) => v.labels.cache === 'answer')?.value).toBe(1);
    expect((await metrics.cacheEntries.get()).values.find((v) => v.labels.cache === 'answer')?.value).toBe(2);
    expect((await metrics.cacheBytes.get()).values.find((v) => v.labels.cache === 'answer')?.value).toBe(cache.bytes);
  });

  it('counts an answer that expired as an eviction, once', async () => {
    let now = 1_000_000;
    const metrics = createMetrics();
    const cache = meteredAnswerCache<Cached>(metrics, { store: new AnswerCache<Cached>(ANSWER_CACHE_DEFAULTS, () => now) });
    await cache.set('k', cached('one'));
    now += ANSWER_CACHE_DEFAULTS.ttlMs + 1;
    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.get('k')).toBeUndefined();
    expect((await metrics.cacheEvictions.get()).values.find((v) => v.labels.cache === 'answer')?.value).toBe(1);
    expect((await metrics.cacheEntries.get()).values.find((v) => v.labels.cache === 'answer')?.value).toBe(0);
    expect((await metrics.cacheBytes.get()).values.find((v) => v.labels.cache === 'answer')?.value).toBe(0);
  });

  it('answers a miss, and keeps nothing, when its store fails: never a failed turn', async () => {
    const broken: AnswerCacheStore<Cached> = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      size: 0,
      bytes: 0,
    };
    const metrics = createMetrics();
    const cache = meteredAnswerCache(metrics, { store: broken, logger: silentLogger() });
    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.set('k', cached('one'))).toBe(0);
    expect(await requests(metrics, 'miss')).toBe(1);
  });
});

describe('the answer cache as a decorator of a turn', () => {
  type Intent = 'list' | 'next_page';
  const classification = (intent: Intent): Classification<Intent> => ({ intent, entities: { project: 'web' }, confidence: 1, complexity: 'simple', alternatives: [] });
  /** A turn that counts its runs and leaves a memory naming the question; `clean` says whether it may be kept. */
  function setup(clean = true) {
    let runs = 0;
    let classified = 0;
    const run: RunTurn<Intent, string> = (question, _contextId, _signal, c) => {
      runs += 1;
      const turn = { answer: `answer ${runs} to ${question}`, options: [], intent: c?.intent, entities: {}, confidence: 1, strategy: 'direct' as const, toolCalls: 1, toolErrors: 0, error: undefined, limitations: [], handling: undefined, detectSeconds: undefined, data: undefined };
      return Promise.resolve({ turn, memory: `memory of ${question}`, answerTokens: 5, cacheable: clean });
    };
    const memoryStore = boundedMemoryStore<string>();
    const classify = (question: string): Promise<Classification<Intent>> => ((classified += 1), Promise.resolve(classification(question.startsWith('next') ? 'next_page' : 'list')));
    const ask = withAnswerCache(run, { cache: new AnswerCache(), cacheableIntents: ['list'], classify, memoryStore });
    return { ask, memoryStore, runs: () => runs, classified: () => classified };
  }

  it('answers a cacheable question again without running the turn, leaving the cached memory for the conversation', async () => {
    const { ask, memoryStore, runs, classified } = setup();
    const first = await ask('apps of web', 'c1');
    const again = await ask('apps of web', 'c2');
    expect([first.cached, again.cached, again.answer, again.toolCalls, runs(), classified()]).toEqual([false, true, first.answer, 0, 1, 2]);
    expect(again.counted).toEqual({ text: first.answer, tokens: 5 });
    expect(await memoryStore.load('c2')).toBe('memory of apps of web');
  });

  it('runs every time a continuation, a question for fresh data (never classified for the cache) and a turn that was not clean', async () => {
    const continuation = setup();
    await continuation.ask('next page', 'c1');
    await continuation.ask('next page', 'c1');
    expect(continuation.runs()).toBe(2);
    const fresh = setup();
    await fresh.ask('apps of web right now', 'c1');
    await fresh.ask('apps of web right now', 'c1');
    expect([fresh.runs(), fresh.classified()]).toEqual([2, 0]);
    const failed = setup(false);
    await failed.ask('apps of web', 'c1');
    expect((await failed.ask('apps of web', 'c1')).cached).toBe(false);
    expect(failed.runs()).toBe(2);
  });

  it('answers the same question asked meanwhile from the turn in flight, once: each conversation gets the memory', async () => {
    let runs = 0;
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run: RunTurn<Intent, string> = async (question, _contextId, _signal, c) => {
      runs += 1;
      await gate;
      const turn = { answer: `answer ${runs} to ${question}`, options: [], intent: c?.intent, entities: {}, confidence: 1, strategy: 'direct' as const, toolCalls: 3, toolErrors: 0, error: undefined, limitations: [], handling: undefined, detectSeconds: undefined, data: undefined };
      return { turn, memory: `memory of ${question}`, answerTokens: 5, cacheable: true };
    };
    const memoryStore = boundedMemoryStore<string>();
    const ask = withAnswerCache(run, { cache: new AnswerCache(), cacheableIntents: ['list'], classify: (q) => Promise.resolve(classification(q.startsWith('next') ? 'next_page' : 'list')), memoryStore });
    const asked = Array.from({ length: 20 }, (_, i) => ask('apps of web', `c${i}`));
    // A continuation is never shared: it runs while the others wait.
    const continuation = ask('next page', 'cx');
    release?.();
    const answers = await Promise.all(asked);
    await continuation;
    expect(runs).toBe(2);
    expect(new Set(answers.map((a) => a.answer))).toEqual(new Set([answers[0]?.answer]));
    expect(answers.map((a) => [a.cached, a.toolCalls])).toEqual([[false, 3], ...Array.from({ length: 19 }, () => [true, 0])]);
    expect(answers[7]?.counted).toEqual({ text: answers[0]?.answer, tokens: 5 });
    expect(await memoryStore.load('c13')).toBe('memory of apps of web');
  });

  it('lets each waiter run its own turn when the one in flight was not clean, or when its own signal aborts', async () => {
    let runs = 0;
    const gates: (() => void)[] = [];
    const run: RunTurn<Intent, string> = async (question, _contextId, signal, c) => {
      runs += 1;
      const mine = runs;
      if (mine === 1) await new Promise<void>((resolve) => gates.push(resolve));
      const turn = { answer: `answer ${mine}${signal?.aborted === true ? ' (cancelled)' : ''}`, options: [], intent: c?.intent, entities: {}, confidence: 1, strategy: 'direct' as const, toolCalls: 1, toolErrors: mine === 1 ? 1 : 0, error: undefined, limitations: [], handling: undefined, detectSeconds: undefined, data: undefined };
      return { turn, memory: `memory ${mine}`, answerTokens: 5, cacheable: mine !== 1 };
    };
    const ask = withAnswerCache(run, { cache: new AnswerCache(), cacheableIntents: ['list'], classify: () => Promise.resolve(classification('list')), memoryStore: boundedMemoryStore<string>() });
    const first = ask('apps of web', 'c1');
    const aborting = new AbortController();
    const waiterAborted = ask('apps of web', 'c2', aborting.signal);
    const waiter = ask('apps of web', 'c3');
    // The aborted waiter stops waiting at once and runs (its turn sees the signal), while the first still runs.
    aborting.abort();
    expect((await waiterAborted).answer).toBe('answer 2 (cancelled)');
    gates[0]?.();
    expect((await first).answer).toBe('answer 1');
    // The first turn had a tool error: not shared, so the waiter ran its own.
    const third = await waiter;
    expect([third.answer, third.cached]).toEqual(['answer 3', false]);
    expect(runs).toBe(3);
  });

  it('takes the classification a caller made instead of classifying again', async () => {
    const { ask, runs, classified } = setup();
    await ask('apps of web', 'c1', undefined, classification('list'));
    expect((await ask('apps of web', 'c1', undefined, classification('list'))).cached).toBe(true);
    expect([runs(), classified()]).toEqual([1, 0]);
  });
});
