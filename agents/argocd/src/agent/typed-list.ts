import type { Classification, Entities } from '@flotilla/agent-kit';
import { conditionsOf, type Lexicon, type Parsed, type Query, type Where } from '@flotilla/query';
import { NOT_HEALTHY, type ArgoIntent } from './intents.js';

/**
 * The typed reading of a list question, planned as the application list: a query for applications, listed or counted,
 * whose conditions the `list_applications` tool applies itself (statuses, scope, labels, repository, name, time
 * windows) is run by that tool's plan, which pages by cursor, summarises by sync, health and project and says the
 * filters in the answer's first line. Anything else (an OR across fields, a breakdown, a field the tool does not
 * filter on) stays with the `query` tool.
 */

const SYNC_ALL = ['Synced', 'OutOfSync', 'Unknown'] as const;
const HEALTH_ALL = ['Healthy', ...NOT_HEALTHY] as const;
/** Fields whose condition is a label selector term of the list (env, team, region, tier are labels). */
const LABEL_FIELDS: ReadonlySet<string> = new Set(['region', 'tier']);

type Values = readonly (string | number | boolean)[];

const valuesOf = (w: Where): Values | undefined => (w.op === 'eq' ? [w.value] : w.op === 'in' ? w.values : undefined);
const strings = (values: Values): string[] | undefined => (values.every((v) => typeof v === 'string') ? (values as string[]) : undefined);
const one = (values: readonly string[]): string | readonly string[] => (values.length === 1 ? (values[0] ?? '') : values);

/** The plan's entities of a typed query, or undefined when the list plan would not apply all of it. */
export function listEntitiesOf(query: Query): Entities | undefined {
  if (query.entity !== 'applications' || (query.what.kind !== 'list' && query.what.kind !== 'count') || query.sort !== undefined || query.offset !== undefined) return undefined;
  const parts = query.where === undefined ? [] : query.where.op === 'and' ? query.where.of : [query.where];
  const out: Record<string, string | readonly string[]> = {};
  const labels: string[] = [];
  const set = (key: string, value: string | readonly string[]): boolean => {
    if (out[key] !== undefined) return false;
    out[key] = value;
    return true;
  };
  for (const part of parts) {
    const negated = part.op === 'not';
    const w = part.op === 'not' ? part.of : part;
    if (w.op === 'and' || w.op === 'or' || w.op === 'not') return undefined;
    const field = w.field;
    if (w.op === 'contains') {
      if (field !== 'name' || negated || !set('name_contains', w.value)) return undefined;
      continue;
    }
    if (w.op === 'after' || w.op === 'before') {
      if (negated || (field !== 'last_sync' && field !== 'created')) return undefined;
      const window = out.window;
      const [f, after, before] = typeof window === 'object' ? window : [field, '', ''];
      if (f !== field) return undefined;
      // Whole seconds, as the plan says them ("since 2025-11-20 08:30 UTC").
      const at = w.at.replace(/\.\d+(?=Z$)/, '');
      out.window = w.op === 'after' ? [field, at, before ?? ''] : [field, after ?? '', at];
      continue;
    }
    if (w.op === 'exists' || w.op === 'less' || w.op === 'more') return undefined;
    const values = valuesOf(w);
    if (values === undefined) return undefined;
    if (field === 'auto_sync') {
      const [v] = values;
      if (values.length !== 1 || typeof v !== 'boolean' || !set('auto_sync', String(negated ? !v : v))) return undefined;
      continue;
    }
    const text = strings(values);
    if (text === undefined) return undefined;
    switch (field) {
      case 'sync':
      case 'health': {
        const all: readonly string[] = field === 'sync' ? SYNC_ALL : HEALTH_ALL;
        if (!text.every((v) => all.includes(v))) return undefined;
        const kept = negated ? all.filter((v) => !text.includes(v)) : text;
        if (kept.length === 0 || !set(field, one(kept))) return undefined;
        break;
      }
      case 'env':
        if (!set('env', one(negated ? text.map((v) => `!${v}`) : text))) return undefined;
        break;
      case 'cluster':
        if (negated || !set('cluster', one(text))) return undefined;
        break;
      case 'operation':
        // The plan's "failed" is Failed or Error, as the tool's operation_phase filter reads it.
        if (negated) return undefined;
        if (text.length === 2 && text.includes('Failed') && text.includes('Error')) {
          if (!set('phase', 'Failed')) return undefined;
        } else if (text.length !== 1 || text[0] === 'Failed' || !set('phase', text[0] ?? '')) return undefined;
        break;
      case 'team':
      case 'project':
      case 'namespace':
      case 'repo':
        if (negated || text.length !== 1 || !set(field, text[0] ?? '')) return undefined;
        break;
      case 'label':
        if (negated) return undefined;
        labels.push(...text);
        break;
      default:
        if (!LABEL_FIELDS.has(field) || negated) return undefined;
        labels.push(text.length === 1 ? `${field}=${text[0] ?? ''}` : `${field} in (${text.join(',')})`);
    }
  }
  if (labels.length > 0) out.label = labels;
  if (query.what.kind === 'count') out.count = 'true';
  return out;
}

/**
 * The list plan's classification of a typed reading, when the plan applies all of it: the words the reading did not
 * apply and its corrections go with it, for the answer to say.
 */
export function listClassification(parsed: Parsed, lexicon?: Lexicon): Classification<ArgoIntent> | undefined {
  if (parsed.kind !== 'query' || parsed.query === undefined || parsed.inferred.length > 0 || parsed.notRead.length > 0 || parsed.cut) return undefined;
  const entities = listEntitiesOf(parsed.query);
  if (entities === undefined) return undefined;
  // Every name compared is one the estate holds: an empty answer is then not a misspelling, and must not say it may be.
  const known = lexicon !== undefined && namesKnown(parsed.query, lexicon);
  return { intent: 'list_applications', entities: known ? { ...entities, names_known: 'yes' } : entities, confidence: 0.95, complexity: 'simple', alternatives: [], unused: parsed.unapplied, corrected: parsed.corrections };
}

/** Fields whose values are names the lexicon reads from the estate. */
const NAME_FIELDS: ReadonlySet<string> = new Set(['project', 'namespace', 'cluster', 'team', 'repo', 'env', 'region', 'tier']);

/** Whether the query compares names at all, and every one is a name the lexicon holds (label pairs and parts of names are not). */
function namesKnown(query: Query, lexicon: Lexicon): boolean {
  if (lexicon.liveCount === 0) return false;
  const conditions = conditionsOf(query.where);
  const names = conditions.filter((c) => NAME_FIELDS.has(c.field) || c.field === 'label' || c.field === 'name');
  if (names.length === 0) return false;
  return names.every((c) => NAME_FIELDS.has(c.field) && (c.op === 'eq' || c.op === 'in') && (c.op === 'eq' ? [c.value] : c.values).every((v) => lexicon.spelling.has(String(v).toLowerCase())));
}
