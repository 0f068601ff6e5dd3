import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { isFlotillaError, silentLogger } from '@flotilla/core';
import { closeRedis, redisFromUrl, type RedisClient } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer, type LocalRedisServer } from '@flotilla/state/testing';
import type { JsonValue } from '../json.js';
import { createFileResultStore, OPEN_FILES_MAX } from './file-store.js';
import { createMemoryResultStore } from './memory-store.js';
import { createRedisResultStore } from './redis-store.js';
import type { StoreOptions } from './common.js';
import type { ResultStore } from './types.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flotilla-store-'));
  dirs.push(dir);
  return dir;
}

const implementations: Record<string, (options: StoreOptions) => Promise<ResultStore>> = {
  memory: (options) => Promise.resolve(createMemoryResultStore(options)),
  file: async (options) => createFileResultStore({ ...options, directory: await tempDir(), sweepIntervalMs: 0 }),
};

const items = (n: number, pad = 10): JsonValue[] =>
  Array.from({ length: n }, (_, i) => ({ name: `item-${i}`, team: `t${i % 3}`, text: 'é'.repeat(pad), tags: ['a', `n${i}`] }));

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isFlotillaError(error) ? error.code : `not a FlotillaError: ${String(error)}`;
  }
  return 'no error';
}

for (const [kind, make] of Object.entries(implementations)) {
  describe(`${kind} result store contract`, () => resultStoreContract(make));
}

const REDIS = redisServerBinary();
describe.skipIf(REDIS === undefined)(`redis result store contract${REDIS === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
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
  resultStoreContract((options) => Promise.resolve(createRedisResultStore({ ...options, client, keyPrefix: `test:${randomUUID()}:` })));

  it('is shared by the stores of every replica on the same prefix, keeps nothing of a refused result, and expires in Redis too', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const a = createRedisResultStore({ client, keyPrefix, ttlSeconds: 60 });
    const b = createRedisResultStore({ client, keyPrefix, ttlSeconds: 60 });
    const data = items(700);
    const meta = await a.put({ tool: 't', item_kind: 'things', query: { q: 1 }, counts: {}, items: data });
    expect(await b.meta(meta.result_id)).toEqual(meta);
    expect((await b.read(meta.result_id, { offset: 250, limit: 20 })).items).toEqual(data.slice(250, 270));
    for (const key of await client.keys(`${keyPrefix}*`)) expect(await client.pttl(key)).toBeGreaterThan(0);
    expect(await client.llen(`${keyPrefix}results:chunks:${meta.result_id}`)).toBe(3);
    const small = createRedisResultStore({ client, keyPrefix, maxResultBytes: 10_000 });
    expect(await errorCode(small.put({ tool: 't', item_kind: 'x', query: null, counts: {}, items: items(2_000) }))).toBe('payload_too_large');
    expect(await client.keys(`${keyPrefix}results:pending:*`)).toEqual([]);
    // Chunks gone under the header (evicted by Redis's own memory policy): the reader is told, not misled.
    await client.del(`${keyPrefix}results:chunks:${meta.result_id}`);
    expect(await errorCode(b.read(meta.result_id, { offset: 0, limit: 5 }))).toBe('result_expired');
  });

  it('answers a clear error while Redis is away', async () => {
    const own = await startRedisServer();
    const c = await redisFromUrl(own.url, { logger: silentLogger() });
    try {
      const store = createRedisResultStore({ client: c, keyPrefix: 'away:' });
      const meta = await store.put({ tool: 't', item_kind: 'x', query: null, counts: {}, items: items(3) });
      await own.stop();
      let message = '';
      try {
        await store.read(meta.result_id, { offset: 0, limit: 1 });
      } catch (error) {
        message = isFlotillaError(error) ? `${error.code}: ${error.message}` : String(error);
      }
      expect(message).toMatch(/^upstream_unavailable: the shared state store \(Redis\) could not read a stored result: /);
    } finally {
      await closeRedis(c);
    }
  });
});

function resultStoreContract(make: (options: StoreOptions) => Promise<ResultStore>): void {
  it('stores a result and reads it back page by page, in order, with multi-byte text', async () => {
    const store = await make({});
    const data = items(1000);
    const meta = await store.put({ tool: 't', item_kind: 'things', query: { q: 1 }, counts: { by_team: { t0: 334 } }, items: data });
    expect(meta).toMatchObject({ total_items: 1000, item_kind: 'things', uri: `flotilla://results/${meta.result_id}` });
    expect(meta.bytes).toBeGreaterThan(0);
    const seen: JsonValue[] = [];
    for (let offset = 0; offset < 1000; offset += 137) {
      const page = await store.read(meta.result_id, { offset, limit: 137 });
      expect(page.total).toBe(1000);
      seen.push(...page.items);
    }
    expect(seen).toEqual(data);
    expect((await store.read(meta.result_id, { offset: 5000, limit: 10 })).items).toEqual([]);
    await store.close();
  });

  it('hands out items as their JSON texts, unparsed, page by page', async () => {
    const store = await make({});
    const data = items(600);
    const meta = await store.put({ tool: 't', item_kind: 'things', query: null, counts: {}, items: data });
    expect(typeof store.readTexts).toBe('function');
    const texts: string[] = [];
    for (let offset = 0; offset < 650; offset += 97) {
      const page = await store.readTexts?.(meta.result_id, offset, 97);
      expect(page?.meta.result_id).toBe(meta.result_id);
      texts.push(...(page?.texts ?? []));
    }
    expect(texts).toEqual(data.map((item) => JSON.stringify(item)));
    expect(await errorCode(store.readTexts?.('r_000000000000000000000000', 0, 1) ?? Promise.resolve())).toBe('not_found');
    await store.close();
  });

  it('filters across the whole result and pages the matches', async () => {
    const store = await make({});
    const meta = await store.put({ tool: 't', item_kind: 'things', query: null, counts: {}, items: items(600) });
    const isT1 = (item: JsonValue): boolean => (item as { team: string }).team === 't1';
    const first = await store.read(meta.result_id, { offset: 0, limit: 50, filter: isT1 });
    const second = await store.read(meta.result_id, { offset: 50, limit: 500, filter: isT1 });
    expect(first.total).toBe(200);
    expect(first.items).toHaveLength(50);
    expect(second.items).toHaveLength(150);
    expect([...first.items, ...second.items].every(isT1)).toBe(true);
    await store.close();
  });

  it('says not_found for unknown ids and result_expired after the TTL', async () => {
    let clock = 1_000_000;
    const metrics = createMetrics();
    const store = await make({ ttlSeconds: 60, now: () => clock, metrics });
    expect(await errorCode(store.meta('r_000000000000000000000000'))).toBe('not_found');
    const meta = await store.put({ tool: 't', item_kind: 'x', query: null, counts: {}, items: items(3) });
    clock += 59_000;
    expect((await store.meta(meta.result_id)).total_items).toBe(3);
    clock += 2_000;
    expect(await errorCode(store.read(meta.result_id, { offset: 0, limit: 1 }))).toBe('result_expired');
    await store.sweep();
    expect(await errorCode(store.meta(meta.result_id))).toBe('result_expired');
    expect(await metrics.registry.getSingleMetricAsString(METRIC.resultStoreEvictions)).toContain('reason="ttl"');
    await store.close();
  });

  it('refuses a result over the per-result cap and evicts the oldest at the disk cap', async () => {
    const metrics = createMetrics();
    const store = await make({ maxResultBytes: 40_000, diskCapBytes: 100_000, metrics });
    expect(await errorCode(store.put({ tool: 't', item_kind: 'x', query: null, counts: {}, items: items(1000, 100) }))).toBe(
      'payload_too_large',
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push((await store.put({ tool: 't', item_kind: 'x', query: null, counts: {}, items: items(100, 150) })).result_id);
    }
    // ~30 KB each under a 100 KB cap: the oldest went first, the newest are readable.
    expect(await errorCode(store.meta(ids[0] ?? ''))).toBe('result_expired');
    expect((await store.meta(ids[4] ?? '')).total_items).toBe(100);
    const bytes = Number(/flotilla_result_store_bytes (\d+)/.exec(await metrics.registry.metrics())?.[1]);
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(await metrics.registry.getSingleMetricAsString(METRIC.resultStoreEvictions)).toContain('reason="disk_cap"');
    await store.close();
  });
}

describe('file result store specifics', () => {
  it('writes the design-note file format and serves results again after a restart', async () => {
    const directory = await tempDir();
    const first = await createFileResultStore({ directory, sweepIntervalMs: 0 });
    const data = items(42);
    const meta = await first.put({ tool: 'list_things', item_kind: 'things', query: { team: 't1' }, counts: { by_team: { t1: 14 } }, items: data });
    await first.close();

    const onDisk = JSON.parse(await readFile(join(directory, `${meta.result_id}.json`), 'utf8')) as Record<string, unknown>;
    expect(onDisk).toMatchObject({ result_id: meta.result_id, tool: 'list_things', total_items: 42, counts: { by_team: { t1: 14 } } });
    expect(onDisk.items).toEqual(data);

    const second = await createFileResultStore({ directory, sweepIntervalMs: 0 });
    const page = await second.read(meta.result_id, { offset: 40, limit: 10 });
    expect(page.items).toEqual(data.slice(40));
    await second.close();
    expect((await readdir(directory)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it(`keeps at most OPEN_FILES_MAX (${OPEN_FILES_MAX}) result files open for reads, and closes them with the store`, async () => {
    const directory = await tempDir();
    const store = await createFileResultStore({ directory, sweepIntervalMs: 0 });
    const openHere = async (): Promise<number> => {
      let open = 0;
      for (const fd of await readdir('/proc/self/fd')) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (target.startsWith(directory)) open += 1;
      }
      return open;
    };
    const ids: string[] = [];
    for (let i = 0; i < OPEN_FILES_MAX + 10; i += 1) ids.push((await store.put({ tool: 't', item_kind: 'x', query: null, counts: {}, items: items(20) })).result_id);
    for (const id of ids) expect((await store.readTexts?.(id, 5, 3))?.texts).toEqual(items(20).slice(5, 8).map((item) => JSON.stringify(item)));
    // Reading the same result again reuses its open file.
    for (const id of ids.slice(-3)) await store.read(id, { offset: 0, limit: 1 });
    expect(await openHere()).toBeLessThanOrEqual(OPEN_FILES_MAX);
    expect(await openHere()).toBeGreaterThan(0);
    await store.close();
    expect(await openHere()).toBe(0);
  });
});
