import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@flotilla/core';
import { closeRedis, NO_REDIS_SERVER, redisFromUrl, redisServerBinary, startRedisServer, type LocalRedisServer, type RedisClient } from '@flotilla/state';
import {
  advance,
  createFileSessionStore,
  createMemorySessionStore,
  createRedisSessionStore,
  isExhausted,
  newSession,
  type SessionStore,
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
}

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
