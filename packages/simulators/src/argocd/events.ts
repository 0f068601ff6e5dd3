import type { AppFacts, TreeNode } from './live.js';
import { hash32, rngFor } from './live.js';
import type { ManagedFieldsEntry } from './types.js';
import { ARGOCD_NAMESPACE, iso } from './words.js';

/**
 * Kubernetes v1 Events (core/v1 as the API server lists them through Argo CD's ListResourceEvents): the
 * application's own events (what Argo CD's controller and API server record: operations, sync and health
 * changes) and the events of one live resource (controllers, scheduler, kubelet), consistent with the state
 * `live.ts` derives. Marshalled in the Go struct's field order, zero times as `null`.
 */

/** Events one object has at most (the newest are kept). */
export const EVENTS_PER_OBJECT_MAX = 20;

type Obj = Record<string, unknown>;

interface Involved {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly apiVersion: string;
  readonly resourceVersion: string;
  readonly fieldPath?: string;
}

interface EventSpec {
  readonly reason: string;
  readonly message: string;
  readonly type: 'Normal' | 'Warning';
  /** core/v1 recorders (kubelet, controllers, Argo CD): first and last time and a count. */
  readonly first?: number;
  readonly last?: number;
  readonly count?: number;
  /** events.k8s.io recorders (the scheduler): an eventTime, and a series when repeated. */
  readonly eventTime?: number;
  readonly series?: { readonly count: number; readonly lastObservedTime: number };
  readonly action?: string;
  readonly component: string;
  readonly host?: string;
  readonly reportingInstance?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly fieldPath?: string;
}

/** RFC 3339 with microseconds, as metav1.MicroTime marshals. */
const micro = (ms: number, seed: number): string => iso(ms).replace('Z', `.${String(ms % 1000).padStart(3, '0')}${String(seed % 1000).padStart(3, '0')}Z`);

/** `<name>.<unix nanoseconds in hex>`, the name client-go's recorder gives an event. */
const eventName = (name: string, ms: number, seed: number): string => `${name}.${(BigInt(ms) * 1_000_000n + BigInt(seed % 1_000_000)).toString(16)}`;

function toEvent(involved: Involved, spec: EventSpec): Obj {
  const at = spec.first ?? spec.eventTime ?? 0;
  const seed = hash32(involved.uid, spec.reason, spec.message, String(at));
  const rng = rngFor(String(seed), 'event');
  const legacy = spec.eventTime === undefined;
  const fields: Obj = legacy
    ? { 'f:count': {}, 'f:firstTimestamp': {}, 'f:involvedObject': {}, 'f:lastTimestamp': {}, 'f:message': {}, 'f:reason': {}, 'f:reportingComponent': {}, 'f:reportingInstance': {}, 'f:source': { 'f:component': {}, ...(spec.host === undefined ? {} : { 'f:host': {} }) }, 'f:type': {} }
    : { 'f:action': {}, 'f:eventTime': {}, 'f:message': {}, 'f:reason': {}, 'f:regarding': {}, 'f:reportingController': {}, 'f:reportingInstance': {}, 'f:type': {} };
  const managedFields: ManagedFieldsEntry[] = [
    { manager: spec.component, operation: 'Update', apiVersion: legacy ? 'v1' : 'events.k8s.io/v1', time: iso(spec.last ?? spec.series?.lastObservedTime ?? at), fieldsType: 'FieldsV1', fieldsV1: fields },
  ];
  return {
    metadata: {
      name: eventName(involved.name, at, seed),
      namespace: involved.namespace === '' ? 'default' : involved.namespace,
      uid: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`,
      resourceVersion: String(rng.int(1_000_000, 999_999_999)),
      creationTimestamp: iso(at),
      ...(spec.annotations === undefined ? {} : { annotations: spec.annotations }),
      managedFields,
    },
    involvedObject: { ...involved, ...(spec.fieldPath === undefined ? {} : { fieldPath: spec.fieldPath }) },
    reason: spec.reason,
    message: spec.message,
    source: legacy ? { component: spec.component, ...(spec.host === undefined ? {} : { host: spec.host }) } : {},
    firstTimestamp: spec.first === undefined ? null : iso(spec.first),
    lastTimestamp: spec.last === undefined ? (spec.first === undefined ? null : iso(spec.first)) : iso(spec.last),
    ...(legacy ? { count: spec.count ?? 1 } : {}),
    type: spec.type,
    eventTime: spec.eventTime === undefined ? null : micro(spec.eventTime, seed),
    ...(spec.series === undefined ? {} : { series: { count: spec.series.count, lastObservedTime: micro(spec.series.lastObservedTime, seed) } }),
    ...(spec.action === undefined ? {} : { action: spec.action }),
    // Argo CD's own recorder sets neither (they stay ""); the kubelet and the controllers set both.
    reportingComponent: spec.component.startsWith('argocd-') ? '' : spec.component,
    reportingInstance: spec.component.startsWith('argocd-') ? '' : (spec.reportingInstance ?? spec.host ?? ''),
  };
}

const byName = (a: Obj, b: Obj): number => {
  const x = String((a.metadata as Obj).name);
  const y = String((b.metadata as Obj).name);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The newest `EVENTS_PER_OBJECT_MAX` events, in the API server's order (by name: object, then time). */
function bounded(events: Obj[]): Obj[] {
  const sorted = events.sort((a, b) => String(a.lastTimestamp ?? a.eventTime).localeCompare(String(b.lastTimestamp ?? b.eventTime)));
  return sorted.slice(Math.max(0, sorted.length - EVENTS_PER_OBJECT_MAX)).sort(byName);
}

const msOf = (time: string | undefined, fallback: number): number => {
  const parsed = time === undefined ? NaN : Date.parse(time);
  return Number.isFinite(parsed) ? parsed : fallback;
};

const PREVIOUS_HEALTH: Readonly<Record<string, string>> = { Healthy: 'Progressing', Degraded: 'Progressing', Progressing: 'Healthy', Suspended: 'Healthy', Missing: 'Healthy', Unknown: 'Healthy' };

/**
 * The application's events (involvedObject: the Application), as Argo CD's audit logger records them: the last
 * operation's start and completion, the sync status change, the health transitions. Unconfirmed: the
 * `dest-server`/`dest-namespace` annotations Argo CD puts on them.
 */
export function applicationEvents(facts: AppFacts): Obj[] {
  const { app } = facts;
  const involved: Involved = { kind: 'Application', namespace: app.metadata.namespace || ARGOCD_NAMESPACE, name: app.metadata.name, uid: app.metadata.uid, apiVersion: 'argoproj.io/v1alpha1', resourceVersion: app.metadata.resourceVersion };
  const annotations = { 'dest-namespace': app.spec.destination.namespace ?? '', 'dest-server': app.spec.destination.server ?? '' };
  const controller = (reason: string, message: string, at: number, type: 'Normal' | 'Warning' = 'Normal'): Obj => toEvent(involved, { reason, message, type, first: at, component: 'argocd-application-controller', annotations });
  const events: Obj[] = [];
  const op = app.status.operationState;
  const revision = facts.revision;
  if (op !== undefined) {
    const started = msOf(op.startedAt, facts.now);
    const user = op.operation.initiatedBy?.username;
    if (user === undefined) events.push(controller('OperationStarted', `Initiated automated sync to '${revision}'`, started));
    else {
      const target = app.spec.source?.targetRevision ?? app.spec.sources?.[0]?.targetRevision ?? 'HEAD';
      events.push(toEvent(involved, { reason: 'OperationStarted', message: `${user} initiated sync to ${target} (${revision})`, type: 'Normal', first: started, component: 'argocd-server', annotations: { ...annotations, user } }));
    }
    if (op.finishedAt !== undefined) {
      const finished = msOf(op.finishedAt, facts.now);
      const ok = op.phase === 'Succeeded';
      const what = op.operation.sync?.revisions === undefined ? `Sync operation to ${revision}` : `Sync operation to ${op.operation.sync.revisions.join(',')}`;
      events.push(controller('OperationCompleted', ok ? `${what} succeeded` : `${what} failed: ${op.message ?? ''}`, finished, ok ? 'Normal' : 'Warning'));
      if (ok) events.push(controller('ResourceUpdated', 'Updated sync status: OutOfSync -> Synced', finished + 1_000));
    }
  }
  const health = app.status.health.status;
  const transition = msOf(app.status.health.lastTransitionTime, facts.now);
  if (health === 'Degraded') events.push(controller('ResourceUpdated', 'Updated health status: Healthy -> Progressing', Math.max(0, transition - 600_000)));
  if (health !== 'Healthy' || op !== undefined) events.push(controller('ResourceUpdated', `Updated health status: ${PREVIOUS_HEALTH[health] ?? 'Healthy'} -> ${health}`, transition));
  if (app.status.sync.status === 'OutOfSync') {
    events.push(controller('ResourceUpdated', 'Updated sync status: Synced -> OutOfSync', Math.min(facts.now, Math.max(transition, msOf(op?.finishedAt, transition)) + 3_600_000)));
  }
  return bounded(events);
}

const involvedOf = (node: TreeNode): Involved => ({
  kind: node.kind,
  namespace: node.namespace,
  name: node.name,
  uid: node.uid,
  apiVersion: node.group === '' ? node.version : `${node.group}/${node.version}`,
  resourceVersion: node.resourceVersion,
});

function podEvents(node: TreeNode, facts: AppFacts): Obj[] {
  if (node.detail.type !== 'Pod') return [];
  const pod = node.detail.pod;
  const involved = involvedOf(node);
  const out: Obj[] = [];
  const rng = rngFor(node.uid, 'events');
  const created = pod.startTime;
  if (pod.unschedulable !== undefined) {
    const attempts = Math.max(1, Math.floor((facts.now - created) / 300_000));
    out.push(toEvent(involved, { reason: 'FailedScheduling', message: pod.unschedulable, type: 'Warning', eventTime: created + 50, series: attempts > 1 ? { count: attempts, lastObservedTime: facts.now - rng.int(5_000, 290_000) } : undefined, action: 'Scheduling', component: 'default-scheduler', reportingInstance: `default-scheduler-${facts.clusterName}-control-plane` }));
    return out;
  }
  out.push(toEvent(involved, { reason: 'Scheduled', message: `Successfully assigned ${node.namespace}/${node.name} to ${pod.node ?? ''}`, type: 'Normal', eventTime: created + 40, action: 'Binding', component: 'default-scheduler', reportingInstance: `default-scheduler-${facts.clusterName}-control-plane` }));
  for (const c of pod.containers) {
    const fieldPath = `spec.containers{${c.name}}`;
    const kubelet = (reason: string, message: string, first: number, type: 'Normal' | 'Warning' = 'Normal', count = 1, last?: number): Obj =>
      toEvent(involved, { reason, message, type, first, last, count, component: 'kubelet', host: pod.node, fieldPath });
    const pullAt = created + rng.int(300, 1_500);
    if ('waiting' in c.state && c.state.waiting.reason === 'ImagePullBackOff') {
      const attempts = Math.max(2, Math.floor((facts.now - created) / 300_000));
      const last = facts.now - rng.int(10_000, 280_000);
      const notFound = `Failed to pull image "${c.image}": rpc error: code = NotFound desc = failed to pull and unpack image "${c.image}": failed to resolve reference "${c.image}": ${c.image}: not found`;
      out.push(
        kubelet('Pulling', `Pulling image "${c.image}"`, pullAt, 'Normal', attempts, last - 2_000),
        kubelet('Failed', notFound, pullAt + 900, 'Warning', attempts, last - 1_000),
        kubelet('Failed', 'Error: ErrImagePull', pullAt + 901, 'Warning', attempts, last - 1_000),
        kubelet('BackOff', `Back-off pulling image "${c.image}"`, pullAt + 2_000, 'Normal', attempts * 12, last),
        kubelet('Failed', 'Error: ImagePullBackOff', pullAt + 2_001, 'Warning', attempts * 12, last),
      );
      continue;
    }
    const pullMs = rng.int(800, 9_000);
    out.push(
      kubelet('Pulling', `Pulling image "${c.image}"`, pullAt),
      kubelet('Pulled', `Successfully pulled image "${c.image}" in ${(pullMs / 1000).toFixed(3)}s (${(pullMs / 1000).toFixed(3)}s including waiting). Image size: ${rng.int(20_000_000, 180_000_000)} bytes.`, pullAt + pullMs),
    );
    const startAt = pullAt + pullMs + 200;
    const restarts = c.restartCount;
    const lastRestart = c.lastTerminated?.finishedAt ?? facts.now;
    if (restarts > 0) out.push(kubelet('Pulled', `Container image "${c.image}" already present on machine`, startAt + 60_000, 'Normal', restarts, lastRestart + 1_000));
    out.push(kubelet('Created', `Created container: ${c.name}`, startAt, 'Normal', restarts + 1, restarts > 0 ? lastRestart + 1_100 : undefined));
    out.push(kubelet('Started', `Started container ${c.name}`, startAt + 150, 'Normal', restarts + 1, restarts > 0 ? lastRestart + 1_300 : undefined));
    if ('waiting' in c.state && c.state.waiting.reason === 'CrashLoopBackOff') {
      out.push(kubelet('BackOff', `Back-off restarting failed container ${c.name} in pod ${node.name}_${node.namespace}(${node.uid})`, startAt + 30_000, 'Warning', restarts * 11 + rng.int(0, 10), facts.now - rng.int(2_000, 60_000)));
    }
    if (pod.failure === 'readiness' && c.name !== 'istio-proxy') {
      out.push(kubelet('Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', startAt + 10_000, 'Warning', Math.max(5, Math.floor((facts.now - startAt) / 5_000)), facts.now - rng.int(1_000, 5_000)));
    }
    if (pod.failure === 'starting' && c.name !== 'istio-proxy') {
      out.push(kubelet('Unhealthy', `Readiness probe failed: Get "http://${pod.ip ?? ''}:8080/ready": dial tcp ${pod.ip ?? ''}:8080: connect: connection refused`, startAt + 2_000, 'Warning', rng.int(2, 6), facts.now - rng.int(1_000, 8_000)));
    }
  }
  return out;
}

/** A resource's events (controllers, scheduler, kubelet), bounded by `EVENTS_PER_OBJECT_MAX`. */
export function resourceEvents(node: TreeNode, facts: AppFacts, tree: readonly TreeNode[]): Obj[] {
  const involved = involvedOf(node);
  const children = tree.filter((n) => n.parent === node);
  const controller = (component: string, reason: string, message: string, first: number, type: 'Normal' | 'Warning' = 'Normal', count = 1, last?: number): Obj =>
    toEvent(involved, { reason, message, type, first, last, count, component });
  const detail = node.detail;
  switch (detail.type) {
    case 'Pod':
      return bounded(podEvents(node, facts));
    case 'ReplicaSet': {
      const events = children.map((pod) => controller('replicaset-controller', 'SuccessfulCreate', `Created pod: ${pod.name}`, pod.createdAt - 50));
      if (detail.quota !== undefined) {
        const attempts = Math.max(3, Math.floor((facts.now - node.createdAt) / 600_000));
        events.push(controller('replicaset-controller', 'FailedCreate', `Error creating: ${detail.quota}`, node.createdAt + 100, 'Warning', attempts, facts.now - 120_000));
      }
      return bounded(events);
    }
    case 'Deployment': {
      const sets = children.filter((c) => c.detail.type === 'ReplicaSet');
      const events = sets.flatMap((rs) => {
        if (rs.detail.type !== 'ReplicaSet') return [];
        const up = rs.detail.replicas > 0;
        const previous = up ? 0 : detail.replicas;
        return [controller('deployment-controller', 'ScalingReplicaSet', `Scaled ${up ? 'up' : 'down'} replica set ${rs.name} from ${previous} to ${rs.detail.replicas}`, up ? rs.createdAt + 10 : Math.max(rs.createdAt, facts.deployedAt) + 30_000)];
      });
      return bounded(events);
    }
    case 'Job':
      return bounded([
        ...children.map((pod) => controller('job-controller', 'SuccessfulCreate', `Created pod: ${pod.name}`, detail.start)),
        controller('job-controller', 'Completed', 'Job completed', detail.completion + 2_000),
      ]);
    case 'CronJob':
      return bounded(
        children.flatMap((job) =>
          job.detail.type === 'Job'
            ? [
                controller('cronjob-controller', 'SuccessfulCreate', `Created job ${job.name}`, job.createdAt),
                controller('cronjob-controller', 'SawCompletedJob', `Saw completed job: ${job.name}, status: Complete`, job.detail.completion + 3_000),
              ]
            : [],
        ),
      );
    case 'Other':
      return [];
  }
}

/**
 * A v1 EventList body: `{metadata: {resourceVersion}, items}`. An empty list has crossed gRPC inside Argo CD,
 * which leaves a nil slice: `"items":null`.
 */
export function eventList(items: Obj[], seed: string): Obj {
  return { metadata: { resourceVersion: String((hash32(seed, 'events') % 900_000_000) + 100_000_000) }, items: items.length > 0 ? items : null };
}
