import { FlotillaError } from '@flotilla/core';
import type { FlotillaMetrics, StoreKind } from '@flotilla/metrics';
import type { MemoryStore } from './domain.js';
import { SizedLru } from './lru.js';

/** Conversations an agent keeps in memory by default (the least recently used is dropped first). */
export const CONVERSATIONS_MAX = 10_000;

/**
 * The workflow's conversation memory in this process (a heap of ~384 MiB holds it beside the task store's 64 MiB,
 * the answer cache's 8 MiB and, in LLM mode, 64 MiB of model histories). A memory is a paged query from a question of
 * at most 2,000 characters: a few hundred bytes, so 10,000 conversations take ~5 MiB and the byte cap binds only
 * when values or contextIds are unusually large.
 */
export const CONVERSATION_STORE_LIMITS = {
  /** Conversations held at once. */
  maxEntries: CONVERSATIONS_MAX,
  /** Bytes of all memories (JSON and contextId, UTF-8); the least recently used go first. */
  maxBytes: 16 * 1024 * 1024,
  /**
   * Largest memory of one conversation, its contextId included (a progressive session's cap too); a larger one is
   * refused with `payload_too_large`, as the Redis store refuses one over its cap, so one conversation never evicts
   * more than 1/256 of the others.
   */
  maxEntryBytes: 64 * 1024,
} as const;

/** The store gauges and eviction counter (`createMetrics()` has them). */
export type StoreMetrics = Pick<FlotillaMetrics, 'storeBytes' | 'storeEntries' | 'storeEvictions'>;

export interface BoundedMemoryStoreOptions {
  /** The metric label; `conversation` (the workflow's memory) by default. */
  readonly store?: StoreKind;
  /** What a value is, for the refusal of one that is too large ("conversation memory"). */
  readonly what?: string;
  readonly maxEntries?: number;
  readonly maxBytes?: number;
  readonly maxEntryBytes?: number;
  /** A memory is gone this long after it was saved (none by default: the caps alone bound the store). */
  readonly ttlMs?: number;
  /** Entries, bytes and evictions by reason, labelled with `store`; each store adds its own (two stores of a kind sum). */
  readonly metrics?: StoreMetrics | undefined;
  readonly now?: () => number;
}

/**
 * Conversation memory in this process, bounded in entries and in bytes (least recently used dropped first, by
 * either cap). Each value is what the next turn needs (a paged query, a fitted history); it is sized once per save
 * as the UTF-8 length of its JSON plus its contextId (never on load). A value over `maxEntryBytes` is refused with
 * `payload_too_large` and the previous memory is kept, as `redisMemoryStore` does.
 */
export function boundedMemoryStore<M>(options: BoundedMemoryStoreOptions = {}): MemoryStore<M> & { readonly size: number; readonly bytes: number } {
  const store = options.store ?? 'conversation';
  const what = options.what ?? 'conversation memory';
  const maxEntries = options.maxEntries ?? CONVERSATION_STORE_LIMITS.maxEntries;
  const maxBytes = options.maxBytes ?? CONVERSATION_STORE_LIMITS.maxBytes;
  const maxEntryBytes = Math.min(maxBytes, options.maxEntryBytes ?? CONVERSATION_STORE_LIMITS.maxEntryBytes);
  const { metrics } = options;
  // The series exist (at 0) from the start, so a dashboard tells an empty store from a missing one.
  metrics?.storeEntries.inc({ store }, 0);
  metrics?.storeBytes.inc({ store }, 0);
  const entries = new SizedLru<M>({
    maxEntries,
    maxBytes,
    ttlMs: options.ttlMs,
    now: options.now,
    removed: (entry, reason) => {
      metrics?.storeEntries.dec({ store });
      metrics?.storeBytes.dec({ store }, entry.bytes);
      if (reason !== undefined) metrics?.storeEvictions.inc({ store, reason });
    },
  });

  return {
    get size() {
      return entries.size;
    },
    get bytes() {
      return entries.bytes;
    },
    load(contextId) {
      // The most recently used now; an expired memory is dropped (as `ttl`) and reads as none.
      return Promise.resolve(entries.get(contextId)?.value);
    },
    save(contextId, memory) {
      if (memory === undefined) {
        entries.delete(contextId);
        return Promise.resolve();
      }
      const bytes = Buffer.byteLength(JSON.stringify(memory) ?? '', 'utf8') + Buffer.byteLength(contextId, 'utf8');
      if (bytes > maxEntryBytes) {
        return Promise.reject(
          new FlotillaError('payload_too_large', `the ${what} is ${bytes} bytes; this agent keeps at most ${maxEntryBytes} bytes each`, {
            remedy: 'Start a new conversation, or ask for less at once.',
            details: { bytes, max_bytes: maxEntryBytes },
          }),
        );
      }
      entries.set(contextId, { value: memory, bytes });
      metrics?.storeEntries.inc({ store });
      metrics?.storeBytes.inc({ store }, bytes);
      return Promise.resolve();
    },
  };
}
