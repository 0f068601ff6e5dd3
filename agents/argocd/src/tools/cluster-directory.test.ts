import { describe, expect, it } from 'vitest';
import { silentLogger } from '@flotilla/core';
import type { Cluster } from '../client/schemas.js';
import { CLUSTER_DIRECTORY_LIMITS, ClusterDirectory, clusterNames } from './clusters.js';

/** Issue 17, "one cluster, one identity": destinations by name or URL resolve to the same cluster. */
const CLUSTERS: Cluster[] = [
  { name: 'prod-eu-1', server: 'https://prod-eu-1.k8s.example.internal' },
  { name: 'in-cluster', server: 'https://kubernetes.default.svc' },
];

describe('cluster names', () => {
  const names = clusterNames(CLUSTERS);

  it('matches a destination by name or by URL, whichever the filter gives', () => {
    for (const wanted of ['prod-eu-1', 'https://prod-eu-1.k8s.example.internal', 'https://prod-eu-1.k8s.example.internal/']) {
      expect(names.matches({ name: 'prod-eu-1' }, wanted)).toBe(true);
      expect(names.matches({ server: 'https://prod-eu-1.k8s.example.internal' }, wanted)).toBe(true);
      expect(names.matches({ server: 'https://kubernetes.default.svc' }, wanted)).toBe(false);
    }
    expect(names.nameOf({ server: 'https://prod-eu-1.k8s.example.internal/' })).toBe('prod-eu-1');
    expect(names.nameOf({ server: 'https://other-1.example.internal:6443' })).toBe('other-1');
    expect(names.resolve('nope')).toBeUndefined();
  });

  it(`keeps at most ${CLUSTER_DIRECTORY_LIMITS.maxClusters} clusters of a list`, () => {
    const many = Array.from({ length: CLUSTER_DIRECTORY_LIMITS.maxClusters + 5 }, (_, i) => ({ name: `c-${i}`, server: `https://c-${i}.example` }));
    const big = clusterNames(many);
    expect(big.resolve(`c-${CLUSTER_DIRECTORY_LIMITS.maxClusters - 1}`)).toBeDefined();
    expect(big.resolve(`c-${CLUSTER_DIRECTORY_LIMITS.maxClusters}`)).toBeUndefined();
  });
});

describe('ClusterDirectory', () => {
  function directory(listClusters: () => Promise<Cluster[]>) {
    let now = 0;
    let calls = 0;
    const dir = new ClusterDirectory(
      {
        listClusters: () => {
          calls += 1;
          return listClusters();
        },
      },
      silentLogger(),
      () => now,
    );
    return { dir, calls: () => calls, advance: (ms: number) => (now += ms) };
  }

  it(`reads the cluster list once per ${CLUSTER_DIRECTORY_LIMITS.ttlMs} ms, shared by concurrent callers`, async () => {
    const { dir, calls, advance } = directory(() => Promise.resolve(CLUSTERS));
    const [a, b] = await Promise.all([dir.names(), dir.names()]);
    expect(a).toBe(b);
    expect(calls()).toBe(1);
    advance(CLUSTER_DIRECTORY_LIMITS.ttlMs - 1);
    await dir.names();
    expect(calls()).toBe(1);
    advance(1);
    await dir.names();
    expect(calls()).toBe(2);
  });

  it(`answers degraded names when the list cannot be read, and tries again after ${CLUSTER_DIRECTORY_LIMITS.degradedTtlMs} ms`, async () => {
    let fail = true;
    const { dir, calls, advance } = directory(() => (fail ? Promise.reject(new Error('403 permission denied')) : Promise.resolve(CLUSTERS)));
    const degraded = await dir.names();
    expect(degraded.degraded).toMatch(/could not be read/);
    expect(degraded.nameOf({ server: 'https://prod-eu-1.k8s.example.internal' })).toBe('prod-eu-1');
    await dir.names();
    expect(calls()).toBe(1);
    fail = false;
    advance(CLUSTER_DIRECTORY_LIMITS.degradedTtlMs);
    expect((await dir.names()).degraded).toBeUndefined();
    expect(calls()).toBe(2);
  });

  it("lets a caller that aborts stop waiting, without failing the others' read", async () => {
    let release!: (clusters: Cluster[]) => void;
    const { dir } = directory(() => new Promise((resolve) => (release = resolve)));
    const controller = new AbortController();
    const aborted = dir.names(controller.signal);
    const other = dir.names();
    controller.abort(new Error('turn stopped'));
    await expect(aborted).rejects.toThrow('turn stopped');
    release(CLUSTERS);
    expect((await other).degraded).toBeUndefined();
  });
});
