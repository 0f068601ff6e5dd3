import { describe, expect, it } from 'vitest';
import { capturingLogger, silentLogger } from '@flotilla/core';
import type { Cluster } from '../client/schemas.js';
import { CLUSTER_DIRECTORY_LIMITS, ClusterDirectory, clusterNames, shortServerName } from './clusters.js';

/**
 * One cluster, one identity: destinations by name or by URL resolve to the same cluster; the cluster list is read
 * once per `ttlMs` (a failed read once per `degradedTtlMs`) and shared by every caller, whatever one caller does
 * with its own signal. The clock is injected: no waiting.
 */
const PROD: Cluster = { name: 'prod-eu-1', server: 'https://prod-eu-1.k8s.example.com/' };
const STAGING: Cluster = { name: 'staging-eu-1', server: 'https://staging-eu-1.k8s.example.com' };

/** A cluster list whose answers the test gives, one read at a time; counts reads and what each was given. */
function fakeClient() {
  const reads: { args: unknown[]; resolve: (clusters: Cluster[]) => void; reject: (error: Error) => void }[] = [];
  return {
    reads,
    client: {
      listClusters: (...args: unknown[]): Promise<Cluster[]> =>
        new Promise<Cluster[]>((resolve, reject) => {
          reads.push({ args, resolve, reject });
        }),
    },
    /** Settles the newest read. */
    answer(clusters: Cluster[]): void {
      reads[reads.length - 1]?.resolve(clusters);
    },
    fail(error: Error): void {
      reads[reads.length - 1]?.reject(error);
    },
  };
}

describe('clusterNames: name and URL are one cluster', () => {
  const names = clusterNames([PROD, STAGING]);

  it('matches a destination by URL to a filter by name, and by name to a filter by URL', () => {
    expect(names.matches({ server: 'https://prod-eu-1.k8s.example.com' }, 'prod-eu-1')).toBe(true);
    expect(names.matches({ name: 'prod-eu-1' }, 'https://prod-eu-1.k8s.example.com')).toBe(true);
    expect(names.matches({ name: 'prod-eu-1' }, 'staging-eu-1')).toBe(false);
    expect(names.matches({ server: 'https://staging-eu-1.k8s.example.com' }, 'prod-eu-1')).toBe(false);
    expect(names.nameOf({ server: 'https://prod-eu-1.k8s.example.com' })).toBe('prod-eu-1');
    expect(names.resolve('https://staging-eu-1.k8s.example.com')).toEqual({ name: 'staging-eu-1', server: 'https://staging-eu-1.k8s.example.com' });
  });

  it('compares URLs without trailing slashes, wherever they are', () => {
    // The cluster is registered with a slash; destinations and filters with none, one or several.
    expect(names.resolve('https://prod-eu-1.k8s.example.com')?.name).toBe('prod-eu-1');
    expect(names.matches({ server: 'https://prod-eu-1.k8s.example.com///' }, 'prod-eu-1')).toBe(true);
    expect(names.matches({ name: 'staging-eu-1' }, 'https://staging-eu-1.k8s.example.com/')).toBe(true);
    expect(names.nameOf({ server: 'https://staging-eu-1.k8s.example.com/' })).toBe('staging-eu-1');
  });

  it('names clusters Argo CD does not list by their host, and compares them literally', () => {
    expect(names.nameOf({ server: 'https://edge-7.k8s.example.com:6443/' })).toBe('edge-7');
    expect(names.matches({ server: 'https://edge-7.k8s.example.com:6443' }, 'edge-7')).toBe(true);
    expect(names.matches({ server: 'https://edge-7.k8s.example.com:6443' }, 'https://edge-7.k8s.example.com:6443/')).toBe(true);
    expect(names.nameOf({ name: 'ghost' })).toBe('ghost');
    expect(names.matches({ name: 'ghost' }, 'ghost')).toBe(true);
    expect(names.resolve('ghost')).toBeUndefined();
    expect(shortServerName('https://kubernetes.default.svc')).toBe('in-cluster');
    expect(shortServerName('not-a-url')).toBe('not-a-url');
  });

  it('knows the local cluster as in-cluster by name and by URL, and a missing destination as none', () => {
    expect(names.nameOf({ server: 'https://kubernetes.default.svc/' })).toBe('in-cluster');
    expect(names.matches({ name: 'in-cluster' }, 'https://kubernetes.default.svc')).toBe(true);
    expect(names.nameOf(undefined)).toBe('unknown');
    expect(names.nameOf({ name: '', server: '' })).toBe('unknown');
    expect(names.matches(null, 'prod-eu-1')).toBe(false);
  });

  it('matches two names registered for one API server as one cluster', () => {
    const renamed = clusterNames([{ name: 'eu-old', server: 'https://api.eu.example.com' }, { name: 'eu-main', server: 'https://api.eu.example.com/' }]);
    expect(renamed.matches({ name: 'eu-old' }, 'eu-main')).toBe(true);
    expect(renamed.matches({ name: 'eu-main' }, 'eu-old')).toBe(true);
    expect(renamed.matches({ name: 'eu-old' }, 'prod-eu-1')).toBe(false);
  });

  it('names a cluster registered without a name by its host', () => {
    const unnamed = clusterNames([{ server: 'https://dr-1.k8s.example.com' }]);
    expect(unnamed.nameOf({ server: 'https://dr-1.k8s.example.com/' })).toBe('dr-1');
    expect(unnamed.matches({ server: 'https://dr-1.k8s.example.com' }, 'dr-1')).toBe(true);
  });

  it(`keeps at most CLUSTER_DIRECTORY_LIMITS.maxClusters (${CLUSTER_DIRECTORY_LIMITS.maxClusters}) clusters of one list`, () => {
    const many: Cluster[] = Array.from({ length: CLUSTER_DIRECTORY_LIMITS.maxClusters + 1 }, (_, i) => ({ name: `c-${i}`, server: `https://10.0.${Math.floor(i / 250)}.${i % 250}:6443` }));
    const capped = clusterNames(many);
    const last = many[CLUSTER_DIRECTORY_LIMITS.maxClusters - 1];
    const over = many[CLUSTER_DIRECTORY_LIMITS.maxClusters];
    expect(capped.resolve(last?.name ?? '')?.server).toBe(last?.server);
    expect(capped.resolve(over?.name ?? '')).toBeUndefined();
    expect(capped.resolve(over?.server ?? '')).toBeUndefined();
    // Its applications still get a name: the short form of their URL.
    expect(capped.nameOf({ server: over?.server })).toBe('10');
  });
});

describe('ClusterDirectory', () => {
  it(`reads the cluster list once per CLUSTER_DIRECTORY_LIMITS.ttlMs (${CLUSTER_DIRECTORY_LIMITS.ttlMs} ms), shared by concurrent callers`, async () => {
    let now = 1_000_000;
    const fake = fakeClient();
    const directory = new ClusterDirectory(fake.client, silentLogger(), () => now);
    const first = directory.names();
    const second = directory.names();
    expect(fake.reads).toHaveLength(1);
    fake.answer([PROD]);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect(a.degraded).toBeUndefined();
    expect(a.nameOf({ server: PROD.server })).toBe('prod-eu-1');

    now += CLUSTER_DIRECTORY_LIMITS.ttlMs - 1;
    expect(await directory.names()).toBe(a);
    expect(fake.reads).toHaveLength(1);

    now += 1;
    const renewed = directory.names();
    expect(fake.reads).toHaveLength(2);
    fake.answer([PROD, STAGING]);
    expect((await renewed).resolve('staging-eu-1')?.server).toBe(STAGING.server);
  });

  it(`on a failed read gives names derived from URLs, says why, and retries after degradedTtlMs (${CLUSTER_DIRECTORY_LIMITS.degradedTtlMs} ms)`, async () => {
    let now = 5_000_000;
    const fake = fakeClient();
    const { logger, lines } = capturingLogger('warn');
    const directory = new ClusterDirectory(fake.client, logger, () => now);
    const failing = directory.names();
    fake.fail(new Error('permission denied: clusters, get'));
    const degraded = await failing;
    expect(degraded.degraded).toContain('the cluster list could not be read');
    expect(degraded.degraded).toContain('permission denied');
    expect(degraded.nameOf({ server: PROD.server })).toBe('prod-eu-1');
    expect(lines.join('')).toContain('cluster list unavailable');

    // Cached for degradedTtlMs, not the full ttlMs.
    now += CLUSTER_DIRECTORY_LIMITS.degradedTtlMs - 1;
    expect(await directory.names()).toBe(degraded);
    expect(fake.reads).toHaveLength(1);
    now += 1;
    const retried = directory.names();
    expect(fake.reads).toHaveLength(2);
    fake.answer([{ name: 'eu-main', server: 'https://api.eu.example.com' }]);
    const recovered = await retried;
    expect(recovered.degraded).toBeUndefined();
    expect(recovered.nameOf({ server: 'https://api.eu.example.com/' })).toBe('eu-main');

    // Recovered names are kept for the full ttlMs.
    now += CLUSTER_DIRECTORY_LIMITS.degradedTtlMs;
    expect(await directory.names()).toBe(recovered);
    expect(fake.reads).toHaveLength(2);
  });

  it('ends the wait of a caller that aborts, while the shared read goes on for another caller', async () => {
    const fake = fakeClient();
    const directory = new ClusterDirectory(fake.client, silentLogger(), () => 0);
    const leaving = new AbortController();
    const staying = new AbortController();
    const first = directory.names(leaving.signal);
    const second = directory.names(staying.signal);
    expect(fake.reads).toHaveLength(1);
    // The shared read is not tied to any caller's signal.
    expect(fake.reads[0]?.args).toEqual([]);

    const reason = new Error('caller gave up');
    leaving.abort(reason);
    await expect(first).rejects.toBe(reason);

    fake.answer([PROD]);
    const names = await second;
    expect(names.degraded).toBeUndefined();
    expect(names.resolve('prod-eu-1')?.server).toBe('https://prod-eu-1.k8s.example.com');
    // And it was kept: the next caller reads nothing.
    expect(await directory.names()).toBe(names);
    expect(fake.reads).toHaveLength(1);
  });

  it('refuses a caller whose signal was aborted already', async () => {
    const fake = fakeClient();
    const directory = new ClusterDirectory(fake.client, silentLogger(), () => 0);
    const reason = new Error('already gone');
    await expect(directory.names(AbortSignal.abort(reason))).rejects.toBe(reason);
    const waiting = directory.names();
    fake.answer([STAGING]);
    expect((await waiting).resolve('staging-eu-1')).toBeDefined();
  });
});
