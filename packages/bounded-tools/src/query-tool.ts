import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { conditionsOf, entityOf, fieldOf, QUERY_LIMITS, type Accessors, type DomainDecl, type Group, type Query, type QueryRun, type Where } from '@flotilla/query';
import { listPageOutput, objectOutput } from './output.js';
import type { JsonObject, JsonValue } from './json.js';
import type { ToolPayload } from './types.js';

/**
 * What every domain's `query` tool shares: the output schema, the check that a query names only fields the domain
 * reads, and the shapes of its answers (a count, a page of rows, groups with what the rest hold, a ranking, a
 * comparison, named fields of a few objects), built from a QueryRun that saw every item.
 */

/** Groups, objects and characters of text a query result carries at most (the token budget may cut further). */
export const QUERY_OUTPUT_LIMITS = { groups: 60, objects: 5, textChars: 300, rowColumns: 9, listValues: 20 } as const;

/** One value of a field, as `list_values` answers it. */
/** One value of a field; `label`: how the system shows it when that differs ("Arista EOS" for eos). */
export const VALUE_ITEM = z.strictObject({ field: z.string(), value: z.string(), label: z.string().optional() });

const GROUP = z.strictObject({ key: z.array(z.string()), count: z.number().int().min(0) });
const QUERY_ROW = z.record(z.string(), z.unknown());
const QUERY_RESULT = objectOutput(
  z.strictObject({
    entity: z.string(),
    kind: z.enum(['count', 'list', 'breakdown', 'top', 'compare', 'fields']),
    total: z.number().int().min(0),
    by: z.array(z.string()).optional(),
    groups: z.array(GROUP).optional(),
    groups_total: z.number().int().min(0).optional(),
    rest: z.strictObject({ groups: z.number().int().min(0), items: z.number().int().min(0), min: z.number().int().min(0), max: z.number().int().min(0) }).optional(),
    order: z.enum(['most', 'least']).optional(),
    counts: z.array(z.number().int().min(0)).optional(),
    offset: z.number().int().min(0).optional(),
    returned: z.number().int().min(0).optional(),
    has_more: z.boolean().optional(),
    next_offset: z.number().int().min(0).nullable().optional(),
    items: z.array(z.record(z.string(), z.unknown())).optional(),
    notes: z.array(z.string()).optional(),
  }),
);
/** What a `query` tool answers: a list is a page of rows (fitted to the budget by the kit); anything else one object. */
export const QUERY_OUTPUT = z.union([QUERY_RESULT, listPageOutput(QUERY_ROW)]);

export const OVERFLOW_HINT = 'Too large for the budget: ask for fewer fields, or a count or breakdown instead.';

/** Text cut to QUERY_OUTPUT_LIMITS.textChars. */
export const cutText = (s: string | undefined): string | undefined => (s === undefined ? undefined : s.length > QUERY_OUTPUT_LIMITS.textChars ? `${s.slice(0, QUERY_OUTPUT_LIMITS.textChars)}…` : s);

/** The top-level parts of a where (its conjuncts). */
export const conjuncts = (where: Where | undefined): readonly Where[] => (where === undefined ? [] : where.op === 'and' ? where.of : [where]);

/** Every field a query reads: its conditions, groups, projected fields and sort. */
export function fieldsUsed(query: Query): string[] {
  return [
    ...conditionsOf(query.where).map((c) => c.field),
    ...(query.what.kind === 'breakdown' ? query.what.by : query.what.kind === 'top' ? [query.what.by] : query.what.kind === 'fields' ? query.what.fields : []),
    ...(query.what.kind === 'compare' ? query.what.groups.flatMap((g) => conditionsOf(g).map((c) => c.field)) : []),
    ...(query.sort === undefined ? [] : [query.sort.field]),
  ];
}

/** Refuses a query naming a field its entity lacks, or one the system holds but the tool does not read (a remedy each). */
export function checkQueryFields(domain: DomainDecl, query: Query, system: string): void {
  const entity = entityOf(domain, query.entity);
  for (const f of fieldsUsed(query)) {
    const decl = fieldOf(entity, f);
    if (decl === undefined) throw new FlotillaError('invalid_argument', `${entity.plural} have no field "${f}"`, { remedy: `Fields of ${entity.plural}: ${entity.fields.filter((x) => x.exec !== 'not_read').map((x) => x.name).join(', ')}.` });
    if (decl.exec === 'not_read') throw new FlotillaError('invalid_argument', `The ${decl.label} of ${entity.plural} are held by ${system} but not read by this tool`, { remedy: decl.note ?? `Leave that field out, or look it up in ${system}.` });
  }
}

/** The notes the declared fields a query reads carry ("NetBox stores whether an interface is enabled, not its link state"). */
export function fieldNotes(domain: DomainDecl, query: Query): string[] {
  const entity = entityOf(domain, query.entity);
  return [...new Set(fieldsUsed(query).flatMap((f) => fieldOf(entity, f)?.note ?? []))];
}

/** The largest groups, and what the rest hold in all (so every count is accounted for). */
export function groupsOut(groups: readonly Group[]): JsonObject {
  const shown = groups.slice(0, QUERY_OUTPUT_LIMITS.groups);
  const rest = groups.slice(QUERY_OUTPUT_LIMITS.groups);
  const counts = rest.map((g) => g.count);
  return {
    groups: shown.map((g) => ({ key: [...g.key], count: g.count })),
    groups_total: groups.length,
    ...(rest.length === 0 ? {} : { rest: { groups: rest.length, items: counts.reduce((a, b) => a + b, 0), min: Math.min(...counts), max: Math.max(...counts) } }),
  };
}

/** The columns of a list row: the entity's row fields, then the fields the where reads (so what was asked shows). */
export function rowColumns(domain: DomainDecl, query: Query): string[] {
  const entity = entityOf(domain, query.entity);
  const asked = conditionsOf(query.where).map((c) => c.field).filter((f) => fieldOf(entity, f)?.exec === 'tool' || fieldOf(entity, f)?.exec === 'upstream');
  return [...new Set([...(entity.rowFields ?? [entity.nameField]), ...asked])].slice(0, QUERY_OUTPUT_LIMITS.rowColumns);
}

/** One value as JSON: lists cut to QUERY_OUTPUT_LIMITS.listValues, text cut. */
export function valueOut(v: unknown, join: boolean): JsonValue {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return join ? (cutText(v.map(String).join(', ')) ?? '') : v.slice(0, QUERY_OUTPUT_LIMITS.listValues).map((x): JsonValue => (typeof x === 'string' ? (cutText(x) ?? '') : (x as JsonValue)));
  return typeof v === 'string' ? (cutText(v) ?? '') : (v as JsonValue);
}

/** One list row: each column's value as the accessors read it (lists joined, text cut); `shown` overrides a column's accessor. */
export function rowOf<T>(item: T, columns: readonly string[], acc: Accessors<T>, shown: Partial<Accessors<T>> = {}): JsonObject {
  const row: JsonObject = {};
  for (const c of columns) {
    const v = (shown[c] ?? acc[c])?.(item);
    if (v === undefined || v === null) continue;
    row[c] = valueOut(v, true);
  }
  return row;
}

export interface QueryOutcomeOptions<T> {
  readonly domain: DomainDecl;
  readonly accessors: Accessors<T>;
  /** Accessors a row shows instead (a cluster by its name alone). */
  readonly shown?: Partial<Accessors<T>>;
  readonly notes: string[];
  /** Named fields of one object, as the answer shows them. */
  readonly project: (item: T, fields: readonly string[]) => JsonObject;
}

/** The tool's answer from a run that saw every matching item: an object, or a page the kit fits to the budget. */
export function queryOutcome<T>(query: Query, run: QueryRun<T>, options: QueryOutcomeOptions<T>): ToolPayload {
  const out = run.result();
  const { notes } = options;
  const base = { entity: query.entity, kind: out.kind, total: out.total };
  const withNotes = (o: JsonObject): ToolPayload => ({ kind: 'object', data: notes.length === 0 ? o : { ...o, notes }, overflowHint: OVERFLOW_HINT });
  switch (out.kind) {
    case 'count':
      return withNotes(base);
    case 'compare':
      return withNotes({ ...base, counts: [...out.counts] });
    case 'breakdown':
      if (out.groupsCapped) notes.push('More groups than the tool holds: the rest are counted under "(other)".');
      return withNotes({ ...base, by: [...out.by], ...groupsOut(out.groups) });
    case 'top':
      if (out.order === 'least') notes.push('Only groups with at least one match are ranked: a value with none is not listed.');
      return withNotes({ ...base, by: [out.by], order: out.order, groups: out.groups.map((g) => ({ key: [...g.key], count: g.count })), groups_total: out.groupCount });
    case 'list': {
      const columns = rowColumns(options.domain, query);
      return {
        kind: 'page',
        itemKind: query.entity,
        total: out.total,
        offset: out.offset,
        limit: query.limit ?? QUERY_LIMITS.defaultLimit,
        items: out.items.map((item) => rowOf(item, columns, options.accessors, options.shown)),
        notes,
        nextCall: (next) => `query with the same query and offset ${next}`,
      };
    }
    case 'fields': {
      const fields = query.what.kind === 'fields' ? query.what.fields : [];
      return withNotes({ ...base, items: out.items.slice(0, QUERY_OUTPUT_LIMITS.objects).map((item) => options.project(item, fields)) });
    }
  }
}

/** What a `list_values` tool reads at most: values a field, fields a call. */
export const LIST_VALUES_LIMITS = { maxValues: 5_000, maxFields: 16 } as const;

/** A `list_values` tool's filters: one of the domain's entities and up to LIST_VALUES_LIMITS.maxFields of its fields. */
export function listValuesFilters<E extends readonly [string, ...string[]]>(entities: E, fieldNames: readonly [string, ...string[]], fieldsHelp: string) {
  return z.strictObject({
    entity: z.enum(entities, { message: `entity must be one of ${entities.join(', ')}` }).describe(`${entities.join(', ')}.`),
    fields: z
      .array(z.enum(fieldNames, { message: `fields must be among ${fieldNames.join(', ')}` }))
      .min(1)
      .max(LIST_VALUES_LIMITS.maxFields)
      .describe(fieldsHelp),
  });
}

/** The fields asked of `list_values`, once each; one the entity lacks is refused, naming the entity's fields. */
export function valueFields(domain: DomainDecl, entityName: string, asked: readonly string[]): string[] {
  const entity = entityOf(domain, entityName);
  const fields = [...new Set(asked)];
  const unknown = fields.filter((f) => fieldOf(entity, f) === undefined);
  if (unknown.length > 0) throw new FlotillaError('invalid_argument', `${entity.plural} have no field ${unknown.map((f) => `"${f}"`).join(', ')}`, { remedy: `Fields of ${entity.plural}: ${entity.fields.map((f) => f.name).join(', ')}.` });
  return fields;
}
