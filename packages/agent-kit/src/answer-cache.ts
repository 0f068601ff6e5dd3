import type { Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { createRedisKeyspace, type RedisClient } from '@flotilla/state';
import type { Classification } from './rules.js';

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

/** The cache key of a classified question: the intent and its entities, normalised (order, case, spacing). */
export function answerKey<I extends string>(classification: Classification<I>): string {
  const entities = Object.entries(classification.entities)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, (Array.isArray(v) ? [...(v as readonly string[])].map((x) => String(x).trim().toLowerCase()).sort() : String(v).trim().toLowerCase())] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([classification.intent, entities]);
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

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
  readonly at: number;
}

type AnswerCacheLimits = { readonly ttlMs: number; readonly maxBytes: number; readonly maxEntryBytes: number; readonly maxEntries?: number };

/** Bytes an answer counts for: its JSON and its key (UTF-8). */
function sizeOf(key: string, json: string): number {
  return Buffer.byteLength(json, 'utf8') + Buffer.byteLength(key, 'utf8');
}

/**
 * Answers by normalised intent and entities, for a short time, bounded in bytes and in entries (least recently used
 * evicted). Per replica: a cache is an optimisation, never a source of truth.
 */
export class AnswerCache<V> implements AnswerCacheStore<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private total = 0;
  private dropped = 0;

  constructor(
    private readonly limits: AnswerCacheLimits = ANSWER_CACHE_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  get expired(): number {
    return this.dropped;
  }

  get(key: string): Promise<V | undefined> {
    const entry = this.entries.get(key);
    if (entry === undefined || this.now() - entry.at > this.limits.ttlMs) {
      if (entry !== undefined) {
        this.remove(key, entry);
        this.dropped += 1;
      }
      return Promise.resolve(undefined);
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return Promise.resolve(entry.value);
  }

  set(key: string, value: V): Promise<number> {
    const bytes = sizeOf(key, JSON.stringify(value) ?? '');
    if (bytes > this.limits.maxEntryBytes) return Promise.resolve(0);
    const old = this.entries.get(key);
    if (old !== undefined) this.remove(key, old);
    this.entries.set(key, { value, bytes, at: this.now() });
    this.total += bytes;
    const maxEntries = this.limits.maxEntries ?? ANSWER_CACHE_DEFAULTS.maxEntries;
    let evicted = 0;
    for (const [k, e] of this.entries) {
      if (this.total <= this.limits.maxBytes && this.entries.size <= maxEntries) break;
      this.remove(k, e);
      evicted += 1;
    }
    return Promise.resolve(evicted);
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.total -= entry.bytes;
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
