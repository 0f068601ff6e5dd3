import { z } from 'zod';
import { compileMatcher, LIMITS, SEARCH_SHAPE, searchItems, type BoundedTools, type JsonObject, type SearchFields } from '@flotilla/bounded-tools';
import type { ArgoCdClient } from '../client/argocd-client.js';
import { clusterNames, type ClusterDirectory, type ClusterNames } from './clusters.js';
import type { Application, ApplicationSet, Cluster, Project } from '../client/schemas.js';
import {
  applicationSetProject,
  compact,
  connectionOf,
  generatorTypes,
  healthOf,
  labelPairs,
  sourcesOf,
  syncOf,
  text,
  texts,
} from './views.js';
import { SEARCH_MATCH_ITEM } from './outputs.js';

export const RESOURCE_TYPES = ['application', 'project', 'applicationset', 'cluster'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

const SearchFilters = z.strictObject({
  ...SEARCH_SHAPE,
  resource_types: z
    .array(z.enum(RESOURCE_TYPES, { message: `resource_types must be among ${RESOURCE_TYPES.join(', ')}` }))
    .min(1)
    .max(RESOURCE_TYPES.length)
    .optional()
    .describe('Limit the search to these types (default: all four).'),
});

type Found =
  | { readonly type: 'application'; readonly value: Application }
  | { readonly type: 'project'; readonly value: Project }
  | { readonly type: 'applicationset'; readonly value: ApplicationSet }
  | { readonly type: 'cluster'; readonly value: Cluster };

type Field = readonly [string, string | undefined];
const many = (field: string, values: readonly string[]): Field[] => values.map((value) => [field, value] as const);

/** The text of each resource the search looks in: names, labels, annotations, repos and destinations. */
const fields: SearchFields<Found> = (found) => {
  switch (found.type) {
    case 'application': {
      const app = found.value;
      return [
        ['name', app.metadata.name],
        ['project', app.spec?.project],
        ...many('label', labelPairs(app.metadata.labels)),
        ...many('annotation', labelPairs(app.metadata.annotations)),
        ...many('repo', sourcesOf(app).map((s) => s.repoURL ?? '')),
        ['destination', app.spec?.destination?.name],
        ['destination', app.spec?.destination?.server],
        ['namespace', app.spec?.destination?.namespace],
      ];
    }
    case 'project': {
      const project = found.value;
      return [
        ['name', project.metadata.name],
        ['description', project.spec?.description],
        ...many('label', labelPairs(project.metadata.labels)),
        ...many('annotation', labelPairs(project.metadata.annotations)),
        ...many('repo', project.spec?.sourceRepos ?? []),
        ...many('destination', (project.spec?.destinations ?? []).flatMap((d) => [d.name ?? '', d.server ?? '', d.namespace ?? ''])),
      ];
    }
    case 'applicationset': {
      const set = found.value;
      return [
        ['name', set.metadata.name],
        ['project', applicationSetProject(set)],
        ...many('label', labelPairs(set.metadata.labels)),
        ...many('annotation', labelPairs(set.metadata.annotations)),
        ['repo', set.spec?.template?.spec?.source?.repoURL],
        ['destination', set.spec?.template?.spec?.destination?.server ?? set.spec?.template?.spec?.destination?.name],
        ...many('generator', generatorTypes(set)),
      ];
    }
    case 'cluster': {
      const cluster = found.value;
      return [
        ['name', cluster.name],
        ['server', cluster.server],
        ...many('label', labelPairs(cluster.labels)),
        ...many('annotation', labelPairs(cluster.annotations)),
      ];
    }
  }
};

function row(found: Found, matched: readonly string[], names: ClusterNames): JsonObject {
  switch (found.type) {
    case 'application': {
      const app = found.value;
      return compact({ type: 'application', name: app.metadata.name, matched: [...matched], project: app.spec?.project, sync: syncOf(app), health: healthOf(app), cluster: names.nameOf(app.spec?.destination) });
    }
    case 'project':
      return compact({ type: 'project', name: found.value.metadata.name, matched: [...matched], description: found.value.spec?.description?.slice(0, 120) });
    case 'applicationset':
      return compact({ type: 'applicationset', name: found.value.metadata.name, matched: [...matched], project: applicationSetProject(found.value) });
    case 'cluster':
      return compact({ type: 'cluster', name: found.value.name ?? found.value.server, matched: [...matched], server: found.value.server, connection: connectionOf(found.value) });
  }
}

export function registerSearchTool(kit: BoundedTools, client: ArgoCdClient, directory: ClusterDirectory): void {
  kit.registerList({
    name: 'search_argocd_resources',
    title: 'Search Argo CD',
    description:
      'Search applications, projects, application sets and clusters by name, labels, annotations, repositories and destinations. ' +
      'Use this FIRST for any question that names something ("payments", "team=core", a repo). Substring by default, regex with mode "regex". ' +
      `Stops at ${LIMITS.searchMatchCap} matches and says so.`,
    itemKind: 'matches',
    // Argo CD has no server-side paging: later pages come from the list the first call fetched.
    snapshot: true,
    filters: SearchFilters,
    item: SEARCH_MATCH_ITEM,
    load: async (args, ctx) => {
      const types = new Set<ResourceType>(args.resource_types ?? RESOURCE_TYPES);
      const none = Promise.resolve([]);
      // Compile first: a bad regex is reported before any upstream call is made.
      compileMatcher(args);
      const [apps, projects, sets, clusters, names] = await Promise.all([
        types.has('application') ? client.listApplications({}, ctx.signal) : none,
        types.has('project') ? client.listProjects(ctx.signal) : none,
        types.has('applicationset') ? client.listApplicationSets({}, ctx.signal) : none,
        types.has('cluster') ? client.listClusters(ctx.signal) : none,
        types.has('application') ? directory.names(ctx.signal) : undefined,
      ]);
      function* all(): Generator<Found> {
        for (const value of apps) yield { type: 'application', value };
        for (const value of projects) yield { type: 'project', value };
        for (const value of sets) yield { type: 'applicationset', value };
        for (const value of clusters) yield { type: 'cluster', value };
      }
      const outcome = searchItems(all(), fields, args);
      const notes = outcome.capped ? [`Scanned ${outcome.scanned} resources before reaching the cap; totals and counts cover the first ${outcome.cap} matches only.`] : [];
      if (names?.degraded !== undefined) notes.push(`Cluster names: ${names.degraded}.`);
      return { items: outcome.matches.map((m) => row(m.item, m.matched, names ?? clusterNames([]))), search: outcome, notes };
    },
    counts: {
      by_type: (r) => text(r.type),
      by_field: (r) => texts(r.matched),
    },
  });
}
