import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { createRedisKeyspace, type RedisClient } from '@flotilla/state';

/**
 * A progressive-disclosure session (ADR-0019): what was asked, how big one batch is, how far the person has read.
 * About 300 bytes as JSON; stored per conversation (A2A contextId), so "next batch", "apply a filter" or
 * "summary instead" continue it, also after a restart when the store is on disk.
 */
export const ProgressiveSessionSchema = z.strictObject({
  contextId: z.string().min(1).max(256),
  /** The tool that reads a batch, and its arguments without paging. */
  tool: z.string().min(1).max(64),
  args: z.record(z.string(), z.json()),
  itemKind: z.string().min(1).max(64),
  batchSize: z.number().int().min(1).max(1_000),
  /** Offset of the next batch. */
  offset: z.number().int().min(0),
  /** Items shown so far. */
  retrieved: z.number().int().min(0),
  total: z.number().int().min(0),
  /** A stored result the batches are read from (no upstream call per batch), when the tool stored one. */
  resultId: z.string().max(64).optional(),
  /** The query that produced the stored result (to widen, narrow or re-run it). */
  source: z.strictObject({ tool: z.string().min(1).max(64), args: z.record(z.string(), z.json()) }).optional(),
  createdAt: z.number().int(),
  expiresAt: z.number().int(),
});
export type ProgressiveSession = z.output<typeof ProgressiveSessionSchema>;

export const SESSION_DEFAULTS = {
  /** A session outlives its last use by this much (the result store's TTL). */
  ttlMs: 60 * 60 * 1000,
  /** Sessions held at once; the oldest go first. */
  maxSessions: 10_000,
  /**
   * Largest session a store keeps, as JSON (UTF-8; the contextId is in it); sessions are ~300 bytes. A larger one
   * is refused with `payload_too_large` by every store, so one session never evicts more than 1/128 of the others.
   */
  maxSessionBytes: 64 * 1024,
  /**
   * Bytes of all sessions the in-memory store holds (beside the agent's other stores in a heap of ~384 MiB):
   * 10,000 sessions of ~300 bytes are ~3 MiB, so this binds only when sessions are unusually large. The oldest go.
   */
  maxBytes: 8 * 1024 * 1024,
} as const;

export function newSession(input: Omit<ProgressiveSession, 'createdAt' | 'expiresAt' | 'offset' | 'retrieved'>, now: number, ttlMs: number = SESSION_DEFAULTS.ttlMs): ProgressiveSession {
  return ProgressiveSessionSchema.parse({ ...input, offset: 0, retrieved: 0, createdAt: now, expiresAt: now + ttlMs });
}

/** The session after a batch of `returned` items was shown. */
export function advance(session: ProgressiveSession, returned: number, now: number, ttlMs: number = SESSION_DEFAULTS.ttlMs): ProgressiveSession {
  const offset = Math.min(session.total, session.offset + returned);
  return { ...session, offset, retrieved: Math.min(session.total, session.retrieved + returned), expiresAt: now + ttlMs };
}

export const isExhausted = (session: ProgressiveSession): boolean => session.offset >= session.total;

/** Where sessions live: memory (one process), files (survives restarts) or Redis (shared by replicas). */
export interface SessionStore {
  get(contextId: string): Promise<ProgressiveSession | undefined>;
  put(session: ProgressiveSession): Promise<void>;
  delete(contextId: string): Promise<void>;
  /** Sessions held (for tests and metrics). */
  size(): Promise<number>;
}

export interface SessionStoreOptions {
  readonly maxSessions?: number;
  /** Largest session kept, as JSON (SESSION_DEFAULTS.maxSessionBytes). */
  readonly maxSessionBytes?: number;
  readonly now?: () => number;
}

type StoreLabel = { readonly store: 'session' };
/** A gauge of the store (prom-client's `Gauge` fits). */
interface SessionStoreGauge {
  inc(labels: StoreLabel, value?: number): void;
  dec(labels: StoreLabel, value?: number): void;
}

/**
 * Where the in-memory store reports its entries, bytes and evictions by reason (`createMetrics()` of
 * @flotilla/metrics fits: its storeEntries, storeBytes and storeEvictions with store="session").
 */
export interface SessionStoreMetrics {
  readonly storeEntries: SessionStoreGauge;
  readonly storeBytes: SessionStoreGauge;
  readonly storeEvictions: { inc(labels: StoreLabel & { readonly reason: 'entries_cap' | 'bytes_cap' | 'ttl' }, value?: number): void };
}

export interface MemorySessionStoreOptions extends SessionStoreOptions {
  /** Bytes of all sessions held (SESSION_DEFAULTS.maxBytes). */
  readonly maxBytes?: number;
  readonly metrics?: SessionStoreMetrics | undefined;
}

/** The refusal of a session over the per-session cap (the Redis store's words, but for this agent's store). */
function sessionTooLarge(bytes: number, max: number): FlotillaError {
  return new FlotillaError('payload_too_large', `the progressive session is ${bytes} bytes; this agent keeps at most ${max} bytes each`, {
    remedy: 'Start a new conversation, or ask for less at once.',
    details: { bytes, max_bytes: max },
  });
}

/**
 * Sessions in this process, bounded in count and in bytes (each sized once per put, as its JSON): past either cap
 * the oldest go, expired ones first; a session over `maxSessionBytes` is refused with `payload_too_large` and the
 * previous one is kept, as the other stores do.
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore & { readonly bytes: number } {
  const max = options.maxSessions ?? SESSION_DEFAULTS.maxSessions;
  const maxBytes = options.maxBytes ?? SESSION_DEFAULTS.maxBytes;
  const maxSessionBytes = Math.min(maxBytes, options.maxSessionBytes ?? SESSION_DEFAULTS.maxSessionBytes);
  const now = options.now ?? Date.now;
  const { metrics } = options;
  const label = { store: 'session' } as const;
  // A Map keeps insertion order: re-inserting on put makes the first key the oldest (and, with one TTL, the first to expire).
  const sessions = new Map<string, { readonly session: ProgressiveSession; readonly bytes: number }>();
  let total = 0;
  metrics?.storeEntries.inc(label, 0);
  metrics?.storeBytes.inc(label, 0);
  const remove = (contextId: string, bytes: number, reason?: 'entries_cap' | 'bytes_cap' | 'ttl'): void => {
    sessions.delete(contextId);
    total -= bytes;
    metrics?.storeEntries.dec(label);
    metrics?.storeBytes.dec(label, bytes);
    if (reason !== undefined) metrics?.storeEvictions.inc({ ...label, reason });
  };
  return {
    get bytes() {
      return total;
    },
    get(contextId) {
      const found = sessions.get(contextId);
      if (found === undefined) return Promise.resolve(undefined);
      if (found.session.expiresAt <= now()) {
        remove(contextId, found.bytes, 'ttl');
        return Promise.resolve(undefined);
      }
      return Promise.resolve(found.session);
    },
    put(session) {
      const bytes = Buffer.byteLength(JSON.stringify(session), 'utf8');
      if (bytes > maxSessionBytes) return Promise.reject(sessionTooLarge(bytes, maxSessionBytes));
      const old = sessions.get(session.contextId);
      if (old !== undefined) remove(session.contextId, old.bytes);
      sessions.set(session.contextId, { session, bytes });
      total += bytes;
      metrics?.storeEntries.inc(label);
      metrics?.storeBytes.inc(label, bytes);
      const at = now();
      for (const [contextId, entry] of sessions) {
        if (entry.session.expiresAt <= at && entry.session !== session) remove(contextId, entry.bytes, 'ttl');
        else if (sessions.size > max) remove(contextId, entry.bytes, 'entries_cap');
        else if (total > maxBytes) remove(contextId, entry.bytes, 'bytes_cap');
        else break;
      }
      return Promise.resolve();
    },
    delete(contextId) {
      const found = sessions.get(contextId);
      if (found !== undefined) remove(contextId, found.bytes);
      return Promise.resolve();
    },
    size: () => Promise.resolve(sessions.size),
  };
}

/**
 * Sessions as small JSON files, one per conversation (named by a hash of the contextId, so any id is a safe file
 * name); written atomically (temp file + rename); read back through the schema, so a damaged file is ignored,
 * never trusted. Expired files are removed when read and by `sweep`; past `maxSessions` the oldest are removed; a
 * session over `maxSessionBytes` is refused with `payload_too_large` (the previous one kept).
 */
export async function createFileSessionStore(directory: string, options: SessionStoreOptions = {}): Promise<SessionStore & { sweep(): Promise<number> }> {
  const max = options.maxSessions ?? SESSION_DEFAULTS.maxSessions;
  const maxSessionBytes = options.maxSessionBytes ?? SESSION_DEFAULTS.maxSessionBytes;
  const now = options.now ?? Date.now;
  await mkdir(directory, { recursive: true });
  const fileOf = (contextId: string) => join(directory, `s_${createHash('sha256').update(contextId).digest('hex').slice(0, 32)}.json`);
  const read = async (file: string): Promise<ProgressiveSession | undefined> => {
    try {
      const parsed = ProgressiveSessionSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };
  const files = async () => (await readdir(directory)).filter((f) => /^s_[0-9a-f]{32}\.json$/.test(f));
  const sweep = async (): Promise<number> => {
    const all = await files();
    const live: { file: string; expiresAt: number }[] = [];
    let removed = 0;
    for (const name of all) {
      const file = join(directory, name);
      const session = await read(file);
      if (session === undefined || session.expiresAt <= now()) {
        await rm(file, { force: true });
        removed += 1;
      } else live.push({ file, expiresAt: session.expiresAt });
    }
    live.sort((a, b) => a.expiresAt - b.expiresAt);
    for (const { file } of live.slice(0, Math.max(0, live.length - max))) {
      await rm(file, { force: true });
      removed += 1;
    }
    return removed;
  };
  let puts = 0;
  return {
    async get(contextId) {
      const file = fileOf(contextId);
      const session = await read(file);
      if (session === undefined || session.contextId !== contextId) return undefined;
      if (session.expiresAt <= now()) {
        await rm(file, { force: true });
        return undefined;
      }
      return session;
    },
    async put(session) {
      const valid = ProgressiveSessionSchema.parse(session);
      const json = JSON.stringify(valid);
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > maxSessionBytes) throw sessionTooLarge(bytes, maxSessionBytes);
      const file = fileOf(valid.contextId);
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, json);
      await rename(temp, file);
      // Keep the folder bounded without listing it on every write.
      puts += 1;
      if (puts % 100 === 0) await sweep();
    },
    async delete(contextId) {
      await rm(fileOf(contextId), { force: true });
    },
    size: async () => (await files()).length,
    sweep,
  };
}

export interface RedisSessionStoreOptions extends SessionStoreOptions {
  /** A connected client (`redisFromUrl`); the store never closes it. */
  readonly client: RedisClient;
  /** Every key starts with it, e.g. `flotilla:netbox:`; sessions live under `<prefix>sessions:`. */
  readonly keyPrefix: string;
}

/**
 * Sessions in Redis, shared by every replica that uses the same prefix: "next batch" answered by another replica
 * continues where the last one stopped. A session expires at its `expiresAt` (a Redis TTL, renewed by every
 * `advance` + put: TTL after last use); past `maxSessions` the one expiring first goes; a damaged or foreign value
 * is ignored, never trusted. When Redis fails, operations reject with `upstream_unavailable` naming the store.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const space = createRedisKeyspace({
    client: options.client,
    prefix: `${options.keyPrefix}sessions:`,
    maxEntries: options.maxSessions ?? SESSION_DEFAULTS.maxSessions,
    maxValueBytes: options.maxSessionBytes ?? SESSION_DEFAULTS.maxSessionBytes,
    what: 'progressive session',
    now: options.now,
  });
  return {
    async get(contextId) {
      const raw = await space.get(contextId);
      if (raw === undefined) return undefined;
      let parsed;
      try {
        parsed = ProgressiveSessionSchema.safeParse(JSON.parse(raw));
      } catch {
        return undefined;
      }
      return parsed.success && parsed.data.contextId === contextId ? parsed.data : undefined;
    },
    async put(session) {
      const valid = ProgressiveSessionSchema.parse(session);
      await space.put(valid.contextId, JSON.stringify(valid), valid.expiresAt);
    },
    delete: (contextId) => space.delete(contextId),
    size: () => space.size(),
  };
}
