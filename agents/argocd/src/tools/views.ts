import type { JsonObject, JsonValue } from '@flotilla/bounded-tools';
import type { Application, ApplicationSet, AppSource, Cluster, Project } from '../client/schemas.js';

/** Values Argo CD reports for sync and health, as the tools accept them in filters. */
export const SYNC_STATUSES = ['Synced', 'OutOfSync', 'Unknown'] as const;
export const HEALTH_STATUSES = ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'] as const;
/** Phases of an application's last operation (status.operationState.phase). */
export const OPERATION_PHASES = ['Running', 'Terminating', 'Failed', 'Error', 'Succeeded'] as const;

/** A row's string field, for aggregates; anything else is not counted. */
export function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A row's list-of-strings field, for aggregates over several values (generators, matched fields). */
export function texts(value: JsonValue | undefined): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** Drop undefined and empty values so compact views stay compact. */
export function compact(entries: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out;
}

export function sourcesOf(app: Application): AppSource[] {
  const spec = app.spec;
  if (spec?.sources !== undefined && spec.sources !== null && spec.sources.length > 0) return spec.sources;
  return spec?.source === undefined || spec.source === null ? [] : [spec.source];
}

export function syncOf(app: Application): string {
  return app.status?.sync?.status ?? 'Unknown';
}

export function healthOf(app: Application): string {
  return app.status?.health?.status ?? 'Unknown';
}

/** One application in a list: what a person scans for, about 60 tokens. `cluster` is the resolved cluster name. */
export function applicationRow(app: Application, cluster: string): JsonObject {
  const source = sourcesOf(app)[0];
  const automated = app.spec?.syncPolicy?.automated;
  return compact({
    name: app.metadata.name,
    project: app.spec?.project,
    sync: syncOf(app),
    health: healthOf(app),
    cluster,
    namespace: app.spec?.destination?.namespace,
    repo: source?.repoURL,
    path: source?.path ?? source?.chart,
    revision: source?.targetRevision,
    auto_sync: automated !== undefined && automated !== null,
    operation: app.status?.operationState?.phase,
    last_sync: app.status?.operationState?.finishedAt,
  });
}

export function projectRow(project: Project): JsonObject {
  const repos = project.spec?.sourceRepos ?? [];
  const destinations = (project.spec?.destinations ?? []).map((d) => `${d.name ?? d.server ?? '*'}/${d.namespace ?? '*'}`);
  return compact({
    name: project.metadata.name,
    description: project.spec?.description,
    source_repos: repos.slice(0, 3),
    source_repos_total: repos.length,
    destinations: destinations.slice(0, 3),
    destinations_total: destinations.length,
    roles: (project.spec?.roles ?? []).length,
  });
}

export function generatorTypes(set: ApplicationSet): string[] {
  return (set.spec?.generators ?? []).flatMap((generator) => Object.keys(generator)).sort();
}

export function applicationSetProject(set: ApplicationSet): string {
  return set.spec?.template?.spec?.project ?? 'default';
}

export function applicationSetRow(set: ApplicationSet): JsonObject {
  const conditions = set.status?.conditions ?? [];
  const failing = conditions.filter((c) => c.status === 'True' && /error/i.test(c.type ?? ''));
  return compact({
    name: set.metadata.name,
    project: applicationSetProject(set),
    generators: generatorTypes(set),
    template_name: set.spec?.template?.metadata?.name,
    repo: set.spec?.template?.spec?.source?.repoURL,
    applications: (set.status?.resources ?? []).length,
    errors: failing.map((c) => (c.message ?? c.type ?? '').slice(0, 160)),
  });
}

export function connectionOf(cluster: Cluster): string {
  return cluster.connectionState?.status ?? cluster.info?.connectionState?.status ?? 'Unknown';
}

export function clusterRow(cluster: Cluster): JsonObject {
  return compact({
    name: cluster.name ?? cluster.server,
    server: cluster.server,
    version: cluster.serverVersion ?? cluster.info?.serverVersion,
    connection: connectionOf(cluster),
    applications: cluster.info?.applicationsCount,
    resources: cluster.info?.cacheInfo?.resourcesCount,
    project: cluster.project,
  });
}

export function labelPairs(labels: Readonly<Record<string, string>> | null | undefined): string[] {
  return Object.entries(labels ?? {}).map(([key, value]) => `${key}=${value}`);
}
