import { createRng, type Rng } from '../prng.js';
import type { ArgoApplication, ResourceStatus } from './types.js';
import { uuid } from './words.js';

/**
 * The live side of an application, derived on demand from the application alone (its status.resources, health,
 * operation state, images) and a seed taken from its uid: the objects Kubernetes holds for it (the managed
 * resources and their children: ReplicaSets and Pods of a Deployment, Jobs and Pods of a CronJob), each pod's
 * containers and the runs whose logs `logs.ts` generates. Nothing is precomputed at start and nothing is cached,
 * so an estate of 10,000 applications costs nothing until one is asked about.
 */

/** Bounds of a derived tree, enforced here. */
export const TREE_LIMITS = {
  /** Pods one ReplicaSet, Job, StatefulSet or DaemonSet shows at most. */
  podsPerWorkload: 12,
  /** ReplicaSets one Deployment keeps: the current one and up to two older ones. */
  replicaSetsPerDeployment: 3,
  /** Jobs one CronJob keeps (its successfulJobsHistoryLimit). */
  jobsPerCronJob: 3,
  /** Nodes of one tree at most (the generator's 40 resources stay far below; a larger tree is cut). */
  nodes: 500,
} as const;

/** Why the main workload of an unhealthy application is unhealthy (each explained by its pods, events and log). */
export type FailureMode = 'crash-db' | 'crash-config' | 'panic' | 'oom' | 'image-pull' | 'readiness' | 'unschedulable' | 'quota';

const FAILURE_WEIGHTS: readonly (readonly [FailureMode, number])[] = [
  ['crash-db', 25],
  ['crash-config', 15],
  ['panic', 15],
  ['oom', 15],
  ['image-pull', 12],
  ['readiness', 8],
  ['unschedulable', 5],
  ['quota', 5],
];

/** FNV-1a over the parts: the seed of everything derived for one object. */
export function hash32(...parts: readonly string[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    for (let i = 0; i < part.length; i += 1) {
      h ^= part.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const rngFor = (...parts: readonly string[]): Rng => createRng(hash32(...parts));

/** The alphabet Kubernetes generates name suffixes and pod-template hashes from (no vowels, no 0/1/3). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
export const safeString = (rng: Rng, length: number): string => Array.from({ length }, () => SAFE[rng.int(0, SAFE.length - 1)] ?? 'x').join('');

/** What every derived object of one application agrees on. */
export interface AppFacts {
  readonly app: ArgoApplication;
  /** The estate's "now" (ms). */
  readonly now: number;
  readonly team: string;
  readonly service: string;
  readonly env: string;
  readonly namespace: string;
  readonly clusterName: string;
  /** The image the sources render (summary.images), its tag, and the tag before it. */
  readonly image: string;
  readonly tag: string;
  readonly previousImage: string;
  readonly sidecar: string | undefined;
  readonly replicas: number;
  readonly serverSideApply: boolean;
  /** When the last sync (rollout) happened, ms. */
  readonly deployedAt: number;
  readonly revision: string;
  /** Set when the main workload is Degraded. */
  readonly failure: FailureMode | undefined;
}

const ms = (time: string | undefined, fallback: number): number => {
  const parsed = time === undefined ? NaN : Date.parse(time);
  return Number.isFinite(parsed) ? parsed : fallback;
};

function previousTag(tag: string): string {
  const parts = tag.split('.').map((p) => Number(p));
  const [major = 1, minor = 0, patch = 0] = parts.every(Number.isFinite) ? parts : [1, 0, 0];
  return patch > 0 ? `${major}.${minor}.${patch - 1}` : minor > 0 ? `${major}.${minor - 1}.9` : `${Math.max(0, major - 1)}.9.9`;
}

function replicasOf(app: ArgoApplication, env: string, rng: Rng): number {
  const source = app.spec.source ?? app.spec.sources?.[0];
  const fromValues = /^replicaCount: (\d+)$/m.exec(source?.helm?.values ?? '')?.[1];
  const fromParameter = source?.helm?.parameters?.find((p) => p.name === 'replicaCount')?.value;
  const main = app.status.resources?.[0];
  const fromMessage = / of (\d+) updated replicas/.exec(main?.health?.message ?? '')?.[1];
  const found = Number(fromValues ?? fromParameter ?? fromMessage);
  return Number.isInteger(found) && found > 0 ? Math.min(found, TREE_LIMITS.podsPerWorkload) : env === 'prod' ? rng.int(2, 12) : rng.int(1, 3);
}

/** The facts of one application at the estate's `now`. */
export function appFacts(app: ArgoApplication, now: number): AppFacts {
  const rng = rngFor(app.metadata.uid, 'facts');
  const labels = app.metadata.labels ?? {};
  const [nameTeam = 'team', nameService = 'service'] = app.metadata.name.split('-');
  const team = labels.team ?? nameTeam;
  const service = labels['app.kubernetes.io/name'] ?? nameService;
  const env = labels.env ?? 'dev';
  const images = app.status.summary.images ?? [];
  const image = images.find((i) => !i.includes('istio/proxy')) ?? `registry.example.com/${team}/${service}:1.0.0`;
  const colon = image.lastIndexOf(':');
  const tag = colon > 0 ? image.slice(colon + 1) : 'latest';
  const repository = colon > 0 ? image.slice(0, colon) : image;
  const server = app.spec.destination.server;
  const clusterName = app.spec.destination.name ?? (server === undefined ? 'in-cluster' : server === 'https://kubernetes.default.svc' ? 'in-cluster' : (new URL(server).hostname.split('.')[0] ?? 'cluster'));
  const op = app.status.operationState;
  const main = app.status.resources?.[0];
  return {
    app,
    now,
    team,
    service,
    env,
    namespace: app.spec.destination.namespace ?? team,
    clusterName,
    image,
    tag,
    previousImage: `${repository}:${previousTag(tag)}`,
    sidecar: images.find((i) => i.includes('istio/proxy')),
    replicas: replicasOf(app, env, rng),
    serverSideApply: app.spec.syncPolicy?.syncOptions?.includes('ServerSideApply=true') === true,
    deployedAt: Math.min(now, ms(op?.finishedAt ?? op?.startedAt ?? app.status.history?.at(-1)?.deployedAt, now - 86_400_000)),
    revision: app.status.sync.revision ?? app.status.sync.revisions?.[0] ?? '',
    // Drawn from its own sequence so that the other facts do not move it.
    failure: main?.health?.status === 'Degraded' ? rngFor(app.metadata.uid, 'degraded').weighted(FAILURE_WEIGHTS) : undefined,
  };
}

export type ContainerState =
  | { readonly running: { readonly startedAt: number } }
  | { readonly waiting: { readonly reason: string; readonly message?: string } }
  | { readonly terminated: Terminated };

export interface Terminated {
  readonly exitCode: number;
  readonly reason: string;
  readonly startedAt: number;
  readonly finishedAt: number;
}

/** One run of a container (what one log file holds): its window and how it ends. */
export interface LogRun {
  readonly seed: number;
  readonly start: number;
  readonly end: number;
  /** steady: serving until now; crash/oom/job: a short run that ends as its mode says. */
  readonly kind: 'steady' | 'crash' | 'oom' | 'job';
  readonly failure: FailureMode | undefined;
}

export interface ContainerFacts {
  readonly name: string;
  readonly image: string;
  readonly ready: boolean;
  readonly started: boolean;
  readonly restartCount: number;
  readonly state: ContainerState;
  readonly lastTerminated: Terminated | undefined;
  /** The current (or, while waiting, the last) run; undefined when the container never started. */
  readonly run: LogRun | undefined;
  /** The run before it (`previous=true`). */
  readonly previousRun: LogRun | undefined;
  /** What the log endpoint answers instead of a log (a container that never started). */
  readonly logError: string | undefined;
}

export interface PodFacts {
  readonly phase: 'Pending' | 'Running' | 'Succeeded';
  readonly node: string | undefined;
  readonly ip: string | undefined;
  readonly startTime: number;
  readonly containers: readonly ContainerFacts[];
  readonly failure: FailureMode | 'starting' | undefined;
  readonly templateHash: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** PodScheduled=False message of an unschedulable pod. */
  readonly unschedulable: string | undefined;
}

export type Detail =
  | { readonly type: 'Deployment'; readonly replicas: number; readonly ready: number; readonly updated: number; readonly revision: number; readonly paused: boolean; readonly image: string }
  | { readonly type: 'ReplicaSet'; readonly hash: string; readonly replicas: number; readonly ready: number; readonly revision: number; readonly image: string; readonly quota: string | undefined }
  | { readonly type: 'Pod'; readonly pod: PodFacts }
  | { readonly type: 'CronJob'; readonly schedule: string; readonly lastSchedule: number }
  | { readonly type: 'Job'; readonly start: number; readonly completion: number }
  | { readonly type: 'Other' };

/** One object of the tree, with what its manifest, events and logs are built from. */
export interface TreeNode {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly parent: TreeNode | undefined;
  readonly resourceVersion: string;
  readonly createdAt: number;
  readonly health: { readonly status: string; readonly message?: string } | undefined;
  /** The status.resources entry of a managed resource. */
  readonly managed: ResourceStatus | undefined;
  readonly detail: Detail;
}

const resourceVersion = (rng: Rng): string => String(rng.int(1_000_000, 999_999_999));

/** The six nodes of the application's cluster: four general-purpose, two memory-optimised. */
export function clusterNodes(facts: AppFacts): string[] {
  const rng = rngFor(facts.clusterName, 'nodes');
  return Array.from({ length: 6 }, (_, i) => `${facts.clusterName}-${i < 4 ? 'general' : 'memory'}-${safeString(rng, 5)}`);
}

function podIp(rng: Rng, clusterName: string): string {
  return `10.${(hash32(clusterName) % 200) + 20}.${rng.int(0, 255)}.${rng.int(2, 254)}`;
}

const BACKOFF_MS = 300_000;

/** Container and pod facts for one pod of a workload, in the mode its rollout is in. */
function podOf(facts: AppFacts, name: string, uid: string, created: number, image: string, mode: PodFacts['failure'], labels: Record<string, string>, templateHash: string | undefined, index: number): PodFacts {
  const rng = rngFor(uid, 'pod');
  const nodes = clusterNodes(facts);
  const node = mode === 'unschedulable' ? undefined : nodes[(hash32(facts.app.metadata.uid) + index) % nodes.length];
  const elapsed = Math.max(60_000, facts.now - created);
  const main = (): ContainerFacts => {
    const steadySince = created + rng.int(3_000, 20_000);
    switch (mode) {
      case undefined:
      case 'readiness':
      case 'starting': {
        const restarts = mode === undefined && rng.next() < 0.05 ? rng.int(1, 2) : 0;
        const startedAt = restarts > 0 ? created + Math.floor(elapsed * rng.next()) : steadySince;
        const lastTerminated: Terminated | undefined =
          restarts > 0 ? { exitCode: 137, reason: 'Error', startedAt: steadySince, finishedAt: startedAt - rng.int(1_000, 5_000) } : undefined;
        const ready = mode === undefined;
        return {
          name: facts.service,
          image,
          ready,
          started: true,
          restartCount: restarts,
          state: { running: { startedAt } },
          lastTerminated,
          run: { seed: hash32(uid, 'run', String(restarts)), start: startedAt, end: facts.now, kind: 'steady', failure: mode === 'readiness' ? 'readiness' : undefined },
          previousRun: lastTerminated === undefined ? undefined : { seed: hash32(uid, 'run', String(restarts - 1)), start: lastTerminated.startedAt, end: lastTerminated.finishedAt, kind: 'steady', failure: undefined },
          logError: undefined,
        };
      }
      case 'crash-db':
      case 'crash-config':
      case 'panic':
      case 'oom': {
        const runMs = mode === 'oom' ? rng.int(15, 50) * 60_000 : rng.int(4, 40) * 1_000;
        const restarts = Math.max(3, Math.min(9_999, Math.floor(elapsed / (runMs + BACKOFF_MS))));
        const finishedAt = facts.now - rng.int(5_000, Math.min(BACKOFF_MS, mode === 'oom' ? 30_000 : BACKOFF_MS - 10_000));
        const exitCode = mode === 'oom' ? 137 : mode === 'panic' ? 2 : 1;
        const reason = mode === 'oom' ? 'OOMKilled' : 'Error';
        const last: Terminated = { exitCode, reason, startedAt: finishedAt - runMs, finishedAt };
        const before: Terminated = { exitCode, reason, startedAt: last.startedAt - BACKOFF_MS - runMs, finishedAt: last.startedAt - BACKOFF_MS };
        const justKilled = mode === 'oom' && index === 0;
        return {
          name: facts.service,
          image,
          ready: false,
          started: false,
          restartCount: restarts,
          state: justKilled
            ? { terminated: last }
            : { waiting: { reason: 'CrashLoopBackOff', message: `back-off 5m0s restarting failed container=${facts.service} pod=${name}_${facts.namespace}(${uid})` } },
          lastTerminated: justKilled ? before : last,
          run: { seed: hash32(uid, 'run', String(restarts)), start: last.startedAt, end: last.finishedAt, kind: mode === 'oom' ? 'oom' : 'crash', failure: mode },
          previousRun: { seed: hash32(uid, 'run', String(restarts - 1)), start: before.startedAt, end: before.finishedAt, kind: mode === 'oom' ? 'oom' : 'crash', failure: mode },
          logError: undefined,
        };
      }
      case 'image-pull':
        return {
          name: facts.service,
          image,
          ready: false,
          started: false,
          restartCount: 0,
          state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } },
          lastTerminated: undefined,
          run: undefined,
          previousRun: undefined,
          logError: `container "${facts.service}" in pod "${name}" is waiting to start: trying and failing to pull image`,
        };
      case 'unschedulable':
      case 'quota':
        return {
          name: facts.service,
          image,
          ready: false,
          started: false,
          restartCount: 0,
          state: { waiting: { reason: 'ContainerCreating' } },
          lastTerminated: undefined,
          run: undefined,
          previousRun: undefined,
          logError: `pod ${name} does not have a host assigned`,
        };
    }
  };
  const containers = [main()];
  if (facts.sidecar !== undefined && mode !== 'unschedulable') {
    const startedAt = created + rng.int(1_000, 3_000);
    containers.push({
      name: 'istio-proxy',
      image: facts.sidecar,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt } },
      lastTerminated: undefined,
      run: { seed: hash32(uid, 'istio-proxy'), start: startedAt, end: facts.now, kind: 'steady', failure: undefined },
      previousRun: undefined,
      logError: undefined,
    });
  }
  return {
    phase: mode === 'unschedulable' || mode === 'image-pull' ? 'Pending' : 'Running',
    node,
    ip: node === undefined ? undefined : podIp(rng, facts.clusterName),
    startTime: created,
    containers,
    failure: mode,
    templateHash,
    labels,
    unschedulable:
      mode === 'unschedulable'
        ? `0/6 nodes are available: 2 node(s) had untolerated taint {dedicated: memory}, 4 Insufficient memory. preemption: 0/6 nodes are available: 2 Preemption is not helpful for scheduling, 4 No preemption victims found for incoming pod.`
        : undefined,
  };
}

/** The pod's health as gitops-engine computes it (pod.go): back-off or error waits are Degraded, and so on. */
export function podHealth(pod: PodFacts): { status: string; message?: string } {
  const messages = pod.containers.flatMap((c) =>
    'waiting' in c.state && (c.state.waiting.reason.startsWith('Err') || c.state.waiting.reason.endsWith('Error') || c.state.waiting.reason.endsWith('BackOff'))
      ? [c.state.waiting.message ?? '']
      : [],
  );
  if (messages.length > 0) return { status: 'Degraded', message: messages.join(', ') };
  if (pod.phase === 'Succeeded') return { status: 'Healthy' };
  if (pod.phase === 'Pending') return { status: 'Progressing' };
  if (pod.containers.every((c) => c.ready)) return { status: 'Healthy' };
  if (pod.containers.some((c) => c.lastTerminated !== undefined)) return { status: 'Degraded' };
  return { status: 'Progressing' };
}

const groupOf = (r: ResourceStatus): string => r.group ?? '';

function makeNode(
  facts: AppFacts,
  key: { group: string; version: string; kind: string; namespace: string; name: string },
  parent: TreeNode | undefined,
  createdAt: number,
  health: TreeNode['health'],
  managed: ResourceStatus | undefined,
  detail: Detail,
): TreeNode {
  const rng = rngFor(facts.app.metadata.uid, key.group, key.kind, key.namespace, key.name);
  return { ...key, uid: uuid(rng), parent, resourceVersion: resourceVersion(rng), createdAt: Math.min(createdAt, facts.now), health, managed, detail };
}

/** The ReplicaSets and Pods of a Deployment in the state its health says. */
function deploymentChildren(facts: AppFacts, dep: TreeNode, isMain: boolean): TreeNode[] {
  if (dep.detail.type !== 'Deployment') return [];
  const { replicas, revision, image } = dep.detail;
  const rng = rngFor(dep.uid, 'rollout');
  const health = dep.health?.status ?? 'Healthy';
  const mode: PodFacts['failure'] = isMain && health === 'Degraded' ? facts.failure : isMain && health === 'Progressing' ? 'starting' : undefined;
  const out: TreeNode[] = [];
  const selector = { 'app.kubernetes.io/instance': facts.app.metadata.name, 'app.kubernetes.io/name': dep.name === `${facts.team}-${facts.service}` ? facts.service : dep.name };
  const revisions = Math.min(TREE_LIMITS.replicaSetsPerDeployment, revision);
  const rolloutStart = isMain && mode !== undefined ? Math.min(facts.deployedAt, ms(facts.app.status.health.lastTransitionTime, facts.deployedAt) - 600_000) : facts.deployedAt;
  for (let r = 0; r < revisions; r += 1) {
    const current = r === 0;
    const rsRevision = revision - r;
    const hash = safeString(rngFor(dep.uid, 'rs', String(rsRevision)), 10);
    const rsImage = current ? image : r === 1 ? facts.previousImage : image.replace(/:[^:]+$/, `:${rsRevision}.0.0`);
    // Pods per ReplicaSet: a settled rollout keeps them all in the current one; a stuck one (Degraded) keeps the
    // old ReplicaSet at replicas - maxUnavailable and the new one at maxSurge + maxUnavailable (25% each).
    const unavailable = Math.floor(replicas / 4);
    const surge = Math.max(1, Math.ceil(replicas / 4));
    let pods = 0;
    if (mode === undefined || mode === 'starting') pods = current ? replicas : 0;
    else if (current) pods = mode === 'quota' ? 0 : Math.min(replicas, surge + unavailable);
    else if (r === 1) pods = replicas - unavailable;
    pods = Math.min(pods, TREE_LIMITS.podsPerWorkload);
    const wanted = mode === 'quota' && current ? Math.min(replicas, surge + unavailable) : pods;
    const podMode = current ? mode : undefined;
    const ready = podMode === undefined ? pods : podMode === 'starting' ? pods - 1 : 0;
    const created = current ? rolloutStart - rng.int(2_000, 9_000) : rolloutStart - rng.int(1, 60) * 86_400_000;
    const quota = podMode === 'quota' ? `pods "${dep.name}-${hash}-${safeString(rng, 5)}" is forbidden: exceeded quota: ${facts.namespace}-quota, requested: limits.memory=1Gi, used: limits.memory=${15 * 1024 + 512}Mi, limited: limits.memory=16Gi` : undefined;
    const rsHealth =
      quota !== undefined
        ? { status: 'Degraded', message: quota }
        : ready < wanted
          ? { status: 'Progressing', message: `Waiting for rollout to finish: ${ready} out of ${wanted} new replicas are available...` }
          : { status: 'Healthy' };
    const rs = makeNode(
      facts,
      { group: 'apps', version: 'v1', kind: 'ReplicaSet', namespace: dep.namespace, name: `${dep.name}-${hash}` },
      dep,
      created,
      rsHealth,
      undefined,
      { type: 'ReplicaSet', hash, replicas: wanted, ready, revision: rsRevision, image: rsImage, quota },
    );
    out.push(rs);
    for (let p = 0; p < pods; p += 1) {
      const podRng = rngFor(rs.uid, 'pod', String(p));
      const name = `${rs.name}-${safeString(podRng, 5)}`;
      const podCreated = podMode === undefined ? created + Math.floor((facts.now - created) * 0.9 * podRng.next()) : created + podRng.int(1_000, 20_000);
      const starting = podMode === 'starting' && p !== pods - 1 ? undefined : podMode;
      const uid = uuid(podRng);
      const pod = podOf(facts, name, uid, podMode === 'starting' && starting === 'starting' ? facts.now - podRng.int(20_000, 90_000) : podCreated, rsImage, starting, { ...selector, 'pod-template-hash': hash }, hash, p);
      out.push({
        group: '',
        version: 'v1',
        kind: 'Pod',
        namespace: dep.namespace,
        name,
        uid,
        parent: rs,
        resourceVersion: resourceVersion(podRng),
        createdAt: Math.min(pod.startTime, facts.now),
        health: podHealth(pod),
        managed: undefined,
        detail: { type: 'Pod', pod },
      });
    }
  }
  return out;
}

/** The last successful Jobs of a CronJob, each with its completed Pod. */
function cronJobChildren(facts: AppFacts, cron: TreeNode): TreeNode[] {
  if (cron.detail.type !== 'CronJob') return [];
  const out: TreeNode[] = [];
  const periodMs = cron.detail.schedule === '0 3 * * *' ? 86_400_000 : 3_600_000;
  for (let j = 0; j < TREE_LIMITS.jobsPerCronJob; j += 1) {
    const scheduled = cron.detail.lastSchedule - j * periodMs;
    if (scheduled < cron.createdAt) break;
    const rng = rngFor(cron.uid, 'job', String(scheduled));
    const start = scheduled + rng.int(200, 2_000);
    const completion = start + rng.int(8_000, 240_000);
    const job = makeNode(
      facts,
      { group: 'batch', version: 'v1', kind: 'Job', namespace: cron.namespace, name: `${cron.name}-${Math.floor(scheduled / 60_000)}` },
      cron,
      scheduled,
      { status: 'Healthy', message: 'Job has reached the specified number of completions' },
      undefined,
      { type: 'Job', start, completion },
    );
    const name = `${job.name}-${safeString(rng, 5)}`;
    const uid = uuid(rng);
    const nodes = clusterNodes(facts);
    const pod: PodFacts = {
      phase: 'Succeeded',
      node: nodes[rng.int(0, nodes.length - 1)],
      ip: podIp(rng, facts.clusterName),
      startTime: start,
      containers: [
        {
          name: facts.service,
          image: facts.image,
          ready: false,
          started: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: start + 1_500, finishedAt: completion } },
          lastTerminated: undefined,
          run: { seed: hash32(uid, 'run'), start: start + 1_500, end: completion, kind: 'job', failure: undefined },
          previousRun: undefined,
          logError: undefined,
        },
      ],
      failure: undefined,
      templateHash: undefined,
      labels: { 'batch.kubernetes.io/controller-uid': job.uid, 'batch.kubernetes.io/job-name': job.name, 'controller-uid': job.uid, 'job-name': job.name },
      unschedulable: undefined,
    };
    out.push(job, {
      group: '',
      version: 'v1',
      kind: 'Pod',
      namespace: cron.namespace,
      name,
      uid,
      parent: job,
      resourceVersion: resourceVersion(rng),
      createdAt: start,
      health: podHealth(pod),
      managed: undefined,
      detail: { type: 'Pod', pod },
    });
  }
  return out;
}

/**
 * The Pods a StatefulSet (`<name>-<ordinal>`), DaemonSet (one per node) or Job (one, completed) owns directly;
 * the generator's estates have none of these kinds, an estate built by hand may.
 */
function directPods(facts: AppFacts, owner: TreeNode, isMain: boolean): TreeNode[] {
  const rng = rngFor(owner.uid, 'pods');
  const health = owner.health?.status ?? 'Healthy';
  const mode: PodFacts['failure'] = isMain && health === 'Degraded' ? facts.failure : undefined;
  const count = owner.kind === 'Job' ? 1 : owner.kind === 'DaemonSet' ? clusterNodes(facts).length : isMain ? facts.replicas : rng.int(1, 3);
  const out: TreeNode[] = [];
  for (let p = 0; p < Math.min(count, TREE_LIMITS.podsPerWorkload); p += 1) {
    const podRng = rngFor(owner.uid, 'pod', String(p));
    const name = owner.kind === 'StatefulSet' ? `${owner.name}-${p}` : `${owner.name}-${safeString(podRng, 5)}`;
    const uid = uuid(podRng);
    const created = owner.createdAt + podRng.int(1_000, 60_000);
    const labels: Record<string, string> = { 'app.kubernetes.io/instance': facts.app.metadata.name, 'app.kubernetes.io/name': owner.name };
    if (owner.kind === 'StatefulSet') labels['statefulset.kubernetes.io/pod-name'] = name;
    let pod = podOf(facts, name, uid, created, facts.image, mode, labels, undefined, p);
    if (owner.kind === 'Job') {
      const finished = created + podRng.int(10_000, 300_000);
      const [main] = pod.containers;
      pod = {
        ...pod,
        phase: 'Succeeded',
        containers: main === undefined ? [] : [{ ...main, ready: false, started: false, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: created + 1_500, finishedAt: finished } }, run: { seed: hash32(uid, 'run'), start: created + 1_500, end: finished, kind: 'job', failure: undefined } }],
      };
    }
    out.push({ group: '', version: 'v1', kind: 'Pod', namespace: owner.namespace, name, uid, parent: owner, resourceVersion: resourceVersion(podRng), createdAt: Math.min(created, facts.now), health: podHealth(pod), managed: undefined, detail: { type: 'Pod', pod } });
  }
  return out;
}

/** Argo CD's ordering of tree nodes (ApplicationTree.Normalize): by group/kind/namespace/name. */
export const fullName = (n: { group: string; kind: string; namespace: string; name: string }): string => `${n.group}/${n.kind}/${n.namespace}/${n.name}`;

/**
 * Every live object of the application, sorted as Argo CD sorts its tree: each managed resource that exists (a
 * Missing one does not), plus the children its controllers created. At most `TREE_LIMITS.nodes`.
 */
export function buildTree(facts: AppFacts): TreeNode[] {
  const nodes: TreeNode[] = [];
  const resources = facts.app.status.resources ?? [];
  const created = ms(facts.app.metadata.creationTimestamp, facts.now - 86_400_000);
  resources.forEach((r, index) => {
    if (r.health?.status === 'Missing') return;
    const key = { group: groupOf(r), version: r.version ?? 'v1', kind: r.kind ?? '', namespace: r.namespace ?? '', name: r.name ?? '' };
    const rng = rngFor(facts.app.metadata.uid, 'created', key.kind, key.name);
    const createdAt = created + rng.int(5_000, 120_000);
    const isMain = index === 0;
    let detail: Detail = { type: 'Other' };
    if (key.kind === 'Deployment' && key.group === 'apps') {
      const replicas = isMain ? facts.replicas : rng.int(1, 3);
      const health = r.health?.status ?? 'Healthy';
      detail = {
        type: 'Deployment',
        replicas,
        ready: health === 'Healthy' || health === 'Suspended' ? replicas : health === 'Progressing' ? Math.max(0, replicas - 1) : Math.max(0, replicas - Math.floor(replicas / 4)),
        updated: health === 'Degraded' && isMain ? Math.min(replicas, Math.ceil(replicas / 4) + Math.floor(replicas / 4)) : replicas,
        revision: Math.max(1, (facts.app.status.history?.length ?? 1) + rng.int(0, 30)),
        paused: health === 'Suspended',
        image: facts.image,
      };
    } else if (key.kind === 'CronJob' && key.group === 'batch') {
      const hourly = rng.next() < 0.6;
      const period = hourly ? 3_600_000 : 86_400_000;
      const offset = hourly ? 0 : 3 * 3_600_000;
      detail = { type: 'CronJob', schedule: hourly ? '0 * * * *' : '0 3 * * *', lastSchedule: Math.floor((facts.now - offset) / period) * period + offset };
    }
    const node = makeNode(facts, key, undefined, createdAt, r.health, r, detail);
    nodes.push(node);
    if (detail.type === 'Deployment') nodes.push(...deploymentChildren(facts, node, isMain));
    if (detail.type === 'CronJob') nodes.push(...cronJobChildren(facts, node));
    if ((key.group === 'apps' && (key.kind === 'StatefulSet' || key.kind === 'DaemonSet')) || (key.group === 'batch' && key.kind === 'Job')) nodes.push(...directPods(facts, node, isMain));
  });
  nodes.sort((a, b) => (fullName(a) < fullName(b) ? -1 : fullName(a) > fullName(b) ? 1 : 0));
  return nodes.slice(0, TREE_LIMITS.nodes);
}

/** The tree node a query names (group, kind, namespace and name must all match, as ApplicationTree.FindNode). */
export function findNode(tree: readonly TreeNode[], group: string, kind: string, namespace: string, name: string): TreeNode | undefined {
  return tree.find((n) => n.group === group && n.kind === kind && n.namespace === namespace && n.name === name);
}
