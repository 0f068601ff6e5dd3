import { z } from 'zod';

/**
 * The typed query: the one language a domain agent speaks internally. The rules' parser writes it from a sentence,
 * the model writes it through the `query` tool, follow-ups edit the last one, and one planner runs it.
 */

export type Scalar = string | number | boolean;

/** A condition on one typed field of the entity. */
export type Condition =
  | { readonly op: 'eq'; readonly field: string; readonly value: Scalar }
  | { readonly op: 'in'; readonly field: string; readonly values: readonly Scalar[] }
  | { readonly op: 'contains'; readonly field: string; readonly value: string }
  | { readonly op: 'exists'; readonly field: string }
  | { readonly op: 'before' | 'after'; readonly field: string; readonly at: string }
  | { readonly op: 'less' | 'more'; readonly field: string; readonly value: number };

/** A boolean expression over conditions. */
export type Where = Condition | { readonly op: 'and'; readonly of: readonly Where[] } | { readonly op: 'or'; readonly of: readonly Where[] } | { readonly op: 'not'; readonly of: Where };

/** What the answer is: a number, rows, groups, a ranking, two groups side by side, or named fields of objects. */
export type What =
  | { readonly kind: 'count' }
  | { readonly kind: 'list' }
  | { readonly kind: 'breakdown'; readonly by: readonly string[] }
  | { readonly kind: 'top'; readonly by: string; readonly n: number; readonly order: 'most' | 'least' }
  | { readonly kind: 'compare'; readonly groups: readonly [Where, Where] }
  | { readonly kind: 'fields'; readonly fields: readonly string[] };

export interface Sort {
  readonly field: string;
  readonly order: 'asc' | 'desc';
}

export interface Query {
  readonly entity: string;
  readonly where?: Where | undefined;
  readonly what: What;
  readonly sort?: Sort | undefined;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
}

/** Bounds on a query, enforced by its schema: the planner's work is bounded by construction. */
export const QUERY_LIMITS = {
  /** Nesting of and / or / not. */
  maxDepth: 6,
  /** Conditions and connectives in one where. */
  maxNodes: 64,
  /** Values of one `in`. */
  maxValues: 50,
  /** Characters of one value. */
  maxValueChars: 512,
  /** Fields of a breakdown. */
  maxBreakdown: 2,
  /** Named fields of a projection. */
  maxFields: 8,
  /** Rows of a list page, groups of a top N. */
  maxLimit: 100,
  /** Rows of a page when no limit is given. */
  defaultLimit: 20,
  maxOffset: 10_000_000,
} as const;

/** Every node of a where, depth first. */
export function* nodesOf(where: Where | undefined): Generator<Where> {
  if (where === undefined) return;
  yield where;
  if (where.op === 'and' || where.op === 'or') for (const w of where.of) yield* nodesOf(w);
  else if (where.op === 'not') yield* nodesOf(where.of);
}

/** Every condition of a where (the leaves), depth first. */
export function conditionsOf(where: Where | undefined): Condition[] {
  return [...nodesOf(where)].filter((n): n is Condition => n.op !== 'and' && n.op !== 'or' && n.op !== 'not');
}

export function depthOf(where: Where | undefined): number {
  if (where === undefined) return 0;
  if (where.op === 'and' || where.op === 'or') return 1 + Math.max(0, ...where.of.map(depthOf));
  if (where.op === 'not') return 1 + depthOf(where.of);
  return 1;
}

/** `a and b`, flattened; undefined parts dropped. */
export function and(...parts: readonly (Where | undefined)[]): Where | undefined {
  const of = parts.flatMap((p) => (p === undefined ? [] : p.op === 'and' ? p.of : [p]));
  if (of.length === 0) return undefined;
  return of.length === 1 ? of[0] : { op: 'and', of };
}

/** `a or b`, flattened. */
export function or(...parts: readonly Where[]): Where {
  const of = parts.flatMap((p) => (p.op === 'or' ? p.of : [p]));
  return of.length === 1 ? (of[0] as Where) : { op: 'or', of };
}

export function not(where: Where): Where {
  return where.op === 'not' ? where.of : { op: 'not', of: where };
}

/**
 * The zod schema of a query over the given fields (the `query` tool's input): field names are an enum of the
 * declared fields, and the depth and node bounds are checked, so a query from a model is as bounded as one from the
 * parser.
 */
export function querySchema(entities: readonly [string, ...string[]], fields: readonly [string, ...string[]]) {
  const field = z.enum(fields, { message: `field must be one of ${fields.join(', ')}` });
  const scalar = z.union([z.string().max(QUERY_LIMITS.maxValueChars), z.number(), z.boolean()]);
  const time = z.iso.datetime({ offset: true, message: 'at must be an RFC 3339 time, e.g. 2026-01-31T09:00:00Z' });
  const condition = z.discriminatedUnion('op', [
    z.strictObject({ op: z.literal('eq'), field, value: scalar }),
    z.strictObject({ op: z.literal('in'), field, values: z.array(scalar).min(1).max(QUERY_LIMITS.maxValues) }),
    z.strictObject({ op: z.literal('contains'), field, value: z.string().min(1).max(QUERY_LIMITS.maxValueChars) }),
    z.strictObject({ op: z.literal('exists'), field }),
    z.strictObject({ op: z.enum(['before', 'after']), field, at: time }),
    z.strictObject({ op: z.enum(['less', 'more']), field, value: z.number() }),
  ]);
  const where: z.ZodType<Where> = z.lazy(() =>
    z.union([
      condition,
      z.strictObject({ op: z.literal('and'), of: z.array(where).min(1).max(QUERY_LIMITS.maxNodes) }),
      z.strictObject({ op: z.literal('or'), of: z.array(where).min(1).max(QUERY_LIMITS.maxNodes) }),
      z.strictObject({ op: z.literal('not'), of: where }),
    ]),
  );
  const bounded = where.superRefine((w: Where, ctx: z.RefinementCtx) => {
    if (depthOf(w) > QUERY_LIMITS.maxDepth) ctx.addIssue({ code: 'custom', message: `where is nested deeper than ${QUERY_LIMITS.maxDepth} levels` });
    if ([...nodesOf(w)].length > QUERY_LIMITS.maxNodes) ctx.addIssue({ code: 'custom', message: `where has more than ${QUERY_LIMITS.maxNodes} nodes` });
  });
  const what = z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('count') }),
    z.strictObject({ kind: z.literal('list') }),
    z.strictObject({ kind: z.literal('breakdown'), by: z.array(field).min(1).max(QUERY_LIMITS.maxBreakdown) }),
    z.strictObject({ kind: z.literal('top'), by: field, n: z.number().int().min(1).max(QUERY_LIMITS.maxLimit), order: z.enum(['most', 'least']) }),
    z.strictObject({ kind: z.literal('compare'), groups: z.tuple([bounded, bounded]) }),
    z.strictObject({ kind: z.literal('fields'), fields: z.array(field).min(1).max(QUERY_LIMITS.maxFields) }),
  ]);
  return z.strictObject({
    entity: z.enum(entities),
    where: bounded.optional(),
    what,
    sort: z.strictObject({ field, order: z.enum(['asc', 'desc']) }).optional(),
    limit: z.number().int().min(1).max(QUERY_LIMITS.maxLimit).optional(),
    offset: z.number().int().min(0).max(QUERY_LIMITS.maxOffset).optional(),
  });
}
