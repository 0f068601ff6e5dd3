import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeUpstream, streamParts } from '@flotilla/agent-host/testing';
import { createMemoryResultStore, LIMITS, measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient } from '../client/argocd-client.js';
import { DIFF_LIMITS } from '../client/diff.js';
import { connectArgoCdToolsInProcess } from '../server.js';
import { RESOURCE_TOOL_LIMITS } from './resources.js';

/**
 * The resource, event and log tools over the in-memory MCP transport, against a small Argo CD of this test's own
 * that answers like Argo CD v3.1 (grpc-gateway bodies, its 403 for a missing application, a log stream of one
 * `{"result": LogEntry}` per line) and can misbehave on purpose: a log that never ends, a ConfigMap of 600 KiB.
 */

type Json = Record<string, unknown>;
const KiB = 1024;

const APP = 'payments-api';
const DENIED = 'vault-secrets';
const NS = 'payments';
const T0 = Date.parse('2025-11-20T09:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: NS, labels: { app: 'api' }, uid: 'uid-deploy', resourceVersion: '42', generation: 3, creationTimestamp: iso(T0), managedFields: [{ manager: 'kube-controller-manager', fieldsV1: { 'f:status': {} } }], annotations: { 'deployment.kubernetes.io/revision': '3' } },
  spec: { replicas: 3, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'registry.example.com/payments/api:1.4.2', ports: [{ containerPort: 8080 }] }, { name: 'proxy', image: 'envoy:1.30' }] } } },
  status: { replicas: 3, readyReplicas: 1, conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' }] },
};
const desiredDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', namespace: NS, labels: { app: 'api', team: 'payments' } },
  spec: { replicas: 4, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'registry.example.com/payments/api:1.5.0', ports: [{ containerPort: 8080 }] }, { name: 'proxy', image: 'envoy:1.30' }] } } },
};
const bigValue = 'x'.repeat(300 * KiB);
const hugeValue = 'h'.repeat(700 * KiB);

const nodes = [
  { group: 'apps', version: 'v1', kind: 'Deployment', namespace: NS, name: 'api', uid: 'uid-deploy', health: { status: 'Degraded', message: 'Deployment does not have minimum availability.' }, images: ['registry.example.com/payments/api:1.4.2', 'envoy:1.30'], createdAt: iso(T0) },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', namespace: NS, name: 'api-7d9f', uid: 'uid-rs', parentRefs: [{ group: 'apps', kind: 'Deployment', namespace: NS, name: 'api', uid: 'uid-deploy' }], health: { status: 'Progressing' } },
  { version: 'v1', kind: 'Pod', namespace: NS, name: 'api-7d9f-aaaaa', uid: 'uid-pod-a', parentRefs: [{ group: 'apps', kind: 'ReplicaSet', namespace: NS, name: 'api-7d9f', uid: 'uid-rs' }], info: [{ name: 'Status Reason', value: 'CrashLoopBackOff' }, { name: 'Containers', value: '1/2' }, { name: 'Restart Count', value: '17' }], health: { status: 'Degraded', message: 'back-off 5m0s restarting failed container' }, images: ['registry.example.com/payments/api:1.4.2'] },
  { version: 'v1', kind: 'Pod', namespace: NS, name: 'api-7d9f-endless', uid: 'uid-pod-e', info: [{ name: 'Status Reason', value: 'Running' }], health: { status: 'Healthy' } },
  { version: 'v1', kind: 'Service', namespace: NS, name: 'api', uid: 'uid-svc', health: { status: 'Healthy' } },
  { version: 'v1', kind: 'ConfigMap', namespace: NS, name: 'api-config', uid: 'uid-cm' },
  { version: 'v1', kind: 'ConfigMap', namespace: 'other', name: 'api-config', uid: 'uid-cm-2' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', name: 'api-reader', uid: 'uid-cr', health: { status: 'Healthy' } },
];

const managed = [
  { group: 'apps', kind: 'Deployment', namespace: NS, name: 'api', targetState: JSON.stringify(desiredDeployment), liveState: JSON.stringify(deployment), normalizedLiveState: JSON.stringify(deployment), predictedLiveState: JSON.stringify(desiredDeployment), modified: true },
  { kind: 'Service', namespace: NS, name: 'api', targetState: JSON.stringify({ apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } }), liveState: JSON.stringify({ apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }], clusterIP: '10.0.0.7' } }), modified: false },
  { kind: 'ConfigMap', namespace: NS, name: 'api-config', targetState: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', data: { blob: bigValue, mode: 'strict' } }), liveState: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', data: { blob: `${bigValue}y`, mode: 'strict' } }), modified: true },
  { kind: 'Secret', namespace: NS, name: 'api-token', targetState: JSON.stringify({ apiVersion: 'v1', kind: 'Secret' }), liveState: 'null', modified: true },
  { kind: 'Job', namespace: NS, name: 'old-migration', targetState: 'null', liveState: JSON.stringify({ apiVersion: 'batch/v1', kind: 'Job' }), modified: true },
  // Its states together pass the 1 MiB cap of one item: skipped unread, still listed.
  { kind: 'ConfigMap', namespace: NS, name: 'api-huge', targetState: JSON.stringify({ data: { blob: hugeValue } }), liveState: JSON.stringify({ data: { blob: hugeValue } }), modified: false },
];

const event = (i: number, type: string, reason: string, name: string, kind: string, at: number): Json => ({
  metadata: { name: `${name}.${i}`, namespace: NS, creationTimestamp: iso(at) },
  involvedObject: { kind, name, namespace: NS, uid: `uid-${name}` },
  reason,
  message: `${reason} ${'m'.repeat(i === 2 ? 5_000 : 10)}`,
  type,
  count: i + 1,
  firstTimestamp: iso(at - 60_000),
  lastTimestamp: iso(at),
  source: { component: 'argocd-application-controller' },
});
const appEvents = [event(0, 'Normal', 'OperationStarted', APP, 'Application', T0), event(1, 'Warning', 'OperationFailed', APP, 'Application', T0 + 120_000), event(2, 'Normal', 'ResourceUpdated', APP, 'Application', T0 + 60_000)];
const podEvents = [event(3, 'Warning', 'BackOff', 'api-7d9f-aaaaa', 'Pod', T0 + 30_000), event(4, 'Normal', 'Pulled', 'api-7d9f-aaaaa', 'Pod', T0)];

/** grpc-gateway's line for one LogEntry. */
const logLine = (pod: string, i: number, content: string, last = false): string =>
  `${JSON.stringify({ result: { content, timeStamp: iso(T0 + i * 1000), timeStampStr: new Date(T0 + i * 1000).toISOString(), podName: pod, last } })}\n`;
const endMarker = `${JSON.stringify({ result: { content: '', timeStampStr: new Date(T0 + 10_000_000).toISOString(), podName: '', last: true } })}\n`;

/** What the fake received and saw, per test. */
let requests: URL[] = [];
let endlessClosed: Promise<number> = Promise.resolve(0);

function* endless(pod: string): Generator<string> {
  for (let i = 0; ; i += 1) yield logLine(pod, i, `${i % 10 === 0 ? 'ERROR' : 'INFO'} request ${i} served`);
}

function* podLog(pod: string, tail: number): Generator<string> {
  const total = 400;
  for (let i = Math.max(0, total - tail); i < total; i += 1) {
    const content = i === total - 2 ? `ERROR ${'z'.repeat(5_000)}` : `${i % 4 === 0 ? 'ERROR' : 'INFO'} handled request ${i}`;
    yield logLine(pod, i, content);
  }
  yield endMarker;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
const denied = (res: ServerResponse): void => send(res, 403, { error: 'permission denied', code: 7, message: 'permission denied' });

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://fake');
  requests.push(url);
  const q = (key: string): string => url.searchParams.get(key) ?? '';
  if (url.pathname === '/api/v1/applications') {
    const name = q('name');
    send(res, 200, { metadata: {}, items: [APP, DENIED].includes(name) ? [{ metadata: { name } }] : null });
    return;
  }
  const match = /^\/api\/v1\/applications\/([^/]+)\/(.+)$/.exec(url.pathname);
  const app = decodeURIComponent(match?.[1] ?? '');
  const what = match?.[2] ?? '';
  if (app !== APP) {
    denied(res);
    return;
  }
  const notPart = (kind: string, name: string): void => send(res, 400, { error: `${kind} ${q('group')} ${name} not found as part of application ${app}`, code: 3, message: `${kind} ${q('group')} ${name} not found as part of application ${app}` });
  switch (what) {
    case 'resource-tree':
      send(res, 200, { nodes, hosts: [{ name: 'node-1' }] });
      return;
    case 'managed-resources':
      send(res, 200, { items: managed.filter((m) => (q('kind') === '' || m.kind === q('kind')) && (q('name') === '' || m.name === q('name'))) });
      return;
    case 'events': {
      if (q('resourceName') === '') {
        send(res, 200, { metadata: {}, items: appEvents });
        return;
      }
      const node = nodes.find((n) => n.name === q('resourceName') && (n.namespace ?? '') === q('resourceNamespace') && n.uid === q('resourceUID'));
      if (node === undefined) {
        send(res, 400, { error: 'x', code: 3, message: `${q('resourceName')} not found as part of application ${app}` });
        return;
      }
      send(res, 200, { metadata: {}, items: node.name === 'api-7d9f-aaaaa' ? podEvents : [] });
      return;
    }
    case 'logs': {
      const pod = q('podName');
      if (pod === 'api-7d9f-endless') {
        endlessClosed = streamParts(res, endless(pod));
        return;
      }
      if (pod === 'api-7d9f-aaaaa' || (q('kind') === 'Deployment' && q('resourceName') === 'api')) {
        void streamParts(res, podLog('api-7d9f-aaaaa', Number(q('tailLines') || '1000')));
        return;
      }
      // Argo CD answers a pod it cannot find in the tree with an empty stream.
      void streamParts(res, []);
      return;
    }
    case 'resource': {
      const node = nodes.find((n) => n.kind === q('kind') && n.name === q('resourceName') && (n.namespace ?? '') === q('namespace') && (n.group ?? '') === q('group'));
      if (node === undefined) {
        notPart(q('kind'), q('resourceName'));
        return;
      }
      send(res, 200, { manifest: JSON.stringify(node.kind === 'Deployment' ? deployment : { apiVersion: 'v1', kind: node.kind, metadata: { name: node.name, namespace: node.namespace }, data: { a: '1', b: '2' } }) });
      return;
    }
    case 'resource/actions': {
      const node = nodes.find((n) => n.kind === q('kind') && n.name === q('resourceName') && (n.namespace ?? '') === q('namespace') && (n.group ?? '') === q('group'));
      if (node === undefined) {
        notPart(q('kind'), q('resourceName'));
        return;
      }
      send(res, 200, { actions: node.kind === 'Deployment' ? [{ name: 'restart', disabled: false }, { name: 'pause', disabled: false }, { name: 'resume', disabled: true }] : [] });
      return;
    }
    default:
      send(res, 404, { error: 'Not Found', code: 5, message: 'Not Found' });
  }
}

const upstream = fakeUpstream(handle);
let counter: TokenCounter;
let tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;

beforeAll(async () => {
  counter = await loadTokenCounter();
  const metrics = createMetrics();
  const client = new ArgoCdClient({ baseUrl: upstream.url, token: 'test-token', limits: { ...UPSTREAM_DEFAULTS, retries: 0 }, metrics, logger: silentLogger() });
  tools = await connectArgoCdToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
});
afterAll(async () => {
  await tools.close();
});
beforeEach(() => {
  requests = [];
});

async function call(name: string, args: Json): Promise<{ result: BoundedToolResult; body: Json; isError: boolean }> {
  const result = (await tools.client.callTool({ name, arguments: args })) as BoundedToolResult & { isError?: boolean };
  // Every result of every tool, whatever it carries, fits the token budget.
  expect(measureToolResult(result, counter).tokens).toBeLessThanOrEqual(LIMITS.budgetDefault);
  const first = result.content[0];
  const body = JSON.parse(first?.type === 'text' ? first.text : '{}') as Json;
  return { result, body, isError: result.isError === true };
}

const items = (body: Json): Json[] => body.items as Json[];
const notes = (body: Json): string => ((body.notes as string[] | undefined) ?? []).join(' ');

describe('get_resource_tree', () => {
  it('lists the tree unhealthy first, with status reason, parent and images, and counts over all of it', async () => {
    const { body, isError } = await call('get_resource_tree', { name: APP });
    expect(isError).toBe(false);
    expect(body).toMatchObject({ item_kind: 'resources', total: nodes.length });
    const rows = items(body);
    expect(rows.slice(0, 2).map((r) => r.health)).toEqual(['Degraded', 'Degraded']);
    expect(rows.find((r) => r.name === 'api-7d9f-aaaaa')).toMatchObject({ kind: 'Pod', status: 'CrashLoopBackOff', parent: 'ReplicaSet/api-7d9f', info: ['Containers: 1/2', 'Restart Count: 17'], images: ['registry.example.com/payments/api:1.4.2'] });
    expect(body.counts).toMatchObject({ by_kind: { Pod: 2, ConfigMap: 2, Deployment: 1 }, by_health: { Degraded: 2, Healthy: 3, None: 2, Progressing: 1 } });
    expect(requests.map((u) => u.pathname)).toEqual([`/api/v1/applications/${APP}/resource-tree`]);
  });

  it('filters by kind (any case) and health, saying how many the tree has', async () => {
    const { body } = await call('get_resource_tree', { name: APP, kind: 'pod', health_status: 'Degraded' });
    expect(items(body).map((r) => r.name)).toEqual(['api-7d9f-aaaaa']);
    expect(notes(body)).toMatch(/The tree has 8 resources; 1 match/);
  });
});

describe('get_managed_resources', () => {
  it('summarises live against desired per resource, out of sync first, never the manifests', async () => {
    const { body } = await call('get_managed_resources', { name: APP });
    const [huge, ...rows] = items(body);
    expect(huge).toMatchObject({ kind: 'ConfigMap', name: 'api-huge', namespace: NS, sync: 'Unknown', note: expect.stringMatching(/over the upstream cap/) as unknown });
    expect(notes(body)).toMatch(/1 resources were too large to read/);
    expect(rows.map((r) => `${String(r.kind)}/${String(r.sync)}`)).toEqual(['Deployment/OutOfSync', 'ConfigMap/OutOfSync', 'Secret/OutOfSync', 'Job/OutOfSync', 'Service/Synced']);
    const deploy = rows[0] ?? {};
    expect(deploy.changed_paths).toBe(3);
    expect(deploy.changes).toEqual([
      { path: 'metadata.labels.team', desired: '"payments"', live: '(absent)' },
      { path: 'spec.replicas', desired: '4', live: '3' },
      { path: 'spec.template.spec.containers[name=api].image', desired: '"registry.example.com/payments/api:1.5.0"', live: '"registry.example.com/payments/api:1.4.2"' },
    ]);
    // The 300 KiB value is named and cut to a few characters, never returned.
    const config = rows[1] ?? {};
    expect(config.changes).toEqual([{ path: 'data.blob', desired: expect.stringMatching(/^"x+…$/) as unknown, live: expect.stringMatching(/^"x+…$/) as unknown }]);
    expect(String((config.changes as Json[])[0]?.desired).length).toBe(DIFF_LIMITS.valueChars);
    expect(rows[2]).toMatchObject({ name: 'api-token', live: 'missing: in git, not in the cluster' });
    expect(rows[3]).toMatchObject({ name: 'old-migration', desired: 'none: in the cluster, not in git' });
    // clusterIP is set by the cluster only: not a difference.
    expect(rows[4]).not.toHaveProperty('changes');
    expect(body.counts).toMatchObject({ by_sync: { OutOfSync: 4, Synced: 1, Unknown: 1 } });
    expect(JSON.stringify(body).length).toBeLessThan(20 * KiB);
  });

  it('passes kind and name to Argo CD and keeps only what is out of sync when asked', async () => {
    const { body } = await call('get_managed_resources', { name: APP, kind: 'Service', out_of_sync_only: true });
    expect(body.total).toBe(0);
    const asked = requests.find((u) => u.pathname.endsWith('/managed-resources'));
    expect(asked?.searchParams.get('kind')).toBe('Service');
  });
});

describe('events', () => {
  it('lists the application events newest first, messages cut, filtered by type', async () => {
    const { body } = await call('get_application_events', { name: APP });
    expect(items(body).map((e) => e.reason)).toEqual(['OperationFailed', 'ResourceUpdated', 'OperationStarted']);
    expect(items(body)[0]).toMatchObject({ type: 'Warning', object: `Application/${APP}`, count: 2, last_seen: iso(T0 + 120_000), source: 'argocd-application-controller' });
    expect(String(items(body)[1]?.message).length).toBeLessThanOrEqual(RESOURCE_TOOL_LIMITS.messageMaxChars);
    const warnings = await call('get_application_events', { name: APP, type: 'Warning' });
    expect(warnings.body.total).toBe(1);
    expect(warnings.body.counts).toMatchObject({ by_type: { Warning: 1 } });
  });

  it('finds a resource and its uid in the tree, then asks for its events', async () => {
    const { body, isError } = await call('get_resource_events', { name: APP, resource_kind: 'Pod', resource_name: 'api-7d9f-aaaaa' });
    expect(isError).toBe(false);
    expect(items(body).map((e) => e.reason)).toEqual(['BackOff', 'Pulled']);
    const asked = requests.find((u) => u.pathname.endsWith('/events'));
    expect(Object.fromEntries(asked?.searchParams ?? [])).toEqual({ resourceName: 'api-7d9f-aaaaa', resourceNamespace: NS, resourceUID: 'uid-pod-a' });
  });

  it('names a resource the application does not have, or one that needs a namespace', async () => {
    const missing = await call('get_resource_events', { name: APP, resource_kind: 'Pod', resource_name: 'nope' });
    expect(missing.body).toMatchObject({ error: 'not_found' });
    expect(String(missing.body.remedy)).toMatch(/get_resource_tree/);
    const ambiguous = await call('get_resource_events', { name: APP, resource_kind: 'ConfigMap', resource_name: 'api-config' });
    expect(ambiguous.body).toMatchObject({ error: 'invalid_argument' });
    expect(String(ambiguous.body.message)).toMatch(/2 resources .* "payments".*"other"/);
    // With the namespace and a uid Argo CD does not know, its own 400 becomes not_found.
    const wrongUid = await call('get_resource_events', { name: APP, resource_kind: 'ConfigMap', resource_name: 'api-config', resource_namespace: NS, resource_uid: 'uid-nope' });
    expect(wrongUid.body).toMatchObject({ error: 'not_found' });
  });
});

describe('get_logs', () => {
  it('reads a log that never ends only to the cap, closes the stream, and says so', async () => {
    const { body, result, isError } = await call('get_logs', { name: APP, pod: 'api-7d9f-endless', tail_lines: 150 });
    expect(isError).toBe(false);
    // One pod: the cap is tail_lines; the endless stream was abandoned right after it.
    expect(body.total).toBe(150);
    expect(await endlessClosed).toBeGreaterThan(150);
    expect(notes(body)).toMatch(/Read 150 log lines/);
    expect(notes(body)).toMatch(/STOPPED at the cap of 150 lines/);
    expect(notes(body)).toMatch(/tailLines=150/);
    // Newest first; a first page within the budget, the rest stored for read_result.
    expect(items(body)[0]).toMatchObject({ pod: 'api-7d9f-endless', line: 'INFO request 149 served' });
    expect(body.result_id).toMatch(/^r_/);
    expect(result.content[1]?.type).toBe('resource_link');
    const page = await call('read_result', { result_id: body.result_id, offset: 140, limit: 50 });
    expect(items(page.body).map((l) => l.line)).toEqual(Array.from({ length: 10 }, (_, i) => `${9 - i === 0 ? 'ERROR' : 'INFO'} request ${9 - i} served`));
    const errors = await call('read_result', { result_id: body.result_id, filter: 'ERROR' });
    expect(errors.body.total).toBe(15);
  });

  it('asks Argo CD for tail, since, grep and until, and applies them again to what arrives', async () => {
    const { body } = await call('get_logs', { name: APP, kind: 'Deployment', resource_name: 'api', tail_lines: 100, grep: 'error', since: '2025-11-20T09:05:00Z', until: '2025-11-20T09:06:10Z', oldest_first: true });
    const asked = requests.find((u) => u.pathname.endsWith('/logs'));
    expect(Object.fromEntries(asked?.searchParams ?? [])).toMatchObject({ kind: 'Deployment', resourceName: 'api', tailLines: '100', filter: 'error', untilTime: '2025-11-20T09:06:10Z', 'sinceTime.seconds': String((T0 + 300_000) / 1000), follow: 'false' });
    // The fake ignores all but tailLines: lines 300..399 arrive; since (300 s) and until (370 s) and grep leave every 4th of 300..368.
    const lines = items(body).map((l) => l.line);
    expect(lines[0]).toBe('ERROR handled request 300');
    expect(lines.at(-1)).toBe('ERROR handled request 368');
    expect(body.total).toBe(18);
    expect(notes(body)).toMatch(/everything Argo CD sent/);
    expect(body.counts).toMatchObject({ by_level: { error: 18 }, by_pod: { 'api-7d9f-aaaaa': 18 } });
  });

  it('cuts a long line and says how long it was', async () => {
    const { body } = await call('get_logs', { name: APP, pod: 'api-7d9f-aaaaa', tail_lines: 3 });
    const long = items(body).find((l) => l.cut_from_chars !== undefined);
    expect(long?.cut_from_chars).toBe(5_006);
    expect(String(long?.line).length).toBe(RESOURCE_TOOL_LIMITS.logLineMaxChars);
    expect(notes(body)).toMatch(/1 lines longer than 2000 characters were cut/);
  });

  it('answers a pod the application does not have with not_found, not an empty log', async () => {
    const { body } = await call('get_logs', { name: APP, pod: 'api-7d9f-gone' });
    expect(body).toMatchObject({ error: 'not_found' });
    expect(String(body.message)).toMatch(/no Pod "api-7d9f-gone"/);
  });
});

describe('get_resource', () => {
  it('projects the live object: metadata, images, spec and status summarised, never managedFields', async () => {
    const { body, isError } = await call('get_resource', { name: APP, kind: 'Deployment', resource_name: 'api' });
    expect(isError).toBe(false);
    expect(body).toMatchObject({ kind: 'Deployment', metadata: { name: 'api', namespace: NS, labels: { app: 'api' }, annotations: 1 }, images: ['registry.example.com/payments/api:1.4.2', 'envoy:1.30'] });
    expect(body.spec).toMatchObject({ replicas: 3, template: { metadata: '{1 keys: labels}', spec: '{1 keys: containers}' } });
    expect(body.status).toMatchObject({ readyReplicas: 1, conditions: [{ type: 'Available', reason: 'MinimumReplicasUnavailable' }] });
    expect(JSON.stringify(body)).not.toContain('managedFields');
    // Group and namespace came from the tree.
    const asked = requests.find((u) => u.pathname.endsWith('/resource'));
    expect(Object.fromEntries(asked?.searchParams ?? [])).toEqual({ namespace: NS, resourceName: 'api', group: 'apps', kind: 'Deployment' });
  });

  it('returns exactly the fields asked for, and names the ones not set', async () => {
    const { body } = await call('get_resource', { name: APP, kind: 'Deployment', resource_name: 'api', namespace: NS, group: 'apps', fields: ['spec.replicas', 'spec.template.spec.containers[1].image', 'metadata.annotations["deployment.kubernetes.io/revision"]', 'spec.paused'] });
    expect(body.fields).toEqual({ 'spec.replicas': 3, 'spec.template.spec.containers[1].image': 'envoy:1.30', 'metadata.annotations["deployment.kubernetes.io/revision"]': '3', 'spec.paused': null });
    expect(body.note).toMatch(/spec\.paused/);
    // Namespace and group given: no tree lookup.
    expect(requests.some((u) => u.pathname.endsWith('/resource-tree'))).toBe(false);
  });

  it('maps Argo CD\'s "not found as part of application" to not_found', async () => {
    const { body } = await call('get_resource', { name: APP, kind: 'Deployment', resource_name: 'nope', namespace: NS, group: 'apps' });
    expect(body).toMatchObject({ error: 'not_found' });
    expect(String(body.remedy)).toMatch(/get_resource_tree/);
  });
});

describe('list_resource_actions', () => {
  it('lists the actions and says Flotilla does not run them', async () => {
    const { body } = await call('list_resource_actions', { name: APP, kind: 'Deployment', resource_name: 'api' });
    expect(body).toMatchObject({ resource: { kind: 'Deployment', name: 'api', namespace: NS, group: 'apps' }, total: 3 });
    expect(body.actions).toEqual([{ name: 'restart', disabled: false }, { name: 'pause', disabled: false }, { name: 'resume', disabled: true }]);
    expect(String(body.note)).toMatch(/read-only and does not run/);
  });
});

describe('errors', () => {
  it('answers an unknown application with not_found from every tool', async () => {
    const calls: [string, Json][] = [
      ['get_resource_tree', {}],
      ['get_managed_resources', {}],
      ['get_application_events', {}],
      ['get_resource_events', { resource_kind: 'Pod', resource_name: 'x' }],
      ['get_logs', {}],
      ['get_resource', { kind: 'Pod', resource_name: 'x', namespace: NS, group: '' }],
      ['list_resource_actions', { kind: 'Pod', resource_name: 'x', namespace: NS, group: '' }],
    ];
    for (const [tool, args] of calls) {
      const { body, isError } = await call(tool, { name: 'no-such-app', ...args });
      expect(isError, tool).toBe(true);
      expect(body.error, tool).toBe('not_found');
      expect(String(body.message), tool).toMatch(/no application named "no-such-app"/);
    }
  });

  it('explains a 403 on an application that exists: the permission the token lacks', async () => {
    const logs = await call('get_logs', { name: DENIED });
    expect(logs.body).toMatchObject({ error: 'upstream_auth' });
    expect(String(logs.body.remedy)).toMatch(/"logs, get"/);
    const tree = await call('get_resource_tree', { name: DENIED });
    expect(String(tree.body.remedy)).toMatch(/"applications, get"/);
  });

  it('refuses bad arguments naming the valid range', async () => {
    const cases: [string, Json, RegExp][] = [
      ['get_logs', { name: APP, tail_lines: 0 }, /tail_lines must be a whole number from 1 to 2000/],
      ['get_logs', { name: APP, tail_lines: 2_001 }, /from 1 to 2000/],
      ['get_logs', { name: APP, since: '5 minutes' }, /since must be a duration from 1s to 30d/],
      ['get_logs', { name: APP, since: '31d' }, /since must be a duration/],
      ['get_logs', { name: APP, until: '2025-11-20 09:00' }, /until must be an RFC 3339 time/],
      ['get_logs', { name: APP, grep: 'g'.repeat(257) }, /grep must be at most 256 characters/],
      ['get_logs', { name: APP, pod: 'a', kind: 'Deployment' }, /pod cannot be combined with kind/],
      ['get_logs', { name: APP, kind: 'Deployment', resource_name: 'api', since: '2025-11-20T10:00:00Z', until: '2025-11-20T09:00:00Z' }, /since .* is after until/],
      ['get_resource_tree', { name: 'n'.repeat(254) }, /name must be at most 253 characters/],
      ['get_resource_tree', { name: APP, health_status: 'Sick' }, /health_status must be one of Healthy/],
      ['get_application_events', { name: APP, type: 'Error' }, /type must be one of Warning, Normal/],
      ['get_resource', { name: APP, kind: 'Deployment', resource_name: 'api', fields: [] }, /fields must be 1 to 10 dotted paths/],
      ['get_resource', { name: APP, kind: 'Deployment', resource_name: 'api', fields: ['spec..replicas'] }, /is not a dotted path/],
      ['list_resource_actions', { name: APP, kind: 'Deployment' }, /resource_name/],
    ];
    for (const [tool, args, message] of cases) {
      const { body, isError } = await call(tool, args);
      expect(isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(JSON.stringify(body)).toMatch(message);
    }
  });
});

/**
 * The same tools against the Argo CD simulator (its live resource endpoints follow Argo CD v3.1): an application
 * whose main workload is Degraded, and one pod log made huge through the simulator's `logs` option.
 */
describe('against the Argo CD simulator', () => {
  const TOKEN = 'resources-token-0123456789';
  const estate = generateArgoEstate({ seed: 7, applications: 60 });
  const degraded = estate.applications.find((a) => a.status.health.status === 'Degraded')?.metadata.name ?? '';
  let sim: RunningSimulator;
  let simTools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;

  beforeAll(async () => {
    expect(degraded).not.toBe('');
    // Every pod of the Degraded application logs a million lines a day: far more than one read may take.
    sim = await startArgoCdSimulator({ token: TOKEN, estate, logs: { apps: { [degraded]: { linesPerPod: 1_000_000 } } } });
    const metrics = createMetrics();
    const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits: UPSTREAM_DEFAULTS, metrics, logger: silentLogger() });
    simTools = await connectArgoCdToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
  });
  afterAll(async () => {
    await simTools.close();
    await sim.close();
  });

  async function simCall(name: string, args: Json): Promise<{ body: Json; isError: boolean }> {
    const result = (await simTools.client.callTool({ name, arguments: args })) as BoundedToolResult & { isError?: boolean };
    expect(measureToolResult(result, counter).tokens).toBeLessThanOrEqual(LIMITS.budgetDefault);
    const first = result.content[0];
    return { body: JSON.parse(first?.type === 'text' ? first.text : '{}') as Json, isError: result.isError === true };
  }

  /** The whole tree, page by page (each page cut to the token budget). */
  async function tree(): Promise<Json[]> {
    const all: Json[] = [];
    let offset: number | null = 0;
    for (let pages = 0; offset !== null && pages < 200; pages += 1) {
      const page: Json = (await simCall('get_resource_tree', { name: degraded, limit: 100, offset })).body;
      all.push(...items(page));
      offset = page.next_offset as number | null;
    }
    return all;
  }

  it('reads the tree, the diff, the events, a live object and its actions of a Degraded application', async () => {
    const nodes = await tree();
    expect(nodes[0]?.health).toBe('Degraded');
    const crashing = nodes.find((n) => n.kind === 'Pod' && n.health === 'Degraded');
    const deployment = nodes.find((n) => n.kind === 'Deployment');
    expect(crashing).toBeDefined();
    expect(deployment).toMatchObject({ group: 'apps' });

    const managed = await simCall('get_managed_resources', { name: degraded, limit: 100 });
    expect(managed.isError).toBe(false);
    for (const row of items(managed.body)) {
      expect(['Synced', 'OutOfSync', 'Unknown']).toContain(row.sync);
      if (row.sync === 'OutOfSync' && row.live === undefined && row.desired === undefined) expect(row.changed_paths).toBeTypeOf('number');
    }

    const events = await simCall('get_application_events', { name: degraded, limit: 100 });
    expect(events.body.total as number).toBeGreaterThan(0);
    const times = items(events.body).map((e) => Date.parse(String(e.last_seen)));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const podEvents = await simCall('get_resource_events', { name: degraded, resource_kind: 'Pod', resource_name: String(crashing?.name) });
    expect(podEvents.isError).toBe(false);
    expect(podEvents.body.counts).toMatchObject({ by_type: { Warning: expect.any(Number) as unknown } });

    const live = await simCall('get_resource', { name: degraded, kind: 'Deployment', resource_name: String(deployment?.name) });
    expect(live.body).toMatchObject({ kind: 'Deployment', metadata: { name: deployment?.name } });
    expect(live.body.spec).toHaveProperty('replicas');
    expect(JSON.stringify(live.body)).not.toContain('managedFields');
    const replicas = await simCall('get_resource', { name: degraded, kind: 'Deployment', resource_name: String(deployment?.name), fields: ['spec.replicas', 'status.conditions'] });
    expect(typeof (replicas.body.fields as Json)['spec.replicas']).toBe('number');

    const actions = await simCall('list_resource_actions', { name: degraded, kind: 'Deployment', resource_name: String(deployment?.name) });
    expect((actions.body.actions as Json[]).map((a) => a.name)).toContain('restart');
    expect(String(actions.body.note)).toMatch(/read-only/);
  });

  it('reads one crashing pod\'s log: time, pod and line per entry, newest first', async () => {
    const pod = (await tree()).find((n) => n.kind === 'Pod' && n.health === 'Degraded');
    const { body, isError } = await simCall('get_logs', { name: degraded, pod: String(pod?.name), tail_lines: 50 });
    expect(isError).toBe(false);
    expect(body.total as number).toBeGreaterThan(0);
    expect(body.total as number).toBeLessThanOrEqual(50);
    const first = items(body)[0] ?? {};
    expect(first.pod).toBe(pod?.name);
    expect(Date.parse(String(first.time))).toBeGreaterThan(0);
    expect(notes(body)).toMatch(/everything Argo CD sent/);
  });

  it('reads a huge log only to the cap of one read, and says so', async () => {
    // The pods of one ReplicaSet (at most 10, Argo CD's own limit): each can send tail_lines 2,000 of its million lines.
    const nodes = await tree();
    const sets = nodes.filter((n) => n.kind === 'ReplicaSet');
    // Running pods: a crash-looping container's current run is short.
    const podsOf = (rs: Json): Json[] => nodes.filter((n) => n.kind === 'Pod' && n.parent === `ReplicaSet/${String(rs.name)}`);
    const rs = sets.find((r) => podsOf(r).length >= 3 && podsOf(r).length <= 10 && podsOf(r).every((pod) => pod.status === 'Running'));
    expect(rs).toBeDefined();
    const { body, isError } = await simCall('get_logs', { name: degraded, kind: 'ReplicaSet', resource_name: String(rs?.name), tail_lines: RESOURCE_TOOL_LIMITS.logTailMax });
    expect(isError).toBe(false);
    expect(body.total).toBe(RESOURCE_TOOL_LIMITS.logReadMaxLines);
    expect(notes(body)).toMatch(new RegExp(`STOPPED at the cap of ${RESOURCE_TOOL_LIMITS.logReadMaxLines} lines`));
    expect(notes(body)).toMatch(/tailLines=2000/);
    expect(body.result_id).toMatch(/^r_/);
    const counts = body.counts as Record<string, Record<string, number>>;
    expect(Object.values(counts.by_pod ?? {}).reduce((a, b) => a + b, 0)).toBe(RESOURCE_TOOL_LIMITS.logReadMaxLines);
  });

  it('answers an unknown application, pod or resource with not_found', async () => {
    expect((await simCall('get_logs', { name: 'no-such-app' })).body).toMatchObject({ error: 'not_found' });
    expect((await simCall('get_logs', { name: degraded, pod: 'no-such-pod' })).body).toMatchObject({ error: 'not_found' });
    expect((await simCall('get_resource', { name: degraded, kind: 'Deployment', resource_name: 'nope', namespace: 'x', group: 'apps' })).body).toMatchObject({ error: 'not_found' });
  });
});
