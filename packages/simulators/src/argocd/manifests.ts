import { goJson } from './grpc.js';
import { type AppFacts, type ContainerFacts, type ContainerState, type PodFacts, type TreeNode, hash32, rngFor } from './live.js';
import { fieldsV1 } from './managed-fields.js';
import type { ManagedFieldsEntry, ResourceStatus } from './types.js';
import { iso } from './words.js';

/**
 * Kubernetes objects as Argo CD hands them out: the target (what the sources render, with Argo CD's tracking
 * annotation) and the live object (the target as the API server stores it: defaults filled in, metadata and
 * managedFields added, status). An OutOfSync resource's live object differs from its target in one place
 * (`driftOf`). Serialised with every key sorted, as Go marshals the unstructured maps Argo CD keeps them in.
 */

type Obj = Record<string, unknown>;

/** The one difference between the live object and the target of an OutOfSync resource. */
export type Drift = 'image' | 'replicas' | 'env' | 'data' | 'version-label';

const sortKeysDeep = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Obj = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Obj)[key]);
  return out;
};

/** JSON of an unstructured object as Argo CD sends it (json.Marshal of a map: keys sorted, HTML escaped). */
export const manifestJson = (obj: Obj | null): string => (obj === null ? 'null' : goJson(sortKeysDeep(obj)));

const apiVersionOf = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);
const base = (facts: AppFacts): string => `${facts.team}-${facts.service}`;
const hex = (seed: number, length: number): string => rngFor(String(seed), 'hex').hex(length);

/** The load balancer in front of the cluster's ingress controller (an Ingress's status and tree node agree on it). */
export const loadBalancerHostname = (facts: AppFacts): string => `k8s-ingressn-ingressn-${hex(hash32(facts.clusterName), 10)}.elb.amazonaws.com`;

/** What an OutOfSync resource has drifted in (none for a resource in sync or one that is not live). */
export function driftOf(r: ResourceStatus, facts: AppFacts, isMain: boolean): Drift | undefined {
  if (r.status !== 'OutOfSync' || r.health?.status === 'Missing' || r.requiresPruning === true) return undefined;
  const rng = rngFor(facts.app.metadata.uid, 'drift', r.kind ?? '', r.name ?? '');
  if (r.kind === 'Deployment') {
    const ignoresReplicas = facts.app.spec.ignoreDifferences?.some((d) => d.kind === 'Deployment' && d.jsonPointers?.includes('/spec/replicas')) === true;
    const healthy = (r.health?.status ?? 'Healthy') === 'Healthy';
    const choices: Drift[] = ['env', ...(ignoresReplicas ? [] : (['replicas'] as Drift[])), ...(healthy || !isMain ? (['image'] as Drift[]) : [])];
    return rng.pick(choices);
  }
  return r.kind === 'ConfigMap' ? 'data' : 'version-label';
}

function labelsOf(facts: AppFacts, name: string, drift: Drift | undefined): Record<string, string> {
  const helm = facts.app.status.sourceType === 'Helm' || facts.app.status.sourceTypes?.includes('Helm') === true;
  return {
    'app.kubernetes.io/instance': facts.app.metadata.name,
    ...(helm ? { 'app.kubernetes.io/managed-by': 'Helm' } : {}),
    'app.kubernetes.io/name': name === base(facts) ? facts.service : name,
    'app.kubernetes.io/part-of': facts.team,
    'app.kubernetes.io/version': drift === 'version-label' || drift === 'image' ? facts.previousImage.slice(facts.previousImage.lastIndexOf(':') + 1) : facts.tag,
  };
}

const selectorOf = (facts: AppFacts, name: string): Record<string, string> => ({
  'app.kubernetes.io/instance': facts.app.metadata.name,
  'app.kubernetes.io/name': name === base(facts) ? facts.service : name,
});

/** The application's container as its chart renders it; `withDatabase` false is the crash-config failure. */
function containerOf(facts: AppFacts, image: string, withDatabase: boolean, drift: Drift | undefined): Obj {
  const rng = rngFor(facts.app.metadata.uid, 'container');
  const memory = facts.failure === 'oom' ? 512 : rng.int(2, 8) * 256;
  const env: Obj[] = [
    { name: 'LOG_LEVEL', value: drift === 'env' ? 'debug' : 'info' },
    { name: 'PORT', value: '8080' },
    ...(withDatabase ? [{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: base(facts), key: 'database-url' } } }] : []),
    { name: 'REDIS_URL', value: `redis://${facts.team}-redis.${facts.namespace}.svc.cluster.local:6379/0` },
    { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability.svc.cluster.local:4317' },
    { name: 'OTEL_SERVICE_NAME', value: base(facts) },
  ];
  return {
    name: facts.service,
    image,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: 8080 }],
    env,
    envFrom: [{ configMapRef: { name: base(facts) } }],
    resources: { requests: { cpu: `${rng.int(1, 10) * 50}m`, memory: `${memory / 2}Mi` }, limits: { memory: `${memory}Mi` } },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 10, periodSeconds: 10 },
    readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5 },
  };
}

/** The Deployment's pod template; `image` differs per ReplicaSet revision. */
function templateOf(facts: AppFacts, name: string, image: string, withDatabase: boolean, drift: Drift | undefined): Obj {
  return {
    metadata: {
      labels: { ...selectorOf(facts, name), 'app.kubernetes.io/version': image.slice(image.lastIndexOf(':') + 1) },
      annotations: { 'prometheus.io/port': '8080', 'prometheus.io/scrape': 'true' },
    },
    spec: {
      serviceAccountName: base(facts),
      securityContext: { runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 },
      containers: [containerOf(facts, image, withDatabase, drift)],
    },
  };
}

/** The target's spec (or data) by kind, with `drift` applied for the live object. */
function specOf(kind: string, name: string, facts: AppFacts, drift: Drift | undefined, replicas: number): Obj {
  const selector = selectorOf(facts, name);
  const host = facts.app.status.summary.externalURLs?.[0]?.replace(/^https?:\/\//, '').replace(/\/$/, '') ?? `${facts.service}.${facts.team}.example.com`;
  switch (kind) {
    case 'Deployment': {
      const image = drift === 'image' ? facts.previousImage : facts.image;
      return {
        spec: {
          replicas: drift === 'replicas' ? replicas + 2 : replicas,
          selector: { matchLabels: selector },
          template: templateOf(facts, name, image, !(facts.failure === 'crash-config' && name === base(facts)), drift),
        },
      };
    }
    case 'Service':
      return { spec: { type: 'ClusterIP', selector, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };
    case 'ConfigMap':
      return {
        data: {
          LOG_FORMAT: 'json',
          FEATURE_FLAGS: drift === 'data' ? 'new-checkout,fast-refunds,debug-tracing' : 'new-checkout,fast-refunds',
          HTTP_TIMEOUT: '15s',
          UPSTREAM_URL: `http://${facts.team}-gateway.${facts.namespace}.svc.cluster.local`,
        },
      };
    case 'Secret':
      // Argo CD hides secret values (diff.HideSecretData) in every manifest it returns.
      return { type: 'Opaque', data: { 'database-url': '++++++++', 'api-key': '++++++++' } };
    case 'ServiceAccount':
      return {};
    case 'Ingress':
      return {
        spec: {
          ingressClassName: 'nginx',
          rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { name: 'http' } } } }] } }],
          tls: [{ hosts: [host], secretName: `${base(facts)}-tls` }],
        },
      };
    case 'HorizontalPodAutoscaler':
      return {
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
          minReplicas: facts.replicas,
          maxReplicas: facts.replicas * 3,
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
        },
      };
    case 'PodDisruptionBudget':
      return { spec: { minAvailable: 1, selector: { matchLabels: selector } } };
    case 'ServiceMonitor':
      return { spec: { selector: { matchLabels: selector }, endpoints: [{ port: 'http', path: '/metrics', interval: '30s' }] } };
    case 'NetworkPolicy':
      return {
        spec: {
          podSelector: { matchLabels: selector },
          policyTypes: ['Ingress'],
          ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }, { podSelector: {} }] }],
        },
      };
    case 'Role':
      return { rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] }] };
    case 'RoleBinding':
      return { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name: base(facts), namespace: facts.namespace }] };
    case 'CronJob':
      return {
        spec: {
          schedule: '0 * * * *',
          concurrencyPolicy: 'Forbid',
          successfulJobsHistoryLimit: 3,
          jobTemplate: { spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ ...containerOf(facts, facts.image, true, drift), args: ['cron', name] }] } } } },
        },
      };
    case 'PersistentVolumeClaim':
      return { spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'gp3', resources: { requests: { storage: '10Gi' } } } };
    default:
      return {};
  }
}

/** The target of a managed resource: what the sources render plus Argo CD's tracking annotation; null when it is to be pruned. */
export function targetManifest(r: ResourceStatus, facts: AppFacts, replicas: number): Obj | null {
  if (r.requiresPruning === true) return null;
  const group = r.group ?? '';
  const kind = r.kind ?? '';
  const name = r.name ?? '';
  const namespace = r.namespace ?? '';
  return {
    apiVersion: apiVersionOf(group, r.version ?? 'v1'),
    kind,
    metadata: {
      name,
      namespace,
      labels: labelsOf(facts, name, undefined),
      annotations: { 'argocd.argoproj.io/tracking-id': `${facts.app.metadata.name}:${group}/${kind}:${namespace}/${name}` },
    },
    ...specOf(kind, name, facts, undefined, replicas),
  };
}

const time = (ms: number): string => iso(ms);

function managedFieldsOf(node: TreeNode, facts: AppFacts, desired: Obj, status: Obj | undefined): ManagedFieldsEntry[] {
  const { metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = desired;
  const meta = metadata as Obj;
  const owned: Obj = { metadata: { labels: meta.labels ?? {}, annotations: meta.annotations ?? {} }, ...rest };
  const apiVersion = apiVersionOf(node.group, node.version);
  const entries: ManagedFieldsEntry[] = [];
  if (node.managed !== undefined) {
    entries.push(
      facts.serverSideApply
        ? { manager: 'argocd-controller', operation: 'Apply', apiVersion, time: time(Math.max(node.createdAt, facts.deployedAt)), fieldsType: 'FieldsV1', fieldsV1: fieldsV1(owned) }
        : { manager: 'argocd-application-controller', operation: 'Update', apiVersion, time: time(Math.max(node.createdAt, facts.deployedAt)), fieldsType: 'FieldsV1', fieldsV1: fieldsV1(owned) },
    );
  } else {
    entries.push({ manager: 'kube-controller-manager', operation: 'Update', apiVersion, time: time(node.createdAt), fieldsType: 'FieldsV1', fieldsV1: fieldsV1(owned) });
  }
  if (status !== undefined) {
    const manager = node.kind === 'Pod' ? 'kubelet' : 'kube-controller-manager';
    entries.push({ manager, operation: 'Update', apiVersion, time: time(Math.min(facts.now, Math.max(node.createdAt, facts.now - 60_000))), fieldsType: 'FieldsV1', fieldsV1: { 'f:status': fieldsV1(status, true) }, subresource: 'status' });
  }
  return entries;
}

/** Defaults the API server fills into a container. */
function liveContainer(container: Obj): Obj {
  const probe = (p: unknown): unknown =>
    p === undefined ? undefined : { failureThreshold: 3, successThreshold: 1, timeoutSeconds: 1, ...(p as Obj), httpGet: { scheme: 'HTTP', ...((p as Obj).httpGet as Obj) } };
  return {
    ...container,
    ports: ((container.ports as Obj[] | undefined) ?? []).map((p) => ({ protocol: 'TCP', ...p })),
    ...(container.livenessProbe === undefined ? {} : { livenessProbe: probe(container.livenessProbe) }),
    ...(container.readinessProbe === undefined ? {} : { readinessProbe: probe(container.readinessProbe) }),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

function livePodSpec(spec: Obj): Obj {
  return {
    ...spec,
    containers: ((spec.containers as Obj[] | undefined) ?? []).map(liveContainer),
    dnsPolicy: 'ClusterFirst',
    restartPolicy: spec.restartPolicy ?? 'Always',
    schedulerName: 'default-scheduler',
    securityContext: spec.securityContext ?? {},
    terminationGracePeriodSeconds: 30,
  };
}

const liveTemplate = (template: Obj): Obj => ({ metadata: { ...(template.metadata as Obj), creationTimestamp: null }, spec: livePodSpec(template.spec as Obj) });

function stateJson(state: ContainerState, containerId: string): Obj {
  if ('running' in state) return { running: { startedAt: time(state.running.startedAt) } };
  if ('waiting' in state) return { waiting: state.waiting.message === undefined ? { reason: state.waiting.reason } : { reason: state.waiting.reason, message: state.waiting.message } };
  const t = state.terminated;
  return { terminated: { containerID: containerId, exitCode: t.exitCode, reason: t.reason, startedAt: time(t.startedAt), finishedAt: time(t.finishedAt) } };
}

function containerStatus(c: ContainerFacts, seed: string): Obj {
  const containerId = `containerd://${hex(hash32(seed, c.name, String(c.restartCount)), 64)}`;
  const digest = `sha256:${hex(hash32(c.image), 64)}`;
  const repository = c.image.slice(0, c.image.lastIndexOf(':'));
  return {
    name: c.name,
    state: stateJson(c.state, containerId),
    lastState: c.lastTerminated === undefined ? {} : stateJson({ terminated: c.lastTerminated }, `containerd://${hex(hash32(seed, c.name, String(c.restartCount - 1)), 64)}`),
    ready: c.ready,
    restartCount: c.restartCount,
    image: c.image,
    imageID: c.run === undefined && 'waiting' in c.state ? '' : `${repository}@${digest}`,
    ...(c.run === undefined && 'waiting' in c.state ? {} : { containerID: containerId }),
    started: c.started,
  };
}

function podStatus(pod: PodFacts, node: TreeNode, facts: AppFacts): Obj {
  const ready = pod.containers.every((c) => c.ready);
  const condition = (type: string, status: boolean, at: number, extra: Obj = {}): Obj => ({ type, status: status ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: time(at), ...extra });
  const notReady = pod.containers.filter((c) => !c.ready).map((c) => c.name);
  const reasonNotReady = { reason: 'ContainersNotReady', message: `containers with unready status: [${notReady.join(' ')}]` };
  if (pod.unschedulable !== undefined) {
    return { phase: 'Pending', conditions: [condition('PodScheduled', false, pod.startTime, { reason: 'Unschedulable', message: pod.unschedulable })], qosClass: 'Burstable' };
  }
  const hostIp = `10.0.${hash32(pod.node ?? '') % 250}.${(hash32(pod.node ?? '', 'ip') % 250) + 2}`;
  const succeeded = pod.phase === 'Succeeded';
  return {
    phase: pod.phase,
    conditions: [
      condition('PodReadyToStartContainers', pod.containers.some((c) => c.run !== undefined), pod.startTime + 1_000),
      condition('Initialized', true, pod.startTime, succeeded ? { reason: 'PodCompleted' } : {}),
      condition('Ready', ready, ready ? pod.startTime + 15_000 : Math.max(pod.startTime, facts.now - 300_000), ready ? {} : succeeded ? { reason: 'PodCompleted' } : reasonNotReady),
      condition('ContainersReady', ready, ready ? pod.startTime + 15_000 : Math.max(pod.startTime, facts.now - 300_000), ready ? {} : succeeded ? { reason: 'PodCompleted' } : reasonNotReady),
      condition('PodScheduled', true, pod.startTime),
    ],
    hostIP: hostIp,
    hostIPs: [{ ip: hostIp }],
    podIP: pod.ip,
    podIPs: [{ ip: pod.ip }],
    startTime: time(pod.startTime),
    containerStatuses: pod.containers.map((c) => containerStatus(c, node.uid)),
    qosClass: 'Burstable',
  };
}

const ownerRef = (parent: TreeNode): Obj => ({ apiVersion: apiVersionOf(parent.group, parent.version), kind: parent.kind, name: parent.name, uid: parent.uid, controller: true, blockOwnerDeletion: true });

/** Whether a ReplicaSet is the main Deployment's current one in a crash-config failure (DATABASE_URL dropped). */
function lacksDatabase(rs: TreeNode | undefined, facts: AppFacts): boolean {
  const dep = rs?.parent;
  return facts.failure === 'crash-config' && rs?.detail.type === 'ReplicaSet' && dep?.detail.type === 'Deployment' && dep.name === base(facts) && rs.detail.revision === dep.detail.revision;
}

/** The desired part of a child object (what its controller wrote), by kind. */
function childDesired(node: TreeNode, facts: AppFacts): Obj {
  const detail = node.detail;
  const parent = node.parent;
  const deploymentName = parent?.kind === 'Deployment' ? parent.name : parent?.parent?.kind === 'Deployment' ? parent.parent.name : base(facts);
  if (detail.type === 'ReplicaSet') {
    const template = templateOf(facts, deploymentName, detail.image, !lacksDatabase(node, facts), undefined);
    const templateMeta = template.metadata as Obj;
    return {
      metadata: { labels: { ...selectorOf(facts, deploymentName), 'pod-template-hash': detail.hash }, annotations: { 'deployment.kubernetes.io/desired-replicas': String(detail.replicas), 'deployment.kubernetes.io/max-replicas': String(detail.replicas + 1), 'deployment.kubernetes.io/revision': String(detail.revision) } },
      spec: {
        replicas: detail.replicas,
        selector: { matchLabels: { ...selectorOf(facts, deploymentName), 'pod-template-hash': detail.hash } },
        template: { ...template, metadata: { ...templateMeta, labels: { ...(templateMeta.labels as Obj), 'pod-template-hash': detail.hash } } },
      },
    };
  }
  if (detail.type === 'Pod') {
    const rs = parent;
    const image = rs?.detail.type === 'ReplicaSet' ? rs.detail.image : facts.image;
    const template = templateOf(facts, deploymentName, image, !lacksDatabase(rs, facts), undefined);
    const containers = [...((template.spec as Obj).containers as Obj[])];
    if (facts.sidecar !== undefined) containers.push({ name: 'istio-proxy', image: facts.sidecar, args: ['proxy', 'sidecar'], ports: [{ name: 'http-envoy-prom', containerPort: 15090 }], resources: { requests: { cpu: '100m', memory: '128Mi' } } });
    return {
      metadata: { labels: detail.pod.labels, annotations: (template.metadata as Obj).annotations, ...(rs === undefined ? {} : { generateName: `${rs.name}-` }) },
      spec: {
        ...(template.spec as Obj),
        containers,
        ...(detail.pod.node === undefined ? {} : { nodeName: detail.pod.node }),
        ...(detail.pod.phase === 'Succeeded' ? { restartPolicy: 'OnFailure' } : {}),
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
      },
    };
  }
  if (detail.type === 'Job') {
    return {
      metadata: { labels: { 'batch.kubernetes.io/controller-uid': node.uid, 'batch.kubernetes.io/job-name': node.name } },
      spec: { backoffLimit: 2, completions: 1, parallelism: 1, template: { spec: { restartPolicy: 'OnFailure', containers: [{ ...containerOf(facts, facts.image, true, undefined), args: ['cron', parent?.name ?? node.name] }] } } },
    };
  }
  return {};
}

/** Status of a live object, by kind. */
function statusOf(node: TreeNode, facts: AppFacts, tree: readonly TreeNode[], spec: Obj): Obj | undefined {
  const detail = node.detail;
  const children = tree.filter((n) => n.parent === node);
  switch (detail.type) {
    case 'Deployment': {
      const current = children.find((c) => c.detail.type === 'ReplicaSet' && c.detail.revision === detail.revision);
      const stuck = node.health?.status === 'Degraded';
      const at = time(facts.deployedAt);
      const replicas = children.reduce((sum, c) => sum + (c.detail.type === 'ReplicaSet' ? c.detail.replicas : 0), 0);
      return {
        observedGeneration: 1 + (hash32(node.uid) % 40),
        replicas,
        updatedReplicas: detail.updated,
        readyReplicas: detail.ready,
        availableReplicas: detail.ready,
        ...(replicas > detail.ready ? { unavailableReplicas: replicas - detail.ready } : {}),
        conditions: [
          { type: 'Available', status: detail.ready > 0 ? 'True' : 'False', lastUpdateTime: at, lastTransitionTime: at, reason: detail.ready > 0 ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable', message: detail.ready > 0 ? 'Deployment has minimum availability.' : 'Deployment does not have minimum availability.' },
          stuck
            ? { type: 'Progressing', status: 'False', lastUpdateTime: time(facts.now), lastTransitionTime: facts.app.status.health.lastTransitionTime ?? at, reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${current?.name ?? node.name}" has timed out progressing.` }
            : { type: 'Progressing', status: 'True', lastUpdateTime: at, lastTransitionTime: at, reason: node.health?.status === 'Progressing' ? 'ReplicaSetUpdated' : 'NewReplicaSetAvailable', message: node.health?.status === 'Progressing' ? `ReplicaSet "${current?.name ?? node.name}" is progressing.` : `ReplicaSet "${current?.name ?? node.name}" has successfully progressed.` },
        ],
      };
    }
    case 'ReplicaSet':
      return {
        replicas: children.length,
        fullyLabeledReplicas: children.length,
        readyReplicas: detail.ready,
        availableReplicas: detail.ready,
        observedGeneration: 1,
        ...(detail.quota === undefined ? {} : { conditions: [{ type: 'ReplicaFailure', status: 'True', lastTransitionTime: time(node.createdAt), reason: 'FailedCreate', message: detail.quota }] }),
      };
    case 'Pod':
      return podStatus(detail.pod, node, facts);
    case 'CronJob':
      return { lastScheduleTime: time(detail.lastSchedule), lastSuccessfulTime: time(detail.lastSchedule + 60_000) };
    case 'Job':
      return {
        startTime: time(detail.start),
        completionTime: time(detail.completion),
        succeeded: 1,
        ready: 0,
        terminating: 0,
        uncountedTerminatedPods: {},
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: time(detail.completion), lastTransitionTime: time(detail.completion), reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
          { type: 'Complete', status: 'True', lastProbeTime: time(detail.completion), lastTransitionTime: time(detail.completion), reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
        ],
      };
    case 'Other':
      break;
  }
  switch (node.kind) {
    case 'Service':
      return { loadBalancer: {} };
    case 'Ingress':
      return { loadBalancer: { ingress: [{ hostname: loadBalancerHostname(facts) }] } };
    case 'HorizontalPodAutoscaler': {
      const min = Number((spec.spec as Obj | undefined)?.minReplicas ?? 1);
      return {
        currentReplicas: min,
        desiredReplicas: min,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 20 + (hash32(node.uid) % 40), averageValue: `${50 + (hash32(node.uid) % 200)}m` } } }],
        conditions: [
          { type: 'AbleToScale', status: 'True', lastTransitionTime: time(node.createdAt), reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
          { type: 'ScalingActive', status: 'True', lastTransitionTime: time(node.createdAt), reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' },
          { type: 'ScalingLimited', status: 'True', lastTransitionTime: time(node.createdAt), reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' },
        ],
      };
    }
    case 'PersistentVolumeClaim':
      return { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } };
    case 'PodDisruptionBudget':
      return { currentHealthy: facts.replicas, desiredHealthy: 1, disruptionsAllowed: Math.max(0, facts.replicas - 1), expectedPods: facts.replicas, observedGeneration: 1 };
    default:
      return undefined;
  }
}

/** Fields the API server adds to a spec, by kind. */
function liveSpec(kind: string, desired: Obj, node: TreeNode): Obj {
  const spec = desired.spec as Obj | undefined;
  if (spec === undefined) return desired;
  switch (kind) {
    case 'Deployment':
      return {
        ...desired,
        spec: {
          ...spec,
          ...(node.detail.type === 'Deployment' && node.detail.paused ? { paused: true } : {}),
          progressDeadlineSeconds: 600,
          revisionHistoryLimit: 10,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
          template: liveTemplate(spec.template as Obj),
        },
      };
    case 'ReplicaSet':
      return { ...desired, spec: { ...spec, template: liveTemplate(spec.template as Obj) } };
    case 'Pod':
      return {
        ...desired,
        spec: {
          ...livePodSpec(spec),
          enableServiceLinks: true,
          preemptionPolicy: 'PreemptLowerPriority',
          priority: 0,
          serviceAccount: spec.serviceAccountName,
          volumes: [{ name: `kube-api-access-${node.uid.slice(0, 5)}`, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
        },
      };
    case 'Service': {
      const ip = `172.20.${hash32(node.uid) % 250}.${(hash32(node.uid, 'ip') % 250) + 2}`;
      return {
        ...desired,
        spec: {
          ...spec,
          clusterIP: ip,
          clusterIPs: [ip],
          internalTrafficPolicy: 'Cluster',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          ports: ((spec.ports as Obj[] | undefined) ?? []).map((p) => ({ ...p, protocol: 'TCP' })),
          sessionAffinity: 'None',
        },
      };
    }
    case 'PersistentVolumeClaim':
      return { ...desired, spec: { ...spec, volumeMode: 'Filesystem', volumeName: `pvc-${node.uid}` } };
    case 'Job':
      return { ...desired, spec: { ...spec, completionMode: 'NonIndexed', manualSelector: false, podReplacementPolicy: 'TerminatingOrFailed', suspend: false, template: { metadata: { creationTimestamp: null }, spec: livePodSpec((spec.template as Obj).spec as Obj) } } };
    case 'CronJob':
      return { ...desired, spec: { ...spec, failedJobsHistoryLimit: 1, suspend: false } };
    default:
      return desired;
  }
}

/**
 * The live object of a tree node as the API server returns it. `drift` false gives the object as it would be
 * after a sync (Argo CD's predicted live state); true (the default) is the object as it is.
 */
export function liveManifest(node: TreeNode, facts: AppFacts, tree: readonly TreeNode[], drift = true): Obj {
  const managed = node.managed;
  const isMain = managed !== undefined && facts.app.status.resources?.[0] === managed;
  const replicas = node.detail.type === 'Deployment' ? node.detail.replicas : facts.replicas;
  let desired: Obj;
  if (managed !== undefined) {
    const d = drift ? driftOf(managed, facts, isMain) : undefined;
    const target = targetManifest({ ...managed, requiresPruning: false }, facts, replicas) ?? {};
    desired = { ...target, metadata: { ...(target.metadata as Obj), labels: labelsOf(facts, node.name, d) }, ...specOf(node.kind, node.name, facts, d, replicas) };
  } else {
    const child = childDesired(node, facts);
    desired = { apiVersion: apiVersionOf(node.group, node.version), kind: node.kind, ...child, metadata: { name: node.name, namespace: node.namespace, ...(child.metadata as Obj) } };
  }
  const withDefaults = liveSpec(node.kind, desired, node);
  const status = statusOf(node, facts, tree, withDefaults);
  const meta = desired.metadata as Obj;
  const annotations: Record<string, unknown> = { ...(meta.annotations as Obj | undefined) };
  if (node.detail.type === 'Deployment') annotations['deployment.kubernetes.io/revision'] = String(node.detail.revision);
  if (managed !== undefined && !facts.serverSideApply) annotations['kubectl.kubernetes.io/last-applied-configuration'] = `${manifestJson(desired)}\n`;
  const generation = node.kind === 'Pod' || node.kind === 'ConfigMap' || node.kind === 'Secret' || node.kind === 'ServiceAccount' ? undefined : 1 + (hash32(node.uid, 'gen') % 12);
  return {
    ...withDefaults,
    metadata: {
      ...meta,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      uid: node.uid,
      resourceVersion: node.resourceVersion,
      ...(generation === undefined ? {} : { generation }),
      creationTimestamp: time(node.createdAt),
      ...(node.parent === undefined ? {} : { ownerReferences: [ownerRef(node.parent)] }),
      managedFields: managedFieldsOf(node, facts, desired, status),
    },
    ...(status === undefined ? {} : { status }),
  };
}
