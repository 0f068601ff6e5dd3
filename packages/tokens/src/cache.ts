import { createHash } from 'node:crypto';
import type { TokenCounter } from './counter.js';

/** Texts up to this many characters are their own cache key; longer ones are keyed by a digest. */
const KEY_TEXT_MAX = 256;

/**
 * A counter that remembers the counts of the last `maxEntries` texts (least recently used dropped first), so a
 * conversation history re-sent on every model call is tokenized once, not once per call. Long texts are keyed by
 * their SHA-1 and length, so the cache holds no large strings: memory is bounded by maxEntries x ~300 bytes.
 */
export function cachingCounter(counter: TokenCounter, maxEntries = 8_192): TokenCounter & { readonly size: number } {
  const counts = new Map<string, number>();
  const keyOf = (text: string): string => (text.length <= KEY_TEXT_MAX ? `t:${text}` : `h:${text.length}:${createHash('sha1').update(text).digest('base64')}`);
  return {
    encoding: counter.encoding,
    get size() {
      return counts.size;
    },
    count(text) {
      const key = keyOf(text);
      const known = counts.get(key);
      if (known !== undefined) {
        counts.delete(key);
        counts.set(key, known);
        return known;
      }
      const n = counter.count(text);
      counts.set(key, n);
      if (counts.size > maxEntries) {
        const oldest = counts.keys().next().value;
        if (oldest !== undefined) counts.delete(oldest);
      }
      return n;
    },
    truncate: (text, maxTokens) => counter.truncate(text, maxTokens),
  };
}
