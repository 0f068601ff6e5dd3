import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { FlotillaError, isFlotillaError } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { createRedisKeyspace, type RedisClient } from '@flotilla/state';
import type { JsonValue } from './json.js';
import { stableStringify, type Counts, type PageRequest } from './paging.js';
import type { SearchOutcome } from './search.js';
import type { ResultStore, StoredResultMeta } from './store/types.js';

/** Snapshot limits (the data itself lives in the result store, under its TTL and byte caps). */
export const SNAPSHOT_DEFAULTS = {
  /** A snapshot serves later pages this long after its upstream fetch; then the next call fetches anew. */
  ttlSeconds: 60,
  /** Snapshots indexed per result store; the oldest is forgotten first (its stored result stays until it expires). */
  maxEntries: 1_000,
  /** Pages from a snapshot older than this carry `snapshot_age_seconds`. */
  showAgeAfterSeconds: 5,
  /** Notes a snapshot keeps from its load (e.g. "stopped early"), each at most `noteMaxLength` characters. */
  maxNotes: 8,
  noteMaxLength: 500,
} as const;

/** Bounds a configured snapshot TTL may take. */
export const SNAPSHOT_TTL_RANGE = { min: 1, max: 3_600 } as const;

/** The argument a snapshotted list tool adds to its page arguments. */
export const SNAPSHOT_SHAPE = {
  refresh: z
    .boolean({ message: 'refresh must be true or false' })
    .default(false)
    .describe('Fetch the list anew from the upstream system instead of paging the snapshot an earlier call with the same filters took (default false).'),
} as const;

export type SnapshotSearch = Pick<SearchOutcome<unknown>, 'capped' | 'cap' | 'scanned'>;

/**
 * A list the kit pages from a snapshot: the first call with a query runs `load` (the upstream fetch) and keeps the
 * whole list in the result store; later calls with the same query and another page, within the snapshot TTL, are
 * served from it with no upstream request (and carry `snapshot_age_seconds` when it is older than a few seconds).
 */
export interface SnapshotListPayload {
  readonly kind: 'snapshot_list';
  readonly itemKind: string;
  readonly page: PageRequest;
  /** The filter arguments: the snapshot's key (with the tool), the fingerprint for cursors, recorded with the result. */
  readonly query: JsonValue;
  /** Skip the snapshot and load anew (the `refresh` argument of SNAPSHOT_SHAPE); the new list replaces the snapshot. */
  readonly refresh?: boolean | undefined;
  readonly load: () => Promise<SnapshotLoad>;
}

/** The whole filtered list a snapshot list loaded, with its aggregates and notes. */
export interface SnapshotLoad {
  readonly items: readonly JsonValue[];
  readonly counts?: Counts | undefined;
  readonly notes?: readonly string[] | undefined;
  readonly search?: SnapshotSearch | undefined;
  /** False for a partial read (e.g. a walk that stopped early): not kept, so the next call reads again. Default true. */
  readonly reusable?: boolean | undefined;
}

/** What a snapshot keeps beside its stored items: the load's notes and search outcome. */
export interface SnapshotExtras {
  readonly notes?: readonly string[] | undefined;
  readonly search?: SnapshotSearch | undefined;
}

/** A fresh snapshot found: its stored result (still in the store when found) and what its load said. */
export interface SnapshotHit {
  readonly meta: StoredResultMeta;
  /** Whole seconds since the snapshot was stored, just after its upstream fetch. */
  readonly ageSeconds: number;
  readonly notes: readonly string[];
  readonly search: SnapshotSearch | undefined;
}

/** One page served from a snapshot. */
export interface SnapshotPage extends SnapshotHit {
  readonly items: readonly JsonValue[];
}

/**
 * Upstream lists loaded by a list tool, kept so later pages of the same query need no upstream request. The
 * items live in the result store (its TTL, per-result and total byte caps apply; nothing else holds them); the
 * cache is only a bounded index from query to stored result. A snapshot is used while it is younger than the TTL
 * and still in the store; anything else is a miss, and the caller loads again. `createSnapshotCache` keeps the
 * index in memory, per replica, or (a store in Redis, `ResultStore.shared`) in Redis beside the results, so any
 * replica pages a snapshot another one took; a Redis failure of the index is a miss (the list is loaded again).
 */
export interface SnapshotCache {
  /** The store the snapshots live in; a kit only uses a cache built on its own store. */
  readonly store: ResultStore;
  readonly ttlSeconds: number;
  readonly showAgeAfterSeconds: number;
  /** The index key of a tool's query (a digest: keys stay small whatever the filters). */
  key(tool: string, query: JsonValue): string;
  /** The page of a fresh snapshot, or undefined (a miss: none, too old, or gone from the store). Counts the lookup. */
  page(key: string, offset: number, limit: number): Promise<SnapshotPage | undefined>;
  /**
   * A fresh snapshot whose result is still in the store, without reading any item (the caller reads what its page
   * needs: `ResultStore.readTexts`), or undefined (a miss, as for `page`). Counts the lookup.
   */
  find(key: string): Promise<SnapshotHit | undefined>;
  /** Index a result just stored from an upstream fetch as the snapshot of `key` (replacing an older one). */
  remember(key: string, meta: StoredResultMeta, extras: SnapshotExtras): Promise<void>;
  /** Count a lookup skipped because the caller asked for fresh data. */
  bypass(): void;
  /** Snapshots indexed now (in Redis: as last counted by this replica). */
  readonly size: number;
}

export interface SnapshotCacheOptions {
  /** Default SNAPSHOT_DEFAULTS.ttlSeconds; SNAPSHOT_TTL_RANGE bounds it. */
  readonly ttlSeconds?: number;
  /** Default SNAPSHOT_DEFAULTS.maxEntries. */
  readonly maxEntries?: number;
  readonly metrics?: FlotillaMetrics | undefined;
  /** Injected clock (ms since epoch) for TTL tests. */
  readonly now?: () => number;
  /**
   * Keep the index in Redis under `<keyPrefix>snapshots:` (every replica on the prefix pages the same snapshots)
   * instead of in this process. Default: the store's own `shared` Redis, if any (see `ResultStore.shared`).
   */
  readonly redis?: { readonly client: RedisClient; readonly keyPrefix: string } | undefined;
}

interface Entry {
  readonly meta: StoredResultMeta;
  readonly at: number;
  readonly notes: readonly string[];
  readonly search: SnapshotSearch | undefined;
}

/** Where the key → stored result index lives: this process, or the shared state store. */
interface SnapshotIndex {
  get(key: string): Promise<Entry | undefined>;
  /** Indexes the entry (replacing the key's); resolves to how many other entries went to make room. */
  set(key: string, entry: Entry): Promise<number>;
  delete(key: string): Promise<void>;
  /** Entries and bytes of the stored results they point at (the last known numbers, for the gauges). */
  readonly entries: number;
  readonly bytes: number;
}

const CACHE = 'snapshot';

/** Most bytes of one index entry in Redis (meta, notes, search outcome: a few KiB at most). */
const INDEX_ENTRY_MAX_BYTES = 64 * 1024;

function memoryIndex(maxEntries: number): SnapshotIndex {
  let bytes = 0;
  let evicted = 0;
  // Oldest remembered first while over the cap (lookups `peek`: the order is the order of remembering).
  const map = new LRUCache<string, Entry>({
    max: maxEntries,
    dispose: (entry, _key, reason) => {
      bytes -= entry.meta.bytes;
      if (reason === 'evict') evicted += 1;
    },
  });
  return {
    get: (key) => Promise.resolve(map.peek(key)),
    set(key, entry) {
      evicted = 0;
      // A key remembered again goes to the back of the line, as a new entry.
      map.delete(key);
      map.set(key, entry);
      bytes += entry.meta.bytes;
      return Promise.resolve(evicted);
    },
    delete(key) {
      map.delete(key);
      return Promise.resolve();
    },
    get entries() {
      return map.size;
    },
    get bytes() {
      return bytes;
    },
  };
}

/**
 * The index in Redis: an expiring value per key (the snapshot TTL, in Redis and against the injected clock),
 * at most `maxEntries` (the first to expire goes). The gauges are approximate: the entry count is read after each
 * `remember`, and the bytes are that count times the mean size of the results this replica indexed.
 */
function redisIndex(client: RedisClient, keyPrefix: string, maxEntries: number, ttlMs: number, now: () => number): SnapshotIndex {
  const space = createRedisKeyspace({ client, prefix: `${keyPrefix}snapshots:`, maxEntries, maxValueBytes: INDEX_ENTRY_MAX_BYTES, what: 'snapshot index entry', now });
  let entries = 0;
  let indexed = 0;
  let indexedBytes = 0;
  return {
    async get(key) {
      const raw = await space.get(key);
      if (raw === undefined) return undefined;
      try {
        const entry = JSON.parse(raw) as Entry;
        return typeof entry.meta?.result_id === 'string' && typeof entry.at === 'number' ? entry : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, entry) {
      const evicted = await space.put(key, JSON.stringify(entry), entry.at + ttlMs);
      indexed += 1;
      indexedBytes += entry.meta.bytes;
      entries = await space.size();
      return evicted;
    },
    async delete(key) {
      await space.delete(key);
    },
    get entries() {
      return entries;
    },
    get bytes() {
      return indexed === 0 ? 0 : Math.round((indexedBytes / indexed) * entries);
    },
  };
}

export function createSnapshotCache(store: ResultStore, options: SnapshotCacheOptions = {}): SnapshotCache {
  const ttlSeconds = options.ttlSeconds ?? SNAPSHOT_DEFAULTS.ttlSeconds;
  const maxEntries = options.maxEntries ?? SNAPSHOT_DEFAULTS.maxEntries;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < SNAPSHOT_TTL_RANGE.min || ttlSeconds > SNAPSHOT_TTL_RANGE.max) {
    throw new FlotillaError('config_invalid', `snapshot TTL must be a whole number of seconds from ${SNAPSHOT_TTL_RANGE.min} to ${SNAPSHOT_TTL_RANGE.max}`);
  }
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > 100_000) {
    throw new FlotillaError('config_invalid', 'snapshot entries must be a whole number from 1 to 100000');
  }
  const now = options.now ?? Date.now;
  const { metrics } = options;
  const redis = options.redis ?? store.shared;
  const index = redis === undefined ? memoryIndex(maxEntries) : redisIndex(redis.client, redis.keyPrefix, maxEntries, ttlSeconds * 1000, now);

  const report = (): void => {
    metrics?.cacheEntries.set({ cache: CACHE }, index.entries);
    metrics?.cacheBytes.set({ cache: CACHE }, index.bytes);
  };
  const evict = async (key: string): Promise<void> => {
    await index.delete(key);
    metrics?.cacheEvictions.inc({ cache: CACHE });
    report();
  };
  const outcome = (which: 'hit' | 'miss' | 'bypass'): void => metrics?.cacheRequests.inc({ cache: CACHE, outcome: which });
  /** The index is a cache: when the shared state store fails, a lookup is a miss and an entry is not kept. */
  const lookup = async (key: string): Promise<Entry | undefined> => {
    try {
      return await index.get(key);
    } catch (error) {
      if (redis === undefined) throw error;
      return undefined;
    }
  };

  /** A fresh entry of `key` read through `read` (a page, or only the store's meta), or a miss. Counts the lookup. */
  async function served<T>(key: string, read: (entry: Entry) => Promise<T>): Promise<(SnapshotHit & { items: T }) | undefined> {
    const entry = await lookup(key);
    const age = entry === undefined ? 0 : now() - entry.at;
    if (entry === undefined || age >= ttlSeconds * 1000 || age < 0) {
      if (entry !== undefined) await evict(key).catch(() => undefined);
      outcome('miss');
      return undefined;
    }
    try {
      const items = await read(entry);
      outcome('hit');
      return { meta: entry.meta, items, ageSeconds: Math.floor(age / 1000), notes: entry.notes, search: entry.search };
    } catch (error) {
      // The store let it go (its TTL, or its byte cap made room for newer results): fetch anew.
      if (!isFlotillaError(error) || (error.code !== 'result_expired' && error.code !== 'not_found')) throw error;
      if ((await lookup(key))?.meta.result_id === entry.meta.result_id) await evict(key).catch(() => undefined);
      outcome('miss');
      return undefined;
    }
  }

  return {
    store,
    ttlSeconds,
    showAgeAfterSeconds: SNAPSHOT_DEFAULTS.showAgeAfterSeconds,
    key(tool, query) {
      return createHash('sha256').update(`${tool}\n${stableStringify(query)}`).digest('base64url');
    },
    async page(key, offset, limit) {
      return served(key, async (entry) => (await store.read(entry.meta.result_id, { offset, limit })).items);
    },
    async find(key) {
      return served(key, async (entry) => {
        await store.meta(entry.meta.result_id);
        return undefined;
      });
    },
    async remember(key, meta, extras) {
      const entry: Entry = {
        meta,
        at: now(),
        notes: (extras.notes ?? []).slice(0, SNAPSHOT_DEFAULTS.maxNotes).map((note) => note.slice(0, SNAPSHOT_DEFAULTS.noteMaxLength)),
        search: extras.search === undefined ? undefined : { capped: extras.search.capped, cap: extras.search.cap, scanned: extras.search.scanned },
      };
      try {
        const evicted = await index.set(key, entry);
        if (evicted > 0) metrics?.cacheEvictions.inc({ cache: CACHE }, evicted);
      } catch (error) {
        // Not indexed: the next page loads again, as without snapshots.
        if (redis === undefined) throw error;
      }
      report();
    },
    bypass() {
      outcome('bypass');
    },
    get size() {
      return index.entries;
    },
  };
}

/** One snapshot cache per result store, so every kit on a store (the HTTP server builds one per request) shares it. */
const perStore = new WeakMap<ResultStore, SnapshotCache>();

export function snapshotCacheFor(store: ResultStore, metrics: FlotillaMetrics | undefined): SnapshotCache {
  let cache = perStore.get(store);
  if (cache === undefined) {
    cache = createSnapshotCache(store, { metrics });
    perStore.set(store, cache);
  }
  return cache;
}
