import { z } from 'zod';
import { computeCounts, type BoundedTools, type JsonObject } from '@flotilla/bounded-tools';
import type { ArgoCdClient } from '../client/argocd-client.js';
import type { Application } from '../client/schemas.js';
import type { ClusterDirectory, ClusterNames } from './clusters.js';
import { APPLICATION_ITEM, APPLICATION_OUTPUT } from './outputs.js';
import {
  applicationRow,
  compact,
  HEALTH_STATUSES,
  healthOf,
  OPERATION_PHASES,
  sourcesOf,
  SYNC_STATUSES,
  syncOf,
  text,
} from './views.js';

const name = (what: string) =>
  z.string({ message: `${what} must be a string` }).min(1, `${what} must not be empty`).max(253, `${what} must be at most 253 characters`);

const oneOrMany = <T extends readonly [string, ...string[]]>(values: T, what: string) => {
  const message = `${what} must be one of ${values.join(', ')}, or a list of them`;
  const one = z.enum(values, { message });
  return z.union([one, z.array(one).min(1, `${what} must not be an empty list`).max(values.length)], { error: () => message });
};

const time = (what: string) =>
  z.iso
    .datetime({ offset: true, message: `${what} must be an RFC 3339 time, e.g. 2026-01-31T09:00:00Z` })
    .optional();

/** Filters of list_applications; server-side ones go to Argo CD, the rest are applied to the projected list. */
export const ApplicationFilters = z.strictObject({
  project: z
    .union([name('project'), z.array(name('project')).min(1).max(20, 'at most 20 projects')])
    .optional()
    .describe('Argo CD project name, or a list of up to 20 (any of them).'),
  sync_status: oneOrMany(SYNC_STATUSES, 'sync_status').optional().describe('Only applications in this sync status, or in any of a list.'),
  health_status: oneOrMany(HEALTH_STATUSES, 'health_status')
    .optional()
    .describe('Only applications in this health status, or any of a list ("unhealthy" = every status but Healthy).'),
  cluster: z
    .union([name('cluster'), z.array(name('cluster')).min(1).max(20, 'at most 20 clusters')])
    .optional()
    .describe('Destination cluster: its Argo CD name (e.g. "prod-eu-1") or its API server URL (either finds the apps that name it either way), or a list of up to 20 (any of them).'),
  namespace: name('namespace').optional().describe('Destination namespace.'),
  selector: z
    .string()
    .min(1)
    .max(256, 'selector must be at most 256 characters')
    .optional()
    .describe('Kubernetes label selector, e.g. "team=payments,env in (prod,staging)".'),
  repo: z.string().min(1).max(512).optional().describe('Exact source repository URL.'),
  name_contains: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('Case-insensitive part of the application name (e.g. "payments").'),
  operation_phase: oneOrMany(OPERATION_PHASES, 'operation_phase')
    .optional()
    .describe('Only applications whose last operation (sync) is in this phase, or any of a list (a failed sync: ["Failed", "Error"]).'),
  auto_sync: z.boolean({ message: 'auto_sync must be true or false' }).optional().describe('Only applications with automated sync on (true) or off (false).'),
  last_sync_after: time('last_sync_after').describe("Only applications whose last sync operation finished at or after this time (status.operationState.finishedAt)."),
  last_sync_before: time('last_sync_before').describe('Only applications whose last sync operation finished before this time.'),
  created_after: time('created_after').describe('Only applications created at or after this time.'),
  created_before: time('created_before').describe('Only applications created before this time.'),
});
export type ApplicationFilters = z.output<typeof ApplicationFilters>;

const anyOf = (value: string, wanted: string | readonly string[] | undefined): boolean =>
  wanted === undefined || (typeof wanted === 'string' ? value === wanted : wanted.includes(value));

/** Whether `at` (an RFC 3339 time, maybe absent) lies in [after, before); an absent time matches no window. */
function within(at: string | undefined, after: string | undefined, before: string | undefined): boolean {
  if (after === undefined && before === undefined) return true;
  const t = at === undefined ? Number.NaN : Date.parse(at);
  if (Number.isNaN(t)) return false;
  return (after === undefined || t >= Date.parse(after)) && (before === undefined || t < Date.parse(before));
}

export function matchesFilters(app: Application, filters: ApplicationFilters, clusters: ClusterNames): boolean {
  if (!anyOf(syncOf(app), filters.sync_status)) return false;
  if (!anyOf(healthOf(app), filters.health_status)) return false;
  if (filters.cluster !== undefined && !(typeof filters.cluster === 'string' ? [filters.cluster] : filters.cluster).some((c) => clusters.matches(app.spec?.destination, c))) return false;
  if (filters.namespace !== undefined && app.spec?.destination?.namespace !== filters.namespace) return false;
  if (filters.name_contains !== undefined && !app.metadata.name.toLowerCase().includes(filters.name_contains.toLowerCase())) return false;
  if (filters.operation_phase !== undefined && !anyOf(app.status?.operationState?.phase ?? 'None', filters.operation_phase)) return false;
  if (filters.auto_sync !== undefined) {
    const automated = app.spec?.syncPolicy?.automated;
    if ((automated !== undefined && automated !== null) !== filters.auto_sync) return false;
  }
  if (!within(app.status?.operationState?.finishedAt, filters.last_sync_after, filters.last_sync_before)) return false;
  if (!within(app.metadata.creationTimestamp, filters.created_after, filters.created_before)) return false;
  return true;
}

export const APPLICATION_SECTIONS = [
  'summary',
  'source',
  'destination',
  'sync_policy',
  'resources',
  'history',
  'conditions',
  'operation',
  'helm_values',
] as const;
export type ApplicationSection = (typeof APPLICATION_SECTIONS)[number];

/** Resources listed in the `resources` section (problems first, ~40 tokens each); the rest are counted. */
export const RESOURCES_SHOWN_MAX = 25;

const GetApplicationInput = z.strictObject({
  name: name('name').describe('Exact application name (list or search tools give it).'),
  sections: z
    .array(z.enum(APPLICATION_SECTIONS, { message: `sections must be among ${APPLICATION_SECTIONS.join(', ')}` }))
    .min(1)
    .max(APPLICATION_SECTIONS.length)
    .default(['summary'])
    .describe(
      'What to return (default ["summary"]). helm_values returns the raw Helm values and is the largest; ask for it only when needed.',
    ),
});

/** Who started an operation: a user, or "automated" (auto-sync). */
function initiatorOf(by: { username?: string | undefined; automated?: boolean | undefined } | null | undefined): string | undefined {
  if (by === undefined || by === null) return undefined;
  return by.automated === true ? 'automated sync' : by.username;
}

function section(app: Application, which: ApplicationSection, clusters: ClusterNames): JsonObject {
  const status = app.status;
  const resources = status?.resources ?? [];
  switch (which) {
    case 'summary': {
      const sources = sourcesOf(app);
      const first = sources[0];
      const automated = app.spec?.syncPolicy?.automated;
      const counts = computeCounts(resources, { by_health: (r) => r.health?.status ?? 'None', by_kind: (r) => r.kind ?? 'Unknown' });
      return compact({
        name: app.metadata.name,
        project: app.spec?.project,
        repo: first?.repoURL,
        path: first?.path ?? first?.chart,
        revision: first?.targetRevision,
        sources: sources.length,
        cluster: clusters.nameOf(app.spec?.destination),
        namespace: app.spec?.destination?.namespace,
        sync: compact({ status: syncOf(app), revision: status?.sync?.revision }),
        health: compact({ status: healthOf(app), message: status?.health?.message?.slice(0, 300) }),
        auto_sync: automated === undefined || automated === null ? { enabled: false } : { enabled: true, prune: automated.prune ?? false, self_heal: automated.selfHeal ?? false },
        last_operation: compact({ phase: status?.operationState?.phase, finished_at: status?.operationState?.finishedAt, initiated_by: initiatorOf(status?.operationState?.operation?.initiatedBy) }),
        resources: { total: resources.length, ...counts },
        images: (status?.summary?.images ?? []).length,
        conditions: (status?.conditions ?? []).length,
        labels: { ...(app.metadata.labels ?? {}) },
      });
    }
    case 'source':
      return {
        sources: sourcesOf(app).map((s) =>
          compact({
            repo: s.repoURL,
            path: s.path,
            chart: s.chart,
            revision: s.targetRevision,
            ref: s.ref,
            value_files: s.helm?.valueFiles ?? undefined,
            helm_parameters: (s.helm?.parameters ?? []).length,
            helm_values_bytes: s.helm?.values === undefined ? undefined : Buffer.byteLength(s.helm.values, 'utf8'),
          }),
        ),
      };
    case 'destination':
      return compact({ cluster: clusters.nameOf(app.spec?.destination), server: app.spec?.destination?.server, namespace: app.spec?.destination?.namespace });
    case 'sync_policy': {
      const policy = app.spec?.syncPolicy;
      return compact({
        automated: policy?.automated === undefined || policy.automated === null ? false : { prune: policy.automated.prune ?? false, self_heal: policy.automated.selfHeal ?? false },
        sync_options: policy?.syncOptions ?? undefined,
      });
    }
    case 'resources': {
      // Problems first: what is not healthy or not synced is what a person asks about.
      const rank = (r: (typeof resources)[number]): number => ((r.health?.status ?? 'Healthy') === 'Healthy' ? 0 : 2) + (r.status === 'Synced' ? 0 : 1);
      const ordered = [...resources].sort((a, b) => rank(b) - rank(a));
      return {
        total: resources.length,
        shown: Math.min(resources.length, RESOURCES_SHOWN_MAX),
        ...computeCounts(resources, { by_health: (r) => r.health?.status ?? 'None', by_sync: (r) => r.status ?? 'Unknown', by_kind: (r) => r.kind ?? 'Unknown' }),
        items: ordered.slice(0, RESOURCES_SHOWN_MAX).map((r) =>
          compact({ kind: r.kind, name: r.name, namespace: r.namespace, sync: r.status, health: r.health?.status, message: r.health?.message?.slice(0, 200) }),
        ),
      };
    }
    case 'history':
      return {
        items: (status?.history ?? []).slice(-10).reverse().map((h) => compact({ id: h.id, revision: h.revision, deployed_at: h.deployedAt })),
      };
    case 'conditions':
      return { items: (status?.conditions ?? []).slice(0, 20).map((c) => compact({ type: c.type, message: c.message?.slice(0, 300) })) };
    case 'operation': {
      const op = status?.operationState;
      return compact({ phase: op?.phase, message: op?.message?.slice(0, 500), started_at: op?.startedAt, finished_at: op?.finishedAt, initiated_by: initiatorOf(op?.operation?.initiatedBy) });
    }
    case 'helm_values':
      return {
        sources: sourcesOf(app)
          .filter((s) => s.helm !== undefined && s.helm !== null)
          .map((s) => compact({ repo: s.repoURL, path: s.path ?? s.chart, values: s.helm?.values })),
      };
  }
}

export function registerApplicationTools(kit: BoundedTools, client: ArgoCdClient, directory: ClusterDirectory): void {
  kit.registerList({
    name: 'list_applications',
    title: 'List Argo CD applications',
    description:
      'List Argo CD applications with filters (project, sync_status, health_status, cluster, namespace, label selector, repo, name_contains, ' +
      'time windows on the last sync and on creation), ' +
      'one page at a time. Returns total, counts by sync, health, project and cluster over ALL matching applications, and a page of rows. ' +
      'Prefer filters or search_argocd_resources over paging through everything.',
    itemKind: 'applications',
    // Argo CD has no server-side paging: later pages come from the list the first call fetched.
    snapshot: true,
    filters: ApplicationFilters,
    item: APPLICATION_ITEM,
    load: async (filters, ctx) => {
      const projects = filters.project === undefined ? undefined : typeof filters.project === 'string' ? [filters.project] : filters.project;
      const [apps, clusters] = await Promise.all([
        client.listApplications({ projects, selector: filters.selector, repo: filters.repo }, ctx.signal),
        directory.names(ctx.signal),
      ]);
      const items = apps.filter((app) => matchesFilters(app, filters, clusters)).map((app) => applicationRow(app, clusters.nameOf(app.spec?.destination)));
      const notes: string[] = [];
      if (clusters.degraded !== undefined) notes.push(`Cluster names: ${clusters.degraded}.`);
      // While degraded no name is known: the degraded note says so once instead.
      for (const wanted of filters.cluster === undefined || clusters.degraded !== undefined ? [] : typeof filters.cluster === 'string' ? [filters.cluster] : filters.cluster) {
        if (clusters.resolve(wanted) === undefined) notes.push(`Argo CD has no registered cluster "${wanted}"; only destinations naming it literally matched. list_clusters shows the names.`);
      }
      return { items, notes };
    },
    counts: {
      by_sync: (row) => text(row.sync),
      by_health: (row) => text(row.health),
      by_project: (row) => text(row.project),
      by_cluster: (row) => text(row.cluster),
      by_namespace: (row) => text(row.namespace),
    },
    // Clusters are few and a breakdown by cluster should name each one.
    countsTop: { by_cluster: 30 },
  });

  kit.register({
    name: 'get_application',
    title: 'Get one Argo CD application',
    description:
      'One application by exact name. Returns a summary by default; ask for sections (source, destination, sync_policy, resources, history, ' +
      'conditions, operation, helm_values) for details. Raw Helm values only with helm_values.',
    input: GetApplicationInput,
    output: APPLICATION_OUTPUT,
    run: async (args, ctx) => {
      const [app, clusters] = await Promise.all([client.getApplication(args.name, ctx.signal), directory.names(ctx.signal)]);
      const sections = [...new Set(args.sections)];
      const data: JsonObject = {};
      for (const which of sections) data[which] = section(app, which, clusters);
      if (!sections.includes('helm_values') && sourcesOf(app).some((s) => s.helm?.values !== undefined)) {
        data.note = 'Helm values are not shown; ask for the helm_values section if you need them.';
      }
      return {
        kind: 'object',
        data,
        overflowHint: `Too large for the budget: ask for fewer sections at a time (e.g. sections ["${sections[0] ?? 'summary'}"]).`,
      };
    },
  });
}
