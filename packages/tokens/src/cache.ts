import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { TokenCounter } from './counter.js';

/** Texts up to this many characters are their own cache key; longer ones are keyed by a digest. */
const KEY_TEXT_MAX = 256;

/** Counts a caching counter remembers by default (~300 bytes each: ~2.4 MiB). */
export const CACHING_COUNTER_MAX_ENTRIES = 8_192;

/**
 * A counter that remembers the counts of the last `maxEntries` texts (at least 1; least recently used dropped first,
 * `lru-cache`), so a conversation history re-sent on every model call is tokenized once, not once per call. Long
 * texts are keyed by their SHA-1 and length, so the cache holds no large strings: memory is bounded by maxEntries x
 * ~300 bytes.
 */
export function cachingCounter(counter: TokenCounter, maxEntries: number = CACHING_COUNTER_MAX_ENTRIES): TokenCounter & { readonly size: number } {
  const counts = new LRUCache<string, number>({ max: Math.max(1, Math.floor(maxEntries)) });
  const keyOf = (text: string): string => (text.length <= KEY_TEXT_MAX ? `t:${text}` : `h:${text.length}:${createHash('sha1').update(text).digest('base64')}`);
  return {
    encoding: counter.encoding,
    get size() {
      return counts.size;
    },
    count(text) {
      const key = keyOf(text);
      const known = counts.get(key);
      if (known !== undefined) return known;
      const n = counter.count(text);
      counts.set(key, n);
      return n;
    },
    truncate: (text, maxTokens) => counter.truncate(text, maxTokens),
  };
}
