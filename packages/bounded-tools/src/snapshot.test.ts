import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { silentLogger } from '@flotilla/core';
import { createMetrics, METRIC, type FlotillaMetrics } from '@flotilla/metrics';
import { closeRedis, redisFromUrl } from '@flotilla/state';
import { NO_REDIS_SERVER, redisServerBinary, startRedisServer } from '@flotilla/state/testing';
import { loadTokenCounter } from '@flotilla/tokens';
import { createBoundedTools, type BoundedTools } from './kit.js';
import type { BoundedToolResult } from './measure.js';
import { PAGE_SHAPE } from './paging.js';
import { SEARCH_SHAPE, searchItems } from './search.js';
import { createSnapshotCache, SNAPSHOT_DEFAULTS, SNAPSHOT_SHAPE, type SnapshotCache } from './snapshot.js';
import { createMemoryResultStore } from './store/memory-store.js';
import { createRedisResultStore } from './store/redis-store.js';
import type { ResultStore } from './store/types.js';

type Item = { name: string; team: string };
const ITEMS: Item[] = Array.from({ length: 250 }, (_, i) => ({ name: `app-${String(i).padStart(3, '0')}`, team: `team-${i % 5}` }));

/** A stand-in upstream without paging: every load is one "request" of the whole list. */
class Upstream {
  requests = 0;
  items: Item[] = ITEMS;
  list(): Promise<Item[]> {
    this.requests += 1;
    return Promise.resolve(this.items);
  }
}

interface Rig {
  readonly upstream: Upstream;
  readonly metrics: FlotillaMetrics;
  readonly store: ResultStore;
  /** The cache given to the kit; undefined: the kit's default, one per store. */
  readonly snapshots: SnapshotCache | undefined;
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown> & { _result: BoundedToolResult }>;
  /** Another kit on the same store, as the HTTP server builds one per request. */
  another(): Promise<Rig>;
  close(): Promise<void>;
}

function register(kit: BoundedTools, upstream: Upstream): void {
  kit.registerList({
    name: 'list_apps',
    description: 'List apps.',
    itemKind: 'apps',
    snapshot: true,
    filters: z.strictObject({ team: z.string().optional() }),
    load: async (filters) => (await upstream.list()).filter((item) => filters.team === undefined || item.team === filters.team),
    counts: { by_team: (item) => item.team },
  });
  kit.registerList({
    name: 'list_apps_live',
    description: 'List apps without snapshots.',
    itemKind: 'apps',
    filters: z.strictObject({ team: z.string().optional() }),
    load: async (filters) => (await upstream.list()).filter((item) => filters.team === undefined || item.team === filters.team),
  });
  kit.registerList({
    name: 'search_apps',
    description: 'Search apps.',
    itemKind: 'matches',
    snapshot: true,
    filters: z.strictObject(SEARCH_SHAPE),
    load: async (args) => {
      const outcome = searchItems(await upstream.list(), (item) => [['name', item.name]], { ...args, cap: 30 });
      return { items: outcome.matches.map((m) => m.item), search: outcome, notes: ['searched the stand-in'] };
    },
  });
  // A tool that builds its snapshot list itself (as a relation walk does), and may read only part of the list.
  kit.register({
    name: 'walk_apps',
    description: 'Walk apps.',
    input: z.strictObject({ partial: z.boolean().default(false), ...PAGE_SHAPE, ...SNAPSHOT_SHAPE }),
    run: (args) =>
      Promise.resolve({
        kind: 'snapshot_list',
        itemKind: 'apps',
        page: { limit: args.limit, offset: args.offset, cursor: args.cursor },
        query: { partial: args.partial },
        refresh: args.refresh,
        load: async () => {
          const all = await upstream.list();
          return args.partial ? { items: all.slice(0, 120), notes: ['Stopped early: rate limited.'], reusable: false } : { items: all };
        },
      }),
  });
  kit.registerReadResult();
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

async function rig(
  options: { store?: ResultStore; snapshots?: (store: ResultStore, metrics: FlotillaMetrics) => SnapshotCache; budgetTokens?: number } = {},
  shared?: { upstream: Upstream; metrics: FlotillaMetrics; store: ResultStore },
): Promise<Rig> {
  const counter = await loadTokenCounter();
  const metrics = shared?.metrics ?? createMetrics();
  const store = shared?.store ?? options.store ?? createMemoryResultStore({ metrics });
  const upstream = shared?.upstream ?? new Upstream();
  const snapshots = options.snapshots?.(store, metrics);
  const server = new McpServer({ name: 'snapshot-test', version: '0.0.0' });
  const kit = createBoundedTools({ server, counter, store, metrics, logger: silentLogger(), budgetTokens: options.budgetTokens ?? 20_000, snapshots });
  register(kit, upstream);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'snapshot-test', version: '0.0.0' });
  await client.connect(a);
  const made: Rig = {
    upstream,
    metrics,
    store,
    snapshots,
    call: async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as BoundedToolResult;
      const first = result.content[0];
      return { ...(JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, unknown>), _result: result };
    },
    another: () => rig({ budgetTokens: options.budgetTokens }, { upstream, metrics, store }),
    close: async () => {
      await client.close();
      await server.close();
      if (shared === undefined) await store.close();
    },
  };
  rigs.push(made);
  return made;
}

async function cache(metrics: FlotillaMetrics, outcome: 'hit' | 'miss' | 'bypass'): Promise<number> {
  return (await metrics.cacheRequests.get()).values.find((v) => v.labels.cache === 'snapshot' && v.labels.outcome === outcome)?.value ?? 0;
}
async function entries(metrics: FlotillaMetrics): Promise<number> {
  return (await metrics.cacheEntries.get()).values.find((v) => v.labels.cache === 'snapshot')?.value ?? 0;
}
async function evictions(metrics: FlotillaMetrics): Promise<number> {
  return (await metrics.cacheEvictions.get()).values.find((v) => v.labels.cache === 'snapshot')?.value ?? 0;
}

describe('list snapshots', () => {
  it('loads once and pages every later call from the snapshot, in order, with the same counts', async () => {
    const r = await rig();
    const first = await r.call('list_apps', { limit: 100 });
    expect(first.result_id).toMatch(/^r_/);
    const names = (first.items as Item[]).map((i) => i.name);
    for (const offset of [100, 200]) {
      const page = await r.call('list_apps', { limit: 100, offset });
      expect(page.counts).toEqual(first.counts);
      expect(page.result_id).toBeUndefined();
      names.push(...(page.items as Item[]).map((i) => i.name));
    }
    expect(names).toEqual(ITEMS.map((i) => i.name));
    // Offset 0 again: the same stored result, not a second one.
    expect((await r.call('list_apps', { limit: 5 })).result_id).toBe(first.result_id);
    expect(r.upstream.requests).toBe(1);
    expect(await cache(r.metrics, 'miss')).toBe(1);
    expect(await cache(r.metrics, 'hit')).toBe(3);
    const text = await r.metrics.registry.metrics();
    expect(text).toContain(`${METRIC.cacheRequests}{cache="snapshot",outcome="hit"} 3`);
    expect(text).toContain(`${METRIC.cacheEntries}{cache="snapshot"} 1`);
  });

  it('keys snapshots by tool and filters; lists without the option load every time', async () => {
    const r = await rig();
    await r.call('list_apps', { team: 'team-1', limit: 10 });
    await r.call('list_apps', { team: 'team-1', limit: 10, offset: 10 });
    expect(r.upstream.requests).toBe(1);
    await r.call('list_apps', { team: 'team-2', limit: 10, offset: 10 });
    expect(r.upstream.requests).toBe(2);
    await r.call('list_apps_live', { team: 'team-1', limit: 10, offset: 10 });
    await r.call('list_apps_live', { team: 'team-1', limit: 10, offset: 20 });
    expect(r.upstream.requests).toBe(4);
    // Only snapshot lists take refresh.
    expect(String((await r.call('list_apps_live', { refresh: true })).message)).toMatch(/unknown argument\(s\): refresh/);
  });

  it('stores a list below the spill threshold only when it has more pages, without showing a result_id', async () => {
    const r = await rig();
    const oneTeam = ITEMS.filter((i) => i.team === 'team-3');
    const whole = await r.call('list_apps', { team: 'team-3', limit: 100 });
    expect(whole.total).toBe(oneTeam.length);
    expect(whole.has_more).toBe(false);
    expect(await entries(r.metrics)).toBe(0);
    const first = await r.call('list_apps', { team: 'team-4', limit: 20 });
    expect(first.result_id).toBeUndefined();
    expect(first._result.content).toHaveLength(1);
    expect(await entries(r.metrics)).toBe(1);
    await r.call('list_apps', { team: 'team-4', limit: 20, offset: 20 });
    expect(r.upstream.requests).toBe(2);
  });

  it('is shared by every kit on the store: per-request servers page one snapshot', async () => {
    const r = await rig();
    await r.call('list_apps', { limit: 50 });
    const other = await r.another();
    const page = await other.call('list_apps', { limit: 50, offset: 50 });
    expect((page.items as Item[])[0]?.name).toBe('app-050');
    expect(r.upstream.requests).toBe(1);
  });

  it('refresh loads anew and replaces the snapshot', async () => {
    const r = await rig();
    await r.call('list_apps', { limit: 10 });
    r.upstream.items = ITEMS.slice(0, 30);
    const stale = await r.call('list_apps', { limit: 10, offset: 10 });
    expect(stale.total).toBe(250);
    const fresh = await r.call('list_apps', { limit: 10, offset: 10, refresh: true });
    expect(fresh.total).toBe(30);
    expect((await r.call('list_apps', { limit: 10, offset: 20 })).total).toBe(30);
    expect(r.upstream.requests).toBe(2);
    expect(await cache(r.metrics, 'bypass')).toBe(1);
  });

  it('expires after its TTL and shows its age once older than a few seconds', async () => {
    let now = 1_000_000;
    const r = await rig({ snapshots: (store, metrics) => createSnapshotCache(store, { metrics, ttlSeconds: 20, now: () => now }) });
    await r.call('list_apps', { limit: 10 });
    now += SNAPSHOT_DEFAULTS.showAgeAfterSeconds * 1000;
    expect((await r.call('list_apps', { limit: 10, offset: 10 })).snapshot_age_seconds).toBeUndefined();
    now += 7_000;
    const old = await r.call('list_apps', { limit: 10, offset: 20 });
    expect(old.snapshot_age_seconds).toBe(12);
    now += 8_000;
    const fresh = await r.call('list_apps', { limit: 10, offset: 30 });
    expect(fresh.snapshot_age_seconds).toBeUndefined();
    expect(r.upstream.requests).toBe(2);
    expect(await evictions(r.metrics)).toBe(1);
  });

  it('refetches when the store let the result go, and keeps at most maxEntries snapshots', async () => {
    // A store that holds one list at a time: the second snapshot pushes the first out.
    const store = createMemoryResultStore({ diskCapBytes: 2_000, maxResultBytes: 2_000 });
    const r = await rig({ store, snapshots: (s, m) => createSnapshotCache(s, { metrics: m, maxEntries: 2 }) });
    await r.call('list_apps', { team: 'team-0', limit: 10 });
    await r.call('list_apps', { team: 'team-1', limit: 10 });
    await r.call('list_apps', { team: 'team-0', limit: 10, offset: 10 });
    expect(r.upstream.requests).toBe(3);
    expect(await evictions(r.metrics)).toBe(1);
    // The index cap: a third query forgets the oldest.
    const big = createMemoryResultStore();
    const capped = await rig({ store: big, snapshots: (s, m) => createSnapshotCache(s, { metrics: m, maxEntries: 2 }) });
    for (const team of ['team-0', 'team-1', 'team-2']) await capped.call('list_apps', { team, limit: 10 });
    expect(capped.snapshots?.size).toBe(2);
    await capped.call('list_apps', { team: 'team-2', limit: 10, offset: 10 });
    expect(capped.upstream.requests).toBe(3);
    await capped.call('list_apps', { team: 'team-0', limit: 10, offset: 10 });
    expect(capped.upstream.requests).toBe(4);
  });

  it('does not keep a list too large for the store: later pages load again, as without snapshots', async () => {
    const store = createMemoryResultStore({ diskCapBytes: 2_000, maxResultBytes: 2_000 });
    const r = await rig({ store });
    const first = await r.call('list_apps', { limit: 10 });
    expect(String((first.notes as string[])[0])).toMatch(/not stored/);
    await r.call('list_apps', { limit: 10, offset: 10 });
    expect(r.upstream.requests).toBe(2);
  });

  it('serves tools that build snapshot lists themselves, and never keeps a partial read', async () => {
    const r = await rig();
    await r.call('walk_apps', { limit: 10 });
    const next = await r.call('walk_apps', { limit: 10, offset: 10 });
    expect((next.items as Item[])[0]?.name).toBe('app-010');
    expect(r.upstream.requests).toBe(1);
    const partial = await r.call('walk_apps', { partial: true, limit: 10 });
    expect(partial.notes).toEqual(['Stopped early: rate limited.']);
    // Stored for read_result (over the spill threshold), but not a snapshot: the next page reads again.
    expect(partial.result_id).toMatch(/^r_/);
    await r.call('walk_apps', { partial: true, limit: 10, offset: 10 });
    expect(r.upstream.requests).toBe(3);
  });

  it('keeps the search outcome and notes of the load on later pages', async () => {
    const r = await rig();
    const first = await r.call('search_apps', { query: 'app-', limit: 10 });
    const later = await r.call('search_apps', { query: 'app-', limit: 10, offset: 10 });
    expect(later.search).toEqual(first.search);
    expect(later.notes).toEqual(['searched the stand-in']);
    expect(r.upstream.requests).toBe(1);
  });

  it('refuses a cache on another store, filters named like kit arguments, and a TTL out of range', async () => {
    const counter = await loadTokenCounter();
    const metrics = createMetrics();
    const server = new McpServer({ name: 'x', version: '0' });
    expect(() =>
      createBoundedTools({ server, counter, store: createMemoryResultStore(), metrics, logger: silentLogger(), snapshots: createSnapshotCache(createMemoryResultStore()) }),
    ).toThrow(/snapshot cache must be built on the result store/);
    const kit = createBoundedTools({ server, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
    expect(() =>
      kit.registerList({ name: 'bad', description: 'x', itemKind: 'x', snapshot: true, filters: z.strictObject({ refresh: z.boolean().optional() }), load: () => Promise.resolve([]) }),
    ).toThrow(/must not be named refresh/);
    expect(() => createSnapshotCache(createMemoryResultStore(), { ttlSeconds: 0 })).toThrow(/snapshot TTL/);
    expect(() => createSnapshotCache(createMemoryResultStore(), { ttlSeconds: 3_601 })).toThrow(/snapshot TTL/);
  });
});

const REDIS_BINARY = redisServerBinary();
describe.skipIf(REDIS_BINARY === undefined)(`list snapshots in Redis${REDIS_BINARY === undefined ? ` (skipped: ${NO_REDIS_SERVER})` : ''}`, () => {
  it('are indexed beside a Redis store, so another replica on the prefix pages the snapshot one took', async () => {
    const server = await startRedisServer();
    const client = await redisFromUrl(server.url, { logger: silentLogger() });
    try {
      const keyPrefix = `test:${randomUUID()}:`;
      const [a, b] = [createRedisResultStore({ client, keyPrefix }), createRedisResultStore({ client, keyPrefix })];
      const [cacheA, cacheB] = [createSnapshotCache(a), createSnapshotCache(b)];
      const key = cacheA.key('list_apps', { team: 'team-1' });
      expect(cacheB.key('list_apps', { team: 'team-1' })).toBe(key);
      expect(await cacheB.page(key, 0, 10)).toBeUndefined();
      const meta = await a.put({ tool: 'list_apps', item_kind: 'apps', query: { team: 'team-1' }, counts: {}, items: ITEMS });
      await cacheA.remember(key, meta, { notes: ['from replica a'] });
      const page = await cacheB.page(key, 10, 5);
      expect(page?.items).toEqual(ITEMS.slice(10, 15));
      expect(page?.notes).toEqual(['from replica a']);
      expect(cacheA.size).toBe(1);
    } finally {
      await closeRedis(client);
      await server.stop();
    }
  });
});
