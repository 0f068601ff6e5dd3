import type { Parsed } from './parse.js';
import { and, conditionsOf, type Query, type Where } from './query.js';

/**
 * Follow-ups are edits of the last query, never new questions that lost their subject:
 * - "and how many of those are degraded?" adds a filter and counts;
 * - "list them" lists the same set;
 * - "what about staging?" replaces the condition on the field it names;
 * - "only the switches" adds one.
 * The conversation stores the query, not the answer.
 */

export type EditKind = 'standalone' | 'refine' | 'replace';

export interface Edited {
  readonly query: Query;
  readonly kind: EditKind;
}

/** Fields a where constrains at its top level (the parts of an and). */
function topFields(where: Where | undefined): Set<string> {
  if (where === undefined) return new Set();
  const parts = where.op === 'and' ? where.of : [where];
  const out = new Set<string>();
  for (const p of parts) for (const c of conditionsOf(p)) out.add(c.field);
  return out;
}

/** The top-level parts of a where that constrain none of `fields`. */
function without(where: Where | undefined, fields: ReadonlySet<string>): Where | undefined {
  if (where === undefined) return undefined;
  const parts = where.op === 'and' ? where.of : [where];
  return and(...parts.filter((p) => !conditionsOf(p).some((c) => fields.has(c.field))));
}

/**
 * The previous where, less the parts a refinement contradicts: a single value of a field (not a multi-valued one,
 * where "tagged a, and of those tagged b" narrows) that the refinement sets again to something else. "which site has
 * the most firewalls" then "top 3 sites by servers" means servers, not firewalls that are servers (none).
 */
function keptOnRefine(previous: Where | undefined, next: Where | undefined, multi: ReadonlySet<string>): Where | undefined {
  if (previous === undefined || next === undefined) return previous;
  const nextParts = next.op === 'and' ? next.of : [next];
  const reset = new Set<string>();
  for (const p of nextParts) if (p.op === 'eq' && !multi.has(p.field)) reset.add(p.field);
  const parts = previous.op === 'and' ? previous.of : [previous];
  return and(...parts.filter((p) => !(p.op === 'eq' && reset.has(p.field) && !nextParts.some((n) => n.op === 'eq' && n.field === p.field && n.value === p.value))));
}

/**
 * Whether a parsed question continues the previous one, and the query it then means. `multi`: the fields an object
 * has several values of (tags), whose conditions a refinement adds to rather than replaces.
 */
export function applyEdit(parsed: Parsed, previous: Query | undefined, multi: ReadonlySet<string> = new Set()): Edited | undefined {
  const q = parsed.query;
  if (q === undefined) return undefined;
  if (previous === undefined || previous.entity !== q.entity) return { query: q, kind: 'standalone' };
  const marks = parsed.edit;
  const refers = marks.anaphora || marks.only || marks.leadingAnd || marks.about;
  // A question that names its own subject and says what it wants stands alone, unless it points back.
  if (!refers && marks.ownEntity && marks.ownWhat) return { query: q, kind: 'standalone' };
  if (!refers && !marks.ownWhat && q.where === undefined) return { query: q, kind: 'standalone' };
  if (!refers && marks.ownEntity) return { query: q, kind: 'standalone' };
  // "switches per manufacturer": a question that says what it wants of a subject it names by a value stands alone;
  // "how many are degraded?" names none, and continues.
  if (!refers && marks.ownWhat && !marks.subjectless && q.where !== undefined) return { query: q, kind: 'standalone' };
  const what = marks.ownWhat ? q.what : previous.what;
  if (marks.about) {
    // "what about staging?": the new value replaces the old one of the same field.
    const fields = topFields(q.where);
    const where = and(without(previous.where, fields), q.where);
    return { query: { entity: q.entity, ...(where === undefined ? {} : { where }), what }, kind: 'replace' };
  }
  const where = and(keptOnRefine(previous.where, q.where, multi), q.where);
  return { query: { entity: q.entity, ...(where === undefined ? {} : { where }), what }, kind: 'refine' };
}
