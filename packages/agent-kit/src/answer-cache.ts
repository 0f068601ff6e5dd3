import type { Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { createRedisKeyspace, type RedisClient } from '@flotilla/state';
import { CONFIDENCE_THRESHOLD, type Classification } from './rules.js';
import { reasoningWords } from './reasoning.js';
import type { AskTurn, CachedTurn, MemoryStore, RunTurn, TurnResult } from './domain.js';
import { SizedLru } from './lru.js';

export const ANSWER_CACHE_DEFAULTS = {
  /** An answer is reused this long (the design note's 5 minutes). */
  ttlMs: 5 * 60_000,
  /** Bytes of cached answers per agent (JSON size); the least recently used go first. */
  maxBytes: 8 * 1024 * 1024,
  /** One answer larger than this is never cached. */
  maxEntryBytes: 256 * 1024,
  /**
   * Answers held at once: an answer is ~1-20 KiB, so the byte cap binds first; this bounds the per-answer overhead
   * the JSON size does not count (objects, the Map) when the answers are tiny.
   */
  maxEntries: 2_048,
} as const;

/** Words that ask for fresh data: such questions bypass the cache. */
const FRESH = /\b(refresh|refreshed|now|right now|latest|current(ly)?|fresh|again|live|real[- ]?time)\b/i;

export function asksForFreshData(question: string): boolean {
  return FRESH.test(question);
}

/** Keys of classifications already keyed: a remembered classification (the classifier's memo) is keyed once. */
const keys = new WeakMap<Classification<string>, string>();

/** Code-unit order: entity names are plain ASCII, and no locale collation (ICU) runs per request. */
const byName = ([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/** The cache key of a classified question: the intent and its entities, normalised (order, case, spacing). */
export function answerKey<I extends string>(classification: Classification<I>): string {
  const known = keys.get(classification);
  if (known !== undefined) return known;
  const entities = Object.entries(classification.entities)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, (Array.isArray(v) ? [...(v as readonly string[])].map((x) => String(x).trim().toLowerCase()).sort() : String(v).trim().toLowerCase())] as const)
    .sort(byName);
  const key = JSON.stringify([classification.intent, entities]);
  // Only a frozen classification is remembered (one the classifier's memo hands out again); others are per request.
  if (Object.isFrozen(classification)) keys.set(classification, key);
  return key;
}

export type CacheEvent = 'hit' | 'miss' | 'eviction';

/**
 * Where answers are kept: in this process (`AnswerCache`) or in the shared state store (`redisAnswerCache`), so
 * a replica reuses what another one answered. A cache is an optimisation, never a source of truth: a value over
 * the per-answer cap is not kept, and `meteredAnswerCache` turns a failing store into misses.
 */
export interface AnswerCacheStore<V> {
  /** The answer kept under `key`, or undefined (none, or expired). */
  get(key: string): Promise<V | undefined>;
  /** Keeps the answer (unless it is larger than the per-answer cap); resolves to how many answers went to make room. */
  set(key: string, value: V): Promise<number>;
  /** Answers and bytes held now, for the gauges (a shared store: as last counted by this process). */
  readonly size: number;
  readonly bytes: number;
  /** Answers dropped on expiry so far, for the eviction counter (a shared store's expire by themselves: undefined). */
  readonly expired?: number;
}

type AnswerCacheLimits = { readonly ttlMs: number; readonly maxBytes: number; readonly maxEntryBytes: number; readonly maxEntries?: number };

/** Bytes an answer counts for: its JSON and its key (UTF-8). */
function sizeOf(key: string, json: string): number {
  return Buffer.byteLength(json, 'utf8') + Buffer.byteLength(key, 'utf8');
}

/**
 * Answers by normalised intent and entities, for a short time, bounded in bytes and in entries (least recently used
 * evicted; `lru-cache`). Per replica: a cache is an optimisation, never a source of truth.
 */
export class AnswerCache<V> implements AnswerCacheStore<V> {
  private readonly entries: SizedLru<V>;
  private dropped = 0;
  /** Evictions by either cap during the `set` under way. */
  private evicted = 0;

  constructor(
    private readonly limits: AnswerCacheLimits = ANSWER_CACHE_DEFAULTS,
    now: () => number = Date.now,
  ) {
    this.entries = new SizedLru<V>({
      maxEntries: limits.maxEntries ?? ANSWER_CACHE_DEFAULTS.maxEntries,
      maxBytes: limits.maxBytes,
      ttlMs: limits.ttlMs,
      now,
      removed: (_entry, reason) => {
        if (reason === 'ttl') this.dropped += 1;
        else if (reason !== undefined) this.evicted += 1;
      },
    });
  }

  get bytes(): number {
    return this.entries.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get expired(): number {
    return this.dropped;
  }

  get(key: string): Promise<V | undefined> {
    return Promise.resolve(this.entries.get(key)?.value);
  }

  set(key: string, value: V): Promise<number> {
    const bytes = sizeOf(key, JSON.stringify(value) ?? '');
    // Checked here, not by lru-cache: an answer too large to keep leaves the one already under its key alone.
    if (bytes > Math.min(this.limits.maxEntryBytes, this.limits.maxBytes)) return Promise.resolve(0);
    this.evicted = 0;
    this.entries.set(key, { value, bytes });
    return Promise.resolve(this.evicted);
  }
}

export const REDIS_ANSWER_CACHE_DEFAULTS = {
  /**
   * Answers held at once in Redis; past it the one expiring first goes. With the per-answer cap this bounds the
   * bytes: at most maxEntries × maxEntryBytes (64 MiB), in practice a few MiB (an answer of 4,000 tokens and its
   * memory is ~20 KiB), and every answer leaves after the TTL (a Redis PX expiry).
   */
  maxEntries: 256,
} as const;

export interface RedisAnswerCacheOptions {
  /** A connected client (`redisFromUrl`); the cache never closes it. */
  readonly client: RedisClient;
  /** Every key starts with it, one per agent, e.g. `flotilla:argocd:answers:`. */
  readonly keyPrefix: string;
  /** TTL and per-answer cap (ANSWER_CACHE_DEFAULTS; `maxBytes` is replaced by `maxEntries` here). */
  readonly limits?: Pick<AnswerCacheLimits, 'ttlMs' | 'maxEntryBytes'>;
  readonly maxEntries?: number;
  readonly now?: () => number;
}

/**
 * Answers in Redis as JSON, shared by every replica on the prefix: each expires `ttlMs` after it was kept (PX),
 * at most `maxEntries` (the oldest go first), none larger than `maxEntryBytes` (not kept). A Redis failure rejects
 * with `upstream_unavailable` (`meteredAnswerCache` makes it a miss). `size` is the live count read after each
 * `set`; `bytes` is that count times the mean size of the answers this process kept (approximate).
 */
export function redisAnswerCache<V>(options: RedisAnswerCacheOptions): AnswerCacheStore<V> {
  const limits = options.limits ?? ANSWER_CACHE_DEFAULTS;
  const now = options.now ?? Date.now;
  const space = createRedisKeyspace({
    client: options.client,
    prefix: options.keyPrefix,
    maxEntries: options.maxEntries ?? REDIS_ANSWER_CACHE_DEFAULTS.maxEntries,
    maxValueBytes: limits.maxEntryBytes,
    what: 'cached answer',
    now,
  });
  let entries = 0;
  let kept = 0;
  let keptBytes = 0;
  return {
    async get(key) {
      const raw = await space.get(key);
      if (raw === undefined) return undefined;
      try {
        const stored = JSON.parse(raw) as { readonly key?: unknown; readonly value?: V };
        return stored.key === key ? stored.value : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, value) {
      const json = JSON.stringify({ key, value });
      const bytes = sizeOf(key, json);
      if (bytes > limits.maxEntryBytes) return 0;
      const evicted = await space.put(key, json, now() + limits.ttlMs);
      kept += 1;
      keptBytes += bytes;
      entries = await space.size();
      return evicted;
    },
    get size() {
      return entries;
    },
    get bytes() {
      return kept === 0 ? 0 : Math.round((keptBytes / kept) * entries);
    },
  };
}

export interface MeteredAnswerCacheOptions<V> {
  /** The store; a per-process `AnswerCache` with `limits` by default. */
  readonly store?: AnswerCacheStore<V> | undefined;
  readonly limits?: AnswerCacheLimits;
  /** Where a failing store is reported (once when it starts failing, once when it works again). */
  readonly logger?: Logger | undefined;
}

/**
 * An answer cache whose hits, misses, evictions, entries and bytes are metrics (cache="answer"), and that never
 * fails a turn: a store that fails (Redis away) answers a miss and keeps nothing, logged.
 */
export function meteredAnswerCache<V>(
  metrics: Pick<FlotillaMetrics, 'cacheRequests' | 'cacheEvictions' | 'cacheEntries' | 'cacheBytes'>,
  options: MeteredAnswerCacheOptions<V> = {},
): AnswerCacheStore<V> {
  const store = options.store ?? new AnswerCache<V>(options.limits ?? ANSWER_CACHE_DEFAULTS);
  let failing = false;
  let expired = 0;
  const report = (): void => {
    // Answers that expired in the store left it too: counted as evictions once each.
    const count = store.expired ?? 0;
    if (count > expired) metrics.cacheEvictions.inc({ cache: 'answer' }, count - expired);
    expired = count;
    metrics.cacheEntries.set({ cache: 'answer' }, store.size);
    metrics.cacheBytes.set({ cache: 'answer' }, store.bytes);
  };
  const failed = (error: unknown): void => {
    if (failing) return;
    failing = true;
    options.logger?.warn({ err: error }, 'the answer cache failed; answering without it until it works again');
  };
  const worked = (): void => {
    if (!failing) return;
    failing = false;
    options.logger?.info('the answer cache works again');
  };
  return {
    async get(key) {
      let value: V | undefined;
      try {
        value = await store.get(key);
        worked();
      } catch (error) {
        failed(error);
      }
      metrics.cacheRequests.inc({ cache: 'answer', outcome: value === undefined ? 'miss' : 'hit' });
      report();
      return value;
    },
    async set(key, value) {
      let evicted = 0;
      try {
        evicted = await store.set(key, value);
        worked();
      } catch (error) {
        failed(error);
      }
      if (evicted > 0) metrics.cacheEvictions.inc({ cache: 'answer' }, evicted);
      report();
      return evicted;
    },
    get size() {
      return store.size;
    },
    get bytes() {
      return store.bytes;
    },
    get expired() {
      return store.expired;
    },
  };
}

/** What `withAnswerCache` needs besides the turn it wraps. */
export interface AnswerCacheDecoratorOptions<I extends string, M> {
  readonly cache: AnswerCacheStore<CachedTurn<I, M>>;
  /** Standalone questions only: never continuations such as "next page", whose answer depends on the conversation. */
  readonly cacheableIntents: readonly I[];
  /** The workflow's model: a question the caller did not classify is classified here, once, and the turn reuses it. */
  readonly classify: (question: string) => Promise<Classification<I>>;
  /** Where a hit leaves the cached turn's memory, so "next page" continues the cached answer. */
  readonly memoryStore: MemoryStore<M>;
}

const miss = (): undefined => undefined;
const kept = (): number => 0;

/**
 * Questions of one key answered at once, per decorated turn: every turn in flight at most (the executor bounds those),
 * and never more than this. Past it a question runs on its own, as without sharing.
 */
export const ANSWER_SHARING_MAX_KEYS = 2_048;

/** Resolves with `flight`'s answer, or with undefined as soon as `signal` aborts (the caller then runs, and sees it). */
function joined<V>(flight: Promise<V | undefined>, signal: AbortSignal | undefined): Promise<V | undefined> {
  if (signal === undefined) return flight;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const aborted = (): void => resolve(undefined);
    signal.addEventListener('abort', aborted, { once: true });
    void flight.then((value) => {
      signal.removeEventListener('abort', aborted);
      resolve(value);
    });
  });
}

/**
 * The answer cache around a turn: a question of a cacheable intent, read with confidence and every word understood
 * (no typo read as another word, no reasoning word), is answered from the cache when it holds one (0 tool calls; its memory saved for the
 * conversation), else answered by `run` and kept when the turn was clean (no error, tool error or limitation, its
 * memory kept). While such a question is being answered, the same question (same key) asked meanwhile waits for that
 * answer instead of running again: 50 people asking a fresh agent the same thing cost one turn, not 50; when that turn
 * was not clean (or the waiter's own signal aborts) the waiter runs its own. A question that asks for fresh data
 * ("now", "refresh", ...) is never read from the cache, kept, or shared. A cache that fails is a miss. The question
 * is classified at most once, here or by the caller.
 */
export function withAnswerCache<I extends string, M>(run: RunTurn<I, M>, options: AnswerCacheDecoratorOptions<I, M>): AskTurn<I> {
  const { cache, cacheableIntents, classify, memoryStore } = options;
  const cacheable = (c: Classification<I>): boolean =>
    c.confidence >= CONFIDENCE_THRESHOLD &&
    cacheableIntents.includes(c.intent) &&
    // Words the rules did not understand, and typos, are not in the key: such a question must never get another one's answer.
    (c.unused === undefined || c.unused.length === 0) &&
    (c.corrected === undefined || c.corrected.length === 0);
  /** The clean answer of each key being answered now (undefined when its turn was not clean). */
  const inFlight = new Map<string, Promise<CachedTurn<I, M> | undefined>>();
  const reuse = async (shared: CachedTurn<I, M>, contextId: string): Promise<TurnResult<I>> => {
    await memoryStore.save(contextId, shared.memory);
    const counted = shared.answerTokens === undefined ? undefined : { text: shared.turn.answer, tokens: shared.answerTokens };
    return { ...shared.turn, toolCalls: 0, cached: true, counted };
  };
  return async (question, contextId, signal, given) => {
    const fresh = asksForFreshData(question);
    const classification = given ?? (fresh ? undefined : await classify(question));
    // Reasoning words are not in the key either, and the answer says it did not reason: never shared.
    const key = fresh || classification === undefined || !cacheable(classification) || reasoningWords(question).length > 0 ? undefined : answerKey(classification);
    let settle: ((shared: CachedTurn<I, M> | undefined) => void) | undefined;
    if (key !== undefined) {
      const hit = await cache.get(key).catch(miss);
      if (hit !== undefined) return reuse(hit, contextId);
      const flight = inFlight.get(key);
      if (flight !== undefined) {
        const shared = await joined(flight, signal);
        if (shared !== undefined) return reuse(shared, contextId);
      } else if (inFlight.size < ANSWER_SHARING_MAX_KEYS) {
        inFlight.set(key, new Promise((resolve) => (settle = resolve)));
      }
    }
    try {
      const { turn, memory, answerTokens, cacheable: clean } = await run(question, contextId, signal, classification);
      if (key !== undefined && clean) {
        settle?.({ turn, memory, answerTokens });
        await cache.set(key, { turn, memory, answerTokens }).catch(kept);
      }
      return { ...turn, cached: false, counted: answerTokens === undefined ? undefined : { text: turn.answer, tokens: answerTokens } };
    } finally {
      if (settle !== undefined && key !== undefined) {
        // Waiters of a turn that was not clean (or threw) run their own; a settled promise ignores this.
        settle(undefined);
        inFlight.delete(key);
      }
    }
  };
}
