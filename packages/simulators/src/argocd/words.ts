import type { Rng } from '../prng.js';

/** Word lists and small helpers the estate generator draws from. */
export const TEAMS = [
  'payments',
  'checkout',
  'search',
  'identity',
  'billing',
  'catalog',
  'shipping',
  'inventory',
  'notifications',
  'analytics',
  'platform',
  'observability',
  'security',
  'data',
  'ml',
  'mobile',
  'ledger',
  'fraud',
  'pricing',
  'support',
] as const;

export const SERVICES = [
  'api',
  'web',
  'worker',
  'gateway',
  'scheduler',
  'migrator',
  'cache',
  'consumer',
  'frontend',
  'backend',
  'auth',
  'reporting',
  'ingest',
  'exporter',
  'indexer',
  'cron',
] as const;

export const ENVS = ['prod', 'staging', 'dev', 'qa', 'perf'] as const;
export type Env = (typeof ENVS)[number];
/** How often each environment appears among applications. */
export const ENV_WEIGHTS: readonly (readonly [Env, number])[] = [
  ['prod', 38],
  ['staging', 26],
  ['dev', 20],
  ['qa', 10],
  ['perf', 6],
];

export const REGIONS = ['eu', 'us', 'ap'] as const;

/** Order in which external clusters come into existence: production first, then the rest. */
export const CLUSTER_PLAN: readonly (readonly [Env, (typeof REGIONS)[number]])[] = [
  ['prod', 'eu'],
  ['prod', 'us'],
  ['prod', 'ap'],
  ['staging', 'eu'],
  ['staging', 'us'],
  ['dev', 'eu'],
  ['qa', 'eu'],
  ['perf', 'eu'],
  ['dev', 'us'],
  ['staging', 'ap'],
  ['qa', 'us'],
  ['dev', 'ap'],
  ['perf', 'us'],
  ['qa', 'ap'],
  ['perf', 'ap'],
];

/** Kubernetes kinds an application deploys: [kind, group, version, has a health check]. */
export const RESOURCE_KINDS: readonly (readonly [string, string, string, boolean])[] = [
  ['Deployment', 'apps', 'v1', true],
  ['Service', '', 'v1', true],
  ['ConfigMap', '', 'v1', false],
  ['Secret', '', 'v1', false],
  ['ServiceAccount', '', 'v1', false],
  ['Ingress', 'networking.k8s.io', 'v1', true],
  ['HorizontalPodAutoscaler', 'autoscaling', 'v2', true],
  ['PodDisruptionBudget', 'policy', 'v1', false],
  ['ServiceMonitor', 'monitoring.coreos.com', 'v1', false],
  ['NetworkPolicy', 'networking.k8s.io', 'v1', false],
  ['Role', 'rbac.authorization.k8s.io', 'v1', false],
  ['RoleBinding', 'rbac.authorization.k8s.io', 'v1', false],
  ['CronJob', 'batch', 'v1', false],
  ['PersistentVolumeClaim', '', 'v1', true],
];

export const SYNC_WEIGHTS: readonly (readonly [string, number])[] = [
  ['Synced', 78],
  ['OutOfSync', 17],
  ['Unknown', 5],
];

export const HEALTH_WEIGHTS: readonly (readonly [string, number])[] = [
  ['Healthy', 76],
  ['Progressing', 8],
  ['Degraded', 8],
  ['Suspended', 3],
  ['Missing', 4],
  ['Unknown', 1],
];

export const ARGOCD_NAMESPACE = 'argocd';
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';

/**
 * The default "now" of a generated estate (2025-11-20T09:30:00Z, in milliseconds): every timestamp lies before it,
 * so output never depends on the clock. `ArgoEstateOptions.epoch` moves a whole estate to another instant.
 */
export const ARGO_ESTATE_EPOCH = Date.UTC(2025, 10, 20, 9, 30, 0);
const EPOCH = ARGO_ESTATE_EPOCH;

/** An RFC 3339 timestamp (seconds precision, as metav1.Time marshals) up to `secondsBack` before the epoch. */
export function timestamp(rng: Rng, secondsBack: number): string {
  return iso(EPOCH - rng.int(0, secondsBack) * 1000);
}

/** `base` (a timestamp) moved by `seconds`. */
export function shift(base: string, seconds: number): string {
  return iso(Date.parse(base) + seconds * 1000);
}

/** RFC 3339 at seconds precision, as metav1.Time marshals. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A version-4 UUID from the seeded sequence. */
export function uuid(rng: Rng): string {
  return `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-${rng.pick(['8', '9', 'a', 'b'])}${rng.hex(3)}-${rng.hex(12)}`;
}

/** A map with its keys in the order Go's encoding/json writes them (sorted). */
export function sortedMap(entries: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(entries).sort()) out[key] = entries[key] ?? '';
  return out;
}

export function byName<T extends { metadata: { name: string } }>(a: T, b: T): number {
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}
