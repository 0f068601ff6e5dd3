import { countLines, helpText, markdownTable, toolErrorText, type AgentDomain, type Answer, type Classification, type Entities, type ToolCall, type ToolResult } from '@flotilla/agent-kit';
import type { ArgoIntent } from './intents.js';

/** Presentation rules of the design note, applied by code. */
export const PRESENTATION = {
  /** Up to this many items an answer shows them all. */
  showWholeMax: 50,
  /** Above it: a page of this many rows, a summary, and how to continue. */
  pageRows: 20,
} as const;

type Args = Record<string, unknown>;
type ListTool = 'list_applications' | 'search_argocd_resources' | 'list_projects' | 'list_applicationsets' | 'list_clusters';

/** What the next turn needs to continue a paged answer or narrow it. */
export interface ArgoMemory {
  readonly tool: ListTool;
  readonly args: Args;
  readonly offset: number;
  readonly total: number;
}

const one = (value: Entities[string] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

/** Filters of list_applications from the entities of a question. */
function applicationFilters(entities: Entities): Args {
  const selector: string[] = [];
  const env = one(entities.env);
  const team = one(entities.team);
  if (env !== undefined) selector.push(`env=${env}`);
  if (team !== undefined) selector.push(`team=${team}`);
  const labels = entities.label;
  if (labels !== undefined) selector.push(...(typeof labels === 'string' ? [labels] : labels));
  const args: Args = {};
  if (entities.sync !== undefined) args.sync_status = one(entities.sync);
  if (entities.health !== undefined) args.health_status = one(entities.health);
  if (entities.project !== undefined) args.project = one(entities.project);
  if (entities.cluster !== undefined) args.cluster = one(entities.cluster);
  if (entities.namespace !== undefined) args.namespace = one(entities.namespace);
  if (selector.length > 0) args.selector = selector.join(',');
  return args;
}

const page = (tool: ListTool, args: Args, offset = 0): ToolCall => ({ tool, args: { ...args, limit: PRESENTATION.pageRows, offset } });

const HELP_OPTIONS = ['which apps are out of sync in prod?', 'what needs attention?', 'find payments', 'status of <application>', 'list clusters'];

function describeFilters(args: Args): string {
  const parts = Object.entries(args)
    .filter(([k]) => !['limit', 'offset'].includes(k))
    .map(([k, v]) => `${k.replace(/_status$/, '')} ${String(v as string)}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** A cluster as people name it: "prod-eu-1" for https://prod-eu-1.k8s.example.internal, in-cluster for the local API. */
function shortCluster(value: string): string {
  if (!/^https?:\/\//.test(value)) return value;
  const host = value.replace(/^https?:\/\//, '').split(/[/:]/)[0] ?? value;
  return host === 'kubernetes.default.svc' ? 'in-cluster' : (host.split('.')[0] ?? host);
}

function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  return markdownTable(rows, columns, (v, column) => {
    const text = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
    return column === 'cluster' ? shortCluster(text) : text;
  });
}

const COLUMNS: Readonly<Record<ListTool, readonly string[]>> = {
  list_applications: ['name', 'project', 'sync', 'health', 'cluster'],
  search_argocd_resources: ['type', 'name', 'matched'],
  list_projects: ['name', 'description', 'destinations_total'],
  list_applicationsets: ['name', 'project', 'generators', 'applications'],
  list_clusters: ['name', 'server', 'version', 'connection', 'applications'],
};

const summary = (counts: unknown): string => countLines(counts);

const errorText = (result: ToolResult): string => toolErrorText(result.body);

/** A list answer: whole when 50 or fewer, else "Page p of N (X items)", a summary, 20 rows and how to go on. */
function listAnswer(tool: ListTool, args: Args, results: readonly ToolResult[], what: string): Answer<ArgoMemory> {
  const first = results[0];
  if (first === undefined) return { text: 'Nothing came back.', options: [], memory: undefined };
  if (first.isError) return { text: `I could not list ${what}: ${errorText(first)}`, options: HELP_OPTIONS.slice(0, 3), memory: undefined };
  const total = Number(first.body.total ?? 0);
  const offset = Number(first.body.offset ?? 0);
  const rows = results.filter((r) => !r.isError).flatMap((r) => (Array.isArray(r.body.items) ? (r.body.items as Record<string, unknown>[]) : []));
  const filters = describeFilters(args);
  if (total === 0) return { text: `No ${what} match${filters}.`, options: ['list all applications', 'what needs attention?'], memory: undefined };
  const capped = first.body.search !== undefined && (first.body.search as { capped?: boolean }).capped === true;
  const head = capped ? `The search stopped at ${total} matches; narrow it for a complete answer.\n` : '';
  if (total <= PRESENTATION.showWholeMax && offset === 0 && rows.length >= total) {
    return { text: `${head}${total} ${what}${filters}:\n${summary(first.body.counts)}${table(rows, COLUMNS[tool])}`, options: [], memory: { tool, args, offset: 0, total } };
  }
  const pages = Math.ceil(total / PRESENTATION.pageRows);
  const shown = rows.slice(0, PRESENTATION.pageRows);
  const pageNo = Math.floor(offset / PRESENTATION.pageRows) + 1;
  const end = offset + shown.length;
  const more = end < total;
  const text =
    `${head}Page ${pageNo} of ${pages} (${total} ${what}${filters}), rows ${offset + 1}-${end}.\n` +
    `${pageNo === 1 ? summary(first.body.counts) : ''}${table(shown, COLUMNS[tool])}\n` +
    (more ? `Say "next page" for rows ${end + 1}-${Math.min(end + PRESENTATION.pageRows, total)}, or narrow it (e.g. "only the out-of-sync ones").` : 'That is the last page.');
  return { text, options: more ? ['next page', 'only the out-of-sync ones', 'only the degraded ones'] : [], memory: { tool, args, offset, total } };
}

function detailsAnswer(result: ToolResult | undefined): Answer<ArgoMemory> {
  if (result === undefined) return { text: 'Nothing came back.', options: [], memory: undefined };
  if (result.isError) return { text: `I could not get that application: ${errorText(result)}`, options: ['find <part of the name>'], memory: undefined };
  const s = (result.body.summary ?? {}) as Record<string, unknown>;
  const sync = (s.sync ?? {}) as Record<string, unknown>;
  const health = (s.health ?? {}) as Record<string, unknown>;
  const op = (s.last_operation ?? {}) as Record<string, unknown>;
  const resources = (result.body.resources ?? {}) as { total?: number; items?: Record<string, unknown>[] };
  const problems = (resources.items ?? []).filter((r) => r.sync !== 'Synced' || (r.health !== undefined && r.health !== 'Healthy'));
  const lines = [
    `${String(s.name)} (project ${String(s.project)})`,
    `Sync: ${String(sync.status)}${typeof sync.revision === 'string' ? ` at ${sync.revision.slice(0, 8)}` : ''}; health: ${String(health.status)}${typeof health.message === 'string' ? ` (${health.message})` : ''}`,
    `Source: ${String(s.repo)} ${String((s.path as string | undefined) ?? '')} @ ${String((s.revision as string | undefined) ?? '')}`,
    `Destination: ${String(s.cluster)} / ${String((s.namespace as string | undefined) ?? '')}`,
    `Last sync: ${String((op.phase as string | undefined) ?? 'unknown')}${typeof op.finished_at === 'string' ? ` at ${op.finished_at}` : ''}`,
    problems.length === 0
      ? `Resources: ${resources.total ?? 0}, all synced and healthy.`
      : `Resources not synced or not healthy (${problems.length} of ${resources.total ?? 0}):\n${table(problems.slice(0, 10), ['kind', 'name', 'sync', 'health', 'message'])}`,
  ];
  return { text: lines.join('\n'), options: ['history', 'what needs attention?'], memory: undefined };
}

export const argoCdDomain: AgentDomain<ArgoIntent, ArgoMemory> = {
  plan(c: Classification<ArgoIntent>, memory: ArgoMemory | undefined): readonly ToolCall[] {
    const e = c.entities;
    switch (c.intent) {
      case 'list_applications':
        return [page('list_applications', applicationFilters(e))];
      case 'attention':
        return [page('list_applications', { sync_status: 'OutOfSync' }), page('list_applications', { health_status: 'Degraded' })];
      case 'application_details':
        return [{ tool: 'get_application', args: { name: one(e.application), sections: ['summary', 'resources'] } }];
      case 'search':
        return [page('search_argocd_resources', { query: one(e.query) })];
      case 'list_projects':
        return [page('list_projects', {})];
      case 'list_applicationsets':
        return [page('list_applicationsets', {})];
      case 'list_clusters':
        return [page('list_clusters', {})];
      case 'next_page': {
        if (memory === undefined) return [];
        const wanted = one(e.page);
        const offset =
          wanted === 'previous'
            ? Math.max(0, memory.offset - PRESENTATION.pageRows)
            : wanted !== undefined && /^\d+$/.test(wanted)
              ? (Number(wanted) - 1) * PRESENTATION.pageRows
              : memory.offset + PRESENTATION.pageRows;
        return offset >= memory.total ? [] : [page(memory.tool, memory.args, offset)];
      }
      case 'refine':
        return [page(memory?.tool === 'list_applications' || memory === undefined ? 'list_applications' : memory.tool, { ...(memory?.args ?? {}), ...applicationFilters(e) })];
      case 'help':
      case 'unknown':
        return [];
    }
  },

  followUp(c, results) {
    // The token budget may cut a tool page short: fetch what is missing from the rows this answer shows
    // (all of a list of 50 or fewer, else a page of 20).
    if (['application_details', 'attention', 'help', 'unknown'].includes(c.intent)) return [];
    const first = results[0];
    const last = results[results.length - 1];
    if (first === undefined || last === undefined || first.isError || last.isError) return [];
    const total = Number(first.body.total ?? 0);
    const start = Number(first.body.offset ?? 0);
    const next = last.body.next_offset;
    if (typeof next !== 'number') return [];
    const end = total <= PRESENTATION.showWholeMax && start === 0 ? total : Math.min(total, start + PRESENTATION.pageRows);
    return next < end ? [{ tool: first.call.tool, args: { ...first.call.args, offset: next, limit: Math.min(100, end - next) } }] : [];
  },

  respond({ classification: c, results, limitations, memory, capabilities }): Answer<ArgoMemory> {
    if (c === undefined || limitations.length > 0 || c.intent === 'unknown') {
      const guess = c !== undefined && c.confidence > 0 ? ` (my best guess was "${c.intent.replace(/_/g, ' ')}", but I am not sure enough to act on it)` : '';
      return {
        text: `I can't answer that${guess}. I can list and filter Argo CD applications (by project, sync, health, cluster, namespace, label), show one application, search across applications, projects, application sets and clusters, and page through any long answer.`,
        options: HELP_OPTIONS,
        memory,
      };
    }
    switch (c.intent) {
      case 'help':
        return { text: helpText('Argo CD', capabilities), options: HELP_OPTIONS, memory };
      case 'list_applications':
      case 'refine': {
        const call = results[0]?.call;
        return listAnswer(call?.tool === undefined ? 'list_applications' : (call.tool as ListTool), stripPage(call?.args), results, 'applications');
      }
      case 'next_page': {
        if (memory === undefined) return { text: 'There is no list to continue yet: ask for one first (e.g. "list all applications").', options: HELP_OPTIONS.slice(0, 2), memory };
        if (results.length === 0) return { text: `That was the last page (${memory.total} items).`, options: [], memory };
        return listAnswer(memory.tool, memory.args, results, memory.tool === 'list_applications' ? 'applications' : 'results');
      }
      case 'search':
        return listAnswer('search_argocd_resources', stripPage(results[0]?.call.args), results, 'matches');
      case 'list_projects':
        return listAnswer('list_projects', {}, results, 'projects');
      case 'list_applicationsets':
        return listAnswer('list_applicationsets', {}, results, 'application sets');
      case 'list_clusters':
        return listAnswer('list_clusters', {}, results, 'clusters');
      case 'application_details':
        return detailsAnswer(results[0]);
      case 'attention': {
        const [outOfSync, degraded] = results;
        const part = (r: ToolResult | undefined, label: string): string => {
          if (r === undefined) return '';
          if (r.isError) return `${label}: ${errorText(r)}`;
          const rows = (r.body.items as Record<string, unknown>[] | undefined) ?? [];
          return `${label}: ${String(r.body.total)}\n${table(rows.slice(0, 10), COLUMNS.list_applications)}`;
        };
        return {
          text: `${part(outOfSync, 'Out of sync')}\n\n${part(degraded, 'Degraded')}`,
          options: ['only the out-of-sync ones', 'only the degraded ones'],
          memory: outOfSync === undefined ? memory : { tool: 'list_applications', args: { sync_status: 'OutOfSync' }, offset: 0, total: Number(outOfSync.body.total ?? 0) },
        };
      }
    }
  },
};

function stripPage(args: Readonly<Record<string, unknown>> | undefined): Args {
  const { limit: _limit, offset: _offset, ...rest } = args ?? {};
  return rest;
}
