import type { Rng } from '../prng.js';
import type { ArgoApplication, ArgoCluster, ArgoDestination, ConnectionState } from './types.js';
import { CLUSTER_PLAN, IN_CLUSTER_SERVER, shift, sortedMap, timestamp, type Env } from './words.js';

/** What the generator decides about a cluster before applications exist; `buildClusters` makes the wire objects. */
export interface ClusterPlan {
  readonly name: string;
  readonly server: string;
  readonly env: Env | undefined;
  readonly region: string | undefined;
  readonly version: string;
  readonly failed: boolean;
  readonly config: ArgoCluster['config'];
  readonly labels: Record<string, string> | undefined;
  readonly annotations: Record<string, string> | undefined;
  readonly apisCount: number;
  readonly baseResources: number;
  readonly attemptedAt: string;
}

const GROUP_VERSIONS: readonly (readonly [string, readonly string[]])[] = [
  ['v1', ['ConfigMap', 'Endpoints', 'Event', 'LimitRange', 'Namespace', 'Node', 'PersistentVolume', 'PersistentVolumeClaim', 'Pod', 'ReplicationController', 'ResourceQuota', 'Secret', 'Service', 'ServiceAccount']],
  ['admissionregistration.k8s.io/v1', ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']],
  ['apiextensions.k8s.io/v1', ['CustomResourceDefinition']],
  ['apps/v1', ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet']],
  ['autoscaling/v1', ['HorizontalPodAutoscaler']],
  ['autoscaling/v2', ['HorizontalPodAutoscaler']],
  ['batch/v1', ['CronJob', 'Job']],
  ['certificates.k8s.io/v1', ['CertificateSigningRequest']],
  ['coordination.k8s.io/v1', ['Lease']],
  ['discovery.k8s.io/v1', ['EndpointSlice']],
  ['monitoring.coreos.com/v1', ['Alertmanager', 'PodMonitor', 'Prometheus', 'PrometheusRule', 'ServiceMonitor']],
  ['networking.k8s.io/v1', ['Ingress', 'IngressClass', 'NetworkPolicy']],
  ['policy/v1', ['PodDisruptionBudget']],
  ['rbac.authorization.k8s.io/v1', ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']],
  ['scheduling.k8s.io/v1', ['PriorityClass']],
  ['storage.k8s.io/v1', ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment']],
];

/** `info.apiVersions` as the controller fills it: every group/version, then every group/version/Kind. */
const API_VERSIONS: readonly string[] = [
  ...GROUP_VERSIONS.map(([gv]) => gv),
  ...GROUP_VERSIONS.flatMap(([gv, kinds]) => kinds.map((kind) => `${gv}/${kind}`)),
].sort();

/** A PEM CA bundle, base64-encoded as `caData` is on the wire. */
function caData(rng: Rng): string {
  const lines = Array.from({ length: 17 }, (_, i) => (i === 0 ? 'MIIDBTCCAe2gAwIBAgII' : '') + Buffer.from(rng.hex(96), 'hex').toString('base64'));
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.map((l) => l.slice(0, 64)).join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

/**
 * `in-cluster` (Argo CD's own cluster) plus `count - 1` external clusters named `<env>-<region>-<n>`. Configs are
 * already redacted as the API server answers them: no bearer token, password or key data; an exec provider keeps
 * its command but loses its args and env.
 */
export function planClusters(rng: Rng, count: number): ClusterPlan[] {
  const plans: ClusterPlan[] = [
    {
      name: 'in-cluster',
      server: IN_CLUSTER_SERVER,
      env: undefined,
      region: undefined,
      version: `1.${rng.int(29, 32)}`,
      failed: false,
      config: { tlsClientConfig: { insecure: false } },
      labels: undefined,
      annotations: undefined,
      apisCount: rng.int(90, 140),
      baseResources: rng.int(400, 1500),
      attemptedAt: timestamp(rng, 600),
    },
  ];
  for (let i = 0; i < count - 1; i += 1) {
    const [env, region] = CLUSTER_PLAN[i % CLUSTER_PLAN.length] ?? ['dev', 'eu'];
    const name = `${env}-${region}-${Math.floor(i / CLUSTER_PLAN.length) + 1}`;
    const tls = { insecure: false, caData: caData(rng) };
    const config: ArgoCluster['config'] =
      region === 'us'
        ? { tlsClientConfig: tls, awsAuthConfig: { clusterName: name, roleARN: `arn:aws:iam::${rng.int(100_000_000_000, 999_999_999_999)}:role/argocd-manager` } }
        : region === 'ap'
          ? { tlsClientConfig: tls, execProviderConfig: { command: 'argocd-k8s-auth', env: {}, apiVersion: 'client.authentication.k8s.io/v1beta1' } }
          : { tlsClientConfig: tls };
    plans.push({
      name,
      server: `https://${name}.k8s.example.internal`,
      env,
      region,
      version: `1.${rng.int(29, 32)}`,
      failed: rng.next() < 0.08,
      config,
      labels: sortedMap({ env, region, 'example.com/tier': env === 'prod' ? 'critical' : 'standard' }),
      annotations: sortedMap({ 'example.com/owner': 'platform-team', 'example.com/provisioned-by': region === 'us' ? 'terraform-eks' : 'cluster-api' }),
      apisCount: rng.int(90, 200),
      baseResources: rng.int(800, 6000),
      attemptedAt: timestamp(rng, 600),
    });
  }
  return plans;
}

export interface ClusterIndex {
  readonly byServer: ReadonlyMap<string, ClusterPlan>;
  readonly byName: ReadonlyMap<string, ClusterPlan>;
}

export function indexClusters(plans: readonly ClusterPlan[]): ClusterIndex {
  return { byServer: new Map(plans.map((p) => [p.server, p])), byName: new Map(plans.map((p) => [p.name, p])) };
}

/** The cluster a destination points at: by server URL, or by name. */
export function clusterOf(destination: ArgoDestination, index: ClusterIndex): ClusterPlan | undefined {
  return destination.server !== undefined ? index.byServer.get(destination.server) : index.byName.get(destination.name ?? '');
}

/**
 * Wire objects, with `info` agreeing with the applications (their count and resources). A cluster no application
 * targets is not monitored, exactly as Argo CD reports it. Listed as Argo CD's database lists them: external
 * clusters (secrets), then the implicit in-cluster entry.
 */
export function buildClusters(plans: readonly ClusterPlan[], applications: readonly ArgoApplication[]): ArgoCluster[] {
  const index = indexClusters(plans);
  const apps = new Map<string, number>();
  const resources = new Map<string, number>();
  for (const app of applications) {
    const plan = clusterOf(app.spec.destination, index);
    if (plan === undefined) continue;
    apps.set(plan.server, (apps.get(plan.server) ?? 0) + 1);
    resources.set(plan.server, (resources.get(plan.server) ?? 0) + (app.status.resources?.length ?? 0));
  }
  const clusters = plans.map((plan): ArgoCluster => {
    const count = apps.get(plan.server) ?? 0;
    const monitored = count > 0;
    const state: ConnectionState = !monitored
      ? { status: 'Unknown', message: 'Cluster has no applications and is not being monitored.', attemptedAt: null }
      : plan.failed
        ? { status: 'Failed', message: `Unable to connect to cluster: Get "${plan.server}/version?timeout=32s": dial tcp 10.${plan.name.length}.14.2:443: i/o timeout`, attemptedAt: plan.attemptedAt }
        : { status: 'Successful', message: '', attemptedAt: plan.attemptedAt };
    const cluster: ArgoCluster = {
      server: plan.server,
      name: plan.name,
      config: plan.config,
      connectionState: state,
      ...(monitored ? { serverVersion: plan.version } : {}),
      info: {
        connectionState: state,
        ...(monitored ? { serverVersion: plan.version } : {}),
        cacheInfo: monitored
          ? { resourcesCount: plan.baseResources + (resources.get(plan.server) ?? 0), apisCount: plan.apisCount, lastCacheSyncTime: shift(plan.attemptedAt, -37) }
          : {},
        applicationsCount: count,
        ...(monitored ? { apiVersions: [...API_VERSIONS] } : {}),
      },
    };
    if (plan.labels !== undefined) cluster.labels = plan.labels;
    if (plan.annotations !== undefined) cluster.annotations = plan.annotations;
    return cluster;
  });
  const [inCluster, ...external] = clusters;
  external.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return inCluster === undefined ? external : [...external, inCluster];
}

/**
 * A cluster as Argo CD's API hands it out (server/cluster toAPIResponse: `Cluster.Sanitized()`): server, name,
 * labels, annotations, connection state, version and info kept; of the config only `tlsClientConfig.insecure`
 * and `serverName`, `awsAuthConfig` (cluster name and role ARN), `proxyUrl` and `disableCompression`. Gone: CA,
 * certificate and key data, bearer token, username and password, and the whole `execProviderConfig`.
 * Unconfirmed: read from Argo CD's sources of the v2.8 to v3.2 line and its issue tracker (#25311 reports the
 * exec provider missing from v3.2's answers), not from the v3.1 tag itself. The estate keeps its own objects.
 */
export function sanitizeCluster(cluster: ArgoCluster): ArgoCluster {
  const { tlsClientConfig, awsAuthConfig, proxyUrl, disableCompression } = cluster.config;
  const config: ArgoCluster['config'] = {
    tlsClientConfig: { insecure: tlsClientConfig.insecure, ...(tlsClientConfig.serverName === undefined ? {} : { serverName: tlsClientConfig.serverName }) },
    ...(awsAuthConfig === undefined ? {} : { awsAuthConfig }),
    ...(disableCompression === true ? { disableCompression } : {}),
    ...(proxyUrl === undefined || proxyUrl === '' ? {} : { proxyUrl }),
  };
  return { ...cluster, config };
}
