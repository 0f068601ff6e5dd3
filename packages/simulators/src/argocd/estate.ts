import { createRng, type Rng } from '../prng.js';

/** Argo CD objects in their wire shape (JSON), typed as far as the simulator reads them. */
export interface ArgoApplication {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string>; [key: string]: unknown };
  spec: {
    project: string;
    source?: ArgoSource;
    sources?: ArgoSource[];
    destination: { server?: string; name?: string; namespace: string };
    [key: string]: unknown;
  };
  status: { sync?: { status: string; [key: string]: unknown }; health?: { status: string; [key: string]: unknown }; [key: string]: unknown };
  [key: string]: unknown;
}
export interface ArgoSource {
  repoURL: string;
  path?: string;
  chart?: string;
  targetRevision: string;
  helm?: { values?: string; valueFiles?: string[]; parameters?: { name: string; value: string }[]; [key: string]: unknown };
  [key: string]: unknown;
}
export interface ArgoProject {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; [key: string]: unknown };
  spec: { description: string; sourceRepos: string[]; destinations: { server: string; namespace: string; name?: string }[]; [key: string]: unknown };
  [key: string]: unknown;
}
export interface ArgoApplicationSet {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; [key: string]: unknown };
  spec: { generators: Record<string, unknown>[]; template: { metadata: Record<string, unknown>; spec: { project: string; [key: string]: unknown } }; [key: string]: unknown };
  [key: string]: unknown;
}
export interface ArgoCluster {
  server: string;
  name: string;
  labels?: Record<string, string>;
  [key: string]: unknown;
}

export interface ArgoEstate {
  applications: ArgoApplication[];
  projects: ArgoProject[];
  applicationSets: ArgoApplicationSet[];
  clusters: ArgoCluster[];
}

export interface ArgoEstateOptions {
  seed?: number;
  applications?: number;
  projects?: number;
  applicationSets?: number;
  clusters?: number;
}

/** The scale of the estate in the OOM design note: 819 applications, 236 projects, 287 sets, 13 clusters. */
export const ARGO_ESTATE_DEFAULTS = { seed: 20251105, applications: 819, projects: 236, applicationSets: 287, clusters: 13 } as const;

const TEAMS = ['payments', 'checkout', 'search', 'identity', 'billing', 'catalog', 'shipping', 'inventory', 'notifications', 'analytics', 'platform', 'observability', 'security', 'data', 'ml', 'mobile', 'ledger', 'fraud', 'pricing', 'support'] as const;
const SERVICES = ['api', 'web', 'worker', 'gateway', 'scheduler', 'migrator', 'cache', 'consumer', 'frontend', 'backend', 'auth', 'reporting', 'ingest', 'exporter', 'indexer', 'cron'] as const;
const ENVS = [['prod', 40], ['staging', 25], ['dev', 20], ['qa', 10], ['perf', 5]] as const;
const REGIONS = ['eu', 'us', 'ap'] as const;
const KINDS = ['Deployment', 'Service', 'ConfigMap', 'Secret', 'Ingress', 'HorizontalPodAutoscaler', 'ServiceAccount', 'PodDisruptionBudget', 'ServiceMonitor', 'NetworkPolicy', 'Role', 'RoleBinding', 'CronJob'] as const;
const GROUP_OF: Record<string, string> = { Deployment: 'apps', Ingress: 'networking.k8s.io', HorizontalPodAutoscaler: 'autoscaling', PodDisruptionBudget: 'policy', ServiceMonitor: 'monitoring.coreos.com', NetworkPolicy: 'networking.k8s.io', Role: 'rbac.authorization.k8s.io', RoleBinding: 'rbac.authorization.k8s.io', CronJob: 'batch' };
const SYNC = [['Synced', 80], ['OutOfSync', 15], ['Unknown', 5]] as const;
const HEALTH = [['Healthy', 78], ['Progressing', 8], ['Degraded', 8], ['Suspended', 2], ['Missing', 3], ['Unknown', 1]] as const;

function timestamp(rng: Rng, daysBack: number): string {
  const base = Date.UTC(2026, 10, 1, 12, 0, 0);
  return new Date(base - rng.int(0, daysBack * 86_400) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function clustersOf(rng: Rng, count: number): ArgoCluster[] {
  const clusters: ArgoCluster[] = [];
  const envs = ['prod', 'staging', 'dev', 'qa', 'perf'];
  for (let i = 0; i < count; i += 1) {
    const inCluster = i === 0;
    const env = envs[(i - 1 + envs.length) % envs.length] ?? 'dev';
    const region = REGIONS[Math.floor((i - 1) / envs.length) % REGIONS.length] ?? 'eu';
    const ordinal = Math.floor((i - 1) / (envs.length * REGIONS.length)) + 1;
    const name = inCluster ? 'in-cluster' : `${env}-${region}-${ordinal}`;
    const server = inCluster ? 'https://kubernetes.default.svc' : `https://${name}.k8s.example.internal`;
    const failed = !inCluster && rng.next() < 0.08;
    const version = `1.${rng.int(28, 31)}`;
    const connectionState = { status: failed ? 'Failed' : 'Successful', message: failed ? 'Unable to connect to cluster: the server has asked for the client to provide credentials' : '', attemptedAt: timestamp(rng, 1) };
    clusters.push({
      server,
      name,
      config: { tlsClientConfig: { insecure: false } },
      connectionState,
      serverVersion: version,
      info: { connectionState, serverVersion: version, cacheInfo: { resourcesCount: 0, apisCount: rng.int(80, 160), lastCacheSyncTime: timestamp(rng, 1) }, applicationsCount: 0 },
      labels: inCluster ? {} : { env, region, 'flotilla.example/tier': env === 'prod' ? 'critical' : 'standard' },
      annotations: inCluster ? {} : { 'example.com/owner': 'platform' },
    });
  }
  return clusters;
}

function projectsOf(rng: Rng, count: number, clusters: readonly ArgoCluster[]): ArgoProject[] {
  const names: string[] = [];
  for (const team of TEAMS) for (const [env] of ENVS) names.push(`${team}-${env}`);
  for (let k = 1; names.length < count; k += 1) for (const team of TEAMS) names.push(`${team}-sandbox-${k}`);
  return names.slice(0, count).sort().map((name) => {
    const team = name.split('-')[0] ?? 'platform';
    const envClusters = clusters.filter((c) => c.labels?.env === name.split('-')[1]);
    const destinations = (envClusters.length > 0 ? envClusters : clusters.slice(0, 1)).map((c) => ({ server: c.server, name: c.name, namespace: `${team}-*` }));
    return {
      metadata: { name, namespace: 'argocd', labels: { team }, creationTimestamp: timestamp(rng, 900), uid: `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`, resourceVersion: String(rng.int(1000, 9_999_999)) },
      spec: {
        description: `${team} services (${name.split('-').slice(1).join(' ')})`,
        sourceRepos: [`https://git.example.com/${team}/*`, 'https://charts.example.com/*'],
        destinations,
        clusterResourceWhitelist: [{ group: '', kind: 'Namespace' }],
        namespaceResourceBlacklist: [{ group: '', kind: 'ResourceQuota' }],
        roles: [{ name: 'deployers', description: `${team} deployers`, policies: [`p, proj:${name}:deployers, applications, sync, ${name}/*, allow`], groups: [`${team}-engineers`] }],
      },
      status: {},
    };
  });
}

function helmValues(rng: Rng, team: string, service: string, env: string): string {
  const lines = [
    `replicaCount: ${rng.int(1, 12)}`,
    'image:',
    `  repository: registry.example.com/${team}/${service}`,
    `  tag: "${rng.int(1, 9)}.${rng.int(0, 40)}.${rng.int(0, 99)}"`,
    '  pullPolicy: IfNotPresent',
    'resources:',
    '  requests:',
    `    cpu: ${rng.int(1, 20) * 50}m`,
    `    memory: ${rng.int(1, 16) * 128}Mi`,
    '  limits:',
    `    memory: ${rng.int(2, 32) * 128}Mi`,
    'service:',
    '  type: ClusterIP',
    `  port: ${rng.pick([80, 8080, 9090, 3000])}`,
    'ingress:',
    `  enabled: ${service === 'web' || service === 'api' || service === 'gateway'}`,
    '  hosts:',
    `    - host: ${service}.${team}.${env}.example.com`,
    '      paths: ["/"]',
    'podAnnotations:',
    '  prometheus.io/scrape: "true"',
    'env:',
  ];
  const vars = rng.int(12, 40);
  for (let i = 0; i < vars; i += 1) {
    lines.push(`  - name: ${team.toUpperCase()}_${service.toUpperCase()}_SETTING_${i}`, `    value: "${rng.hex(rng.int(8, 40))}"`);
  }
  lines.push('nodeSelector:', `  kubernetes.io/os: linux`, 'tolerations: []', 'affinity: {}');
  return `${lines.join('\n')}\n`;
}

function applicationsOf(rng: Rng, count: number, projects: readonly ArgoProject[], clusters: readonly ArgoCluster[]): ArgoApplication[] {
  const taken = new Set<string>();
  const projectNames = new Set(projects.map((p) => p.metadata.name));
  const apps: ArgoApplication[] = [];
  for (let i = 0; i < count; i += 1) {
    const team = rng.pick(TEAMS);
    const service = rng.pick(SERVICES);
    const env = rng.weighted(ENVS);
    let name = `${team}-${service}-${env}`;
    for (let n = 2; taken.has(name); n += 1) name = `${team}-${service}-${env}-${n}`;
    taken.add(name);
    const project = projectNames.has(`${team}-${env}`) ? `${team}-${env}` : rng.pick(projects).metadata.name;
    const envClusters = clusters.filter((c) => c.labels?.env === env);
    const cluster = envClusters.length > 0 ? rng.pick(envClusters) : rng.pick(clusters);
    const repoURL = `https://git.example.com/${team}/${service}.git`;
    const chart = rng.next() < 0.2;
    const source: ArgoSource = chart
      ? { repoURL: 'https://charts.example.com', chart: `${team}-${service}`, targetRevision: `${rng.int(0, 5)}.${rng.int(0, 30)}.${rng.int(0, 9)}`, helm: { releaseName: name, values: helmValues(rng, team, service, env) } }
      : {
          repoURL,
          path: `deploy/${env}`,
          targetRevision: rng.pick(['main', 'HEAD', `v${rng.int(1, 9)}.${rng.int(0, 40)}.0`]),
          helm: { valueFiles: ['values.yaml', `values-${env}.yaml`], parameters: [{ name: 'image.tag', value: `${rng.int(1, 9)}.${rng.int(0, 40)}.${rng.int(0, 99)}` }], values: helmValues(rng, team, service, env) },
        };
    const multi = rng.next() < 0.1;
    const sync = rng.weighted(SYNC);
    const health = rng.weighted(HEALTH);
    const revision = rng.hex(40);
    const resources = Array.from({ length: rng.int(5, 40) }, (_, r) => {
      const kind = KINDS[r % KINDS.length] ?? 'ConfigMap';
      const unhealthy = health !== 'Healthy' && r === 0;
      return {
        group: GROUP_OF[kind] ?? '',
        version: 'v1',
        kind,
        namespace: `${team}-${env}`,
        name: r < KINDS.length ? `${team}-${service}` : `${team}-${service}-${r}`,
        status: sync === 'OutOfSync' && r % 3 === 0 ? 'OutOfSync' : 'Synced',
        ...(kind === 'Deployment' || kind === 'Service' || kind === 'Ingress' ? { health: unhealthy ? { status: health, message: `Deployment "${team}-${service}" exceeded its progress deadline` } : { status: 'Healthy' } } : {}),
      };
    });
    const history = Array.from({ length: rng.int(1, 10) }, (_, h) => ({
      id: h,
      revision: rng.hex(40),
      deployedAt: timestamp(rng, 60),
      deployStartedAt: timestamp(rng, 60),
      source: { repoURL: source.repoURL, path: source.path, targetRevision: source.targetRevision },
      initiatedBy: { automated: true },
    }));
    const phase = health === 'Degraded' && rng.next() < 0.5 ? 'Failed' : rng.weighted([['Succeeded', 90], ['Running', 5], ['Failed', 5]] as const);
    const app: ArgoApplication = {
      metadata: {
        name,
        namespace: 'argocd',
        uid: `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`,
        resourceVersion: String(rng.int(100_000, 99_999_999)),
        generation: rng.int(1, 400),
        creationTimestamp: timestamp(rng, 700),
        labels: { team, env, service, 'app.kubernetes.io/part-of': team, ...(rng.next() < 0.3 ? { tier: rng.pick(['frontend', 'backend', 'data']) } : {}) },
        annotations: { 'notifications.argoproj.io/subscribe.on-sync-failed.slack': `${team}-alerts`, 'example.com/owner': `${team}@example.com` },
        finalizers: ['resources-finalizer.argocd.argoproj.io'],
      },
      spec: {
        project,
        ...(multi ? { sources: [source, { repoURL: `https://git.example.com/${team}/config.git`, targetRevision: 'main', ref: 'values' }] } : { source }),
        destination: rng.next() < 0.7 ? { server: cluster.server, namespace: `${team}-${env}` } : { name: cluster.name, namespace: `${team}-${env}` },
        syncPolicy: rng.next() < 0.75 ? { automated: { prune: rng.next() < 0.6, selfHeal: rng.next() < 0.7 }, syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'] } : { syncOptions: ['CreateNamespace=true'] },
        revisionHistoryLimit: 10,
      },
      status: {
        resources,
        sync: { status: sync, comparedTo: { source: { repoURL: source.repoURL, path: source.path, targetRevision: source.targetRevision }, destination: { server: cluster.server, namespace: `${team}-${env}` } }, revision },
        health: health === 'Healthy' ? { status: health } : { status: health, message: `${resources.length > 0 ? 'Deployment' : 'Application'} is ${health.toLowerCase()}` },
        history,
        reconciledAt: timestamp(rng, 1),
        operationState: {
          operation: { sync: { revision, syncStrategy: { hook: {} } }, initiatedBy: { automated: true }, retry: { limit: 5 } },
          phase,
          message: phase === 'Failed' ? `one or more objects failed to apply, reason: admission webhook denied the request for ${team}-${service}` : 'successfully synced (all tasks run)',
          syncResult: { revision, source: { repoURL: source.repoURL, path: source.path, targetRevision: source.targetRevision }, resources: resources.slice(0, 8).map((r) => ({ ...r, message: `${r.kind.toLowerCase()}/${r.name} configured`, hookPhase: 'Running', syncPhase: 'Sync' })) },
          startedAt: timestamp(rng, 2),
          finishedAt: phase === 'Running' ? undefined : timestamp(rng, 2),
        },
        sourceType: chart ? 'Helm' : 'Helm',
        summary: { images: [`registry.example.com/${team}/${service}:${rng.int(1, 9)}.${rng.int(0, 40)}.${rng.int(0, 99)}`], externalURLs: service === 'web' ? [`https://${service}.${team}.${env}.example.com`] : undefined },
        controllerNamespace: 'argocd',
        ...(health === 'Degraded' && rng.next() < 0.5 ? { conditions: [{ type: 'SyncError', message: 'Failed sync attempt: one or more objects failed to apply', lastTransitionTime: timestamp(rng, 2) }] } : {}),
      },
    };
    apps.push(JSON.parse(JSON.stringify(app)) as ArgoApplication);
  }
  return apps.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

function applicationSetsOf(rng: Rng, count: number, projects: readonly ArgoProject[], clusters: readonly ArgoCluster[]): ArgoApplicationSet[] {
  const sets: ArgoApplicationSet[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < count; i += 1) {
    const team = rng.pick(TEAMS);
    const service = rng.pick(SERVICES);
    let name = `${team}-${service}-set`;
    for (let n = 2; taken.has(name); n += 1) name = `${team}-${service}-set-${n}`;
    taken.add(name);
    const kind = rng.weighted([['list', 40], ['clusters', 30], ['git', 25], ['matrix', 5]] as const);
    const generator: Record<string, unknown> =
      kind === 'list'
        ? { list: { elements: clusters.slice(0, rng.int(1, Math.min(4, clusters.length))).map((c) => ({ cluster: c.name, url: c.server })) } }
        : kind === 'clusters'
          ? { clusters: { selector: { matchLabels: { env: rng.pick(ENVS)[0] } } } }
          : kind === 'git'
            ? { git: { repoURL: `https://git.example.com/${team}/${service}.git`, revision: 'HEAD', directories: [{ path: 'deploy/*' }] } }
            : { matrix: { generators: [{ clusters: {} }, { git: { repoURL: `https://git.example.com/${team}/${service}.git`, revision: 'HEAD', directories: [{ path: 'apps/*' }] } }] } };
    const project = rng.pick(projects).metadata.name;
    const generated = rng.int(0, 12);
    const failing = rng.next() < 0.06;
    sets.push({
      metadata: { name, namespace: 'argocd', labels: { team, service }, creationTimestamp: timestamp(rng, 500), resourceVersion: String(rng.int(1000, 9_999_999)) },
      spec: {
        goTemplate: true,
        generators: [generator],
        template: {
          metadata: { name: `{{.name}}-${service}` },
          spec: { project, source: { repoURL: `https://git.example.com/${team}/${service}.git`, targetRevision: 'HEAD', path: '{{.path.path}}' }, destination: { server: '{{.url}}', namespace: `${team}-{{.name}}` } },
        },
      },
      status: {
        conditions: failing
          ? [{ type: 'ErrorOccurred', status: 'True', reason: 'ApplicationGenerationFromParamsError', message: 'failed to execute go template: map has no entry for key "url"', lastTransitionTime: timestamp(rng, 3) }]
          : [{ type: 'ResourcesUpToDate', status: 'True', reason: 'ApplicationSetUpToDate', message: 'All applications have been generated successfully', lastTransitionTime: timestamp(rng, 3) }],
        resources: Array.from({ length: generated }, (_, g) => ({ group: 'argoproj.io', version: 'v1alpha1', kind: 'Application', namespace: 'argocd', name: `${team}-${g}-${service}`, status: 'Synced', health: { status: 'Healthy' } })),
      },
    });
  }
  return sets.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

/** A deterministic Argo CD estate: the same options give byte-identical JSON on every machine. */
export function generateArgoEstate(options: ArgoEstateOptions = {}): ArgoEstate {
  const o = { ...ARGO_ESTATE_DEFAULTS, ...options };
  for (const [key, value] of Object.entries(o)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${key} must be a whole number >= 0`);
  }
  if (o.projects < 1 || o.clusters < 1) throw new RangeError('an estate needs at least one project and one cluster');
  const rng = createRng(o.seed);
  const clusters = clustersOf(rng, o.clusters);
  const projects = projectsOf(rng, o.projects, clusters);
  const applications = applicationsOf(rng, o.applications, projects, clusters);
  const applicationSets = applicationSetsOf(rng, o.applicationSets, projects, clusters);
  // Cluster info agrees with the applications that target each cluster.
  for (const cluster of clusters) {
    const apps = applications.filter((a) => a.spec.destination.server === cluster.server || a.spec.destination.name === cluster.name);
    const info = cluster.info as { applicationsCount: number; cacheInfo: { resourcesCount: number } };
    info.applicationsCount = apps.length;
    info.cacheInfo.resourcesCount = apps.reduce((sum, a) => sum + ((a.status.resources as unknown[] | undefined)?.length ?? 0), 0);
  }
  return { applications, projects, applicationSets, clusters };
}
