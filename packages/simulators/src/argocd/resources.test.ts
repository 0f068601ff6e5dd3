import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateArgoEstate } from './data.js';
import { EVENTS_PER_OBJECT_MAX, applicationEvents, resourceEvents } from './events.js';
import { TREE_LIMITS, type TreeNode, appFacts, buildTree } from './live.js';
import { startArgoCdSimulator, type RunningSimulator } from './server.js';
import type { ArgoApplication, ResourceStatus } from './types.js';
import { ARGO_ESTATE_EPOCH } from './words.js';

const TOKEN = 'sim-test-token';
const estate = generateArgoEstate();
let sim: RunningSimulator;

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  text: string;
  body: Json;
}

async function call(path: string, method = 'GET'): Promise<Answer> {
  const response = await fetch(`${sim.url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  return { status: response.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Json };
}
const q = encodeURIComponent;
const app = (name: string): ArgoApplication => estate.applications.find((a) => a.metadata.name === name) as ArgoApplication;
const DEMO = 'payments-api-prod';
const nodesOf = async (name: string): Promise<Json[]> => ((await call(`/api/v1/applications/${name}/resource-tree`)).body.nodes as Json[] | undefined) ?? [];
const info = (node: Json, name: string): string | undefined => (node.info as { name: string; value: string }[] | undefined)?.find((i) => i.name === name)?.value;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
});
afterAll(async () => sim.close());

describe('GET /api/v1/applications/{name}/resource-tree', () => {
  it('answers an ApplicationTree: every live managed resource with its health, plus ReplicaSets, Pods and Jobs, sorted as Argo CD sorts', async () => {
    const answer = await call(`/api/v1/applications/${DEMO}/resource-tree`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['nodes', 'hosts']);
    const nodes = answer.body.nodes as Json[];
    const field = (n: Json, key: string): string => (typeof n[key] === 'string' ? n[key] : '');
    const keys = nodes.map((n) => `${field(n, 'group')}/${field(n, 'kind')}/${field(n, 'namespace')}/${field(n, 'name')}`);
    expect(keys).toEqual([...keys].sort());
    for (const r of app(DEMO).status.resources ?? []) {
      const node = nodes.find((n) => n.kind === r.kind && n.name === r.name && (n.group ?? '') === (r.group ?? ''));
      expect(node, `${String(r.kind)}/${String(r.name)}`).toBeDefined();
      expect(node?.health).toEqual(r.health);
    }
    const pod = nodes.find((n) => n.kind === 'Pod') as Json;
    expect(Object.keys(pod)).toEqual(['version', 'kind', 'namespace', 'name', 'uid', 'parentRefs', 'info', 'networkingInfo', 'resourceVersion', 'images', 'health', 'createdAt']);
    expect(nodes.filter((n) => n.kind === 'ReplicaSet').length).toBeGreaterThan(0);
    expect(nodes.filter((n) => n.kind === 'Job').length).toBeGreaterThan(0);
    for (const node of nodes) {
      expect(node.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(String(node.createdAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(String(node.createdAt))).toBeLessThanOrEqual(ARGO_ESTATE_EPOCH);
      for (const parent of (node.parentRefs as Json[] | undefined) ?? []) expect(nodes.some((n) => n.uid === parent.uid && n.name === parent.name && n.kind === parent.kind)).toBe(true);
    }
    const hosts = answer.body.hosts as Json[];
    const running = nodes.filter((n) => n.kind === 'Pod' && info(n, 'Status Reason') !== 'Completed').map((n) => info(n, 'Node'));
    expect(hosts.map((h) => h.name)).toEqual([...new Set(running)].sort());
    expect(hosts[0]).toMatchObject({ resourcesInfo: [{ resourceName: 'cpu' }, { resourceName: 'memory' }], systemInfo: { operatingSystem: 'linux' } });
  });

  it('gives the Degraded demo application a crash-looping pod whose health and info say why', async () => {
    const nodes = await nodesOf(DEMO);
    const failing = nodes.filter((n) => n.kind === 'Pod' && (n.health as Json).status === 'Degraded');
    expect(failing.length).toBeGreaterThan(0);
    for (const pod of failing) {
      expect(info(pod, 'Status Reason')).toBe('CrashLoopBackOff');
      expect(info(pod, 'Containers')).toBe('0/1');
      expect(Number(info(pod, 'Restart Count'))).toBeGreaterThan(100);
      expect(String((pod.health as Json).message)).toMatch(/^back-off 5m0s restarting failed container=api pod=payments-api-/);
    }
    // The rollout is stuck: the old ReplicaSet still serves, the new one is not available.
    const sets = nodes.filter((n) => n.kind === 'ReplicaSet' && String(n.name).startsWith('payments-api-') && !String(n.name).includes('deployment'));
    expect(sets.map((s) => (s.health as Json).status)).toContain('Progressing');
    expect(nodes.some((n) => n.kind === 'Pod' && info(n, 'Status Reason') === 'Running' && info(n, 'Containers') === '1/1')).toBe(true);
  });

  it('answers each failure mode consistently: an unhealthy main workload has unhealthy pods', () => {
    const reasons = new Set<string>();
    for (const a of estate.applications.filter((x) => x.status.resources?.[0]?.health?.status === 'Degraded')) {
      const facts = appFacts(a, ARGO_ESTATE_EPOCH);
      const tree = buildTree(facts);
      const main = tree.find((n) => n.managed === a.status.resources?.[0]);
      const children = tree.filter((n) => n.parent?.parent === main || n.parent === main);
      const unhealthy = children.filter((n) => n.health?.status !== 'Healthy');
      expect(unhealthy.length, a.metadata.name).toBeGreaterThan(0);
      for (const n of children) if (n.detail.type === 'Pod' && n.health?.status !== 'Healthy') reasons.add(facts.failure ?? '');
    }
    expect([...reasons].sort()).toEqual(['crash-config', 'crash-db', 'image-pull', 'oom', 'panic', 'readiness', 'unschedulable']);
  });

  it('leaves a Missing resource out of the tree, stays within its limits for every application, and is deterministic', async () => {
    const missing = estate.applications.find((a) => a.status.health.status === 'Missing') as ArgoApplication;
    const nodes = await nodesOf(missing.metadata.name);
    expect(nodes.some((n) => n.kind === 'Deployment' && n.name === missing.status.resources?.[0]?.name)).toBe(false);
    let largest = 0;
    for (const a of estate.applications) {
      const tree = buildTree(appFacts(a, ARGO_ESTATE_EPOCH));
      largest = Math.max(largest, tree.length);
      expect(tree.length).toBeLessThanOrEqual(TREE_LIMITS.nodes);
      const perParent = new Map<string, number>();
      for (const n of tree) if (n.kind === 'Pod' && n.parent !== undefined) perParent.set(n.parent.uid, (perParent.get(n.parent.uid) ?? 0) + 1);
      for (const count of perParent.values()) expect(count).toBeLessThanOrEqual(TREE_LIMITS.podsPerWorkload);
    }
    process.stdout.write(`largest tree of the default estate: ${largest} nodes\n`);
    expect((await call(`/api/v1/applications/${DEMO}/resource-tree`)).text).toBe((await call(`/api/v1/applications/${DEMO}/resource-tree`)).text);
  });
});

describe('the limits of a derived tree', () => {
  const demo = (): ArgoApplication => app(DEMO);
  const synthetic = (resources: ResourceStatus[], values: string): ArgoApplication => ({
    ...demo(),
    spec: { ...demo().spec, source: { repoURL: 'https://git.example.com/payments/api.git', helm: { values } } },
    status: { ...demo().status, resources, health: { status: 'Healthy' } },
  });
  const resource = (group: string, kind: string, name: string, health?: string): ResourceStatus => ({ ...(group === '' ? {} : { group }), version: 'v1', kind, namespace: 'payments', name, status: 'Synced', ...(health === undefined ? {} : { health: { status: health } }) });

  it('caps pods per workload and nodes per tree on an application built to exceed them; StatefulSets, DaemonSets and Jobs get their pods', () => {
    const wide = synthetic([resource('apps', 'StatefulSet', 'payments-cache', 'Healthy'), resource('apps', 'Deployment', 'payments-api', 'Healthy'), resource('batch', 'Job', 'payments-migrate', 'Healthy'), resource('apps', 'DaemonSet', 'payments-agent', 'Healthy')], 'replicaCount: 40\n');
    const tree = buildTree(appFacts(wide, ARGO_ESTATE_EPOCH));
    const podsOf = (owner: string): string[] => tree.filter((n) => n.kind === 'Pod' && (n.parent?.name === owner || n.parent?.parent?.name === owner)).map((n) => n.name);
    expect(podsOf('payments-cache').sort()).toEqual(Array.from({ length: TREE_LIMITS.podsPerWorkload }, (_, i) => `payments-cache-${i}`).sort());
    expect(podsOf('payments-api').length).toBeGreaterThan(0);
    const deployment = synthetic([resource('apps', 'Deployment', 'payments-api', 'Healthy')], 'replicaCount: 40\n');
    expect(buildTree(appFacts(deployment, ARGO_ESTATE_EPOCH)).filter((n) => n.kind === 'Pod')).toHaveLength(TREE_LIMITS.podsPerWorkload);
    expect(podsOf('payments-migrate')).toHaveLength(1);
    expect(tree.find((n) => n.parent?.name === 'payments-migrate')?.health).toEqual({ status: 'Healthy' });
    expect(podsOf('payments-agent')).toHaveLength(6);
    const many = synthetic(Array.from({ length: TREE_LIMITS.nodes + 100 }, (_, i) => resource('', 'ConfigMap', `payments-config-${String(i).padStart(3, '0')}`)), '');
    expect(buildTree(appFacts(many, ARGO_ESTATE_EPOCH))).toHaveLength(TREE_LIMITS.nodes);
  });

  it('keeps the newest EVENTS_PER_OBJECT_MAX events of an object that has more', () => {
    const facts = appFacts(demo(), ARGO_ESTATE_EPOCH);
    const tree = buildTree(facts);
    const rs = tree.find((n) => n.kind === 'ReplicaSet') as TreeNode;
    const model = tree.find((n) => n.kind === 'Pod') as TreeNode;
    const pods: TreeNode[] = Array.from({ length: 30 }, (_, i) => ({ ...model, name: `${rs.name}-p${String(i).padStart(2, '0')}`, uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, parent: rs, createdAt: rs.createdAt + i * 60_000 }));
    const events = resourceEvents(rs, facts, [rs, ...pods]);
    expect(events).toHaveLength(EVENTS_PER_OBJECT_MAX);
    expect(events.map((e) => (e as { message: string }).message).sort()).toEqual(pods.slice(10).map((p) => `Created pod: ${p.name}`));
  });
});

describe('GET /api/v1/applications/{name}/managed-resources', () => {
  it('answers {items: ResourceDiff[]} with the states as JSON strings, in Go field order', async () => {
    const answer = await call(`/api/v1/applications/${DEMO}/managed-resources`);
    expect(answer.status).toBe(200);
    const items = answer.body.items as Json[];
    expect(items).toHaveLength(app(DEMO).status.resources?.length ?? 0);
    const deployment = items.find((i) => i.kind === 'Deployment' && i.name === 'payments-api') as Json;
    expect(Object.keys(deployment)).toEqual(['group', 'kind', 'namespace', 'name', 'targetState', 'liveState', 'normalizedLiveState', 'predictedLiveState', 'resourceVersion']);
    const target = JSON.parse(String(deployment.targetState)) as Json;
    const live = JSON.parse(String(deployment.liveState)) as Json;
    expect(target).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { annotations: { 'argocd.argoproj.io/tracking-id': `${DEMO}:apps/Deployment:payments/payments-api` } } });
    expect(live).toMatchObject({ metadata: { uid: expect.any(String) as unknown, managedFields: expect.any(Array) as unknown }, status: { conditions: expect.arrayContaining([expect.objectContaining({ reason: 'ProgressDeadlineExceeded' })]) as unknown } });
    // The demo's story: the revision in Git dropped DATABASE_URL from the container.
    expect(String(deployment.targetState)).not.toContain('DATABASE_URL');
    expect(String(deployment.liveState).length).toBeGreaterThan(3_000);
    // Keys sorted at every level, as Go marshals Argo CD's unstructured maps.
    expect(Object.keys(live)).toEqual([...Object.keys(live)].sort());
    const secret = items.find((i) => i.kind === 'Secret') as Json;
    expect(String(secret.liveState)).toContain('++++++++');
  });

  it('makes an OutOfSync resource differ between target and live, and a Missing one "null" live', async () => {
    const drifted = estate.applications.find((a) => a.status.resources?.some((r) => r.status === 'OutOfSync' && r.health?.status !== 'Missing' && r.requiresPruning !== true && r.kind === 'Deployment')) as ArgoApplication;
    const resource = drifted.status.resources?.find((r) => r.status === 'OutOfSync' && r.kind === 'Deployment');
    const items = (await call(`/api/v1/applications/${drifted.metadata.name}/managed-resources?kind=Deployment&name=${resource?.name ?? ''}`)).body.items as Json[];
    expect(items).toHaveLength(1);
    const item = items[0] as Json;
    expect(item.modified).toBe(true);
    const spec = (s: unknown): Json => (JSON.parse(String(s)) as { spec: Json }).spec;
    expect(spec(item.liveState)).not.toEqual(spec(item.predictedLiveState));

    const missingApp = estate.applications.find((a) => a.status.health.status === 'Missing') as ArgoApplication;
    const main = missingApp.status.resources?.[0];
    const gone = ((await call(`/api/v1/applications/${missingApp.metadata.name}/managed-resources?name=${main?.name ?? ''}&kind=Deployment`)).body.items as Json[])[0] as Json;
    expect(gone).toMatchObject({ liveState: 'null', normalizedLiveState: 'null', modified: true });
    expect(gone.resourceVersion).toBeUndefined();
    expect(JSON.parse(String(gone.targetState))).toMatchObject({ kind: 'Deployment' });
  });

  it('filters by namespace, name, group and kind; nothing matching is {}', async () => {
    const kinds = ((await call(`/api/v1/applications/${DEMO}/managed-resources?group=apps`)).body.items as Json[]).map((i) => i.kind);
    expect(new Set(kinds)).toEqual(new Set(['Deployment']));
    expect((await call(`/api/v1/applications/${DEMO}/managed-resources?namespace=elsewhere`)).text).toBe('{}');
  });
});

describe('GET /api/v1/applications/{name}/events', () => {
  it("lists the application's own events: the failed sync with the webhook's denial, the health change", async () => {
    const answer = await call(`/api/v1/applications/${DEMO}/events`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['metadata', 'items']);
    const items = answer.body.items as Json[];
    const messages = items.map((e) => `${String(e.type)} ${String(e.reason)}: ${String(e.message)}`);
    expect(messages).toContainEqual(expect.stringMatching(/^Warning OperationCompleted: Sync operation to [0-9a-f]{40} failed: .*admission webhook "validate.kyverno.svc-fail" denied the request/));
    expect(messages).toContain('Normal ResourceUpdated: Updated health status: Progressing -> Degraded');
    const event = items[0] as Json;
    expect(Object.keys(event)).toEqual(['metadata', 'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'reportingComponent', 'reportingInstance']);
    expect(event).toMatchObject({ involvedObject: { kind: 'Application', namespace: 'argocd', name: DEMO, uid: app(DEMO).metadata.uid, apiVersion: 'argoproj.io/v1alpha1' }, source: { component: 'argocd-application-controller' }, eventTime: null });
  });

  it("lists a pod's events by uid, name and namespace: the back-off of the failing pod, the normal life of a healthy one", async () => {
    const nodes = await nodesOf(DEMO);
    const failing = nodes.find((n) => n.kind === 'Pod' && (n.health as Json).status === 'Degraded') as Json;
    const eventsOf = async (n: Json): Promise<Json[]> =>
      ((await call(`/api/v1/applications/${DEMO}/events?resourceName=${String(n.name)}&resourceNamespace=${String(n.namespace)}&resourceUID=${String(n.uid)}`)).body.items as Json[] | null) ?? [];
    const bad = await eventsOf(failing);
    const backOff = bad.find((e) => e.reason === 'BackOff') as Json;
    expect(backOff).toMatchObject({ type: 'Warning', message: `Back-off restarting failed container api in pod ${String(failing.name)}_payments(${String(failing.uid)})`, source: { component: 'kubelet' } });
    expect(Number(backOff.count)).toBeGreaterThan(100);
    expect(bad.find((e) => e.reason === 'Scheduled')).toMatchObject({ firstTimestamp: null, source: {}, reportingComponent: 'default-scheduler', action: 'Binding' });
    const healthy = nodes.find((n) => n.kind === 'Pod' && info(n, 'Status Reason') === 'Running') as Json;
    expect((await eventsOf(healthy)).map((e) => e.reason)).toEqual(expect.arrayContaining(['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']));
    expect((await eventsOf(healthy)).every((e) => e.type === 'Normal')).toBe(true);
    const configMap = nodes.find((n) => n.kind === 'ConfigMap') as Json;
    expect((await call(`/api/v1/applications/${DEMO}/events?resourceName=${String(configMap.name)}&resourceNamespace=payments&resourceUID=${String(configMap.uid)}`)).body.items).toBeNull();
  });

  it('refuses a resource that is not part of the application (a name without its uid included), as Argo CD words it', async () => {
    const pod = (await nodesOf(DEMO)).find((n) => n.kind === 'Pod') as Json;
    const answer = await call(`/api/v1/applications/${DEMO}/events?resourceName=${String(pod.name)}&resourceNamespace=payments`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: `${String(pod.name)} not found as part of application ${DEMO}`, code: 3, message: `${String(pod.name)} not found as part of application ${DEMO}` });
  });

  it('keeps every object within EVENTS_PER_OBJECT_MAX', () => {
    for (const a of estate.applications.filter((x) => x.status.health.status !== 'Healthy')) {
      const facts = appFacts(a, ARGO_ESTATE_EPOCH);
      expect(applicationEvents(facts).length).toBeLessThanOrEqual(EVENTS_PER_OBJECT_MAX);
      const tree = buildTree(facts);
      for (const node of tree) expect(resourceEvents(node, facts, tree).length).toBeLessThanOrEqual(EVENTS_PER_OBJECT_MAX);
    }
  });
});

describe('GET /api/v1/applications/{name}/resource and resource/actions', () => {
  it('returns the live object as a JSON string, secrets hidden, for managed resources and their children', async () => {
    const pod = (await nodesOf(DEMO)).find((n) => n.kind === 'Pod' && (n.health as Json).status === 'Degraded') as Json;
    const answer = await call(`/api/v1/applications/${DEMO}/resource?namespace=payments&resourceName=${String(pod.name)}&version=v1&kind=Pod`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['manifest']);
    const manifest = JSON.parse(String(answer.body.manifest)) as { metadata: Json; status: { containerStatuses: Json[] } };
    expect(manifest.metadata).toMatchObject({ name: pod.name, uid: pod.uid, ownerReferences: [{ kind: 'ReplicaSet' }] });
    expect(manifest.status.containerStatuses[0]).toMatchObject({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } });
    const secret = await call(`/api/v1/applications/${DEMO}/resource?namespace=payments&resourceName=payments-api&version=v1&kind=Secret`);
    expect((JSON.parse(String(secret.body.manifest)) as { data: Json }).data).toEqual({ 'api-key': '++++++++', 'database-url': '++++++++' });
  });

  it('answers InvalidArgument with Argo CD\'s wording for a resource that is not part of the application', async () => {
    const answer = await call(`/api/v1/applications/${DEMO}/resource?namespace=payments&resourceName=nope&group=apps&kind=Deployment&version=v1`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: `Deployment apps nope not found as part of application ${DEMO}`, code: 3, message: `Deployment apps nope not found as part of application ${DEMO}` });
    expect((await call(`/api/v1/applications/${DEMO}/resource`)).body).toMatchObject({ code: 3, message: `   not found as part of application ${DEMO}` });
  });

  it("lists a resource's actions (Deployment: pause, restart, resume disabled, scale; none for a ConfigMap) and refuses to run one", async () => {
    const base = `/api/v1/applications/${DEMO}/resource/actions?namespace=payments&resourceName=payments-api`;
    expect((await call(`${base}&group=apps&kind=Deployment&version=v1`)).body).toEqual({
      actions: [{ name: 'pause' }, { name: 'restart' }, { name: 'resume', disabled: true }, { name: 'scale', params: [{ name: 'replicas' }] }],
    });
    expect((await call(`${base}&group=batch&kind=CronJob&version=v1`)).body).toEqual({ actions: [{ name: 'create-job', iconClass: 'fa fa-fw fa-plus', displayName: 'Create Job' }] });
    expect((await call(`${base}&kind=ConfigMap&version=v1`)).text).toBe('{}');
    expect(await call(`${base}&group=apps&kind=Deployment&version=v1`, 'POST')).toMatchObject({ status: 403, body: { code: 7, message: 'permission denied' } });
    expect((await call(`/api/v1/applications/${DEMO}/resource/actions/v2`, 'POST')).status).toBe(403);
    expect((await call(`/api/v1/applications/${DEMO}/resource?namespace=payments&resourceName=payments-api&kind=ConfigMap`, 'DELETE')).status).toBe(403);
  });
});

describe('errors shared by the resource endpoints', () => {
  it('answers an unknown application "permission denied" (NotFound with a project), another app namespace "permission denied"', async () => {
    for (const path of ['resource-tree', 'managed-resources', 'events', 'logs', 'resource?kind=Pod', 'resource/actions?kind=Pod']) {
      expect(await call(`/api/v1/applications/nope/${path}`), path).toMatchObject({ status: 403, body: { code: 7, message: 'permission denied' } });
    }
    expect(await call('/api/v1/applications/nope/resource-tree?project=default')).toMatchObject({ status: 404, body: { code: 5, message: 'applications.argoproj.io "nope" not found' } });
    expect(await call(`/api/v1/applications/${DEMO}/resource-tree?project=${q('other')}`)).toMatchObject({ status: 404 });
    expect(await call(`/api/v1/applications/${DEMO}/resource-tree?appNamespace=team-a`)).toMatchObject({ status: 403 });
    expect((await call(`/api/v1/applications/${DEMO}/resource-tree?project=${app(DEMO).spec.project}&appNamespace=argocd`)).status).toBe(200);
  });
});

describe('GET /api/v1/clusters', () => {
  it('sanitises every cluster as Cluster.Sanitized() does and leaves the estate untouched', async () => {
    const list = await call('/api/v1/clusters');
    expect(list.text).not.toMatch(/caData|certData|keyData|execProviderConfig|bearerToken|password/);
    const items = list.body.items as { name: string; config: Json }[];
    const withAws = estate.clusters.find((c) => c.config.awsAuthConfig !== undefined);
    expect(items.find((c) => c.name === withAws?.name)?.config).toEqual({ tlsClientConfig: { insecure: false }, awsAuthConfig: withAws?.config.awsAuthConfig });
    const withExec = estate.clusters.find((c) => c.config.execProviderConfig !== undefined);
    expect(items.find((c) => c.name === withExec?.name)?.config).toEqual({ tlsClientConfig: { insecure: false } });
    expect((await call(`/api/v1/clusters/${q(withExec?.server ?? '')}`)).text).not.toContain('caData');
    expect(withExec?.config.tlsClientConfig.caData).toMatch(/^LS0t/);
  });
});
