import { LRUCache } from 'lru-cache';
import type { StoreEvictionReason } from '@flotilla/metrics';

/** An entry of a byte-bounded LRU: the value and the bytes it counts for (sized once, when it was kept). */
export interface SizedEntry<V> {
  readonly value: V;
  readonly bytes: number;
}

export interface SizedLruOptions<V> {
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** An entry is stale this long after it was set (reading it does not renew it); no TTL when undefined. */
  readonly ttlMs?: number | undefined;
  readonly now?: (() => number) | undefined;
  /**
   * Every entry that leaves, with why: a cap or its age, or undefined when it was replaced or deleted. Called
   * synchronously (lru-cache's `dispose`).
   */
  readonly removed: (entry: SizedEntry<V>, reason: StoreEvictionReason | undefined) => void;
}

/**
 * `lru-cache` bounded in entries and in bytes (`SizedEntry.bytes`), least recently used first, with an optional TTL
 * on the injected clock. lru-cache's `dispose` says `evict` for either cap; which one is told apart here: it evicts
 * for the entries cap only when a new key comes to a full cache, once and before any eviction for bytes. A caller
 * checks its per-entry cap before `set` (lru-cache would also drop the entry already under the key).
 */
export class SizedLru<V> {
  private readonly cache: LRUCache<string, SizedEntry<V>>;
  private capReason: StoreEvictionReason = 'bytes_cap';

  constructor(private readonly options: SizedLruOptions<V>) {
    const { now, removed } = options;
    this.cache = new LRUCache<string, SizedEntry<V>>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => entry.bytes,
      ...(options.ttlMs === undefined ? {} : { ttl: options.ttlMs }),
      // The clock is read on every check: no 1 ms memo of it (an injected clock moves by itself).
      // lru-cache reads a start time of 0 as "no time" (never stale): a clock that starts at 0 is read from 1.
      ...(now === undefined ? {} : { perf: { now: () => now() + 1 } }),
      ttlResolution: 0,
      dispose: (entry, _key, reason) => {
        if (reason === 'evict') {
          removed(entry, this.capReason);
          this.capReason = 'bytes_cap';
          return;
        }
        // A replaced entry leaves before the new one is sized: an eviction after it is for bytes.
        if (reason === 'set') this.capReason = 'bytes_cap';
        removed(entry, reason === 'expire' ? 'ttl' : undefined);
      },
    });
  }

  /** Entries held (stale ones included until they are read). */
  get size(): number {
    return this.cache.size;
  }

  /** Bytes of the entries held. */
  get bytes(): number {
    return this.cache.calculatedSize;
  }

  /** The entry under `key`, now the most recently used; undefined when none or stale (then dropped, as `ttl`). */
  get(key: string): SizedEntry<V> | undefined {
    return this.cache.get(key);
  }

  /** Keeps `entry` (its bytes > 0, within the per-entry cap), evicting the least recently used past either cap. */
  set(key: string, entry: SizedEntry<V>): void {
    this.capReason = this.cache.size >= this.options.maxEntries ? 'entries_cap' : 'bytes_cap';
    this.cache.set(key, entry);
  }

  delete(key: string): void {
    this.cache.delete(key);
  }
}
