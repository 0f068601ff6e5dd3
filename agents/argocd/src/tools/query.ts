import { FlotillaError } from '@flotilla/core';
import { checkQueryFields, conjuncts, cutText as cut, LIST_VALUES_LIMITS, listValuesFilters, queryOutcome, QUERY_OUTPUT, QUERY_OUTPUT_LIMITS, valueFields, valueOut, VALUE_ITEM, type BoundedTools, type JsonObject, type ToolPayload } from '@flotilla/bounded-tools';
import { conditionsOf, querySchema, QueryRun, type Accessors, type Query, type Where } from '@flotilla/query';
import type { ArgoCdClient } from '../client/argocd-client.js';
import type { Application, Cluster } from '../client/schemas.js';
import { ARGOCD_DOMAIN, ARGOCD_QUERY_ENTITIES } from '../query/declare.js';
import type { ClusterDirectory, ClusterNames } from './clusters.js';
import { connectionOf, healthOf, labelPairs, sourcesOf, syncOf } from './views.js';

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

function applicationAccessors(clusters: ClusterNames): Accessors<Application> {
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
  const selector: string[] = [];
  for (const part of conjuncts(where)) {
    const negated = part.op === 'not' ? part.of : undefined;
    const c = negated ?? part;
    if (c.op !== 'eq' && c.op !== 'in') continue;
    const values = (c.op === 'eq' ? [c.value] : c.values).map(String);
    if (c.field === 'project' && negated === undefined && projects.length === 0) projects.push(...values);
    const key = LABEL_FIELDS[c.field];
    if (key !== undefined && values.every((v) => /^[a-z0-9]([\w.-]*[a-z0-9])?$/i.test(v) && v.length <= 63)) {
      selector.push(negated === undefined ? (values.length === 1 ? `${key}=${values[0]}` : `${key} in (${values.join(',')})`) : `${key} notin (${values.join(',')})`);
    }
  }
  return { ...(projects.length === 0 ? {} : { projects }), ...(selector.length === 0 ? {} : { selector: selector.join(',') }) };
}

async function runApplications(query: Query, client: ArgoCdClient, directory: ClusterDirectory, signal: AbortSignal): Promise<ToolPayload> {
  const clusters = await directory.names(signal);
  const acc = applicationAccessors(clusters);
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

function outcomeOf<T extends Application | Cluster>(query: Query, run: QueryRun<T>, acc: Accessors<T>, notes: string[], shown: Partial<Accessors<T>> = {}): ToolPayload {
  return queryOutcome(query, run, {
    domain: ARGOCD_DOMAIN,
    accessors: acc,
    shown,
    notes,
    project: (item, fields) => (query.entity === 'clusters' ? projectCluster(item as Cluster, fields) : projectApplication(item as Application, fields, acc as Accessors<Application>)),
  });
}

function projectCluster(cluster: Cluster, fields: readonly string[]): JsonObject {
  const out: JsonObject = { name: cluster.name ?? cluster.server ?? '' };
  for (const f of fields) {
    const v = CLUSTER_ACCESSORS[f]?.(cluster);
    out[f] = valueOut(v, false);
  }
  return out;
}

export function registerQueryTool(kit: BoundedTools, client: ArgoCdClient, directory: ClusterDirectory): void {
  kit.register({
    name: 'query',
    title: 'Query Argo CD',
    description:
      'One typed query over Argo CD applications or clusters: where (and/or/not over eq, in, contains, exists, before/after, less/more on fields), ' +
      'what (count; list with limit/offset; breakdown by 1-2 fields; top N groups; compare two groups; named fields of one object such as image, ' +
      'revision, history, conditions). Counts and groups are exact over every matching item. Prefer one query to paging through lists.',
    input: QueryInput,
    output: QUERY_OUTPUT,
    run: async (args, ctx) => {
      const query = args as Query;
      checkQueryFields(ARGOCD_DOMAIN, query, 'Argo CD');
      return query.entity === 'clusters'
          ? await (async () => {
              const run = new QueryRun(query, CLUSTER_ACCESSORS);
              for (const c of await client.listClusters(ctx.signal)) run.add(c);
              return outcomeOf(query, run, CLUSTER_ACCESSORS, []);
            })()
          : await runApplications(query, client, directory, ctx.signal);
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
      } else {
        const acc = applicationAccessors(await directory.names(ctx.signal));
        for (const a of await client.listApplications({}, ctx.signal)) for (const f of fields) take(f, acc[f]?.(a));
      }
      return fields.flatMap((field) => [...(seen.get(field) ?? [])].sort().map((value) => ({ field, value })));
    },
  });
}
