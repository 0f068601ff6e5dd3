import type { Rng } from '../prng.js';
import { sha, type ResolvedSources } from './sources.js';
import type {
  ArgoApplicationStatus,
  ArgoDestination,
  ArgoSource,
  Operation,
  OperationInitiator,
  OperationState,
  ResourceResult,
  ResourceStatus,
  RevisionHistory,
} from './types.js';
import { HEALTH_WEIGHTS, RESOURCE_KINDS, SYNC_WEIGHTS, shift, timestamp } from './words.js';

/** What the status of one application is built from. */
export interface StatusInput {
  readonly name: string;
  readonly base: string;
  readonly namespace: string;
  readonly destination: ArgoDestination;
  readonly resolved: ResolvedSources;
  readonly automated: boolean;
  readonly prune: boolean;
  readonly historyLimit: number;
  readonly ingressHost: string | undefined;
  readonly images: string[];
  readonly replicas: number;
}

const PEOPLE = ['alice', 'bob', 'chandra', 'dmitri', 'eva', 'farid', 'grace', 'hiro'];

function healthMessage(health: string, deployment: string, replicas: number): string | undefined {
  switch (health) {
    case 'Degraded':
      return `Deployment "${deployment}" exceeded its progress deadline`;
    case 'Progressing':
      return `Waiting for rollout to finish: ${Math.max(1, replicas - 1)} of ${replicas} updated replicas are available...`;
    case 'Suspended':
      return 'Deployment is paused';
    default:
      return undefined;
  }
}

function resourcesOf(rng: Rng, input: StatusInput, sync: string, health: string): ResourceStatus[] {
  // 5 to 40, most applications at the small end (mean ~15).
  const count = 5 + Math.floor(36 * rng.next() ** 2.4);
  const kinds = RESOURCE_KINDS.filter(([kind]) => kind !== 'Ingress' || input.ingressHost !== undefined);
  const drifted = sync === 'OutOfSync' ? new Set(Array.from({ length: rng.int(1, 3) }, () => rng.int(0, count - 1))) : new Set<number>();
  const out: ResourceStatus[] = [];
  for (let r = 0; r < count; r += 1) {
    const [kind, group, version, healthChecked] = kinds[r % kinds.length] ?? ['ConfigMap', '', 'v1', false];
    const round = Math.floor(r / kinds.length);
    const name = round === 0 ? input.base : `${input.base}-${kind.toLowerCase()}-${round}`;
    const isMain = r === 0;
    const missing = isMain && health === 'Missing';
    const resource: ResourceStatus = {};
    if (group !== '') resource.group = group;
    resource.version = version;
    resource.kind = kind;
    resource.namespace = input.namespace;
    resource.name = name;
    resource.status = missing || drifted.has(r) ? 'OutOfSync' : 'Synced';
    if (healthChecked) {
      const status = isMain ? health : 'Healthy';
      const message = isMain ? healthMessage(health, name, input.replicas) : undefined;
      resource.health = message === undefined ? { status } : { status, message };
    }
    if (drifted.has(r) && round > 0 && rng.next() < 0.3) resource.requiresPruning = true;
    out.push(resource);
  }
  return out;
}

function resultOf(resource: ResourceStatus, failed: boolean): ResourceResult {
  const kind = resource.kind ?? '';
  const group = resource.group ?? '';
  const ref = `${kind.toLowerCase()}${group === '' ? '' : `.${group}`}/${resource.name ?? ''}`;
  return {
    group,
    version: resource.version ?? 'v1',
    kind,
    namespace: resource.namespace ?? '',
    name: resource.name ?? '',
    status: failed ? 'SyncFailed' : 'Synced',
    message: failed ? `admission webhook "validate.kyverno.svc-fail" denied the request: resource ${ref} was blocked: require-requests-limits` : `${ref} ${resource.status === 'OutOfSync' ? 'configured' : 'unchanged'}`,
    hookPhase: failed ? 'Failed' : 'Running',
    syncPhase: 'Sync',
  };
}

/** The `status` of one application: sync and health in a realistic mix, resources, history and the last sync. */
export function applicationStatus(rng: Rng, input: StatusInput): { status: ArgoApplicationStatus; operation: Operation | undefined } {
  const health = rng.weighted(HEALTH_WEIGHTS);
  const sync = health === 'Missing' ? 'OutOfSync' : rng.weighted(SYNC_WEIGHTS);
  const resources = resourcesOf(rng, input, sync, health);
  const { resolved } = input;
  const multi = resolved.sources !== undefined;
  const source: ArgoSource = resolved.source ?? { repoURL: '' };
  const initiatedBy: OperationInitiator = input.automated ? { automated: true } : { username: `${rng.pick(PEOPLE)}@example.com` };
  const phase = health === 'Degraded' && rng.next() < 0.5 ? 'Failed' : rng.weighted([['Succeeded', 90], ['Running', 4], ['Failed', 4], ['Error', 2]] as const);

  const finishedAt = timestamp(rng, 20 * 86_400);
  const startedAt = shift(finishedAt, -rng.int(4, 400));
  const entries = Math.min(input.historyLimit, rng.weighted([[1, 45], [2, 25], [3, 10], [4, 7], [5, 4], [6, 3], [7, 2], [8, 2], [9, 1], [10, 1]] as const));
  const firstId = rng.int(0, 300);
  const history: RevisionHistory[] = [];
  let deployedAt = finishedAt;
  for (let h = entries - 1; h >= 0; h -= 1) {
    const current = h === entries - 1;
    const entry: RevisionHistory = multi
      ? { deployedAt, id: firstId + h, source: { repoURL: '' }, deployStartedAt: shift(deployedAt, -rng.int(4, 300)), sources: resolved.sources, revisions: current ? resolved.revisions : [resolved.revisions?.[0] ?? '', sha(rng)], initiatedBy }
      : { revision: current ? resolved.revision : sha(rng), deployedAt, id: firstId + h, source, deployStartedAt: shift(deployedAt, -rng.int(4, 300)), initiatedBy };
    history.unshift(entry);
    deployedAt = shift(deployedAt, -rng.int(3_600, 21 * 86_400));
  }

  const syncOp = multi
    ? { ...(input.prune ? { prune: true } : {}), syncOptions: ['CreateNamespace=true'], revisions: resolved.revisions }
    : { revision: resolved.revision, ...(input.prune ? { prune: true } : {}), ...(input.automated ? {} : { syncStrategy: { hook: {} } }), syncOptions: ['CreateNamespace=true'] };
  const operation: Operation = { sync: syncOp, initiatedBy, ...(input.automated ? { retry: { limit: 5 } } : {}) };
  // The resources the last sync applied: the main workload and what had drifted (not every resource, which
  // keeps an application near 6 KiB on average).
  const applied = resources.slice(0, Math.min(resources.length, phase === 'Running' ? rng.int(1, 3) : rng.int(1, 6)));
  const failedAt = phase === 'Failed' ? rng.int(0, applied.length - 1) : -1;
  const operationState: OperationState = {
    operation,
    phase,
    message:
      phase === 'Succeeded'
        ? 'successfully synced (all tasks run)'
        : phase === 'Running'
          ? `waiting for healthy state of apps/Deployment/${input.base}`
          : phase === 'Failed'
            ? 'one or more objects failed to apply, reason: admission webhook "validate.kyverno.svc-fail" denied the request'
            : `ComparisonError: Failed to load target state: failed to generate manifest for source 1 of ${multi ? 2 : 1}: rpc error: code = Unknown desc = Manifest generation error (cached): context deadline exceeded`,
    syncResult: multi
      ? { resources: applied.map((r, i) => resultOf(r, i === failedAt)), revision: '', source: { repoURL: '' }, sources: resolved.sources, revisions: resolved.revisions }
      : { resources: applied.map((r, i) => resultOf(r, i === failedAt)), revision: resolved.revision ?? '', source },
    startedAt,
    ...(phase === 'Running' ? {} : { finishedAt }),
    ...(phase === 'Failed' ? { retryCount: rng.int(1, 5) } : {}),
  };

  const conditions: ArgoApplicationStatus['conditions'] = [];
  if (sync === 'Unknown') {
    conditions.push({ type: 'ComparisonError', message: `Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = failed to list refs: authentication required: Repository not found.`, lastTransitionTime: shift(finishedAt, 600) });
  }
  if (phase === 'Failed') {
    conditions.push({ type: 'SyncError', message: `Failed sync attempt to ${resolved.revision ?? resolved.revisions?.join(', ') ?? ''}: one or more objects failed to apply (dry run)`, lastTransitionTime: finishedAt });
  }
  if (rng.next() < 0.03) conditions.push({ type: 'OrphanedResourceWarning', message: `Application has ${rng.int(1, 4)} orphaned resources`, lastTransitionTime: timestamp(rng, 40 * 86_400) });
  if (rng.next() < 0.02) conditions.push({ type: 'SharedResourceWarning', message: `ConfigMap/${input.namespace}-shared-config is part of applications argocd/${input.name} and argocd/${input.base}-legacy`, lastTransitionTime: timestamp(rng, 40 * 86_400) });

  const status: ArgoApplicationStatus = {
    resources,
    sync: {
      status: sync,
      comparedTo: multi ? { source: { repoURL: '' }, destination: input.destination, sources: resolved.sources } : { source, destination: input.destination },
      ...(multi ? { revisions: resolved.revisions } : { revision: resolved.revision }),
    },
    health: { status: health, lastTransitionTime: shift(finishedAt, rng.int(5, 900)) },
    history,
    ...(conditions.length > 0 ? { conditions } : {}),
    reconciledAt: timestamp(rng, 180),
    operationState,
    ...(multi ? {} : { sourceType: resolved.sourceType }),
    summary: { ...(input.ingressHost === undefined ? {} : { externalURLs: [`https://${input.ingressHost}/`] }), images: input.images },
    ...(multi ? { sourceTypes: resolved.sourceTypes } : {}),
    controllerNamespace: 'argocd',
    sourceHydrator: {},
  };
  return { status, operation: phase === 'Running' ? operation : undefined };
}
