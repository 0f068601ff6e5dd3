import { beforeEach, describe, expect, it } from 'vitest';
import { callToolOk, toolsAgainstSimulator } from '@flotilla/agent-host/testing';
import { createMemoryResultStore, createSnapshotCache, SNAPSHOT_DEFAULTS } from '@flotilla/bounded-tools';
import { createMetrics } from '@flotilla/metrics';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient } from './client/argocd-client.js';
import { connectArgoCdToolsInProcess } from './server.js';

/**
 * Issue 9, "Upstream snapshot": Argo CD has no server-side paging, so without a snapshot every page of
 * list_applications fetched the whole list again (9 full fetches for 819 applications at limit 100). Real HTTP to
 * the simulator, which counts every request it receives; the tools over the in-memory MCP transport.
 */
const TOKEN = 'snapshot-token-0123456789';
const estate = generateArgoEstate();
type Json = Record<string, unknown>;

const metrics = createMetrics();
const store = createMemoryResultStore({ metrics });
/** The snapshot cache's clock: tests move it instead of waiting. */
let clock = Date.parse('2026-01-01T00:00:00Z');
const snapshots = createSnapshotCache(store, { metrics, now: () => clock });
let sim: RunningSimulator;
const tools = toolsAgainstSimulator({
  simulator: async () => {
    sim = await startArgoCdSimulator({ token: TOKEN, estate });
    return sim;
  },
  connect: (url, deps) => connectArgoCdToolsInProcess({ ...deps, client: new ArgoCdClient({ baseUrl: url, token: TOKEN, limits: UPSTREAM_DEFAULTS, metrics: deps.metrics, logger: deps.logger }) }),
  // A budget that holds 100 rows, so `limit` 100 pages step by exactly 100 as in the issue.
  deps: { metrics, store, snapshots, budgetTokens: 20_000 },
});
beforeEach(() => {
  sim.resetStats();
});

const page = (args: Json): Promise<Json> => callToolOk(tools().client, 'list_applications', args);

async function snapshotRequests(outcome: 'hit' | 'miss' | 'bypass'): Promise<number> {
  const { values } = await metrics.cacheRequests.get();
  return values.find((v) => v.labels.cache === 'snapshot' && v.labels.outcome === outcome)?.value ?? 0;
}

describe('list_applications pages from one upstream snapshot', () => {
  it('pages through all 819 applications at limit 100 with exactly one upstream list request', async () => {
    expect(estate.applications).toHaveLength(819);
    const names: string[] = [];
    let offset: number | null = 0;
    let calls = 0;
    while (offset !== null) {
      const body = await page({ limit: 100, offset });
      expect(body.total).toBe(819);
      expect(body.returned).toBe(Math.min(100, 819 - offset));
      names.push(...(body.items as Json[]).map((item) => String(item.name)));
      offset = body.next_offset as number | null;
      calls += 1;
    }
    expect(calls).toBe(9);
    expect(names).toEqual(estate.applications.map((a) => a.metadata.name));
    // One application list, and the cluster list that names destinations (kept for 30 s by the cluster directory).
    expect(sim.stats().requests).toBe(2);
    expect(await snapshotRequests('miss')).toBe(1);
    expect(await snapshotRequests('hit')).toBe(8);
    // Without the snapshot (refresh on every call) the same paging fetches the whole list for every page.
    sim.resetStats();
    for (let at = 0; at < 819; at += 100) await page({ limit: 100, offset: at, refresh: true });
    expect(sim.stats().requests).toBe(9);
  });

  it('serves cursors and counts from the snapshot; other filters fetch once more', async () => {
    const first = await page({ sync_status: 'OutOfSync', limit: 10 });
    const wanted = estate.applications.filter((a) => a.status?.sync?.status === 'OutOfSync');
    expect(first.total).toBe(wanted.length);
    const next = await page({ sync_status: 'OutOfSync', limit: 10, cursor: first.next_cursor });
    expect(next.offset).toBe(10);
    expect((next.items as Json[]).map((i) => i.name)).toEqual(wanted.slice(10, 20).map((a) => a.metadata.name));
    expect(next.counts).toEqual(first.counts);
    expect(sim.stats().requests).toBe(1);
    // Each new combination of filters is its own snapshot: one more request, then none.
    await page({ sync_status: 'OutOfSync', health_status: 'Degraded', limit: 5 });
    await page({ sync_status: 'OutOfSync', health_status: 'Degraded', limit: 5, offset: 5 });
    expect(sim.stats().requests).toBe(2);
  });

  it('refetches on refresh, and the new list becomes the snapshot', async () => {
    await page({ limit: 100, offset: 100 });
    expect(sim.stats().requests).toBe(0);
    const bypassed = await snapshotRequests('bypass');
    const fresh = await page({ limit: 100, offset: 200, refresh: true });
    expect(fresh.offset).toBe(200);
    expect(fresh.snapshot_age_seconds).toBeUndefined();
    expect(sim.stats().requests).toBe(1);
    expect(await snapshotRequests('bypass')).toBe(bypassed + 1);
    await page({ limit: 100, offset: 300 });
    expect(sim.stats().requests).toBe(1);
  });

  it('shows its age once older than 5 s, and refetches after the TTL', async () => {
    const key = { name_contains: 'a', limit: 20 };
    await page(key);
    expect(sim.stats().requests).toBe(1);
    clock += 3_000;
    expect((await page({ ...key, offset: 20 })).snapshot_age_seconds).toBeUndefined();
    clock += 27_000;
    const old = await page({ ...key, offset: 40 });
    expect(old.snapshot_age_seconds).toBe(30);
    expect(String(old.next_step)).toMatch(/30 s ago; call with refresh true/);
    expect(sim.stats().requests).toBe(1);
    const evicted = (await metrics.cacheEvictions.get()).values.find((v) => v.labels.cache === 'snapshot')?.value ?? 0;
    clock += SNAPSHOT_DEFAULTS.ttlSeconds * 1000;
    const after = await page({ ...key, offset: 60 });
    expect(after.snapshot_age_seconds).toBeUndefined();
    expect(sim.stats().requests).toBe(2);
    expect((await metrics.cacheEvictions.get()).values.find((v) => v.labels.cache === 'snapshot')?.value).toBe(evicted + 1);
  });

  it('holds snapshots in the result store and says how many and how large', async () => {
    const entries = (await metrics.cacheEntries.get()).values.find((v) => v.labels.cache === 'snapshot')?.value ?? 0;
    const bytes = (await metrics.cacheBytes.get()).values.find((v) => v.labels.cache === 'snapshot')?.value ?? 0;
    expect(entries).toBe(snapshots.size);
    expect(entries).toBeGreaterThanOrEqual(3);
    expect(bytes).toBeGreaterThan(0);
  });
});
