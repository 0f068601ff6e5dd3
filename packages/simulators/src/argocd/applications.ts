import type { Rng } from '../prng.js';
import { applicationStatus } from './app-status.js';
import { ownedCreation, type AppSetPlan } from './appsets.js';
import type { ClusterPlan } from './clusters.js';
import { SOURCE_KIND_WEIGHTS, resolveSources } from './sources.js';
import type { ArgoApplication, ArgoApplicationSpec, ArgoDestination, ObjectMeta, SyncPolicy } from './types.js';
import { ARGOCD_NAMESPACE, ENV_WEIGHTS, SERVICES, TEAMS, byName, shift, sortedMap, timestamp, uuid, type Env } from './words.js';

export interface ApplicationContext {
  readonly projects: ReadonlySet<string>;
  readonly clusters: readonly ClusterPlan[];
  /** Owning ApplicationSets by `<team>-<service>`. */
  readonly owners: ReadonlyMap<string, AppSetPlan>;
}

const PLATFORM_TEAMS = new Set(['platform', 'observability', 'security']);
const WEB_SERVICES = new Set(['web', 'frontend', 'gateway', 'api']);
const SYNC_OPTIONS = ['CreateNamespace=true', 'ServerSideApply=true', 'PruneLast=true', 'ApplyOutOfSyncOnly=true', 'RespectIgnoreDifferences=true'];

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
  return out;
}

function pickCluster(rng: Rng, team: string, env: Env, byEnv: ReadonlyMap<string, ClusterPlan[]>, clusters: readonly ClusterPlan[]): ClusterPlan {
  const inCluster = clusters[0];
  if (inCluster !== undefined && (clusters.length === 1 || (PLATFORM_TEAMS.has(team) && rng.next() < 0.4))) return inCluster;
  const candidates = byEnv.get(env) ?? clusters.slice(1);
  return candidates.length > 0 ? rng.pick(candidates) : (inCluster ?? rng.pick(clusters));
}

function uniqueName(taken: Set<string>, base: string, region: string | undefined): string {
  let name = base;
  if (taken.has(name)) name = `${base}-${region ?? 'local'}`;
  for (let n = 2; taken.has(name); n += 1) name = `${base}-${region ?? 'local'}-${n}`;
  taken.add(name);
  return name;
}

function projectFor(rng: Rng, projects: ReadonlySet<string>, team: string, env: string, region: string | undefined): string {
  const regional = `${team}-${env}-${region ?? ''}`;
  const plain = `${team}-${env}`;
  if (projects.has(regional) && (!projects.has(plain) || rng.next() < 0.5)) return regional;
  return projects.has(plain) ? plain : 'default';
}

function syncPolicyOf(rng: Rng): { policy: SyncPolicy | undefined; automated: boolean; prune: boolean } {
  const roll = rng.next();
  if (roll < 0.7) {
    const prune = rng.next() < 0.6;
    const automated = { ...(prune ? { prune: true } : {}), ...(rng.next() < 0.7 ? { selfHeal: true } : {}) };
    const options = SYNC_OPTIONS.filter((_, i) => i === 0 || rng.next() < 0.35);
    const retry = rng.next() < 0.5 ? { retry: { limit: 5, backoff: { duration: '5s', factor: 2, maxDuration: '3m0s' } } } : {};
    return { policy: { automated, syncOptions: options, ...retry }, automated: true, prune };
  }
  return { policy: roll < 0.92 ? { syncOptions: ['CreateNamespace=true'] } : undefined, automated: false, prune: false };
}

/** One application, in Argo CD's wire shape. */
function application(rng: Rng, ctx: ApplicationContext, taken: Set<string>, byEnv: ReadonlyMap<string, ClusterPlan[]>): ArgoApplication {
  const team = rng.pick(TEAMS);
  const service = rng.pick(SERVICES);
  const env = rng.weighted(ENV_WEIGHTS);
  const cluster = pickCluster(rng, team, env, byEnv, ctx.clusters);
  const name = uniqueName(taken, `${team}-${service}-${env}`, cluster.region);
  const base = `${team}-${service}`;
  const candidate = ctx.owners.get(base);
  const owner = candidate?.owns === true ? candidate : undefined;
  const namespace = rng.next() < 0.3 ? base : team;
  const imageTag = `${rng.int(1, 9)}.${rng.int(0, 40)}.${rng.int(0, 99)}`;
  const replicas = env === 'prod' ? rng.int(2, 12) : rng.int(1, 3);
  const ingressHost = WEB_SERVICES.has(service) && rng.next() < 0.7 ? `${service}.${team}.${env === 'prod' ? '' : `${env}.`}example.com` : undefined;
  const resolved = resolveSources(rng, rng.weighted(SOURCE_KIND_WEIGHTS), name, team, service, env, { imageTag, replicas, ingressHost });
  const destination: ArgoDestination = rng.next() < 0.75 ? { server: cluster.server, namespace } : { namespace, name: cluster.name };
  const { policy, automated, prune } = syncPolicyOf(rng);
  const historyLimit = rng.next() < 0.25 ? rng.pick([3, 5]) : 10;

  const spec: ArgoApplicationSpec = {
    ...(resolved.source === undefined ? {} : { source: resolved.source }),
    destination,
    project: projectFor(rng, ctx.projects, team, env, cluster.region),
    ...(policy === undefined ? {} : { syncPolicy: policy }),
    ...(rng.next() < 0.2 ? { ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }] } : {}),
    ...(rng.next() < 0.1 ? { info: [{ name: 'Owner', value: `${team}@example.com` }, { name: 'Runbook', value: `https://runbooks.example.com/${team}/${service}` }] } : {}),
    ...(historyLimit === 10 ? {} : { revisionHistoryLimit: historyLimit }),
    ...(resolved.sources === undefined ? {} : { sources: resolved.sources }),
  };
  const images = [`registry.example.com/${team}/${service}:${imageTag}`, ...(rng.next() < 0.25 ? ['docker.io/istio/proxyv2:1.22.3'] : [])].sort();
  const { status, operation } = applicationStatus(rng, { name, base, namespace, destination, resolved, automated, prune, historyLimit, ingressHost, images, replicas });

  const labels: Record<string, string> = { team, env, 'app.kubernetes.io/part-of': team, 'app.kubernetes.io/name': service };
  if (cluster.region !== undefined) labels.region = cluster.region;
  if (rng.next() < 0.3) labels.tier = WEB_SERVICES.has(service) ? 'frontend' : rng.pick(['backend', 'data']);
  const annotations: Record<string, string> = {
    'notifications.argoproj.io/subscribe.on-sync-failed.slack': `${team}-deploys`,
    'example.com/owner': `${team}@example.com`,
  };
  if (rng.next() < 0.4) annotations['argocd.argoproj.io/manifest-generate-paths'] = '.';
  if (rng.next() < 0.3) annotations['link.argocd.argoproj.io/runbook'] = `https://runbooks.example.com/${team}/${service}`;
  if (env === 'prod' && rng.next() < 0.5) annotations['notifications.argoproj.io/subscribe.on-health-degraded.pagerduty'] = `${team}-oncall`;
  if (owner === undefined && rng.next() < 0.15) {
    // Applied with kubectl: the whole manifest as it was applied, Helm values included.
    const applied = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { annotations: { ...annotations }, labels: { ...labels }, name, namespace: ARGOCD_NAMESPACE }, spec };
    annotations['kubectl.kubernetes.io/last-applied-configuration'] = `${JSON.stringify(sortKeysDeep(applied))}\n`;
  }
  const created = owner !== undefined ? ownedCreation(owner, rng) : timestamp(rng, 700 * 86_400);
  const finalizers = owner !== undefined || rng.next() < 0.7 ? ['resources-finalizer.argocd.argoproj.io'] : undefined;
  const metadata: ObjectMeta = {
    name,
    namespace: ARGOCD_NAMESPACE,
    uid: uuid(rng),
    resourceVersion: String(rng.int(100_000, 999_999_999)),
    generation: rng.int(1, 500),
    creationTimestamp: created,
    ...(finalizers !== undefined && rng.next() < 0.004 ? { deletionTimestamp: shift(status.reconciledAt ?? created, -rng.int(60, 3_600)) } : {}),
    labels: sortedMap(labels),
    annotations: sortedMap(annotations),
    ...(owner !== undefined ? { ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] } : {}),
    ...(finalizers === undefined ? {} : { finalizers }),
  };
  return operation === undefined ? { metadata, spec, status } : { metadata, spec, status, operation };
}

/** `count` applications with unique `<team>-<service>-<env>[-<region>[-n]]` names, sorted by name as Argo CD lists them. */
export function generateApplications(rng: Rng, count: number, ctx: ApplicationContext): ArgoApplication[] {
  const byEnv = new Map<string, ClusterPlan[]>();
  for (const cluster of ctx.clusters) {
    if (cluster.env !== undefined) byEnv.set(cluster.env, [...(byEnv.get(cluster.env) ?? []), cluster]);
  }
  const taken = new Set<string>();
  const apps: ArgoApplication[] = [];
  for (let i = 0; i < count; i += 1) apps.push(application(rng, ctx, taken, byEnv));
  return apps.sort(byName);
}
