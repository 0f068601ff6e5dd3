import type { Request, Response } from 'express';
import { applicationEvents, eventList, resourceEvents } from './events.js';
import { GrpcCode, GrpcError, sendJson } from './grpc.js';
import { type AppFacts, type PodFacts, type TreeNode, appFacts, buildTree, clusterNodes, findNode, hash32, rngFor } from './live.js';
import { liveManifest, loadBalancerHostname, manifestJson, targetManifest } from './manifests.js';
import type { LogOptions } from './options.js';
import { type RouteContext, first, resolveApplication } from './routes.js';
import type { ArgoApplication, ResourceStatus } from './types.js';
import { iso } from './words.js';

/**
 * The application resource endpoints (server/application/application.go): resource-tree, managed-resources,
 * events, resource and resource/actions; pod logs are in `pod-logs.ts`. Every answer is derived per request
 * from the application (`live.ts`), so nothing is held for the applications nobody asks about.
 */

/** Counters of the log streams, for the simulator's stats. */
export interface LiveCounters {
  /** Log lines generated since start (or the last reset), every request included. */
  logLinesGenerated: number;
  /** Log responses being streamed now. */
  logStreamsOpen: number;
  /** Log responses waiting for the client to read (their socket buffer full). */
  logStreamsWaiting: number;
}

/** What the resource endpoints need besides the estate: its "now", the log settings, the counters. */
export interface LiveContext {
  readonly now: number;
  readonly logs: LogOptions;
  readonly counters: LiveCounters;
}

type Obj = Record<string, unknown>;

/** The application a resource request names (`project` and `appNamespace` as getApplication treats them). */
export function requestedApp(req: Request, ctx: RouteContext, live: LiveContext, param = 'name'): { app: ArgoApplication; facts: AppFacts } {
  const app = resolveApplication(ctx, String(req.params[param]), first(req, 'project') ?? '', first(req, 'appNamespace'));
  return { app, facts: appFacts(app, live.now) };
}

/** Pod info items (controller/cache/info.go populatePodInfo): status reason, node, ready containers, restarts. */
function podInfo(pod: PodFacts): Obj[] {
  let reason: string = pod.phase;
  let ready = 0;
  let running = false;
  let restarts = 0;
  const statuses = pod.unschedulable === undefined ? pod.containers : [];
  for (let i = statuses.length - 1; i >= 0; i -= 1) {
    const c = statuses[i];
    if (c === undefined) continue;
    restarts += c.restartCount;
    if ('waiting' in c.state && c.state.waiting.reason !== '') reason = c.state.waiting.reason;
    else if ('terminated' in c.state) reason = c.state.terminated.reason;
    else if (c.ready && 'running' in c.state) {
      running = true;
      ready += 1;
    }
  }
  if (reason === 'Completed' && running) reason = 'Running';
  return [
    { name: 'Status Reason', value: reason },
    { name: 'Node', value: pod.node ?? '' },
    { name: 'Containers', value: `${ready}/${pod.containers.length}` },
    ...(restarts > 0 ? [{ name: 'Restart Count', value: String(restarts) }] : []),
  ];
}

const refJson = (n: TreeNode): Obj => ({ ...(n.group === '' ? {} : { group: n.group }), kind: n.kind, namespace: n.namespace, name: n.name, uid: n.uid });

/** A ResourceNode in the Go struct's field order, empty fields left out as `omitempty` does. */
function nodeJson(n: TreeNode, facts: AppFacts): Obj {
  let info: Obj[] | undefined;
  let networkingInfo: Obj | undefined;
  let images: string[] | undefined;
  const selector = { 'app.kubernetes.io/instance': facts.app.metadata.name, 'app.kubernetes.io/name': n.name === `${facts.team}-${facts.service}` ? facts.service : n.name };
  switch (n.detail.type) {
    case 'Deployment':
    case 'ReplicaSet':
      info = [{ name: 'Revision', value: `Rev:${n.detail.revision}` }];
      break;
    case 'Pod':
      info = podInfo(n.detail.pod);
      networkingInfo = { labels: n.detail.pod.labels };
      images = [...new Set(n.detail.pod.containers.map((c) => c.image))];
      break;
    case 'CronJob':
    case 'Job':
    case 'Other':
      break;
  }
  if (n.kind === 'Service') networkingInfo = { targetLabels: selector };
  if (n.kind === 'Ingress') {
    const url = facts.app.status.summary.externalURLs?.[0] ?? `https://${facts.service}.${facts.team}.example.com/`;
    networkingInfo = {
      targetRefs: [{ kind: 'Service', namespace: n.namespace, name: n.name }],
      ingress: [{ hostname: loadBalancerHostname(facts) }],
      externalURLs: [url],
    };
  }
  return {
    ...(n.group === '' ? {} : { group: n.group }),
    version: n.version,
    kind: n.kind,
    ...(n.namespace === '' ? {} : { namespace: n.namespace }),
    name: n.name,
    uid: n.uid,
    ...(n.parent === undefined ? {} : { parentRefs: [refJson(n.parent)] }),
    ...(info === undefined ? {} : { info }),
    ...(networkingInfo === undefined ? {} : { networkingInfo }),
    resourceVersion: n.resourceVersion,
    ...(images === undefined ? {} : { images }),
    ...(n.health === undefined ? {} : { health: n.health }),
    createdAt: iso(n.createdAt),
  };
}

/**
 * The hosts running the application's pods (HostInfo): requests in milli-units as Argo CD reports them
 * (`Quantity.MilliValue()`: CPU in millicores, memory in thousandths of a byte). Unconfirmed: the unit of
 * memory, read from Argo CD's controller test (CPU capacity 5 as 5000).
 */
function hostsOf(tree: readonly TreeNode[], facts: AppFacts): Obj[] {
  const byNode = new Map<string, number>();
  for (const n of tree) {
    if (n.detail.type === 'Pod' && n.detail.pod.node !== undefined && n.detail.pod.phase === 'Running') byNode.set(n.detail.pod.node, (byNode.get(n.detail.pod.node) ?? 0) + 1);
  }
  const known = new Set(clusterNodes(facts));
  const rng = rngFor(facts.app.metadata.uid, 'container');
  const cpu = rng.int(1, 10) * 50;
  const memoryMi = (facts.failure === 'oom' ? 512 : rng.int(2, 8) * 256) / 2;
  return [...byNode.entries()]
    .filter(([name]) => known.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, pods]) => {
      const memoryPool = name.includes('-memory-');
      const seed = rngFor(name, 'host');
      const gi = 1024 * 1024 * 1024;
      return {
        name,
        resourcesInfo: [
          { resourceName: 'cpu', requestedByApp: pods * cpu, requestedByNeighbors: seed.int(800, 5_000), capacity: memoryPool ? 4_000 : 8_000 },
          { resourceName: 'memory', requestedByApp: pods * memoryMi * 1024 * 1024 * 1000, requestedByNeighbors: seed.int(2, 20) * gi * 1000, capacity: (memoryPool ? 64 : 32) * gi * 1000 },
        ],
        systemInfo: {
          machineID: seed.hex(32),
          systemUUID: `ec2${seed.hex(5)}-${seed.hex(4)}-${seed.hex(4)}-${seed.hex(4)}-${seed.hex(12)}`,
          bootID: `${seed.hex(8)}-${seed.hex(4)}-${seed.hex(4)}-${seed.hex(4)}-${seed.hex(12)}`,
          kernelVersion: '6.1.119-129.201.amzn2023.x86_64',
          osImage: 'Amazon Linux 2023.6.20241212',
          containerRuntimeVersion: 'containerd://1.7.23',
          kubeletVersion: `v1.${29 + (hash32(facts.clusterName) % 4)}.7-eks-59bf375`,
          kubeProxyVersion: '',
          operatingSystem: 'linux',
          architecture: 'amd64',
        },
      };
    });
}

/**
 * GET /api/v1/applications/{name}/resource-tree: ApplicationTree {nodes, hosts} (orphanedNodes is left out: no
 * project of the estate monitors orphaned resources). Unconfirmed but deliberate: no EndpointSlice or Endpoints
 * nodes under Services, as Argo CD v3's default `resource.exclusions` leave them out of its cache.
 */
export function resourceTree(req: Request, res: Response, ctx: RouteContext, live: LiveContext): void {
  const { facts } = requestedApp(req, ctx, live);
  const tree = buildTree(facts);
  const hosts = hostsOf(tree, facts);
  sendJson(res, 200, { ...(tree.length > 0 ? { nodes: tree.map((n) => nodeJson(n, facts)) } : {}), ...(hosts.length > 0 ? { hosts } : {}) });
}

/** A ResourceDiff's live side with the application's ignoreDifferences applied (what Argo CD normalises away). */
function normalised(obj: Obj | null, facts: AppFacts, kind: string): Obj | null {
  if (obj === null) return null;
  const ignored = facts.app.spec.ignoreDifferences?.some((d) => d.kind === kind && d.jsonPointers?.includes('/spec/replicas')) === true;
  if (!ignored || typeof obj.spec !== 'object' || obj.spec === null) return obj;
  const { replicas: _replicas, ...spec } = obj.spec as Obj;
  return { ...obj, spec };
}

/**
 * GET /api/v1/applications/{applicationName}/managed-resources: {items: ResourceDiff[]} (ManagedResourcesResponse),
 * one per managed resource that is not a hook, filtered by `namespace`, `name`, `group`, `kind` (each empty
 * matches all; `version` is accepted and ignored, as Argo CD does). The states are JSON strings; a resource that
 * is not live has `liveState` "null", one to be pruned `targetState` "null".
 */
export function managedResources(req: Request, res: Response, ctx: RouteContext, live: LiveContext): void {
  const { facts } = requestedApp(req, ctx, live);
  const [namespace, name, group, kind] = ['namespace', 'name', 'group', 'kind'].map((p) => first(req, p) ?? '');
  const resources = facts.app.status.resources ?? [];
  const tree = buildTree(facts);
  const items = resources
    .filter((r) => r.hook !== true && (name === '' || r.name === name) && (namespace === '' || r.namespace === namespace) && (group === '' || (r.group ?? '') === group) && (kind === '' || r.kind === kind))
    .map((r: ResourceStatus) => {
      const node = findNode(tree, r.group ?? '', r.kind ?? '', r.namespace ?? '', r.name ?? '');
      const replicas = node?.detail.type === 'Deployment' ? node.detail.replicas : facts.replicas;
      const target = targetManifest(r, facts, replicas);
      const liveObj = node === undefined ? null : liveManifest(node, facts, tree);
      const predicted = node === undefined ? target : target === null ? liveObj : liveManifest(node, facts, tree, false);
      const modified = r.status === 'OutOfSync';
      return {
        ...(r.group === undefined || r.group === '' ? {} : { group: r.group }),
        kind: r.kind,
        ...(r.namespace === undefined || r.namespace === '' ? {} : { namespace: r.namespace }),
        name: r.name,
        targetState: manifestJson(target),
        liveState: manifestJson(liveObj),
        normalizedLiveState: manifestJson(normalised(liveObj, facts, r.kind ?? '')),
        predictedLiveState: manifestJson(normalised(predicted, facts, r.kind ?? '')),
        ...(node === undefined ? {} : { resourceVersion: node.resourceVersion }),
        ...(modified ? { modified: true } : {}),
      };
    });
  sendJson(res, 200, items.length > 0 ? { items } : {});
}

/**
 * GET /api/v1/applications/{name}/events: without `resourceName` and `resourceUID`, the application's own events;
 * with them, the events of the live resource whose uid, name and namespace (`resourceNamespace`) all match (as
 * Argo CD checks them against the tree: a name without its uid matches nothing). A resource that is not part of
 * the application is InvalidArgument with Argo CD's wording.
 */
export function events(req: Request, res: Response, ctx: RouteContext, live: LiveContext): void {
  const { app, facts } = requestedApp(req, ctx, live);
  const resourceName = first(req, 'resourceName') ?? '';
  const resourceUID = first(req, 'resourceUID') ?? '';
  const resourceNamespace = first(req, 'resourceNamespace') ?? '';
  let items: Obj[];
  if (resourceName === '' && resourceUID === '') items = applicationEvents(facts);
  else {
    const tree = buildTree(facts);
    const node = tree.find((n) => n.uid === resourceUID && n.name === resourceName && n.namespace === resourceNamespace);
    if (node === undefined) throw new GrpcError(GrpcCode.InvalidArgument, `${resourceName} not found as part of application ${app.metadata.name}`);
    items = resourceEvents(node, facts, tree);
  }
  sendJson(res, 200, eventList(items, `${app.metadata.uid}/${resourceUID}`));
}

/** The live node a resource request names (getAppLiveResource): InvalidArgument when it is not in the tree. */
function requestedNode(req: Request, ctx: RouteContext, live: LiveContext): { app: ArgoApplication; facts: AppFacts; node: TreeNode; tree: TreeNode[] } {
  const { app, facts } = requestedApp(req, ctx, live);
  const [group, kind, namespace, resourceName] = ['group', 'kind', 'namespace', 'resourceName'].map((p) => first(req, p) ?? '') as [string, string, string, string];
  const tree = buildTree(facts);
  const node = findNode(tree, group, kind, namespace, resourceName);
  if (node === undefined || node.uid === '') throw new GrpcError(GrpcCode.InvalidArgument, `${kind} ${group} ${resourceName} not found as part of application ${app.metadata.name}`);
  return { app, facts, node, tree };
}

/**
 * GET /api/v1/applications/{name}/resource (query namespace, resourceName, version, group, kind): {manifest}, the
 * live object as a JSON string (secret values hidden). `version` only changes which API version is read.
 */
export function resource(req: Request, res: Response, ctx: RouteContext, live: LiveContext): void {
  const { facts, node, tree } = requestedNode(req, ctx, live);
  const manifest = liveManifest(node, facts, tree);
  const version = first(req, 'version');
  if (version !== undefined && version !== node.version) manifest.apiVersion = node.group === '' ? version : `${node.group}/${version}`;
  sendJson(res, 200, { manifest: manifestJson(manifest) });
}

/**
 * The actions Argo CD's built-in Lua discovery offers (resource_customizations/<group>/<kind>/actions), sorted by
 * name. Unconfirmed: the v3.1 scripts (Deployment's `scale` with its `replicas` parameter, CronJob's icon).
 */
function actionsOf(node: TreeNode): Obj[] {
  const paused = node.detail.type === 'Deployment' && node.detail.paused;
  const key = `${node.group}/${node.kind}`;
  switch (key) {
    case 'apps/Deployment':
    case 'apps/StatefulSet':
      return [
        ...(key === 'apps/Deployment' ? [{ name: 'pause', ...(paused ? { disabled: true } : {}) }] : []),
        { name: 'restart' },
        ...(key === 'apps/Deployment' ? [{ name: 'resume', ...(paused ? {} : { disabled: true }) }] : []),
        { name: 'scale', params: [{ name: 'replicas' }] },
      ];
    case 'apps/DaemonSet':
      return [{ name: 'restart' }];
    case 'batch/CronJob':
      return [{ name: 'create-job', iconClass: 'fa fa-fw fa-plus', displayName: 'Create Job' }];
    case 'argoproj.io/Rollout':
      return [{ name: 'abort', disabled: true }, { name: 'promote-full', disabled: true }, { name: 'restart' }, { name: 'resume', disabled: true }, { name: 'retry', disabled: true }];
    default:
      return [];
  }
}

/**
 * GET /api/v1/applications/{name}/resource/actions: {actions: ResourceAction[]} for a live resource of the
 * application ({} when it has none). The application itself (kind Application, group argoproj.io, resourceName
 * its name) has none.
 */
export function resourceActions(req: Request, res: Response, ctx: RouteContext, live: LiveContext): void {
  if (first(req, 'kind') === 'Application' && first(req, 'group') === 'argoproj.io' && first(req, 'resourceName') === String(req.params.name)) {
    requestedApp(req, ctx, live);
    sendJson(res, 200, {});
    return;
  }
  const { node } = requestedNode(req, ctx, live);
  const actions = actionsOf(node);
  sendJson(res, 200, actions.length > 0 ? { actions } : {});
}
