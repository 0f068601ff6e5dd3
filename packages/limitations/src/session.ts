import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
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
  /** Largest session a shared (Redis) store keeps, as JSON; sessions are ~300 bytes. */
  maxSessionBytes: 64 * 1024,
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
  readonly now?: () => number;
}

export function createMemorySessionStore(options: SessionStoreOptions = {}): SessionStore {
  const max = options.maxSessions ?? SESSION_DEFAULTS.maxSessions;
  const now = options.now ?? Date.now;
  // A Map keeps insertion order: re-inserting on put makes the first key the least recently used.
  const sessions = new Map<string, ProgressiveSession>();
  return {
    get(contextId) {
      const found = sessions.get(contextId);
      if (found !== undefined && found.expiresAt <= now()) sessions.delete(contextId);
      return Promise.resolve(found !== undefined && found.expiresAt > now() ? found : undefined);
    },
    put(session) {
      sessions.delete(session.contextId);
      sessions.set(session.contextId, session);
      while (sessions.size > max) {
        const oldest = sessions.keys().next().value;
        if (oldest === undefined) break;
        sessions.delete(oldest);
      }
      return Promise.resolve();
    },
    delete(contextId) {
      sessions.delete(contextId);
      return Promise.resolve();
    },
    size: () => Promise.resolve(sessions.size),
  };
}

/**
 * Sessions as small JSON files, one per conversation (named by a hash of the contextId, so any id is a safe file
 * name); written atomically (temp file + rename); read back through the schema, so a damaged file is ignored,
 * never trusted. Expired files are removed when read and by `sweep`; past `maxSessions` the oldest are removed.
 */
export async function createFileSessionStore(directory: string, options: SessionStoreOptions = {}): Promise<SessionStore & { sweep(): Promise<number> }> {
  const max = options.maxSessions ?? SESSION_DEFAULTS.maxSessions;
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
      const file = fileOf(valid.contextId);
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, JSON.stringify(valid));
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
    maxValueBytes: SESSION_DEFAULTS.maxSessionBytes,
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
