import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError, silentLogger } from '@flotilla/core';
import { closeRedis, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import {
  advance,
  createFileSessionStore,
  createMemorySessionStore,
  createRedisSessionStore,
  isExhausted,
  newSession,
  SESSION_DEFAULTS,
  type SessionStore,
  type SessionStoreMetrics,
  type SessionStoreOptions,
} from './session.js';

const base = { tool: 'list_interfaces', args: { site: 'ams1' }, itemKind: 'interfaces', batchSize: 45, total: 100 };

type MakeStore = (o: SessionStoreOptions) => Promise<SessionStore>;

/** One contract, every implementation. */
const stores: [string, MakeStore][] = [
  ['memory', (o) => Promise.resolve(createMemorySessionStore(o))],
  ['files', async (o) => createFileSessionStore(await mkdtemp(join(tmpdir(), 'flotilla-sessions-')), o)],
];

describe.each(stores)('session store contract: %s', (_name, make) => sessionStoreContract(make));

const REDIS = redisServerBinary();
describe.skipIf(REDIS === undefined)(`session store contract: redis${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  let server: LocalRedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    server = await startRedisServer();
    client = await redisFromUrl(server.url, { logger: silentLogger() });
  });
  afterAll(async () => {
    await closeRedis(client);
    await server.stop();
  });
  // A fresh prefix per store: each test sees an empty store, as with the others.
  sessionStoreContract((o) => Promise.resolve(createRedisSessionStore({ ...o, client, keyPrefix: `test:${randomUUID()}:` })));

  it('is shared by every store on the same prefix (another replica continues) and ignores a damaged value', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const a = createRedisSessionStore({ client, keyPrefix });
    const b = createRedisSessionStore({ client, keyPrefix });
    const s = newSession({ ...base, contextId: 'ctx' }, Date.now());
    await a.put(advance(s, 45, Date.now()));
    expect(await b.get('ctx')).toMatchObject({ offset: 45 });
    const keys = await client.keys(`${keyPrefix}sessions:v:*`);
    expect(keys).toHaveLength(1);
    await client.set(keys[0] ?? '', '{"contextId": 42', 'KEEPTTL');
    expect(await b.get('ctx')).toBeUndefined();
    expect(await createRedisSessionStore({ client, keyPrefix: `test:${randomUUID()}:` }).get('ctx')).toBeUndefined();
  });
});

function sessionStoreContract(make: MakeStore): void {
  it('keeps a session per conversation and advances it', async () => {
    let now = 1_000;
    const store = await make({ now: () => now });
    const s = newSession({ ...base, contextId: 'ctx-1' }, now);
    await store.put(s);
    await store.put(newSession({ ...base, contextId: 'ctx-2', total: 5 }, now));
    expect(await store.get('ctx-1')).toEqual(s);
    const next = advance(s, 45, now);
    await store.put(next);
    expect(await store.get('ctx-1')).toMatchObject({ offset: 45, retrieved: 45 });
    expect(await store.get('ctx-2')).toMatchObject({ total: 5 });
    expect(await store.get('unknown')).toBeUndefined();
    now += 2 * 60 * 60 * 1000;
    expect(await store.get('ctx-1')).toBeUndefined();
  });

  it('deletes and stays bounded', async () => {
    const store = await make({ maxSessions: 3 });
    for (let i = 0; i < 5; i += 1) await store.put(newSession({ ...base, contextId: `c${i}` }, Date.now() + i));
    if ('sweep' in store && typeof store.sweep === 'function') await (store.sweep as () => Promise<number>)();
    expect(await store.size()).toBe(3);
    expect(await store.get('c4')).toBeDefined();
    await store.delete('c4');
    expect(await store.get('c4')).toBeUndefined();
  });

  it('refuses a session over the per-session cap with a clear error, keeping the previous one', async () => {
    const store = await make({ maxSessionBytes: 2_000 });
    const s = newSession({ ...base, contextId: 'ctx' }, Date.now());
    await store.put(s);
    let message = '';
    try {
      await store.put({ ...s, args: { site: 'x'.repeat(3_000) } });
    } catch (error) {
      message = isFlotillaError(error) ? `${error.code}: ${error.message}` : String(error);
    }
    expect(message).toMatch(/^payload_too_large: the progressive session is \d+ bytes; (the shared state store|this agent) keeps at most 2000 bytes each$/);
    expect(await store.get('ctx')).toEqual(s);
  });
}

/** Store metrics as a plain recorder (prom-client's gauges and counter add up the same way). */
function recordingMetrics(): { readonly metrics: SessionStoreMetrics; value(name: string, reason?: string): number | undefined } {
  const values = new Map<string, number>();
  const add = (key: string, by: number): void => void values.set(key, (values.get(key) ?? 0) + by);
  const key = (name: string, labels: { readonly store: string; readonly reason?: string }): string => `${name}:${labels.store}:${labels.reason ?? ''}`;
  const gauge = (name: string) => ({ inc: (labels: { readonly store: 'session' }, by = 1) => add(key(name, labels), by), dec: (labels: { readonly store: 'session' }, by = 1) => add(key(name, labels), -by) });
  return {
    metrics: { storeEntries: gauge('entries'), storeBytes: gauge('bytes'), storeEvictions: { inc: (labels, by = 1) => add(key('evictions', labels), by) } },
    value: (name, reason) => values.get(key(name, { store: 'session', reason })),
  };
}

describe('in-memory session store: bounded in bytes as well as count', () => {
  /** A session whose JSON is close to `bytes`. */
  const sized = (contextId: string, bytes: number, now = Date.now()) => newSession({ ...base, contextId, args: { site: 'y'.repeat(bytes - 200) } }, now);

  it('stays under its byte cap with 350 sessions each near the per-session cap, and reports it', async () => {
    const recorder = recordingMetrics();
    const store = createMemorySessionStore({ metrics: recorder.metrics });
    const { maxBytes, maxSessionBytes } = SESSION_DEFAULTS;
    for (let i = 0; i < 350; i += 1) await store.put(sized(`ctx-${i}`, maxSessionBytes - 100));
    const size = await store.size();
    expect(store.bytes).toBeLessThanOrEqual(maxBytes);
    expect(store.bytes).toBeGreaterThan(maxBytes - maxSessionBytes);
    expect(size).toBeGreaterThanOrEqual(Math.floor(maxBytes / maxSessionBytes));
    expect(size).toBeLessThan(350);
    expect(await store.get('ctx-349')).toBeDefined();
    expect(await store.get('ctx-0')).toBeUndefined();
    expect(recorder.value('bytes')).toBe(store.bytes);
    expect(recorder.value('entries')).toBe(size);
    expect(recorder.value('evictions', 'bytes_cap')).toBe(350 - size);
    expect(recorder.value('evictions', 'entries_cap')).toBeUndefined();
  });

  it('evicts the oldest first by bytes, and an expired session before anything live', async () => {
    let now = 1_000_000;
    const recorder = recordingMetrics();
    const store = createMemorySessionStore({ maxBytes: 3_000, maxSessionBytes: 1_000, now: () => now, metrics: recorder.metrics });
    await store.put(sized('a', 900, now));
    await store.put(sized('b', 900, now + 1));
    await store.put(sized('c', 900, now + 2));
    await store.put(sized('d', 900, now + 3));
    expect(await store.get('a')).toBeUndefined();
    for (const id of ['b', 'c', 'd']) expect(await store.get(id)).toBeDefined();
    expect(recorder.value('evictions', 'bytes_cap')).toBe(1);
    // Past b's expiry, a new session takes its room as an expired one, not by the byte cap.
    now += SESSION_DEFAULTS.ttlMs + 1;
    await store.put(sized('e', 200, now));
    expect(recorder.value('evictions', 'ttl')).toBe(1);
    expect(recorder.value('evictions', 'bytes_cap')).toBe(1);
    expect(await store.size()).toBe(3);
    await store.delete('e');
    expect(recorder.value('entries')).toBe(2);
    expect(recorder.value('bytes')).toBe(store.bytes);
  });

  it('counts evictions by the count cap', async () => {
    const recorder = recordingMetrics();
    const store = createMemorySessionStore({ maxSessions: 2, metrics: recorder.metrics });
    for (const id of ['a', 'b', 'c']) await store.put(newSession({ ...base, contextId: id }, Date.now()));
    expect(recorder.value('evictions', 'entries_cap')).toBe(1);
    expect(recorder.value('entries')).toBe(2);
  });
});

describe('sessions', () => {
  it('advance never passes the total', () => {
    let s = newSession({ ...base, contextId: 'x', total: 50 }, 0);
    s = advance(s, 45, 0);
    s = advance(s, 45, 0);
    expect(s.offset).toBe(50);
    expect(isExhausted(s)).toBe(true);
  });
  it('the file store ignores a damaged file and survives a new instance (a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flotilla-sessions-'));
    const first = await createFileSessionStore(dir);
    await first.put(newSession({ ...base, contextId: 'ctx' }, Date.now()));
    const second = await createFileSessionStore(dir);
    expect(await second.get('ctx')).toMatchObject({ tool: 'list_interfaces' });
    const [file] = await readdir(dir);
    await writeFile(join(dir, file ?? ''), '{"contextId": 42');
    expect(await second.get('ctx')).toBeUndefined();
  });
});
