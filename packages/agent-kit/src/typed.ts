import type { Answer, CallTool, ToolCall, ToolResult } from './domain.js';
import { markdownTable, toolErrorText } from './present.js';
import { pageOffset } from './paging.js';
import { CLASSIFICATION_MEMO, CONFIDENCE_THRESHOLD, type Classification } from './rules.js';
import { questionParts } from './parts.js';
import { LRUCache } from 'lru-cache';
import {
  applyEdit,
  multiFields,
  createParser,
  describeQuery,
  conditionsOf,
  entityOf,
  fieldOf,
  LEXICON_LIMITS,
  type Lexicon,
  type EditMarks,
  type Parsed,
  type Parser,
  type DomainDecl,
  type LiveValue,
  type EntityDecl,
  type Query,
  type Where,
  type ConversationAct,
  NO_EDIT,
} from '@flotilla/query';
import type { FlotillaMetrics } from '@flotilla/metrics';

/**
 * A domain agent's typed path: a sentence parsed into one query (with the live names of the estate in the lexicon),
 * planned as one `query` tool call, answered by what came back, and said in plain words whenever something was
 * corrected, inferred or carried over. The domain declares its fields (@flotilla/query) and how it says it is
 * read-only; the rest is shared.
 */

/** How many rows a typed answer shows: a list up to `showWholeMax` whole, a longer one `pageRows` at a time. */
export interface TypedPresentation {
  readonly showWholeMax: number;
  readonly pageRows: number;
  /** The domain: which fields hold several values, for follow-ups that refine. */
  readonly domain?: DomainDecl | undefined;
}

/** What the classifier hands the plan: the parse, as JSON in the `typed_query` entity. */
export interface TypedQuestion {
  readonly query: Query | undefined;
  readonly action?: { readonly verb: string; readonly target?: string | undefined; readonly part?: string | undefined } | undefined;
  readonly edit: EditMarks;
  readonly unapplied: readonly string[];
  readonly corrections: readonly { readonly from: string; readonly to: string }[];
  readonly inferred: readonly string[];
  readonly notRead: readonly string[];
  /** "next page", "list them" after a typed answer: the last query's next rows. */
  readonly page?: boolean | undefined;
  /** Which page ("page 3", "first", "previous"); the next one when absent. */
  readonly pageWanted?: string | undefined;
  /** Names the query compares with that the estate does not hold ("team catalogue"): said when nothing matches. */
  readonly unknown?: readonly string[] | undefined;
  /**
   * The query already carries earlier conditions, said as carried over: an earlier part's of the same question
   * (`true`, or `'part'`), or the last answer's (`'last'`: a follow-up of a list the typed path did not answer).
   */
  readonly carried?: boolean | 'part' | 'last' | undefined;
}

/** The parse as the plan takes it; with the lexicon, the names of the query the estate does not hold. */
export function typedOf(parsed: Parsed, lexicon?: Lexicon): TypedQuestion {
  const unknown = lexicon === undefined || parsed.query === undefined ? [] : unknownNames(lexicon, parsed.query);
  return { query: parsed.query, action: parsed.action, edit: parsed.edit, unapplied: parsed.unapplied, corrections: parsed.corrections, inferred: parsed.inferred, notRead: parsed.notRead, ...(unknown.length === 0 ? {} : { unknown }) };
}

/**
 * The values a query compares a live name field with ("team catalogue") that are none of the field's live values,
 * as "<field label> <value>". A field whose values were not read, or were read only up to the lexicon's cap, is not
 * judged.
 */
export function unknownNames(lexicon: Lexicon, query: Query): string[] {
  const entity = lexicon.domain.entities.find((e) => e.name === query.entity);
  if (entity === undefined) return [];
  const out: string[] = [];
  for (const c of conditionsOf(query.where)) {
    if (c.op !== 'eq' && c.op !== 'in') continue;
    const decl = fieldOf(entity, c.field);
    if (decl === undefined || decl.live !== true || decl.type !== 'name' || decl.pattern !== undefined) continue;
    const known = lexicon.valuesOf(entity.name, c.field);
    if (known.length === 0 || known.length >= LEXICON_LIMITS.liveValuesPerField) continue;
    const have = new Set(known);
    // A declared value ("prod" of the environment) is known even when no object holds it yet.
    const declared = new Set((decl.values ?? []).map((v) => v.value.toLowerCase()));
    for (const v of c.op === 'eq' ? [c.value] : c.values) {
      const lower = String(v).toLowerCase();
      if (!have.has(lower) && !declared.has(lower)) out.push(`${decl.label} ${String(v)}`);
    }
  }
  return out;
}

/** Fields whose values the lexicon reads from the estate (the declared `live` ones), by entity. */
const liveFields = (domain: DomainDecl): readonly (readonly [entity: string, fields: readonly string[]])[] => domain.entities.map((e) => [e.name, e.fields.filter((f) => f.live === true && f.liveFrom === undefined).map((f) => f.name)]);

/** The live values of fields that take another field's (`liveFrom`), copied from what was read. */
function shareLive(domain: DomainDecl, values: Record<string, Record<string, LiveValue[]>>): void {
  for (const e of domain.entities) {
    for (const f of e.fields) {
      if (f.live !== true || f.liveFrom === undefined) continue;
      const [from, field] = f.liveFrom.split('.');
      const shared = values[from ?? '']?.[field ?? ''];
      if (shared !== undefined) (values[e.name] ??= {})[f.name] = shared;
    }
  }
}

/** The lexicon's refresh and bounds: pages read per entity (100 values each), how long a lexicon is kept, how long a question waits for the first. */
export const LIVE_LEXICON_LIMITS = { ttlMs: 300_000, retryMs: 10_000, pagesPerEntity: 100, pageSize: 100, firstWaitMs: 2_000 } as const;

/** A parser over the live estate's names, read through the domain's own tools, refreshed on a TTL. */
export function liveParser(
  domain: DomainDecl,
  callTool: CallTool,
  options: {
    readonly clock?: () => number;
    readonly metrics?: FlotillaMetrics | undefined;
    readonly lifetime?: AbortSignal | undefined;
    /** Told each time the live names were read (the agent's card then carries them). */
    readonly onLoad?: ((lexicon: Lexicon) => void) | undefined;
  } = {},
) {
  const clock = options.clock ?? Date.now;
  const LIVE_FIELDS = liveFields(domain);
  let parser: Parser = createParser(domain);
  let loadedAt = Number.NEGATIVE_INFINITY;
  let failedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  let live = false;

  /** Read apart from any turn: a question that is stopped does not stop the lexicon every later question shares. */
  async function load(): Promise<void> {
    const values: Record<string, Record<string, LiveValue[]>> = {};
    let complete = true;
    for (const [entity, fields] of LIVE_FIELDS) {
      if (fields.length === 0) continue;
      const byField: Record<string, LiveValue[]> = (values[entity] = {});
      for (let page = 0; page < LIVE_LEXICON_LIMITS.pagesPerEntity; page += 1) {
        if (options.lifetime?.aborted === true) return;
        const result = await callTool({ tool: 'list_values', args: { entity, fields, limit: LIVE_LEXICON_LIMITS.pageSize, offset: page * LIVE_LEXICON_LIMITS.pageSize } }, options.lifetime);
        if (result.isError) {
          complete = false;
          break;
        }
        for (const item of Array.isArray(result.body.items) ? result.body.items : []) {
          const { field, value, label } = item as { field?: unknown; value?: unknown; label?: unknown };
          if (typeof field === 'string' && typeof value === 'string') (byField[field] ??= []).push(typeof label === 'string' && label !== '' ? { value, label } : value);
        }
        if (result.body.has_more !== true) break;
      }
    }
    shareLive(domain, values);
    parser = createParser(domain, values);
    options.metrics?.storeEntries.set({ store: 'lexicon' }, parser.lexicon.liveCount);
    options.onLoad?.(parser.lexicon);
    live = true;
    if (complete) loadedAt = clock();
    else failedAt = clock();
  }

  return {
    /** The parser, with the live names once they have been read (the first questions wait for them, boundedly). */
    async current(): Promise<Parser> {
      const now = clock();
      const stale = now - loadedAt > LIVE_LEXICON_LIMITS.ttlMs && now - failedAt > LIVE_LEXICON_LIMITS.retryMs;
      if (stale && loading === undefined && options.lifetime?.aborted !== true) {
        loading = load()
          .catch(() => {
            failedAt = clock();
          })
          .finally(() => {
            loading = undefined;
          });
      }
      // Until the estate's names are first read (started with the agent), a question waits for them at most firstWaitMs;
      // after that the declared words alone are the lexicon, and a name-shaped word is read as an application's name.
      if (!live && loading !== undefined) await Promise.race([loading, new Promise((resolve) => setTimeout(resolve, LIVE_LEXICON_LIMITS.firstWaitMs).unref())]);
      return parser;
    },
  };
}

/**
 * The same question (the many askers of a cached answer) parsed once per lexicon, unless its reading depends on the
 * time of asking (a window ending now): bounded like the rules' CLASSIFICATION_MEMO.
 */
export function parseMemo(now: () => number = Date.now): (parser: Parser, question: string) => Parsed {
  const parses = new LRUCache<string, { readonly parser: Parser; readonly parsed: Parsed }>({ max: CLASSIFICATION_MEMO.entries });
  return (parser, question) => {
    const hit = question.length <= CLASSIFICATION_MEMO.maxChars ? parses.get(question) : undefined;
    if (hit !== undefined && hit.parser === parser) return hit.parsed;
    const parsed = parser.parse(question, now());
    if (!parsed.clock && question.length <= CLASSIFICATION_MEMO.maxChars) parses.set(question, { parser, parsed });
    return parsed;
  };
}

/**
 * A conversation act (@flotilla/query `readAct`: "next page", "help") as the workflow's classification of `intent`,
 * with `entities` (the page wanted: `actPage`). Acts are read by their grammar, not by a domain's rules.
 */
export function actTurn<I extends string>(intent: I, entities: Readonly<Record<string, string>> = {}): Classification<I> {
  return { intent, entities, confidence: 0.95, complexity: 'simple', alternatives: [], unused: [], corrected: [] };
}

/**
 * The entity that marks a classification as an edit of the conversation's last list ("only the switches" planned as a
 * device list): a continuation, which hybrid mode sends to the model when the model's list was the last.
 */
export const EDITS_LAST_ENTITY = 'edits_last';

/** A page of the last typed answer ("next page", "page 3"): the same query, paged; it asks nothing of its own. */
export function typedPageTurn<I extends string>(pageWanted: string): Classification<I> {
  return typedTurn<I>({ query: undefined, edit: NO_EDIT, unapplied: [], corrections: [], inferred: [], notRead: [], page: true, pageWanted }, true);
}

/** The page a page act asks for, as `pageOffset` reads it: "next", "previous" or a 1-based page number. */
export function actPage(act: ConversationAct): string | undefined {
  return act.kind === 'page' ? String(act.to) : act.kind === 'all' ? '1' : undefined;
}

/** A typed reading as the workflow's classification: the `query` intent (or `query_followup`), the parse as JSON. */
export function typedTurn<I extends string>(typed: TypedQuestion, followup: boolean): Classification<I> {
  return {
    intent: (followup ? 'query_followup' : 'query') as I,
    entities: { typed_query: JSON.stringify(typed) },
    confidence: 0.95,
    complexity: 'simple',
    alternatives: [],
    unused: [],
    corrected: [],
  };
}

/**
 * A typed reading as hybrid mode's router sees it: the words it did not apply are unused words, so a question read
 * only in part goes to the model (the typed answer would only say what it ignored).
 */
export function typedForRouting<I extends string>(c: Classification<I>): Classification<I> {
  const raw = c.entities.typed_query;
  if (typeof raw !== 'string') return c;
  const typed = JSON.parse(raw) as Partial<TypedQuestion>;
  const unapplied = [...(typed.unapplied ?? []), ...(typed.notRead ?? [])];
  return unapplied.length === 0 ? c : { ...c, unused: unapplied };
}

/** Whether the typed path answers a parse: an action, or a query with every word applied. */
export function typedAnswers(parsed: Parsed): boolean {
  if (parsed.kind === 'action') return true;
  return parsed.kind === 'query' && parsed.unapplied.length === 0 && !parsed.cut;
}

/** The one call a typed question plans (none for an action), and the query it means after editing the last one. */
export function planTyped(typed: TypedQuestion, previous: Query | undefined, presentation: TypedPresentation, shown: { readonly offset: number; readonly end: number } = { offset: 0, end: 0 }): { readonly calls: readonly ToolCall[]; readonly query: Query | undefined; readonly carried: boolean } {
  if (typed.page === true && previous !== undefined) {
    // The next rows of the last list; the rows of the last count or breakdown, from the first.
    const position = previous.what.kind === 'list' ? { shown: shown.offset, next: shown.end, size: presentation.pageRows } : { shown: 0, next: 0, size: presentation.pageRows };
    const query: Query = { ...previous, what: { kind: 'list' }, limit: presentation.pageRows, offset: pageOffset(typed.pageWanted, position) };
    return { calls: [{ tool: 'query', args: query as unknown as Readonly<Record<string, unknown>> }], query, carried: true };
  }
  if (typed.action !== undefined || typed.query === undefined) return { calls: [], query: undefined, carried: false };
  const multi = presentation.domain === undefined ? new Set<string>() : multiFields(presentation.domain, typed.query.entity);
  const edited = applyEdit({ kind: 'query', query: typed.query, edit: typed.edit, unapplied: [], corrections: [], inferred: [], notRead: [], clock: false, cut: false, read: [] }, previous, multi);
  const query = edited?.query ?? typed.query;
  // A list of up to presentation.showWholeMax is shown whole; a longer one a page at a time.
  const args = query.what.kind === 'list' ? { ...query, limit: query.limit ?? presentation.showWholeMax, offset: query.offset ?? 0 } : query;
  return { calls: [{ tool: 'query', args: args as unknown as Readonly<Record<string, unknown>> }], query, carried: (typed.carried !== undefined && typed.carried !== false) || (edited !== undefined && edited.kind !== 'standalone') };
}

export const cellText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : JSON.stringify(v));

/** What a domain adds to the shared typed answer. */
export interface TypedAnswerOptions {
  readonly domain: DomainDecl;
  /** The system in plain words ("Argo CD", "NetBox"). */
  readonly system: string;
  readonly presentation: TypedPresentation;
  /** The answer to a request to act: what was not done, how to do it in the system, what to ask instead. */
  readonly readOnly: (verb: string, target: string | undefined, part?: string) => { readonly text: string; readonly options: readonly string[] };
  /** Fields a projection may add beside those asked for (a revision's synced one), shown when present. */
  readonly extraFields?: readonly string[];
  /** Lines for one projected field, when the domain shows it its own way (a history as a table); else the value. */
  readonly fieldLines?: (field: string, value: unknown, label: string) => readonly string[] | undefined;
}

/** The answer of a typed question. `memory` keeps the query, so a follow-up edits it and "next page" pages it. */
export function respondTyped<M>(options: TypedAnswerOptions, typed: TypedQuestion, results: readonly ToolResult[], query: Query | undefined, carried: boolean, remember: (query: Query, total: number, offset: number, end: number) => M, previous: M | undefined): Answer<M> {
  const { domain, presentation } = options;
  if (typed.action !== undefined) {
    const said = options.readOnly(typed.action.verb, typed.action.target, typed.action.part);
    return { text: said.text, options: [...said.options], memory: previous, data: { read_only: true, not_done: typed.action.verb } };
  }
  const result = results[0];
  if (query === undefined || result === undefined) return { text: "I can't answer that.", options: [], memory: previous };
  const entity = entityOf(domain, query.entity);
  const notes: string[] = [];
  for (const c of typed.corrections) notes.push(`read "${c.from}" as "${c.to}"`);
  notes.push(...typed.inferred);
  const from = typed.carried === true || typed.carried === 'part' ? 'the part before' : 'your last question';
  const readAs = `Read as: ${describeQuery(entity, query)}${carried ? ` (carried over from ${from})` : ''}.`;
  const lead: string[] = [];
  if (typed.unapplied.length > 0) lead.push(`I did not understand ${typed.unapplied.map((w) => `"${w}"`).join(', ')} in your question, so this answer does not take ${typed.unapplied.length === 1 ? 'it' : 'them'} into account.`);
  for (const label of typed.notRead) {
    // A field the system does not hold says what it holds instead; one it holds, that it is not read yet.
    const note = entity.fields.find((f) => f.label === label && f.exec === 'not_read')?.note;
    lead.push(note === undefined ? `I did not apply ${label}: ${options.system} holds it, but I do not read it yet.` : `I did not apply ${label}: ${note}`);
  }
  if (notes.length > 0 || carried) lead.push(`(${readAs}${notes.length > 0 ? ` I ${notes.join('; ')}.` : ''})`);
  const notApplied = [...typed.unapplied.map((w) => `"${w}"`), ...typed.notRead.map((f) => `${f} (not read)`)];
  const data = { query: query as unknown as Record<string, unknown>, ...(notApplied.length > 0 ? { not_applied: notApplied } : {}) };
  if (result.isError) return { text: [...lead, `I could not ${query.what.kind === 'fields' ? `get that ${entity.singular}` : 'run that query'}: ${toolErrorText(result.body)}`].join('\n'), options: [], memory: previous, data };
  const b = result.body;
  // An object cut to the budget (a list page that came back shorter says so itself, and is fine).
  if (b.truncated_by_budget === true && typeof b.item_kind !== 'string') return { text: [...lead, `The answer to that is larger than I can send at once, so I did not show a part of it as if it were all: ask for a count or a breakdown, or narrow it.`].join('\n'), options: [], memory: previous, data };
  const total = Number(b.total ?? 0);
  const label = (f: string): string => fieldOf(entity, f)?.label ?? f;
  const noun = (n: number): string => (n === 1 ? entity.singular : entity.plural);
  const matches = (n: number): string => (n === 1 ? 'matches' : 'match');
  const bodyNotes = Array.isArray(b.notes) ? b.notes.filter((n): n is string => typeof n === 'string') : [];
  const out: string[] = [];
  let memory: M | undefined = remember(query, total, 0, 0);
  // A list comes back as the kit's page envelope (item_kind, total, offset, returned, next_offset, items).
  const kind = typeof b.item_kind === 'string' ? 'list' : b.kind;
  // Nothing matched and a name compared with is none the estate holds, or a word was only guessed at: that is said
  // first, not a bare 0.
  if (total === 0 && (typed.unknown ?? []).length > 0 && kind !== 'fields') {
    const names = (typed.unknown ?? []).join(', ');
    out.push(`I could not find any: ${names} is not one ${options.system} has (names are compared exactly); check the spelling, or ask for the list of values.`);
  } else if (total === 0 && typed.inferred.length > 0 && kind !== 'fields') {
    out.push(`I could not find any, reading the question as I guessed it (I ${typed.inferred.join('; ')}): check that reading, or say it another way.`);
  }
  if (kind === 'count') {
    out.push(`${total} ${noun(total)} ${matches(total)}.${lead.length === 0 ? ` (${describeQuery(entity, query)}.)` : ''}`);
  } else if (kind === 'compare') {
    const [a, c] = Array.isArray(b.counts) ? b.counts.map(Number) : [0, 0];
    const groups = query.what.kind === 'compare' ? query.what.groups : undefined;
    const [na, nc] = groups === undefined ? ['the first', 'the second'] : groups.map((g) => describeGroup(entity, g));
    const verdict = (a ?? 0) === (c ?? 0) ? `${na} and ${nc} have the same number: ${a} each` : (a ?? 0) > (c ?? 0) ? `${na} has more: ${a} against ${c} in ${nc}` : `${nc} has more: ${c} against ${a} in ${na}`;
    out.push(`${verdict}.`, `(${describeQuery(entity, query)}.)`);
  } else if (kind === 'breakdown' || kind === 'top') {
    const by = Array.isArray(b.by) ? b.by.map(String) : [];
    const groups = (Array.isArray(b.groups) ? b.groups : []) as { key: string[]; count: number }[];
    const shown = groups.length;
    const groupsTotal = Number(b.groups_total ?? shown);
    if (kind === 'top') {
      const first = groups[0];
      const order = b.order === 'least' ? 'fewest' : 'most';
      if (first === undefined) out.push(`No ${entity.plural} match, so no ${label(by[0] ?? '')} has any.`);
      else if (shown === 1) out.push(`${first.key.join(' / ')} has the ${order}: ${first.count} ${noun(first.count)} (of ${total} matching, over ${groupsTotal} ${label(by[0] ?? '')} values).`);
      else out.push(`The ${shown} ${label(by[0] ?? '')} values with the ${order} (of ${total} matching ${noun(total)}, over ${groupsTotal} values):`);
    } else out.push(`${total} ${noun(total)}, by ${by.map(label).join(' and ')}${groupsTotal > shown ? ` (${groupsTotal} groups, the largest ${shown} shown)` : ''}:`);
    const rest = b.rest as { groups?: number; items?: number; min?: number; max?: number } | undefined;
    if (!(kind === 'top' && shown === 1)) out.push(markdownTable(groups.map((g) => Object.fromEntries<string>([...by.map((f, i): [string, string] => [label(f), g.key[i] ?? '']), [entity.plural, String(g.count)]])), [...by.map(label), entity.plural], cellText));
    if (kind === 'breakdown' && rest?.groups !== undefined) out.push(`The other ${rest.groups} groups hold ${rest.items ?? 0} ${noun(rest.items ?? 0)}, from ${rest.min ?? 0} to ${rest.max ?? 0} each.`);
  } else if (kind === 'fields') {
    const items = (Array.isArray(b.items) ? b.items : []) as Record<string, unknown>[];
    const fields = query.what.kind === 'fields' ? query.what.fields : [];
    if (items.length === 0) out.push(`No ${entity.singular} matches: ${describeQuery(entity, { ...query, what: { kind: 'list' } }).replace(/, listed$/, '')}.`);
    for (const item of items) {
      out.push(`${String(item.name)}:`);
      for (const f of [...fields, ...(options.extraFields ?? []).filter((x) => !fields.includes(x) && item[x] !== undefined)]) {
        const v = item[f];
        const own = options.fieldLines?.(f, v, label(f));
        if (own !== undefined) out.push(...own);
        else out.push(`- ${label(f)}: ${v === null || v === undefined || (Array.isArray(v) && v.length === 0) ? 'none' : cellText(v)}`);
      }
    }
    memory = previous;
  } else {
    const offset = Number(b.offset ?? 0);
    // The first page and the rows fetched to fill what the token budget cut short.
    const all = results.flatMap((r) => (r.isError || !Array.isArray(r.body.items) ? [] : (r.body.items as Record<string, unknown>[])));
    const items = offset === 0 && total <= presentation.showWholeMax ? all : all.slice(0, presentation.pageRows);
    const end = offset + items.length;
    const columns = [...new Set(items.flatMap((i) => Object.keys(i)))];
    if (offset >= total && total > 0) out.push(`No more: that was all ${total} ${noun(total)}.`);
    else out.push(total === 0 ? `No ${entity.plural} match (${describeQuery(entity, query).replace(/, listed$/, '')}).` : `${total} ${noun(total)} ${matches(total)}${total > items.length ? `; rows ${offset + 1}-${end}` : ''}:`);
    if (items.length > 0) out.push(markdownTable(items, columns, cellText));
    if (end < total) out.push(`Say "next page" for more.`);
    memory = remember(query, total, offset, end);
  }
  if (bodyNotes.length > 0) out.push(`Note: ${bodyNotes.join(' ')}`);
  return { text: [...lead, ...out].join('\n'), options: kind === 'list' && total > 20 ? ['next page'] : [], memory, data };
}

function describeGroup(entity: EntityDecl, where: Where): string {
  if (where.op === 'eq') return String(where.value);
  if (where.op === 'in') return where.values.map(String).join(' or ');
  return describeQuery(entity, { entity: entity.name, where, what: { kind: 'list' } }).replace(/^[a-z]+ whose /, '').replace(/, listed$/, '');
}

/**
 * The parts of a question to answer one by one: when it has several (`questionParts`) and each is one either reader
 * reads (the rules with confidence, or the typed reading applying a word of the domain, naming any it did not).
 * Undefined: the question is one. Each part is classified by the rules and parsed once.
 */
export function readableParts<I extends string>(
  question: string,
  classify: (part: string) => Classification<I>,
  parse: (part: string) => Parsed,
): { readonly parts: readonly string[]; readonly classified: readonly Classification<I>[]; readonly parsed: readonly Parsed[] } | undefined {
  const parts = questionParts(question);
  if (parts.length < 2) return undefined;
  const classified = parts.map(classify);
  const parsed = parts.map(parse);
  const readable = parts.every((_, k) => {
    const c = classified[k];
    const p = parsed[k];
    return (c !== undefined && c.intent !== 'unknown' && c.confidence >= CONFIDENCE_THRESHOLD) || (p !== undefined && p.kind === 'query' && p.read.some((w) => w.as !== 'guess'));
  });
  return readable ? { parts, classified, parsed } : undefined;
}

/**
 * A question as hybrid mode's router sees it (a domain agent's `classify`): when it is answered part by part (`split`),
 * its parts' readings joined, so what any part did not apply is not applied; else the whole question's. `typed` is the
 * agent's typed reading of a text (undefined: the rules answer it), `rules` its rules classifier.
 */
export async function routingReading<I extends string>(
  question: string,
  split: { readonly parts: readonly string[]; readonly classified: readonly Classification<I>[] } | undefined,
  typed: (text: string) => Promise<Classification<I> | undefined>,
  rules: (text: string) => Classification<I>,
): Promise<Classification<I>> {
  const read = async (text: string, classified?: Classification<I>): Promise<Classification<I>> => {
    const reading = await typed(text);
    return reading === undefined ? (classified ?? rules(text)) : typedForRouting(reading);
  };
  if (split !== undefined) {
    const readings = await Promise.all(split.parts.map((part, k) => read(part, split.classified[k])));
    const [first] = readings;
    if (first !== undefined) return { ...first, confidence: Math.min(...readings.map((r) => r.confidence)), unused: readings.flatMap((r) => r.unused ?? []) };
  }
  return read(question);
}
