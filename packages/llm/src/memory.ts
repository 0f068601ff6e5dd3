import type { MemoryStore } from '@flotilla/agent-kit';

/**
 * Conversations kept in this process, at most `max` (the least recently used is dropped first). Each one's history
 * is already fitted to the context budget, so memory is bounded by max × budget.
 */
export function boundedMemoryStore<M>(max: number): MemoryStore<M> & { readonly size: number } {
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
