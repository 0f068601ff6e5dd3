import {
  cannotAnswerText,
  countLines,
  helpAnswer,
  markdownTable,
  nextPageAnswer,
  oneValue,
  pageOffset,
  pageShortfall,
  toolErrorText,
  withoutPaging,
  type AgentDomain,
  type Answer,
  type CapabilityIndex,
  type Classification,
  type Entities,
  type ToolCall,
  type ToolResult,
} from '@flotilla/agent-kit';
import { and, type Query } from '@flotilla/query';
import { NEEDS_ATTENTION } from '../query/declare.js';
import { listQueryOf } from './typed-list.js';
import { NOT_HEALTHY, type ArgoIntent } from './intents.js';
import { PRESENTATION } from './presentation.js';
import { planTyped, respondTyped, type TypedQuestion } from './typed.js';

export { PRESENTATION } from './presentation.js';

type Args = Record<string, unknown>;
type ListTool = 'list_applications' | 'search_argocd_resources' | 'list_projects' | 'list_applicationsets' | 'list_clusters' | 'query';

/** What the next turn needs to continue a paged answer or narrow it. */
export interface ArgoMemory {
  readonly tool: ListTool;
  readonly args: Args;
  readonly offset: number;
  readonly total: number;
  /** Where the rows shown end (a whole list shows every row: "next page" then says it was all). */
  readonly end?: number | undefined;
  /** The typed query the answer ran: a follow-up edits it (the conversation keeps the query, not the answer). */
  readonly query?: Query | undefined;
}

const many = (value: Entities[string] | undefined): readonly string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value);

/** Entities that narrow a list; an intent that cannot apply one says so. */
const FILTER_ENTITIES = ['sync', 'health', 'env', 'team', 'project', 'cluster', 'namespace', 'label', 'label_exists', 'repo', 'name_contains', 'name_guess', 'window', 'phase', 'auto_sync', 'connection', 'application', 'query'] as const;
type FilterEntity = (typeof FILTER_ENTITIES)[number];
/** Which filters each intent applies (the rest, when asked for, are reported as not applied). */
const APP_FILTERS: readonly FilterEntity[] = ['sync', 'health', 'env', 'team', 'project', 'cluster', 'namespace', 'label', 'label_exists', 'repo', 'name_contains', 'name_guess', 'window', 'phase', 'auto_sync'];
const APPLIES: Readonly<Record<ArgoIntent, readonly FilterEntity[]>> = {
  list_applications: APP_FILTERS,
  search: [...APP_FILTERS, 'query'],
  attention: ['env', 'team', 'project', 'cluster', 'namespace', 'label', 'label_exists', 'repo', 'name_contains'],
  // One application's own state answers "is it healthy?", "is it in sync?".
  application_details: ['sync', 'health', 'application'],
  // Continuations and help apply nothing new; what they were asked is in their own answer.
  next_page: FILTER_ENTITIES,
  // A typed query accounts for its own words (typed.ts).
  query: FILTER_ENTITIES,
  query_followup: FILTER_ENTITIES,
  help: FILTER_ENTITIES,
  unknown: FILTER_ENTITIES,
};

/** Environments as a label selector term: env=prod, env in (prod,staging), env notin (prod). */
function envSelector(values: readonly string[]): string[] {
  const wanted = values.filter((v) => !v.startsWith('!'));
  const excluded = values.filter((v) => v.startsWith('!')).map((v) => v.slice(1));
  const out: string[] = [];
  if (wanted.length === 1) out.push(`env=${wanted[0] ?? ''}`);
  if (wanted.length > 1) out.push(`env in (${wanted.join(',')})`);
  if (excluded.length > 0) out.push(`env notin (${excluded.join(',')})`);
  return out;
}

/** Filters of list_applications from the entities of a question. */
export function applicationFilters(entities: Entities): Args {
  const selector: string[] = [...envSelector(many(entities.env))];
  const team = oneValue(entities.team);
  if (team !== undefined) selector.push(`team=${team}`);
  selector.push(...many(entities.label), ...many(entities.label_exists));
  const args: Args = {};
  const statuses = (value: Entities[string] | undefined): string | readonly string[] | undefined => (value === undefined ? undefined : typeof value === 'string' ? value : [...value]);
  if (entities.sync !== undefined) args.sync_status = statuses(entities.sync);
  if (entities.health !== undefined) args.health_status = statuses(entities.health);
  if (entities.project !== undefined) args.project = oneValue(entities.project);
  if (entities.cluster !== undefined) args.cluster = typeof entities.cluster === 'string' ? entities.cluster : [...entities.cluster];
  if (entities.namespace !== undefined) args.namespace = oneValue(entities.namespace);
  if (entities.repo !== undefined) args.repo = oneValue(entities.repo);
  if (entities.name_contains !== undefined) args.name_contains = oneValue(entities.name_contains);
  else if (entities.name_guess !== undefined) args.name_contains = oneValue(entities.name_guess);
  const phase = oneValue(entities.phase);
  if (phase !== undefined) args.operation_phase = phase === 'Failed' ? ['Failed', 'Error'] : phase;
  const auto = oneValue(entities.auto_sync);
  if (auto !== undefined) args.auto_sync = auto === 'true';
  const [field, after, before] = many(entities.window);
  if (field !== undefined) {
    if (after !== undefined && after !== '') args[`${field}_after`] = after;
    if (before !== undefined && before !== '') args[`${field}_before`] = before;
  }
  if (selector.length > 0) args.selector = selector.join(',');
  return args;
}

const page = (tool: ListTool, args: Args, offset = 0): ToolCall => ({ tool, args: { ...args, limit: PRESENTATION.pageRows, offset } });

const HELP_OPTIONS = ['which apps are out of sync in prod?', 'what needs attention?', 'find payments', 'status of <application>', 'list clusters'];

const when = (iso: unknown): string => (typeof iso === 'string' ? iso.replace('T', ' ').replace(/:\d{2}Z$/, ' UTC').replace(/Z$/, ' UTC') : String(iso));

/** A value as text: strings as they are, anything else as JSON. */
const scalar = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/** The filters of a call, as a person reads them: "sync OutOfSync, health not Healthy, cluster prod-eu-1". */
export function describeFilters(args: Args): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (['limit', 'offset', 'refresh'].includes(key) || value === undefined) continue;
    const list = Array.isArray(value) ? value.map((v) => scalar(v)) : undefined;
    const text = scalar(value);
    switch (key) {
      case 'health_status':
        {
          // "health not Healthy" reads better than five statuses: name the complement when it is shorter.
          const all = ['Healthy', ...NOT_HEALTHY];
          const missing = all.filter((s) => list !== undefined && !list.includes(s));
          parts.push(list !== undefined && missing.length > 0 && missing.length < list.length ? `health not ${missing.join(' or ')}` : `health ${list?.join(' or ') ?? text}`);
        }
        break;
      case 'sync_status':
        parts.push(`sync ${list?.join(' or ') ?? text}`);
        break;
      case 'operation_phase':
        parts.push(`last sync ${list?.join(' or ') ?? text}`);
        break;
      case 'name_contains':
        parts.push(`name contains "${text}"`);
        break;
      case 'auto_sync':
        parts.push(value === true ? 'auto-sync on' : 'auto-sync off');
        break;
      case 'last_sync_after':
        parts.push(`last sync finished since ${when(value)}`);
        break;
      case 'last_sync_before':
        parts.push(`last sync finished before ${when(value)}`);
        break;
      case 'created_after':
        parts.push(`created since ${when(value)}`);
        break;
      case 'created_before':
        parts.push(`created before ${when(value)}`);
        break;
      default:
        parts.push(`${key.replace(/_status$/, '')} ${list?.join(', ') ?? text}`);
    }
  }
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  return markdownTable(rows, columns, (v) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)));
}

const COLUMNS: Readonly<Record<ListTool, readonly string[]>> = {
  list_applications: ['name', 'project', 'sync', 'health', 'cluster'],
  search_argocd_resources: ['type', 'name', 'matched'],
  list_projects: ['name', 'description', 'destinations_total'],
  list_applicationsets: ['name', 'project', 'generators', 'applications'],
  list_clusters: ['name', 'server', 'version', 'connection', 'applications'],
  query: ['name', 'project', 'sync', 'health', 'cluster', 'namespace'],
};

/** Columns a filter adds to the table, so what was asked is visible in each row. */
function columnsFor(tool: ListTool, args: Args): readonly string[] {
  const base = COLUMNS[tool];
  if (tool !== 'list_applications') return base;
  const extra: string[] = [];
  if (args.last_sync_after !== undefined || args.last_sync_before !== undefined) extra.push('last_sync');
  if (args.operation_phase !== undefined || args.last_sync_after !== undefined) extra.push('operation');
  if (args.namespace !== undefined) extra.push('namespace');
  return [...base, ...extra];
}

const errorText = (result: ToolResult): string => toolErrorText(result.body);

/** The sensible follow-ups of a list: narrowing by what it does not filter on yet (applications only). */
function listOptions(tool: ListTool, args: Args, more: boolean): string[] {
  const options = more ? ['next page'] : [];
  if (tool !== 'list_applications') return options;
  if (args.sync_status === undefined) options.push('only the out-of-sync ones');
  if (args.health_status === undefined) options.push('only the unhealthy ones');
  return options;
}

interface ListView {
  readonly what: string;
  /** A count question: the number leads, rows only when few. */
  readonly count?: boolean | undefined;
  /** "per cluster": the counts by this key, in full. */
  readonly groupBy?: string | undefined;
  /** Every name the filters compare is one the estate holds (the typed reading checked them): none is misspelt. */
  readonly namesKnown?: boolean | undefined;
}

const SINGULAR: Readonly<Record<string, string>> = { applications: 'application', projects: 'project', clusters: 'cluster', 'application sets': 'application set', matches: 'match', results: 'result' };
/** "1 application", "2 applications". */
const counted = (n: number, what: string): string => `${n} ${n === 1 ? (SINGULAR[what] ?? what) : what}`;

/** A list answer: whole when 50 or fewer, else "Page p of N (X items)", a summary, 20 rows and how to go on. */
function listAnswer(tool: ListTool, args: Args, results: readonly ToolResult[], view: ListView): Answer<ArgoMemory> {
  const { what } = view;
  const first = results[0];
  if (first === undefined) return { text: 'Nothing came back.', options: [], memory: undefined };
  if (first.isError) return { text: `I could not list ${what}: ${errorText(first)}`, options: HELP_OPTIONS.slice(0, 3), memory: undefined };
  const total = Number(first.body.total ?? 0);
  const offset = Number(first.body.offset ?? 0);
  const rows = results.filter((r) => !r.isError).flatMap((r) => (Array.isArray(r.body.items) ? (r.body.items as Record<string, unknown>[]) : []));
  const filters = describeFilters(args);
  const columns = columnsFor(tool, args);
  const notes = (Array.isArray(first.body.notes) ? (first.body.notes as unknown[]) : []).filter((n): n is string => typeof n === 'string');
  const noteText = notes.length === 0 ? '' : `${notes.map((n) => `Note: ${n}`).join('\n')}\n`;
  const memory: ArgoMemory = { tool, args, offset, total };
  if (total === 0) {
    // Names and label values are compared exactly: a misspelt one matches nothing, and the answer must say so.
    const exact = ['project', 'namespace', 'cluster', 'selector', 'repo', 'name_contains'].filter((k) => args[k] !== undefined);
    const check =
      exact.length === 0
        ? ''
        : view.namesKnown === true
          ? ` Every name in it is one Argo CD has: no ${SINGULAR[what] ?? what} matches all of it.`
          : ` I could not find any: ${exact.map((k) => `${k.replace(/_/g, ' ')} ${scalar(args[k])}`).join(', ')} may be misspelt (names and label values are compared exactly).`;
    // An empty list is still a list: "what about staging?" edits its query.
    return { text: `0 ${what} match${filters}.${check}\n${noteText}`.trimEnd(), options: tool === 'list_applications' ? ['list all applications', 'what needs attention?'] : [], memory: { ...memory, end: 0 } };
  }
  const capped = first.body.search !== undefined && (first.body.search as { capped?: boolean }).capped === true;
  const head = capped ? `The search stopped at ${total} matches; narrow it for a complete answer.\n` : '';
  const counts = first.body.counts as Record<string, Record<string, number>> | undefined;
  if (view.groupBy !== undefined && offset === 0) {
    const key = `by_${view.groupBy}`;
    const grouped = counts?.[key];
    const folded = grouped === undefined ? undefined : Object.keys(grouped).find((k) => k.endsWith(' others)'));
    const lines =
      grouped === undefined
        ? `I can't break ${what} down by ${view.groupBy}: the list has no such count.`
        : table(Object.entries(grouped).map(([k, n]) => ({ [view.groupBy ?? 'key']: k, [what]: n })), [view.groupBy, what]);
    // Said first: a breakdown that leaves groups out must not read as complete.
    const partial = folded === undefined ? '' : ` (I can't show every group: the ${folded.replace(/[()]/g, '')} smaller ones are added up in the "others" line; narrow the question to see them)`;
    return { text: `${head}${counted(total, what)}${filters}, by ${view.groupBy}${partial}:\n${noteText}${lines}`, options: ['list them'], memory: { ...memory, end: 0 } };
  }
  if (view.count === true && offset === 0) {
    const shown = total <= PRESENTATION.countRowsMax && rows.length >= total ? `\n${table(rows, columns)}` : '';
    return {
      text: `${head}${counted(total, what)}${filters}.\n${noteText}${countLines(counts)}${shown}`.trimEnd(),
      options: total > PRESENTATION.countRowsMax ? ['list them'] : [],
      // Rows shown: all of a short count, none of a long one ("list them" and "next page" start at row 1).
      memory: { ...memory, end: shown === '' ? 0 : total },
    };
  }
  if (total <= PRESENTATION.showWholeMax && offset === 0 && rows.length >= total) {
    return { text: `${head}${counted(total, what)}${filters}:\n${noteText}${countLines(counts)}${table(rows, columns)}`, options: listOptions(tool, args, false), memory: { ...memory, end: total } };
  }
  const pages = Math.ceil(total / PRESENTATION.pageRows);
  const shown = rows.slice(0, PRESENTATION.pageRows);
  const pageNo = Math.floor(offset / PRESENTATION.pageRows) + 1;
  const end = offset + shown.length;
  const more = end < total;
  const text =
    `${head}Page ${pageNo} of ${pages} (${total} ${what}${filters}), rows ${offset + 1}-${end}.\n` +
    `${noteText}${pageNo === 1 ? countLines(counts) : ''}${table(shown, columns)}\n` +
    (more ? `Say "next page" for rows ${end + 1}-${Math.min(end + PRESENTATION.pageRows, total)}${tool === 'list_applications' ? ', or narrow it (e.g. "only the out-of-sync ones")' : ''}.` : 'That is the last page.');
  return { text, options: listOptions(tool, args, more), memory: { ...memory, end } };
}


function detailsAnswer(results: readonly ToolResult[], wantsLogs: boolean): Answer<ArgoMemory> {
  const result = results.find((r) => r.call.tool === 'get_application');
  if (result === undefined) return { text: 'Nothing came back.', options: [], memory: undefined };
  if (result.isError) return { text: `I could not get that application: ${errorText(result)}`, options: ['find <part of the name>'], memory: undefined };
  const s = (result.body.summary ?? {}) as Record<string, unknown>;
  const sync = (s.sync ?? {}) as Record<string, unknown>;
  const health = (s.health ?? {}) as Record<string, unknown>;
  const op = { ...((s.last_operation ?? {}) as Record<string, unknown>), ...((result.body.operation ?? {}) as Record<string, unknown>) };
  const conditions = ((result.body.conditions as { items?: Record<string, unknown>[] } | undefined)?.items ?? []).filter((c) => typeof c.type === 'string');
  const resources = (result.body.resources ?? {}) as { total?: number; items?: Record<string, unknown>[] };
  const problems = (resources.items ?? []).filter((r) => r.sync !== 'Synced' || (r.health !== undefined && r.health !== 'Healthy'));
  const name = String(s.name);
  const lines = [
    `${name} (project ${String(s.project)})`,
    `Sync: ${String(sync.status)}${typeof sync.revision === 'string' ? ` at ${sync.revision.slice(0, 8)}` : ''}; health: ${String(health.status)}${typeof health.message === 'string' ? ` (${health.message})` : ''}`,
    `Source: ${String(s.repo)} ${String((s.path as string | undefined) ?? '')} @ ${String((s.revision as string | undefined) ?? '')}`,
    `Destination: ${String(s.cluster)} / ${String((s.namespace as string | undefined) ?? '')}`,
    `Last sync: ${String((op.phase as string | undefined) ?? 'unknown')}${typeof op.finished_at === 'string' ? ` at ${op.finished_at}` : ''}${typeof op.initiated_by === 'string' ? ` by ${op.initiated_by}` : ''}${typeof op.message === 'string' && op.phase !== 'Succeeded' ? `: ${op.message}` : ''}`,
  ];
  for (const c of conditions) lines.push(`Condition ${scalar(c.type)}: ${scalar(c.message ?? '')}`);
  lines.push(
    problems.length === 0
      ? `Resources: ${resources.total ?? 0}, all synced and healthy.`
      : `Resources not synced or not healthy (${problems.length} of ${resources.total ?? 0}):\n${table(problems.slice(0, PRESENTATION.partRows), ['kind', 'name', 'sync', 'health', 'message'])}`,
  );
  lines.push(...diagnosis(results, wantsLogs));
  const healthy = health.status === 'Healthy' && sync.status === 'Synced' && conditions.length === 0;
  const options = healthy || wantsLogs ? ['what needs attention?'] : [`logs of ${name}`, 'what needs attention?'];
  return { text: lines.join('\n'), options, memory: undefined };
}

const rowsOf = (r: ToolResult | undefined): Record<string, unknown>[] => (r === undefined || r.isError || !Array.isArray(r.body.items) ? [] : (r.body.items as Record<string, unknown>[]));

/** The rest of a "what's wrong" answer: unhealthy resources in the tree, warning events, a log excerpt. */
function diagnosis(results: readonly ToolResult[], wantsLogs: boolean): string[] {
  const out: string[] = [];
  const find = (tool: string) => results.filter((r) => r.call.tool === tool);
  const failed = results.filter((r) => r.isError && r.call.tool !== 'get_application');
  for (const r of failed) out.push(`I could not read ${r.call.tool.replace(/^get_/, '').replace(/_/g, ' ')}: ${errorText(r)}`);
  const tree = rowsOf(find('get_resource_tree')[0]).filter((n) => n.health !== undefined && n.health !== 'Healthy');
  if (tree.length > 0) {
    const columns = ['kind', 'name', 'health', 'status', 'health_message'].filter((c) => tree.some((row) => row[c] !== undefined));
    out.push(`Not healthy in the resource tree:\n${table(tree.slice(0, PRESENTATION.diagnosisRows), columns)}`);
  }
  const events = find('get_application_events')
    .concat(find('get_resource_events'))
    .flatMap((r) => rowsOf(r))
    .slice(0, PRESENTATION.diagnosisRows);
  if (events.length > 0) out.push(`Recent warning events:\n${table(events, ['last_seen', 'object', 'reason', 'message'].filter((c) => events.some((row) => row[c] !== undefined)))}`);
  const logs = find('get_logs')[0];
  if (logs !== undefined && !logs.isError) {
    // Newest first as read (a budget cut drops the oldest), shown in time order.
    const lines = rowsOf(logs).slice(0, PRESENTATION.logLines).reverse();
    const total = Number(logs.body.total ?? lines.length);
    const pod = scalar(logs.call.args.pod ?? logs.call.args.resource_name ?? '');
    const text = lines.map((l) => (typeof l.content === 'string' ? l.content : typeof l.line === 'string' ? l.line : JSON.stringify(l))).join('\n');
    out.push(
      lines.length === 0
        ? `The log of ${pod} has no lines in the window read.`
        : `The newest ${lines.length}${total > lines.length ? ` of ${total}` : ''} log lines read from ${pod}:\n\`\`\`\n${text}\n\`\`\``,
    );
  } else if (wantsLogs && logs === undefined) {
    const read = find('get_resource_tree')[0];
    out.push(
      read === undefined || read.isError
        ? 'I did not show logs: I could not read the resource tree to find a pod.'
        : `I did not show logs: no pod among the first ${rowsOf(read).length} resources of its tree (unhealthy first).`,
    );
  }
  return out;
}

/** Entities the intent did not apply, as the answer states them. */
function unappliedFilters(c: Classification<ArgoIntent>): string[] {
  const applies = new Set<string>(APPLIES[c.intent]);
  const out: string[] = [];
  for (const name of FILTER_ENTITIES) {
    const value = c.entities[name];
    if (value === undefined || applies.has(name)) continue;
    // The name a search looks for is read as both; the search applies it.
    if (name === 'application' && c.intent === 'search' && oneValue(value) === oneValue(c.entities.query)) continue;
    out.push(`${name.replace(/_/g, ' ')} ${typeof value === 'string' ? value : value.filter((v) => v !== '').join(' ')}`);
  }
  return out;
}

/** What the answer must say it did not do beyond the words not understood (the workflow says those): filters not applied. */
function accountingNote(c: Classification<ArgoIntent> | undefined): string {
  if (c === undefined) return '';
  const parts: string[] = [];
  const unapplied = unappliedFilters(c);
  if (unapplied.length > 0) parts.push(`I did not apply ${unapplied.join('; ')}: ${c.intent.replace(/_/g, ' ')} has no such filter.`);
  if (c.entities.diagnose !== undefined && c.intent !== 'application_details') {
    parts.push(`I can say what is wrong with one application (ask "what's wrong with <name>"); this answer does not explain why.`);
  }
  return parts.join(' ');
}

/** A list question with nothing understood to filter by but words left over: ask rather than list everything. */
const LIST_INTENTS: readonly ArgoIntent[] = ['list_applications', 'search'];

function nothingUnderstood(c: Classification<ArgoIntent>, args: Args): boolean {
  return LIST_INTENTS.includes(c.intent) && (c.unused ?? []).length > 0 && Object.keys(args).length === 0 && c.entities.count === undefined && c.entities.group_by === undefined;
}

export interface ArgoCdDomainOptions {
  /** Whether the agent's MCP server offers a tool; diagnosis calls are planned only for tools that exist (all by default). */
  readonly hasTool?: ((name: string) => boolean) | undefined;
}

/** The Argo CD domain: plans, follow-ups and presentation rules. */
export function createArgoCdDomain(options: ArgoCdDomainOptions = {}): AgentDomain<ArgoIntent, ArgoMemory> {
  const has = (tool: string): boolean => options.hasTool === undefined || options.hasTool(tool);
  return {
    plan(c: Classification<ArgoIntent>, memory: ArgoMemory | undefined): readonly ToolCall[] {
      const e = c.entities;
      const filters = applicationFilters(e);
      if (nothingUnderstood(c, filters)) return [];
      switch (c.intent) {
        case 'list_applications':
          return [page('list_applications', filters)];
        case 'attention': {
          const scope = Object.fromEntries(Object.entries(filters).filter(([k]) => !['sync_status', 'health_status', 'operation_phase', 'auto_sync'].includes(k) && !k.startsWith('last_sync') && !k.startsWith('created')));
          return [page('list_applications', { ...scope, sync_status: 'OutOfSync' }), page('list_applications', { ...scope, health_status: [...NOT_HEALTHY] })];
        }
        case 'application_details': {
          const name = oneValue(e.application);
          const diagnostic = e.diagnose !== undefined || e.health !== undefined || e.sync !== undefined;
          const calls: ToolCall[] = [{ tool: 'get_application', args: { name, sections: diagnostic ? ['summary', 'resources', 'conditions', 'operation'] : ['summary', 'resources'] } }];
          // The tree comes unhealthy first: its first rows are the resources to look at.
          if (diagnostic && has('get_resource_tree')) calls.push({ tool: 'get_resource_tree', args: { name, limit: PRESENTATION.diagnosisRows } });
          if (diagnostic && has('get_application_events')) calls.push({ tool: 'get_application_events', args: { name, type: 'Warning', limit: PRESENTATION.diagnosisRows } });
          return calls;
        }
        case 'search': {
          const query = oneValue(e.query);
          // "find payments in prod": a search cannot filter; the application list can, by name.
          if (Object.keys(filters).length > 0 && query !== undefined) return [page('list_applications', { ...filters, name_contains: query })];
          return [page('search_argocd_resources', { query, ...(e.apps_only === undefined ? {} : { resource_types: ['application'] }) })];
        }
        case 'next_page': {
          if (memory === undefined) return [];
          const offset = pageOffset(oneValue(e.page), { shown: memory.offset, next: memory.end ?? memory.offset + PRESENTATION.pageRows, size: PRESENTATION.pageRows });
          return offset >= memory.total ? [] : [page(memory.tool, memory.args, offset)];
        }
        case 'query':
        case 'query_followup':
          return planTyped(typedQuestion(c), memory?.query, shownOf(memory)).calls;
        case 'help':
        case 'unknown':
          return [];
      }
    },

    followUp(c, results) {
      if (c.intent === 'application_details') {
        // The diagnosis's second step: the first unhealthy pod's warning events, and its log when asked for.
        if (results.some((r) => r.call.tool === 'get_resource_events' || r.call.tool === 'get_logs')) return [];
        const tree = results.find((r) => r.call.tool === 'get_resource_tree');
        const pod = rowsOf(tree).find((n) => n.kind === 'Pod' && n.health !== undefined && n.health !== 'Healthy') ?? rowsOf(tree).find((n) => n.kind === 'Pod');
        if (pod === undefined || typeof pod.name !== 'string') return [];
        const name = tree?.call.args.name;
        const calls: ToolCall[] = [];
        if (has('get_resource_events')) calls.push({ tool: 'get_resource_events', args: { name, resource_kind: 'Pod', resource_name: pod.name, ...(typeof pod.namespace === 'string' ? { resource_namespace: pod.namespace } : {}), type: 'Warning', limit: PRESENTATION.podEvents } });
        if (oneValue(c.entities.diagnose) === 'logs' && has('get_logs')) {
          calls.push({ tool: 'get_logs', args: { name, pod: pod.name, ...(typeof pod.namespace === 'string' ? { namespace: pod.namespace } : {}), tail_lines: PRESENTATION.logLines, limit: PRESENTATION.logLines } });
        }
        return calls;
      }
      // The token budget may cut a tool page short: fetch what is missing from the rows this answer shows
      // (all of a list of 50 or fewer, else a page of 20).
      if (['attention', 'help', 'unknown'].includes(c.intent)) return [];
      const missing = pageShortfall(results, (start, total) => (total <= PRESENTATION.showWholeMax && start === 0 ? total : Math.min(total, start + PRESENTATION.pageRows)));
      return missing === undefined ? [] : [{ tool: missing.first.call.tool, args: { ...missing.first.call.args, offset: missing.offset, limit: Math.min(100, missing.limit) } }];
    },

    respond({ classification: c, results, limitations, memory, capabilities }): Answer<ArgoMemory> {
      if (c === undefined || limitations.length > 0 || c.intent === 'unknown') {
        return {
          text: cannotAnswerText(
            c,
            'I can list and filter Argo CD applications (by project, sync, health, cluster, namespace, label, repository, name, time of the last sync), show one application and what is wrong with it, search across applications, projects, application sets and clusters, and page through any long answer.',
          ),
          options: HELP_OPTIONS,
          memory,
        };
      }
      if (c.intent === 'query' || c.intent === 'query_followup') {
        const typed = typedQuestion(c);
        const { query, carried } = planTyped(typed, memory?.query, shownOf(memory));
        return respondTyped<ArgoMemory>(typed, results, query, carried, (q, total, offset, end) => ({ tool: 'query', args: { ...q }, offset, total, end, query: q }), memory);
      }
      const note = accountingNote(c);
      const answer = respondTo(c, results, memory, capabilities);
      if (note === '') return answer;
      return { ...answer, text: `${note}\n${answer.text}`, data: { ...(answer.data ?? {}), not_applied: unappliedFilters(c) } };
    },
  };
}

function respondTo(
  c: Classification<ArgoIntent>,
  results: readonly ToolResult[],
  memory: ArgoMemory | undefined,
  capabilities: CapabilityIndex | undefined,
): Answer<ArgoMemory> {
  if (results.length === 0 && nothingUnderstood(c, applicationFilters(c.entities))) {
    return {
      text: `I can't answer that as asked, so I did not run it. I can filter ${c.intent === 'list_applications' ? 'applications' : 'these lists'} by project, sync, health, cluster, namespace, label, repository, name and the time of the last sync.`,
      options: HELP_OPTIONS.slice(0, 3),
      memory,
    };
  }
  const view = { count: c.entities.count !== undefined, groupBy: oneValue(c.entities.group_by), namesKnown: c.entities.names_known === 'yes' };
  switch (c.intent) {
    case 'help':
      return helpAnswer('Argo CD', capabilities, HELP_OPTIONS, memory);
    case 'list_applications': {
      const call = results[0]?.call;
      const tool = call?.tool === undefined ? 'list_applications' : (call.tool as ListTool);
      return listAnswer(tool, withoutPaging(call?.args), results, { ...view, what: tool === 'list_applications' ? 'applications' : 'results' });
    }
    case 'next_page':
      return nextPageAnswer(memory, results, {
        nothingYet: 'There is no list to continue yet: ask for one first (e.g. "list all applications").',
        examples: HELP_OPTIONS,
        ended: (m) => (m.total === 0 ? 'No more: that list was empty.' : m.offset === 0 && (m.end ?? 0) >= m.total ? `No more: that was all ${m.total}, shown whole.` : `That was the last page (${m.total} items).`),
        next: (m) => listAnswer(m.tool, m.args, results, { what: m.tool === 'list_applications' ? 'applications' : 'results' }),
      });
    case 'search': {
      const call = results[0]?.call;
      if (call?.tool === 'list_applications') return listAnswer('list_applications', withoutPaging(call.args), results, { ...view, what: 'applications' });
      return listAnswer('search_argocd_resources', withoutPaging(call?.args), results, { ...view, what: 'matches' });
    }
    case 'application_details':
      return detailsAnswer(results, oneValue(c.entities.diagnose) === 'logs');
    case 'attention': {
      const [outOfSync, unhealthy] = results;
      const scope = describeFilters(Object.fromEntries(Object.entries(withoutPaging(outOfSync?.call.args)).filter(([k]) => k !== 'sync_status')));
      const part = (r: ToolResult | undefined, label: string): string => {
        if (r === undefined) return '';
        if (r.isError) return `${label}: ${errorText(r)}`;
        const rows = (r.body.items as Record<string, unknown>[] | undefined) ?? [];
        const total = Number(r.body.total ?? 0);
        return `${label}: ${total}${total > PRESENTATION.partRows ? ` (first ${PRESENTATION.partRows})` : ''}\n${table(rows.slice(0, PRESENTATION.partRows), COLUMNS.list_applications)}`;
      };
      return {
        text: `${scope === '' ? '' : `Applications${scope}.\n`}${part(outOfSync, 'Out of sync')}\n\n${part(unhealthy, 'Not healthy')}`,
        options: ['only the out-of-sync ones', 'only the unhealthy ones'],
        memory: outOfSync === undefined ? memory : attentionMemory(outOfSync, unhealthy),
      };
    }
    case 'unknown':
    case 'query':
    case 'query_followup':
      return { text: "I can't answer that.", options: HELP_OPTIONS, memory };
  }
}

/**
 * What an attention answer leaves for a follow-up: the applications it is about, in its scope, out of sync or not
 * healthy, as one typed query ("only the unhealthy ones in prod" narrows both lists, "next page" pages them as one).
 * A scope the query cannot say keeps the out-of-sync list, paged by its tool.
 */
function attentionMemory(outOfSync: ToolResult, unhealthy: ToolResult | undefined): ArgoMemory {
  const args = withoutPaging(outOfSync.call.args);
  const total = Number(outOfSync.body.total ?? 0) + Number(unhealthy?.body.total ?? 0);
  const scope = listQueryOf(Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'sync_status')));
  if (scope === undefined) return { tool: 'list_applications', args, offset: 0, total: Number(outOfSync.body.total ?? 0) };
  const where = and(scope.where, NEEDS_ATTENTION);
  const query: Query = { entity: 'applications', ...(where === undefined ? {} : { where }), what: { kind: 'list' } };
  return { tool: 'query', args: { ...query }, offset: 0, end: 0, total, query };
}

/** Where the rows the last answer showed start and end. */
const shownOf = (memory: ArgoMemory | undefined): { offset: number; end: number } => ({ offset: memory?.offset ?? 0, end: memory?.end ?? memory?.offset ?? 0 });

/** The typed reading the classifier put in the `typed_query` entity. */
function typedQuestion(c: Classification<ArgoIntent>): TypedQuestion {
  return JSON.parse(oneValue(c.entities.typed_query) ?? '{}') as TypedQuestion;
}

/** The domain with every tool assumed present. */
export const argoCdDomain = createArgoCdDomain();
