import type { MemoryStore } from './workflow.js';

/** Conversations an agent keeps in memory by default (the least recently used is dropped first). */
export const CONVERSATIONS_MAX = 10_000;

/**
 * Conversation memory in this process, at most `max` conversations (least recently used dropped first); each
 * value is what the next turn needs (a paged query, a fitted history), so memory stays bounded by max × value.
 */
export function boundedMemoryStore<M>(max: number = CONVERSATIONS_MAX): MemoryStore<M> & { readonly size: number } {
  const entries = new Map<string, M>();
  return {
    get size() {
      return entries.size;
    },
    load(contextId) {
      const value = entries.get(contextId);
      if (value !== undefined) {
        entries.delete(contextId);
        entries.set(contextId, value);
      }
      return Promise.resolve(value);
    },
    save(contextId, memory) {
      entries.delete(contextId);
      if (memory !== undefined) entries.set(contextId, memory);
      while (entries.size > max) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
      return Promise.resolve();
    },
  };
}
