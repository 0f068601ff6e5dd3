import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeConfig, type V1Service, type V1ServicePort } from '@kubernetes/client-node';
import { createLogger, silentLogger, type Logger } from '@flotilla/core';
import { startKubernetesSimulator, type RunningKubernetesSimulator } from '@flotilla/simulators';
import { DISCOVERY_LABEL, URL_ANNOTATION, endpointOf, kubernetesAgentSource, type KubernetesSourceOptions } from './kubernetes.js';
import type { AgentSource, EndpointChange } from './types.js';

/** A KubeConfig for the simulator (the real client, plain HTTP). */
function kubeConfigOf(kube: RunningKubernetesSimulator): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions(kube.kubeConfigOptions());
  return config;
}

interface ServiceSpec {
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly ports?: V1ServicePort[];
}

function service(name: string, spec: ServiceSpec = {}): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: spec.namespace ?? 'flotilla',
      labels: spec.labels ?? { [DISCOVERY_LABEL]: name },
      ...(spec.annotations === undefined ? {} : { annotations: spec.annotations }),
    },
    spec: { ports: spec.ports ?? [{ name: 'a2a', port: 8080 }] },
  };
}

/** Polls until `check` holds; fails after `seconds`. */
async function within(seconds: number, check: () => boolean, what: string | (() => string)): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s: ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A logger whose JSON lines are kept for assertions. */
function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'debug', destination }), lines };
}

describe('endpointOf', () => {
  it('prefers the URL annotation, without trailing slashes', () => {
    const svc = service('netbox', { annotations: { [URL_ANNOTATION]: 'http://127.0.0.1:9999/' } });
    expect(endpointOf(svc)).toEqual({ id: 'flotilla/netbox', url: 'http://127.0.0.1:9999', source: 'kubernetes' });
  });

  it('uses the port named a2a, with the cluster DNS name', () => {
    const svc = service('argocd', { namespace: 'ops', ports: [{ name: 'metrics', port: 9090 }, { name: 'a2a', port: 8081 }] });
    expect(endpointOf(svc)).toEqual({ id: 'ops/argocd', url: 'http://argocd.ops.svc:8081', source: 'kubernetes' });
  });

  it('falls back to the first port', () => {
    const svc = service('netbox', { ports: [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090 }] });
    expect(endpointOf(svc)?.url).toBe('http://netbox.flotilla.svc:80');
  });

  it('ignores an unusable annotation and uses the port', () => {
    expect(endpointOf(service('a', { annotations: { [URL_ANNOTATION]: 'not a url' } }))?.url).toBe('http://a.flotilla.svc:8080');
    expect(endpointOf(service('b', { annotations: { [URL_ANNOTATION]: 'ftp://b/' } }))?.url).toBe('http://b.flotilla.svc:8080');
    expect(endpointOf(service('c', { annotations: { [URL_ANNOTATION]: 'http://bot:secret-0123456789@c:9000' } }))?.url).toBe('http://c.flotilla.svc:8080');
  });

  it('is undefined without ports or URL, or without a name', () => {
    expect(endpointOf(service('netbox', { ports: [] }))).toBeUndefined();
    expect(endpointOf({ metadata: { name: 'bare', namespace: 'x' } })).toBeUndefined();
    expect(endpointOf({ metadata: { namespace: 'x' }, spec: { ports: [{ port: 80 }] } })).toBeUndefined();
  });
});

describe('kubernetesAgentSource (fake API server over HTTP)', () => {
  let kube: RunningKubernetesSimulator;
  const sources: AgentSource[] = [];

  beforeEach(async () => {
    kube = await startKubernetesSimulator();
  });

  afterEach(async () => {
    await Promise.all(sources.splice(0).map((source) => source.close()));
    await kube.close();
  });

  async function started(
    options: Partial<KubernetesSourceOptions> = {},
  ): Promise<{ source: AgentSource; changes: EndpointChange[] }> {
    const changes: EndpointChange[] = [];
    const source = kubernetesAgentSource({ kubeConfig: kubeConfigOf(kube), logger: silentLogger(), ...options });
    sources.push(source);
    await source.start((change) => changes.push(change));
    return { source, changes };
  }

  const ids = (changes: readonly EndpointChange[], type: EndpointChange['type']): string[] =>
    changes.filter((change) => change.type === type).map((change) => (change.type === 'removed' ? change.id : change.endpoint.id));

  it('reports existing labelled Services at start, not unlabelled ones, and requests list then watch', async () => {
    kube.addService(service('netbox'));
    kube.addService(service('argocd', { namespace: 'ops', annotations: { [URL_ANNOTATION]: 'http://127.0.0.1:7000' } }));
    kube.addService(service('postgres', { labels: { app: 'postgres' } }));

    const { changes } = await started();

    expect(changes).toEqual([
      { type: 'added', endpoint: { id: 'flotilla/netbox', url: 'http://netbox.flotilla.svc:8080', source: 'kubernetes' } },
      { type: 'added', endpoint: { id: 'ops/argocd', url: 'http://127.0.0.1:7000', source: 'kubernetes' } },
    ]);
    const [listed, watched] = kube.requests;
    expect(listed).toEqual({ path: '/api/v1/services', query: { labelSelector: DISCOVERY_LABEL } });
    expect(watched?.path).toBe('/api/v1/services');
    expect(watched?.query).toMatchObject({
      watch: 'true',
      labelSelector: DISCOVERY_LABEL,
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
    });
    expect(watched?.query['resourceVersion']).toMatch(/^\d+$/);
  });

  it('watches one namespace with a key=value selector when asked', async () => {
    kube.addService(service('netbox'));
    kube.addService(service('netbox', { namespace: 'other' }));
    kube.addService(service('argocd'));

    const { changes } = await started({ namespace: 'flotilla', labelSelector: `${DISCOVERY_LABEL}=netbox` });

    expect(ids(changes, 'added')).toEqual(['flotilla/netbox']);
    expect(kube.requests.map((request) => request.path)).toEqual(['/api/v1/namespaces/flotilla/services', '/api/v1/namespaces/flotilla/services']);
  });

  it('reports a Service added later, its URL changing, and its deletion', async () => {
    const { changes } = await started();
    expect(changes).toEqual([]);

    kube.addService(service('netbox'));
    await within(30, () => changes.length === 1, 'added');
    expect(changes[0]).toEqual({ type: 'added', endpoint: { id: 'flotilla/netbox', url: 'http://netbox.flotilla.svc:8080', source: 'kubernetes' } });

    kube.updateService(service('netbox', { annotations: { [URL_ANNOTATION]: 'http://127.0.0.1:7001' } }));
    await within(30, () => changes.length === 2, 'updated');
    expect(changes[1]).toEqual({ type: 'updated', endpoint: { id: 'flotilla/netbox', url: 'http://127.0.0.1:7001', source: 'kubernetes' } });

    // A change that leaves the URL alone is not reported; the deletion after it is.
    kube.updateService(service('netbox', { annotations: { [URL_ANNOTATION]: 'http://127.0.0.1:7001', owner: 'team-a' } }));
    kube.deleteService('flotilla', 'netbox');
    await within(30, () => changes.length === 3, 'removed');
    expect(changes[2]).toEqual({ type: 'removed', id: 'flotilla/netbox' });
  });

  it('reports a Service losing its label as removed', async () => {
    kube.addService(service('netbox'));
    const { changes } = await started();
    kube.updateService(service('netbox', { labels: { app: 'netbox' } }));
    await within(30, () => changes.length === 2, 'removed');
    expect(changes[1]).toEqual({ type: 'removed', id: 'flotilla/netbox' });
  });

  it('skips a Service without a usable URL (debug log) until it gets a port', async () => {
    const { logger, lines } = capturingLogger();
    kube.addService(service('portless', { ports: [] }));
    const { changes } = await started({ logger });
    expect(changes).toEqual([]);
    expect(lines.some((line) => line['level'] === 20 && line['service'] === 'flotilla/portless')).toBe(true);

    kube.updateService(service('portless', { ports: [{ port: 9000 }] }));
    await within(30, () => changes.length === 1, 'added once it has a port');
    expect(changes[0]).toMatchObject({ type: 'added', endpoint: { url: 'http://portless.flotilla.svc:9000' } });
  });

  it.each([
    { how: 'abruptly (socket destroyed)', abrupt: true },
    { how: 'cleanly (response ended)', abrupt: false },
  ])('recovers when the API server drops the watch $how', async ({ abrupt }) => {
    const { logger, lines } = capturingLogger();
    kube.addService(service('netbox'));
    const { changes } = await started({ logger });
    await within(30, () => kube.openWatches() === 1, 'watch open');

    kube.dropWatches({ abrupt });
    kube.addService(service('argocd')); // while no watch is open: seen on resumption from the resourceVersion
    await within(30, () => kube.openWatches() === 1, 'watch reopened');
    kube.addService(service('slack'));

    await within(30, () => changes.length === 3, 'both Services added after the drop');
    expect(ids(changes, 'added')).toEqual(['flotilla/netbox', 'flotilla/argocd', 'flotilla/slack']);
    if (abrupt) expect(lines.some((line) => line['level'] === 40 && line['retryInMs'] === 1000)).toBe(true);
  });

  it('retries failing requests with a backoff, logging at warn, and never rejects', async () => {
    const { logger, lines } = capturingLogger();
    kube.addService(service('netbox'));
    kube.failNextRequests(2, 503);

    const { changes } = await started({ logger });
    await within(30, () => changes.length === 1, 'listed after the failures');

    const retries = lines.filter((line) => line['level'] === 40).map((line) => line['retryInMs']);
    expect(retries).toEqual([1000, 2000]);
  });

  it('tracks at most maxEndpoints, taking an ignored one when a slot frees up', async () => {
    const { logger, lines } = capturingLogger();
    for (const name of ['a', 'b', 'c']) kube.addService(service(name));

    const { changes } = await started({ logger, maxEndpoints: 2 });
    expect(ids(changes, 'added')).toEqual(['flotilla/a', 'flotilla/b']);
    expect(lines.some((line) => line['level'] === 40 && line['maxEndpoints'] === 2)).toBe(true);

    kube.deleteService('flotilla', 'a');
    await within(30, () => changes.length === 4, 'removed a, added c');
    expect(changes.slice(2)).toEqual([
      { type: 'removed', id: 'flotilla/a' },
      { type: 'added', endpoint: { id: 'flotilla/c', url: 'http://c.flotilla.svc:8080', source: 'kubernetes' } },
    ]);
  });

  it('close() ends the watch and leaves no open handles', async () => {
    const handles = (): string[] =>
      process
        .getActiveResourcesInfo()
        .filter((kind) => kind !== 'TTYWrap' && kind !== 'PipeWrap')
        .sort();
    // Earlier tests' servers and sockets finish closing first: only this test's fake server is left.
    await within(30, () => handles().filter((kind) => kind.startsWith('TCP')).join() === 'TCPServerWrap', 'a quiet start');
    const baseline = handles();
    kube.addService(service('netbox'));
    const { source, changes } = await started();
    await within(30, () => kube.openWatches() === 1, 'watch open');
    expect(handles().length).toBeGreaterThan(baseline.length);

    await source.close();
    await within(30, () => kube.openWatches() === 0, 'watch closed by the client');
    const count = (kinds: readonly string[], kind: string): number => kinds.filter((k) => k === kind).length;
    await within(
      30,
      () => count(handles(), 'TCPSocketWrap') === 0 && count(handles(), 'Timeout') <= count(baseline, 'Timeout'),
      () => `handles back to the baseline ${JSON.stringify(baseline)}: ${JSON.stringify(handles())}`,
    );
    expect(changes).toHaveLength(1);
    await source.close(); // idempotent
  });

  it('close() during the backoff cancels the retry timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      kube.failNextRequests(100, 500);
      const { source } = await started();
      // The retry, scheduled after the failed list (on a loaded machine a request's own timer may still be pending).
      const pending = vi.getTimerCount();
      expect(pending).toBeGreaterThanOrEqual(1);
      await source.close();
      // The retry timer is cleared by close() itself, not left to find the source closed.
      expect(vi.getTimerCount()).toBeLessThan(pending);
      // Timers are run as waitFor advances them: a retry close() had not cancelled would fail again (every request
      // fails) and schedule the next, so the count would never reach 0.
      await vi.waitFor(() => expect(vi.getTimerCount()).toBe(0), { timeout: 10_000, interval: 50 });
    } finally {
      vi.useRealTimers();
    }
  });
});
