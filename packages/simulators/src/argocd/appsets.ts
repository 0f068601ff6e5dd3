import type { Rng } from '../prng.js';
import type { ClusterIndex } from './clusters.js';
import { clusterOf } from './clusters.js';
import type { ApplicationSetCondition, ArgoApplication, ArgoApplicationSet, ArgoSource } from './types.js';
import { ARGOCD_NAMESPACE, ENVS, SERVICES, TEAMS, byName, shift, sortedMap, timestamp, uuid } from './words.js';

/** An ApplicationSet decided before applications exist, so that applications can name it as their owner. */
export interface AppSetPlan {
  readonly name: string;
  readonly team: string;
  readonly service: string;
  readonly uid: string;
  /** Whether it generates the `<team>-<service>-*` applications of the estate (a list generator over them). */
  readonly owns: boolean;
  readonly generator: 'clusters' | 'git' | 'matrix';
  readonly failing: boolean;
  readonly templatedProject: boolean;
  readonly createdAt: string;
  readonly resourceVersion: string;
  readonly generation: number;
}

/** `<team>-<service>` sets first (most own their applications), then numbered ones beyond the 320 combinations. */
export function planApplicationSets(rng: Rng, count: number): AppSetPlan[] {
  const combos = rng.shuffle(TEAMS.flatMap((team) => SERVICES.map((service) => [team, service] as const)));
  const plans: AppSetPlan[] = [];
  for (let i = 0; i < count; i += 1) {
    const [team, service] = combos[i % combos.length] ?? ['platform', 'api'];
    const round = Math.floor(i / combos.length);
    plans.push({
      name: round === 0 ? `${team}-${service}` : `${team}-${service}-${round + 1}`,
      team,
      service,
      uid: uuid(rng),
      owns: round === 0 && rng.next() < 0.8,
      generator: rng.weighted([
        ['clusters', 45],
        ['git', 40],
        ['matrix', 15],
      ] as const),
      failing: rng.next() < 0.06,
      templatedProject: rng.next() < 0.1,
      createdAt: timestamp(rng, 700 * 86_400),
      resourceVersion: String(rng.int(10_000, 99_999_999)),
      generation: rng.int(1, 60),
    });
  }
  return plans;
}

function conditions(plan: AppSetPlan, at: string): ApplicationSetCondition[] {
  if (plan.failing) {
    const message = 'failed to execute go template {{.path.basename}}-{{.cluster}}: template: :1:24: executing "" at <.cluster>: map has no entry for key "cluster"';
    return [
      { type: 'ErrorOccurred', message, lastTransitionTime: at, status: 'True', reason: 'ApplicationGenerationFromParamsError' },
      { type: 'ParametersGenerated', message: 'Successfully generated parameters for all Applications', lastTransitionTime: at, status: 'True', reason: 'ParametersGenerated' },
      { type: 'ResourcesUpToDate', message, lastTransitionTime: at, status: 'False', reason: 'ApplicationGenerationFromParamsError' },
    ];
  }
  return [
    { type: 'ErrorOccurred', message: 'Successfully generated parameters for all Applications', lastTransitionTime: at, status: 'False', reason: 'ApplicationSetUpToDate' },
    { type: 'ParametersGenerated', message: 'Successfully generated parameters for all Applications', lastTransitionTime: at, status: 'True', reason: 'ParametersGenerated' },
    { type: 'ResourcesUpToDate', message: 'ApplicationSet up to date', lastTransitionTime: at, status: 'True', reason: 'ApplicationSetUpToDate' },
  ];
}

function otherGenerator(plan: AppSetPlan, repoURL: string): Record<string, unknown> {
  const git = { git: { repoURL, revision: 'HEAD', directories: [{ path: 'deploy/*' }, { path: 'deploy/legacy', exclude: true }] } };
  const clusters = { clusters: { selector: { matchLabels: { 'example.com/tier': plan.failing ? 'critical' : 'standard' } } } };
  if (plan.generator === 'git') return git;
  if (plan.generator === 'clusters') return clusters;
  return { matrix: { generators: [clusters, git] } };
}

/**
 * Wire objects. An owning set lists its applications as list-generator elements and in `status.resources` (with
 * their sync and health); the applications carry it as their controller owner reference.
 */
export function buildApplicationSets(rng: Rng, plans: readonly AppSetPlan[], applications: readonly ArgoApplication[], clusters: ClusterIndex): ArgoApplicationSet[] {
  const owned = new Map<string, ArgoApplication[]>();
  for (const app of applications) {
    const owner = app.metadata.ownerReferences?.[0]?.name;
    if (owner !== undefined) owned.set(owner, [...(owned.get(owner) ?? []), app]);
  }
  return plans
    .map((plan): ArgoApplicationSet => {
      const apps = owned.get(plan.name) ?? [];
      const first = apps[0];
      const repoURL = `https://git.example.com/${plan.team}/${plan.service}.git`;
      const project = plan.templatedProject ? '{{.project}}' : (first?.spec.project ?? 'default');
      const source: ArgoSource = { repoURL, path: 'deploy/helm', targetRevision: 'HEAD', helm: { valueFiles: ['values.yaml', 'values-{{.env}}.yaml'], ignoreMissingValueFiles: true } };
      const generator =
        apps.length > 0
          ? {
              list: {
                elements: apps.map((a) => ({
                  name: a.metadata.name,
                  env: a.metadata.labels?.env ?? ENVS[0],
                  cluster: clusterOf(a.spec.destination, clusters)?.name ?? 'in-cluster',
                  url: clusterOf(a.spec.destination, clusters)?.server ?? '',
                  namespace: a.spec.destination.namespace ?? plan.team,
                  ...(plan.templatedProject ? { project: a.spec.project } : {}),
                })),
              },
            }
          : otherGenerator(plan, repoURL);
      const at = timestamp(rng, 30 * 86_400);
      return {
        metadata: {
          name: plan.name,
          namespace: ARGOCD_NAMESPACE,
          uid: plan.uid,
          resourceVersion: plan.resourceVersion,
          generation: plan.generation,
          creationTimestamp: plan.createdAt,
          labels: sortedMap({ team: plan.team, 'app.kubernetes.io/part-of': plan.team }),
        },
        spec: {
          goTemplate: true,
          generators: [generator],
          template: {
            metadata: {
              name: apps.length > 0 ? '{{.name}}' : `{{.path.basename}}-${plan.service}`,
              labels: sortedMap({ team: plan.team, env: '{{.env}}', 'app.kubernetes.io/part-of': plan.team, 'app.kubernetes.io/name': plan.service }),
              finalizers: ['resources-finalizer.argocd.argoproj.io'],
            },
            spec: {
              source,
              destination: { server: '{{.url}}', namespace: '{{.namespace}}' },
              project,
              syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] },
            },
          },
          ...(rng.next() < 0.3 ? { syncPolicy: { preserveResourcesOnDeletion: true } } : {}),
          goTemplateOptions: ['missingkey=error'],
        },
        status: {
          conditions: conditions(plan, at),
          ...(apps.length > 0
            ? {
                resources: apps.map((a) => ({
                  group: 'argoproj.io',
                  version: 'v1alpha1',
                  kind: 'Application',
                  namespace: ARGOCD_NAMESPACE,
                  name: a.metadata.name,
                  status: a.status.sync.status,
                  health: { status: a.status.health.status, ...(a.status.health.lastTransitionTime === undefined ? {} : { lastTransitionTime: a.status.health.lastTransitionTime }) },
                })),
              }
            : {}),
        },
      };
    })
    .sort(byName);
}

/** When an owned application was created: shortly after its set. */
export function ownedCreation(plan: AppSetPlan, rng: Rng): string {
  return shift(plan.createdAt, rng.int(5, 3_600));
}
