import { z } from 'zod';
import { computeCounts, type BoundedTools, type JsonObject } from '@flotilla/bounded-tools';
import type { ArgoCdClient } from '../client/argocd-client.js';
import type { Application } from '../client/schemas.js';
import {
  applicationRow,
  clusterOf,
  compact,
  HEALTH_STATUSES,
  healthOf,
  sourcesOf,
  SYNC_STATUSES,
  syncOf,
  text,
} from './views.js';

const name = (what: string) =>
  z.string({ message: `${what} must be a string` }).min(1, `${what} must not be empty`).max(253, `${what} must be at most 253 characters`);

/** Filters of list_applications; server-side ones go to Argo CD, the rest are applied to the projected list. */
export const ApplicationFilters = z.strictObject({
  project: z
    .union([name('project'), z.array(name('project')).min(1).max(20, 'at most 20 projects')])
    .optional()
    .describe('Argo CD project name, or a list of up to 20 (any of them).'),
  sync_status: z
    .enum(SYNC_STATUSES, { message: `sync_status must be one of ${SYNC_STATUSES.join(', ')}` })
    .optional()
    .describe('Only applications in this sync status.'),
  health_status: z
    .enum(HEALTH_STATUSES, { message: `health_status must be one of ${HEALTH_STATUSES.join(', ')}` })
    .optional()
    .describe('Only applications in this health status.'),
  cluster: name('cluster').optional().describe('Destination cluster: its Argo CD name (e.g. "prod-eu-1") or API server URL.'),
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
});
export type ApplicationFilters = z.output<typeof ApplicationFilters>;

export function matchesFilters(app: Application, filters: ApplicationFilters): boolean {
  if (filters.sync_status !== undefined && syncOf(app) !== filters.sync_status) return false;
  if (filters.health_status !== undefined && healthOf(app) !== filters.health_status) return false;
  if (filters.cluster !== undefined) {
    const destination = app.spec?.destination;
    if (destination?.name !== filters.cluster && destination?.server !== filters.cluster) return false;
  }
  if (filters.namespace !== undefined && app.spec?.destination?.namespace !== filters.namespace) return false;
  if (filters.name_contains !== undefined && !app.metadata.name.toLowerCase().includes(filters.name_contains.toLowerCase())) return false;
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

function section(app: Application, which: ApplicationSection): JsonObject {
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
        cluster: clusterOf(app),
        namespace: app.spec?.destination?.namespace,
        sync: compact({ status: syncOf(app), revision: status?.sync?.revision }),
        health: compact({ status: healthOf(app), message: status?.health?.message?.slice(0, 300) }),
        auto_sync: automated === undefined || automated === null ? { enabled: false } : { enabled: true, prune: automated.prune ?? false, self_heal: automated.selfHeal ?? false },
        last_operation: compact({ phase: status?.operationState?.phase, finished_at: status?.operationState?.finishedAt }),
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
      return compact({ cluster: clusterOf(app), server: app.spec?.destination?.server, namespace: app.spec?.destination?.namespace });
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
      return compact({ phase: op?.phase, message: op?.message?.slice(0, 500), started_at: op?.startedAt, finished_at: op?.finishedAt });
    }
    case 'helm_values':
      return {
        sources: sourcesOf(app)
          .filter((s) => s.helm !== undefined && s.helm !== null)
          .map((s) => compact({ repo: s.repoURL, path: s.path ?? s.chart, values: s.helm?.values })),
      };
  }
}

export function registerApplicationTools(kit: BoundedTools, client: ArgoCdClient): void {
  kit.registerList({
    name: 'list_applications',
    title: 'List Argo CD applications',
    description:
      'List Argo CD applications with filters (project, sync_status, health_status, cluster, namespace, label selector, repo, name_contains), ' +
      'one page at a time. Returns total, counts by sync, health, project and cluster over ALL matching applications, and a page of rows. ' +
      'Prefer filters or search_argocd_resources over paging through everything.',
    itemKind: 'applications',
    // Argo CD has no server-side paging: later pages come from the list the first call fetched.
    snapshot: true,
    filters: ApplicationFilters,
    load: async (filters, ctx) => {
      const projects = filters.project === undefined ? undefined : typeof filters.project === 'string' ? [filters.project] : filters.project;
      const apps = await client.listApplications({ projects, selector: filters.selector, repo: filters.repo }, ctx.signal);
      return apps.filter((app) => matchesFilters(app, filters)).map(applicationRow);
    },
    counts: {
      by_sync: (row) => text(row.sync),
      by_health: (row) => text(row.health),
      by_project: (row) => text(row.project),
      by_cluster: (row) => text(row.cluster),
    },
  });

  kit.register({
    name: 'get_application',
    title: 'Get one Argo CD application',
    description:
      'One application by exact name. Returns a summary by default; ask for sections (source, destination, sync_policy, resources, history, ' +
      'conditions, operation, helm_values) for details. Raw Helm values only with helm_values.',
    input: GetApplicationInput,
    run: async (args, ctx) => {
      const app = await client.getApplication(args.name, ctx.signal);
      const sections = [...new Set(args.sections)];
      const data: JsonObject = {};
      for (const which of sections) data[which] = section(app, which);
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
