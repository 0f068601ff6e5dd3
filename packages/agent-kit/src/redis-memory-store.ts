import { createRedisKeyspace, type RedisClient } from '@flotilla/state';
import { CONVERSATIONS_MAX } from './memory-store.js';
import type { MemoryStore } from './domain.js';

export const REDIS_MEMORY_DEFAULTS = {
  /** A conversation's memory outlives its last use (load or save) by this much. */
  ttlSeconds: 60 * 60,
  /** Conversations held at once; past it the least recently used goes. */
  maxConversations: CONVERSATIONS_MAX,
  /**
   * Largest memory of one conversation, as JSON: a rules-mode memory is a few hundred bytes, an LLM-mode history
   * is fitted to the context window (200,000 tokens is under 1 MiB of text).
   */
  maxValueBytes: 2 * 1024 * 1024,
} as const;

export interface RedisMemoryStoreOptions<M> {
  /** A connected client (`redisFromUrl`); the store never closes it. */
  readonly client: RedisClient;
  /** Every key starts with it, e.g. `flotilla:netbox:memory:llm:`. */
  readonly keyPrefix: string;
  readonly ttlSeconds?: number;
  readonly maxConversations?: number;
  readonly maxValueBytes?: number;
  /**
   * Checks a stored value before a turn uses it (a zod schema's `parse`, say); a value it rejects (throws or
   * returns undefined) is treated as no memory. Values are trusted as written by default.
   */
  readonly parse?: (value: unknown) => M | undefined;
  readonly now?: () => number;
}

/**
 * Conversation memory in Redis as JSON, shared by every replica on the same prefix, so the next turn may be
 * answered by another one. Expires `ttlSeconds` after its last use; at most `maxConversations` (the least recently
 * used goes); a memory larger than `maxValueBytes` is refused with `payload_too_large` (the turn says so).
 * When Redis fails, load and save reject with `upstream_unavailable` naming the shared state store.
 */
export function redisMemoryStore<M>(options: RedisMemoryStoreOptions<M>): MemoryStore<M> {
  const now = options.now ?? Date.now;
  const ttlMs = (options.ttlSeconds ?? REDIS_MEMORY_DEFAULTS.ttlSeconds) * 1000;
  const space = createRedisKeyspace({
    client: options.client,
    prefix: options.keyPrefix,
    maxEntries: options.maxConversations ?? REDIS_MEMORY_DEFAULTS.maxConversations,
    maxValueBytes: options.maxValueBytes ?? REDIS_MEMORY_DEFAULTS.maxValueBytes,
    what: 'conversation memory',
    now,
  });
  const parse = options.parse ?? ((value: unknown) => value as M);
  return {
    async load(contextId) {
      const raw = await space.get(contextId, { expiresAt: now() + ttlMs });
      if (raw === undefined) return undefined;
      try {
        const stored = JSON.parse(raw) as { readonly contextId?: unknown; readonly memory?: unknown };
        return stored.contextId === contextId ? parse(stored.memory) : undefined;
      } catch {
        return undefined;
      }
    },
    async save(contextId, memory) {
      if (memory === undefined) {
        await space.delete(contextId);
        return;
      }
      await space.put(contextId, JSON.stringify({ contextId, memory }), now() + ttlMs);
    },
  };
}
