import { FlotillaError } from '@flotilla/core';
import { checkQueryFields, conjuncts, cutText as cut, LIST_VALUES_LIMITS, listValuesFilters, queryOutcome, QUERY_OUTPUT, QUERY_OUTPUT_LIMITS, valueFields, valueOut, VALUE_ITEM, type BoundedTools, type JsonObject, type ToolPayload } from '@flotilla/bounded-tools';
import { conditionsOf, querySchema, QueryRun, type Accessors, type Query, type Where } from '@flotilla/query';
import type { ArgoCdClient } from '../client/argocd-client.js';
import type { Application, ApplicationSet, Cluster, Project } from '../client/schemas.js';
import { ARGOCD_DOMAIN, ARGOCD_QUERY_ENTITIES } from '../query/declare.js';
import type { ClusterDirectory, ClusterNames } from './clusters.js';
import { applicationSetProject, connectionOf, generatorTypes, healthOf, labelPairs, sourcesOf, syncOf } from './views.js';

/**
 * `query`: one typed query over Argo CD (applications or clusters), planned here: project and label conditions at the
 * top of the where go to Argo CD as filters, the rest is evaluated over the listed items, and the answer (a count,
 * a page, groups, a ranking, a comparison, or named fields of one application) is accumulated in bounded memory.
 * The rules and the model write the same query; the tool's budget bounds what either gets back.
 */

const FIELD_NAMES = [...new Set(ARGOCD_DOMAIN.entities.flatMap((e) => e.fields.map((f) => f.name)))] as [string, ...string[]];
export const QueryInput = querySchema(ARGOCD_QUERY_ENTITIES, FIELD_NAMES);

/** History entries a projection of one application shows (newest first). */
export const HISTORY_ENTRIES_SHOWN = 5;

/** Fields Argo CD's application list does not carry: read for one named application only. */
const ONE_APPLICATION_ONLY = new Set(['history', 'conditions', 'sync_revision', 'operation_message']);
/** Label fields: pushed to Argo CD as a label selector. */
const LABEL_FIELDS: Readonly<Record<string, string>> = { env: 'env', team: 'team', region: 'region', tier: 'tier' };

/**
 * Which ApplicationSets generated each application, from the sets' own `status.resources` (the application list
 * cannot be projected to `metadata.ownerReferences`: Argo CD's list whitelist leaves it out).
 */
export type GeneratedBy = ReadonlyMap<string, readonly string[]>;

async function generatedBy(client: ArgoCdClient, signal: AbortSignal): Promise<GeneratedBy> {
  const out = new Map<string, string[]>();
  for (const set of await client.listApplicationSets({}, signal)) {
    for (const r of set.status?.resources ?? []) if (typeof r.name === 'string') (out.get(r.name) ?? out.set(r.name, []).get(r.name))?.push(set.metadata.name);
  }
  return out;
}

function applicationAccessors(clusters: ClusterNames, sets: GeneratedBy = new Map()): Accessors<Application> {
  const labels = (app: Application) => app.metadata.labels ?? {};
  return {
    name: (a) => a.metadata.name,
    project: (a) => a.spec?.project,
    // A cluster is its name and its URL: a condition on either finds it.
    cluster: (a) => {
      const d = a.spec?.destination;
      const name = clusters.nameOf(d);
      const identity = clusters.resolve(name);
      return [...new Set([name, d?.name, d?.server, identity?.server, identity?.name].filter((x): x is string => typeof x === 'string' && x !== ''))];
    },
    namespace: (a) => a.spec?.destination?.namespace,
    appset: (a) => [...new Set([...(sets.get(a.metadata.name) ?? []), ...(a.metadata.ownerReferences ?? []).filter((o) => o.kind === 'ApplicationSet').map((o) => o.name ?? '')])],
    app_namespace: (a) => a.metadata.namespace,
    health: (a) => healthOf(a),
    sync: (a) => syncOf(a),
    repo: (a) => sourcesOf(a).map((s) => s.repoURL).filter((r): r is string => r !== undefined),
    revision: (a) => sourcesOf(a).map((s) => s.targetRevision ?? 'HEAD'),
    sync_revision: (a) => {
      const sync = a.status?.sync as { revision?: unknown; revisions?: unknown } | null | undefined;
      const all: unknown[] = [...(Array.isArray(sync?.revisions) ? (sync.revisions as unknown[]) : []), sync?.revision];
      return all.filter((r): r is string => typeof r === 'string');
    },
    path: (a) => sourcesOf(a).map((s) => s.path ?? s.chart).filter((p): p is string => p !== undefined),
    chart: (a) => sourcesOf(a).map((s) => s.chart).filter((c): c is string => c !== undefined && c !== ''),
    auto_sync: (a) => a.spec?.syncPolicy?.automated !== undefined && a.spec?.syncPolicy?.automated !== null,
    self_heal: (a) => a.spec?.syncPolicy?.automated?.selfHeal === true,
    prune: (a) => a.spec?.syncPolicy?.automated?.prune === true,
    operation: (a) => a.status?.operationState?.phase ?? 'None',
    last_sync: (a) => a.status?.operationState?.finishedAt ?? undefined,
    created: (a) => a.metadata.creationTimestamp ?? undefined,
    env: (a) => labels(a).env,
    team: (a) => labels(a).team,
    region: (a) => labels(a).region,
    tier: (a) => labels(a).tier,
    label: (a) => labelPairs(a.metadata.labels),
    image: (a) => a.status?.summary?.images ?? [],
    history: (a) => (a.status?.history ?? []).map((h) => h.revision ?? String(h.id)),
    conditions: (a) => (a.status?.conditions ?? []).map((c) => c.type ?? 'Unknown'),
    health_message: (a) => a.status?.health?.message,
    operation_message: (a) => a.status?.operationState?.message,
    status: (a) => `${syncOf(a)}/${healthOf(a)}`,
    external_urls: (a) => a.status?.summary?.externalURLs ?? [],
  };
}

const CLUSTER_ACCESSORS: Accessors<Cluster> = {
  name: (c) => c.name ?? c.server,
  server: (c) => c.server,
  connection: (c) => connectionOf(c),
  version: (c) => c.serverVersion ?? c.info?.serverVersion,
  message: (c) => c.connectionState?.message ?? c.info?.connectionState?.message,
};

/** A project's destinations as `cluster/namespace` (`*` where any is allowed); a cluster is its name or URL, resolved to the name. */
function projectAccessors(clusters: ClusterNames): Accessors<Project> {
  const dests = (p: Project) => p.spec?.destinations ?? [];
  const clusterOf = (d: { name?: string | undefined; server?: string | undefined }): string => (d.name !== undefined && d.name !== '' ? d.name : d.server === '*' ? '*' : clusters.nameOf(d));
  // A destination of any cluster ('*') allows every one: "projects that can deploy to x" includes it.
  const clustersOf = (p: Project): string[] => {
    const named = [...new Set(dests(p).map(clusterOf))];
    return named.includes('*') ? [...new Set([...named, ...clusters.all])] : named;
  };
  return {
    name: (p) => p.metadata.name,
    description: (p) => p.spec?.description,
    repos: (p) => p.spec?.sourceRepos ?? [],
    destinations: (p) => dests(p).map((d) => `${clusterOf(d)}/${d.namespace ?? '*'}`),
    cluster: clustersOf,
    namespace: (p) => [...new Set(dests(p).map((d) => d.namespace ?? '*'))],
    roles: (p) => (p.spec?.roles ?? []).map((r) => r.name ?? '?'),
  };
}

/** The errors an ApplicationSet reports: its conditions of an error type that hold. */
const appSetErrors = (set: ApplicationSet): string[] => (set.status?.conditions ?? []).filter((c) => c.status === 'True' && /error/i.test(c.type ?? '')).map((c) => cut(c.message ?? c.type ?? '') ?? '');

const APPSET_ACCESSORS: Accessors<ApplicationSet> = {
  name: (s) => s.metadata.name,
  project: (s) => applicationSetProject(s),
  generators: (s) => generatorTypes(s),
  applications: (s) => (s.status?.resources ?? []).length,
  repo: (s) => s.spec?.template?.spec?.source?.repoURL,
  team: (s) => s.metadata.labels?.team,
  errors: (s) => appSetErrors(s),
};

/** What one application's asked-for fields read as. */
function projectApplication(app: Application, fields: readonly string[], acc: Accessors<Application>): JsonObject {
  const out: JsonObject = { name: app.metadata.name };
  for (const f of fields) {
    if (f === 'history') {
      out.history = (app.status?.history ?? [])
        .slice(-HISTORY_ENTRIES_SHOWN)
        .reverse()
        .map((h) => ({ id: h.id ?? null, revision: h.revision ?? (Array.isArray(h.revisions) ? h.revisions.filter((r): r is string => typeof r === 'string').join(', ') : ''), deployed_at: h.deployedAt ?? null }));
      continue;
    }
    if (f === 'conditions') {
      out.conditions = (app.status?.conditions ?? []).slice(0, 10).map((c) => ({ type: c.type ?? 'Unknown', message: cut(c.message) ?? '' }));
      continue;
    }
    // What is deployed beside what is asked for, and why the health is what it is.
    if (f === 'revision' && !fields.includes('sync_revision')) {
      const synced = acc.sync_revision?.(app);
      if (Array.isArray(synced) && synced.length > 0) out.sync_revision = synced.slice(0, 5).map(String);
    }
    if (f === 'health' && !fields.includes('health_message') && typeof app.status?.health?.message === 'string') out.health_message = cut(app.status.health.message) ?? '';
    if (f === 'health' || f === 'status') {
      const unhealthy = (app.status?.resources ?? []).filter((r) => r.health?.status !== undefined && r.health.status !== 'Healthy').slice(0, QUERY_OUTPUT_LIMITS.objects);
      if (unhealthy.length > 0) out.unhealthy_resources = unhealthy.map((r) => `${r.kind ?? '?'}/${r.name ?? '?'} ${r.health?.status ?? ''}${r.health?.message === undefined ? '' : `: ${cut(r.health.message) ?? ''}`}`);
    }
    if (f === 'status') {
      out.status = { sync: syncOf(app), health: healthOf(app), operation: app.status?.operationState?.phase ?? 'None' };
      continue;
    }
    const v = acc[f]?.(app);
    out[f] = valueOut(v, false);
  }
  return out;
}

/** Project and label conditions at the top of the where, as Argo CD's own filters (the rest is evaluated here). */
function pushdown(where: Where | undefined): { projects?: string[]; selector?: string } {
  const projects: string[] = [];
  for (const part of conjuncts(where)) {
    if ((part.op !== 'eq' && part.op !== 'in') || part.field !== 'project' || projects.length > 0) continue;
    projects.push(...(part.op === 'eq' ? [part.value] : part.values).map(String));
  }
  const selector = labelSelector(where, LABEL_FIELDS);
  return { ...(projects.length === 0 ? {} : { projects }), ...(selector === undefined ? {} : { selector }) };
}

/** Conditions on label fields at the top of the where (`labels`: field → label key), as a Kubernetes label selector. */
function labelSelector(where: Where | undefined, labels: Readonly<Record<string, string>>): string | undefined {
  const selector: string[] = [];
  for (const part of conjuncts(where)) {
    const negated = part.op === 'not' ? part.of : undefined;
    const c = negated ?? part;
    if (c.op !== 'eq' && c.op !== 'in') continue;
    const values = (c.op === 'eq' ? [c.value] : c.values).map(String);
    const key = labels[c.field];
    if (key !== undefined && values.every((v) => /^[a-z0-9]([\w.-]*[a-z0-9])?$/i.test(v) && v.length <= 63)) {
      selector.push(negated === undefined ? (values.length === 1 ? `${key}=${values[0]}` : `${key} in (${values.join(',')})`) : `${key} notin (${values.join(',')})`);
    }
  }
  return selector.length === 0 ? undefined : selector.join(',');
}

async function runApplications(query: Query, client: ArgoCdClient, directory: ClusterDirectory, signal: AbortSignal): Promise<ToolPayload> {
  const clusters = await directory.names(signal);
  const asked = new Set([...conditionsOf(query.where).map((c) => c.field), ...(query.what.kind === 'breakdown' ? query.what.by : query.what.kind === 'top' ? [query.what.by] : query.what.kind === 'fields' ? query.what.fields : [])]);
  const acc = applicationAccessors(clusters, asked.has('appset') ? await generatedBy(client, signal) : new Map());
  // Grouped, sorted and shown, a cluster is its name alone (it matches by name or URL).
  const byName: Partial<Accessors<Application>> = { cluster: (a) => clusters.nameOf(a.spec?.destination) };
  const notes: string[] = [];
  if (clusters.degraded !== undefined) notes.push(`Cluster names: ${clusters.degraded}.`);
  const whereFields = new Set(conditionsOf(query.where).map((c) => c.field));
  const named = conjuncts(query.where).find((w): w is Extract<Where, { op: 'eq' }> => w.op === 'eq' && w.field === 'name');
  const oneOnly = (fields: Iterable<string>): string[] => [...new Set(fields)].filter((f) => ONE_APPLICATION_ONLY.has(f));
  if (named !== undefined && (query.what.kind === 'fields' || oneOnly(whereFields).length > 0)) {
    // One named application: read it whole (history, conditions and messages are only there).
    // A name Argo CD does not know is a not_found tool error, as get_application answers it.
    const app = await client.getApplication(String(named.value), signal);
    const run = new QueryRun(query, acc, byName);
    run.add(app);
    return outcomeOf(query, run, acc, notes, byName);
  }
  const grouped = query.what.kind === 'breakdown' ? query.what.by : query.what.kind === 'top' ? [query.what.by] : query.what.kind === 'fields' ? query.what.fields : [];
  const names = oneOnly([...whereFields, ...grouped]);
  if (names.length > 0) {
    throw new FlotillaError('invalid_argument', `Argo CD's application list does not carry ${names.join(', ')}: it can be read for one named application only`, {
      remedy: 'Ask about one application by name (e.g. its history), or leave that field out of a list.',
    });
  }
  const summary = [...whereFields, ...grouped].some((f) => f === 'image' || f === 'external_urls');
  const apps = await client.listApplications({ ...pushdown(query.where), summary }, signal);
  const run = new QueryRun(query, acc, byName);
  for (const app of apps) run.add(app);
  return outcomeOf(query, run, acc, notes, byName);
}

function outcomeOf<T extends Application | Cluster | Project | ApplicationSet>(query: Query, run: QueryRun<T>, acc: Accessors<T>, notes: string[], shown: Partial<Accessors<T>> = {}): ToolPayload {
  return queryOutcome(query, run, {
    domain: ARGOCD_DOMAIN,
    accessors: acc,
    shown,
    notes,
    project: (item, fields) => (query.entity === 'applications' ? projectApplication(item as Application, fields, acc as Accessors<Application>) : projectPlain(item, fields, acc)),
  });
}

/** An object's asked-for fields, as its accessors read them (clusters, projects, application sets). */
function projectPlain<T>(item: T, fields: readonly string[], acc: Accessors<T>): JsonObject {
  const name = acc.name?.(item);
  const out: JsonObject = { name: typeof name === 'string' ? name : '' };
  for (const f of fields) out[f] = valueOut(acc[f]?.(item), false);
  return out;
}

async function runOthers(query: Query, client: ArgoCdClient, directory: ClusterDirectory, signal: AbortSignal): Promise<ToolPayload> {
  switch (query.entity) {
    case 'clusters': {
      const run = new QueryRun(query, CLUSTER_ACCESSORS);
      for (const c of await client.listClusters(signal)) run.add(c);
      return outcomeOf(query, run, CLUSTER_ACCESSORS, []);
    }
    case 'projects': {
      const clusters = await directory.names(signal);
      const acc = projectAccessors(clusters);
      const notes = clusters.degraded === undefined ? [] : [`Cluster names: ${clusters.degraded}.`];
      const run = new QueryRun(query, acc);
      for (const p of await client.listProjects(signal)) run.add(p);
      return outcomeOf(query, run, acc, notes);
    }
    default: {
      const run = new QueryRun(query, APPSET_ACCESSORS);
      for (const set of await client.listApplicationSets({ selector: labelSelector(query.where, { team: 'team' }) }, signal)) run.add(set);
      return outcomeOf(query, run, APPSET_ACCESSORS, []);
    }
  }
}

export function registerQueryTool(kit: BoundedTools, client: ArgoCdClient, directory: ClusterDirectory): void {
  kit.register({
    name: 'query',
    title: 'Query Argo CD',
    description:
      'One typed query over Argo CD applications, clusters, projects or application sets: where (and/or/not over eq, in, contains, exists, before/after, less/more on fields), ' +
      'what (count; list with limit/offset; breakdown by 1-2 fields; top N groups; compare two groups; named fields of one object such as image, ' +
      'revision, history, conditions). Counts and groups are exact over every matching item. Prefer one query to paging through lists.',
    input: QueryInput,
    output: QUERY_OUTPUT,
    run: async (args, ctx) => {
      const query = args as Query;
      checkQueryFields(ARGOCD_DOMAIN, query, 'Argo CD');
      return query.entity === 'applications' ? await runApplications(query, client, directory, ctx.signal) : await runOthers(query, client, directory, ctx.signal);
    },
  });
}

const ListValuesFilters = listValuesFilters(ARGOCD_QUERY_ENTITIES, FIELD_NAMES, 'Fields of that entity whose values are names (cluster, project, namespace, team...).');

export function registerValuesTool(kit: BoundedTools, client: ArgoCdClient, directory: ClusterDirectory): void {
  kit.registerList({
    name: 'list_values',
    title: 'List the values of Argo CD fields',
    description: 'The distinct values fields take (e.g. every cluster, project, namespace or team of the applications) as {field, value}, one page at a time, from one read of the estate.',
    itemKind: 'values',
    snapshot: true,
    filters: ListValuesFilters,
    item: VALUE_ITEM,
    load: async (filters, ctx) => {
      const fields = valueFields(ARGOCD_DOMAIN, filters.entity, filters.fields);
      const seen = new Map<string, Set<string>>(fields.map((f) => [f, new Set<string>()]));
      const take = (field: string, v: unknown): void => {
        const set = seen.get(field);
        if (set === undefined) return;
        for (const x of Array.isArray(v) ? (v as readonly unknown[]) : [v]) if (typeof x === 'string' && x !== '' && set.size < LIST_VALUES_LIMITS.maxValues) set.add(x);
      };
      if (filters.entity === 'clusters') {
        for (const c of await client.listClusters(ctx.signal)) for (const f of fields) take(f, CLUSTER_ACCESSORS[f]?.(c));
      } else if (filters.entity === 'projects') {
        const acc = projectAccessors(await directory.names(ctx.signal));
        for (const p of await client.listProjects(ctx.signal)) for (const f of fields) take(f, acc[f]?.(p));
      } else if (filters.entity === 'applicationsets') {
        for (const set of await client.listApplicationSets({}, ctx.signal)) for (const f of fields) take(f, APPSET_ACCESSORS[f]?.(set));
      } else {
        const acc = applicationAccessors(await directory.names(ctx.signal), fields.includes('appset') ? await generatedBy(client, ctx.signal) : new Map());
        for (const a of await client.listApplications({}, ctx.signal)) for (const f of fields) take(f, acc[f]?.(a));
      }
      return fields.flatMap((field) => [...(seen.get(field) ?? [])].sort().map((value) => ({ field, value })));
    },
  });
}
