import { LRUCache } from 'lru-cache';
import type { JsonValue } from '../json.js';
import { isExpired, newHeader, resolveLimits, settle, tooLarge, tooManyItems, Tombstones, unknownResult, type StoreOptions } from './common.js';
import type { PutResultInput, ReadRequest, ReadResponse, ResultStore, StoredResultMeta } from './types.js';

interface Entry {
  readonly meta: StoredResultMeta;
  /** Each item's JSON: what a page is written from; parsed only for reads that ask for values (filters). */
  readonly texts: readonly string[];
}

/** A result store in process memory, with the same TTL and byte caps as the file store. */
export function createMemoryResultStore(options: StoreOptions = {}): ResultStore {
  const limits = resolveLimits(options);
  const now = options.now ?? Date.now;
  const tombstones = new Tombstones();
  let used = 0;
  /**
   * Results by id, at most the byte cap in all: a put that needs room evicts the oldest first (reads `peek`, so
   * the order stays the order of puts, as in the file and Redis stores). Expiry is swept against the injected clock.
   */
  const entries = new LRUCache<string, Entry>({
    maxSize: limits.diskCapBytes,
    // lru-cache sizes are positive: an empty result counts one byte against the cap.
    sizeCalculation: (entry) => Math.max(1, entry.meta.bytes),
    dispose: (entry, id, reason) => {
      used -= entry.meta.bytes;
      if (reason !== 'evict') return;
      tombstones.add(id);
      options.metrics?.resultStoreEvictions.inc({ reason: 'disk_cap' });
    },
  });

  const remove = (id: string): void => {
    if (!entries.delete(id)) return;
    tombstones.add(id);
    options.metrics?.resultStoreEvictions.inc({ reason: 'ttl' });
    report();
  };
  const report = (): void => {
    options.metrics?.resultStoreBytes.set(used);
    options.metrics?.resultStoreEntries.set(entries.size);
  };
  const sweepNow = (): void => {
    for (const [id, entry] of [...entries.entries()]) if (isExpired(entry.meta, now())) remove(id);
  };
  const get = (id: string): Entry => {
    const entry = entries.peek(id);
    if (entry === undefined || isExpired(entry.meta, now())) {
      if (entry !== undefined) remove(id);
      throw unknownResult(id, tombstones.has(id) || entry !== undefined, limits.ttlSeconds);
    }
    return entry;
  };

  return {
    put(input: PutResultInput) {
      const itemsError = tooManyItems(input.items.length);
      if (itemsError !== undefined) return Promise.reject(itemsError);
      let bytes = 0;
      const texts: string[] = [];
      for (let i = 0; i < input.items.length; i += 1) {
        const text = input.texts?.[i] ?? JSON.stringify(input.items[i]);
        texts.push(text);
        bytes += Buffer.byteLength(text, 'utf8') + 2;
        if (bytes > limits.maxResultBytes) return Promise.reject(tooLarge(bytes, limits));
      }
      sweepNow();
      const meta: StoredResultMeta = { ...newHeader(input, now(), limits.ttlSeconds), bytes };
      // Evicts the oldest results until this one fits under the cap (see `entries`).
      entries.set(meta.result_id, { meta, texts });
      used += bytes;
      report();
      return Promise.resolve(meta);
    },
    meta(resultId) {
      return settle(() => get(resultId).meta);
    },
    read(resultId, request: ReadRequest): Promise<ReadResponse> {
      return settle(() => {
        const entry = get(resultId);
        const { filter } = request;
        if (filter === undefined) {
          const items = entry.texts.slice(request.offset, request.offset + request.limit).map((text) => JSON.parse(text) as JsonValue);
          return { meta: entry.meta, items, total: entry.texts.length };
        }
        const matching = entry.texts.map((text) => JSON.parse(text) as JsonValue).filter((item) => filter(item));
        return { meta: entry.meta, items: matching.slice(request.offset, request.offset + request.limit), total: matching.length };
      });
    },
    readTexts(resultId, offset, limit) {
      return settle(() => {
        const entry = get(resultId);
        return { meta: entry.meta, texts: entry.texts.slice(offset, offset + limit) };
      });
    },
    sweep() {
      sweepNow();
      return Promise.resolve();
    },
    close() {
      entries.clear();
      used = 0;
      report();
      return Promise.resolve();
    },
  };
}
