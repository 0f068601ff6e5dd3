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

/** Whether a parsed question continues the previous one, and the query it then means. */
export function applyEdit(parsed: Parsed, previous: Query | undefined): Edited | undefined {
  const q = parsed.query;
  if (q === undefined) return undefined;
  if (previous === undefined || previous.entity !== q.entity) return { query: q, kind: 'standalone' };
  const marks = parsed.edit;
  const refers = marks.anaphora || marks.only || marks.leadingAnd || marks.about;
  // A question that names its own subject and says what it wants stands alone, unless it points back.
  if (!refers && marks.ownEntity && marks.ownWhat) return { query: q, kind: 'standalone' };
  if (!refers && !marks.ownWhat && q.where === undefined) return { query: q, kind: 'standalone' };
  if (!refers && marks.ownEntity) return { query: q, kind: 'standalone' };
  const what = marks.ownWhat ? q.what : previous.what;
  if (marks.about) {
    // "what about staging?": the new value replaces the old one of the same field.
    const fields = topFields(q.where);
    const where = and(without(previous.where, fields), q.where);
    return { query: { entity: q.entity, ...(where === undefined ? {} : { where }), what }, kind: 'replace' };
  }
  const where = and(previous.where, q.where);
  return { query: { entity: q.entity, ...(where === undefined ? {} : { where }), what }, kind: 'refine' };
}
