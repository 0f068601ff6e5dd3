import { z } from 'zod';
import type { BoundedTools } from '@flotilla/bounded-tools';
import type { ArgoCdClient } from '../client/argocd-client.js';
import { APPLICATIONSET_ITEM, CLUSTER_ITEM, PROJECT_ITEM } from './outputs.js';
import { applicationSetProject, applicationSetRow, clusterRow, connectionOf, projectRow, text, texts } from './views.js';

const nameContains = z
  .string()
  .min(1, 'name_contains must not be empty')
  .max(256, 'name_contains must be at most 256 characters')
  .optional()
  .describe('Case-insensitive part of the name.');

const ProjectFilters = z.strictObject({ name_contains: nameContains });
const ApplicationSetFilters = z.strictObject({
  project: z.string().min(1).max(253).optional().describe('Project of the generated applications.'),
  selector: z.string().min(1).max(256).optional().describe('Kubernetes label selector on the ApplicationSet.'),
  name_contains: nameContains,
});
const ClusterFilters = z.strictObject({
  name_contains: nameContains,
  connection_status: z.enum(['Successful', 'Failed', 'Unknown'], { message: 'connection_status must be Successful, Failed or Unknown' }).optional(),
});

const contains = (value: string, part: string | undefined): boolean => part === undefined || value.toLowerCase().includes(part.toLowerCase());

export function registerCatalogTools(kit: BoundedTools, client: ArgoCdClient): void {
  kit.registerList({
    name: 'list_projects',
    title: 'List Argo CD projects',
    description: 'List Argo CD projects (AppProjects), one page at a time, with their source repositories and destinations (first few, and totals).',
    itemKind: 'projects',
    // Argo CD has no server-side paging: later pages come from the list the first call fetched.
    snapshot: true,
    filters: ProjectFilters,
    item: PROJECT_ITEM,
    load: async (filters, ctx) => (await client.listProjects(ctx.signal)).filter((p) => contains(p.metadata.name, filters.name_contains)).map(projectRow),
  });

  kit.registerList({
    name: 'list_applicationsets',
    title: 'List Argo CD application sets',
    description: 'List Argo CD ApplicationSets, one page at a time: generators, target project, generated application count and errors.',
    itemKind: 'applicationsets',
    // Argo CD has no server-side paging: later pages come from the list the first call fetched.
    snapshot: true,
    filters: ApplicationSetFilters,
    item: APPLICATIONSET_ITEM,
    load: async (filters, ctx) => {
      const sets = await client.listApplicationSets({ selector: filters.selector }, ctx.signal);
      return sets
        .filter((set) => contains(set.metadata.name, filters.name_contains))
        .filter((set) => filters.project === undefined || applicationSetProject(set) === filters.project)
        .map(applicationSetRow);
    },
    counts: {
      by_generator: (row) => texts(row.generators),
      by_project: (row) => text(row.project),
    },
  });

  kit.registerList({
    name: 'list_clusters',
    title: 'List Argo CD clusters',
    description: 'List the clusters Argo CD deploys to: name, API server, Kubernetes version, connection status and application count.',
    itemKind: 'clusters',
    filters: ClusterFilters,
    item: CLUSTER_ITEM,
    load: async (filters, ctx) =>
      (await client.listClusters(ctx.signal))
        .filter((c) => contains(c.name ?? c.server, filters.name_contains))
        .filter((c) => filters.connection_status === undefined || connectionOf(c) === filters.connection_status)
        .map(clusterRow),
    counts: {
      by_connection: (row) => text(row.connection),
      by_version: (row) => text(row.version),
    },
  });
}

