import type { FlotillaMetrics } from '@flotilla/metrics';
import type { Classification } from './rules.js';

export const ANSWER_CACHE_DEFAULTS = {
  /** An answer is reused this long (the design note's 5 minutes). */
  ttlMs: 5 * 60_000,
  /** Bytes of cached answers per agent (JSON size); the least recently used go first. */
  maxBytes: 8 * 1024 * 1024,
  /** One answer larger than this is never cached. */
  maxEntryBytes: 256 * 1024,
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

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
  readonly at: number;
}

/**
 * Answers by normalised intent and entities, for a short time, bounded in bytes (least recently used evicted).
 * Per replica: a cache is an optimisation, never a source of truth.
 */
export class AnswerCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private total = 0;

  constructor(
    private readonly limits: { readonly ttlMs: number; readonly maxBytes: number; readonly maxEntryBytes: number } = ANSWER_CACHE_DEFAULTS,
    private readonly now: () => number = Date.now,
    private readonly onEvent?: (event: CacheEvent, bytes: number) => void,
  ) {}

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.now() - entry.at > this.limits.ttlMs) {
      if (entry !== undefined) this.remove(key, entry);
      this.onEvent?.('miss', this.total);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.onEvent?.('hit', this.total);
    return entry.value;
  }

  set(key: string, value: V): void {
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') + key.length;
    if (bytes > this.limits.maxEntryBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) this.remove(key, old);
    this.entries.set(key, { value, bytes, at: this.now() });
    this.total += bytes;
    for (const [k, e] of this.entries) {
      if (this.total <= this.limits.maxBytes) break;
      this.remove(k, e);
      this.onEvent?.('eviction', this.total);
    }
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.total -= entry.bytes;
  }
}

/** An answer cache whose hits, misses, evictions, entries and bytes are metrics (cache="answer"). */
export function meteredAnswerCache<V>(metrics: Pick<FlotillaMetrics, 'cacheRequests' | 'cacheEvictions' | 'cacheEntries' | 'cacheBytes'>, limits = ANSWER_CACHE_DEFAULTS): AnswerCache<V> {
  const cache: AnswerCache<V> = new AnswerCache<V>(limits, Date.now, (event) => {
    if (event === 'eviction') metrics.cacheEvictions.inc({ cache: 'answer' });
    else metrics.cacheRequests.inc({ cache: 'answer', outcome: event });
    metrics.cacheEntries.set({ cache: 'answer' }, cache.size);
    metrics.cacheBytes.set({ cache: 'answer' }, cache.bytes);
  });
  return cache;
}
