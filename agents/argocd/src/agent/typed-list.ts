import type { Classification, Entities } from '@flotilla/agent-kit';
import { conditionsOf, type Lexicon, type Parsed, type Query, type Where } from '@flotilla/query';
import { NOT_HEALTHY, type ArgoIntent } from './intents.js';
import { NEEDS_ATTENTION } from '../query/declare.js';

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

/** A label selector's terms: "env in (a,b),team=x" as ["env in (a,b)", "team=x"] (commas inside parentheses kept). */
function selectorTerms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i += 1) {
    const c = selector[i];
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === ',' && depth === 0) {
      out.push(selector.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(selector.slice(start).trim());
  return out.filter((t) => t !== '');
}

/** Label keys the typed query reads as fields of their own. */
const LABEL_KEYS: ReadonlySet<string> = new Set(['env', 'team', 'region', 'tier']);

/** One selector term as a condition: `k=v`, `k in (a,b)`, `k notin (a)`; undefined for what the query does not say (`!k`, `k!=v`). */
function termCondition(term: string): Where | undefined {
  const set = /^([a-z0-9][\w./-]*) (in|notin) \(([^)]*)\)$/.exec(term);
  if (set !== null) {
    const [, key = '', op, list = ''] = set;
    if (!LABEL_KEYS.has(key)) return undefined;
    const values = list.split(',').map((v) => v.trim()).filter((v) => v !== '');
    const w: Where = values.length === 1 ? { op: 'eq', field: key, value: values[0] ?? '' } : { op: 'in', field: key, values };
    return op === 'notin' ? { op: 'not', of: w } : w;
  }
  const eq = /^([a-z0-9][\w./-]*)=([\w.-]*)$/.exec(term);
  if (eq === null) return undefined;
  const [, key = '', value = ''] = eq;
  return LABEL_KEYS.has(key) ? { op: 'eq', field: key, value } : { op: 'eq', field: 'label', value: term };
}

/** A status filter of the list ("OutOfSync" or several) as a condition. */
function statusCondition(field: string, value: unknown): Where | undefined {
  const values = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
  if (values === undefined || values.length === 0) return undefined;
  return values.length === 1 ? { op: 'eq', field, value: values[0] ?? '' } : { op: 'in', field, values };
}

/**
 * The typed query an application list answered, read back from its tool arguments (the inverse of `listEntitiesOf`):
 * what a follow-up ("only the out-of-sync ones", "what about staging?") edits. Undefined when the list filtered on
 * something the query cannot say (a label's absence, a cluster by URL), so the follow-up is not misread.
 */
export function listQueryOf(args: Readonly<Record<string, unknown>>): Query | undefined {
  const parts: Where[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || key === 'limit' || key === 'offset' || key === 'refresh') continue;
    let w: Where | undefined;
    switch (key) {
      case 'sync_status':
        w = statusCondition('sync', value);
        break;
      case 'health_status':
        w = statusCondition('health', value);
        break;
      case 'operation_phase':
        w = statusCondition('operation', value);
        break;
      case 'cluster':
        w = statusCondition('cluster', value);
        if ((typeof value === 'string' ? [value] : Array.isArray(value) ? value : []).some((v) => String(v).includes('://'))) return undefined;
        break;
      case 'project':
      case 'namespace':
      case 'repo':
        w = typeof value === 'string' ? { op: 'eq', field: key, value } : undefined;
        break;
      case 'name_contains':
        w = typeof value === 'string' ? { op: 'contains', field: 'name', value } : undefined;
        break;
      case 'auto_sync':
        w = typeof value === 'boolean' ? { op: 'eq', field: 'auto_sync', value } : undefined;
        break;
      case 'last_sync_after':
      case 'last_sync_before':
      case 'created_after':
      case 'created_before': {
        const [, field = '', op = ''] = /^(last_sync|created)_(after|before)$/.exec(key) ?? [];
        w = typeof value === 'string' ? { op: op === 'after' ? 'after' : 'before', field, at: value } : undefined;
        break;
      }
      case 'selector': {
        if (typeof value !== 'string') return undefined;
        for (const term of selectorTerms(value)) {
          const c = termCondition(term);
          if (c === undefined) return undefined;
          parts.push(c);
        }
        continue;
      }
      default:
        return undefined;
    }
    if (w === undefined) return undefined;
    parts.push(w);
  }
  const where = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : ({ op: 'and', of: parts } satisfies Where);
  return { entity: 'applications', ...(where === undefined ? {} : { where }), what: { kind: 'list' } };
}

/** Fields the attention view sets itself (its two lists): a question that also filters on them is no attention view. */
const ATTENTION_OWN: ReadonlySet<string> = new Set(['sync', 'health', 'operation', 'auto_sync', 'last_sync', 'created']);

/**
 * The attention view's classification of a typed reading: applications that need attention (`NEEDS_ATTENTION`), listed,
 * within a scope the list plan applies (project, cluster, environment, team, labels...). Its answer shows the two lists
 * it is made of, out of sync and not healthy; anything else about them (a count, a status filter) is a typed query.
 */
export function attentionClassification(parsed: Parsed): Classification<ArgoIntent> | undefined {
  const query = parsed.query;
  if (parsed.kind !== 'query' || query === undefined || query.entity !== 'applications' || query.what.kind !== 'list' || parsed.inferred.length > 0 || parsed.notRead.length > 0 || parsed.cut) return undefined;
  const parts = query.where === undefined ? [] : query.where.op === 'and' ? query.where.of : [query.where];
  const wanted = JSON.stringify(NEEDS_ATTENTION);
  const rest = parts.filter((p) => JSON.stringify(p) !== wanted);
  if (rest.length !== parts.length - 1 || conditionsOf({ op: 'and', of: rest }).some((c) => ATTENTION_OWN.has(c.field))) return undefined;
  const where = rest.length === 0 ? undefined : rest.length === 1 ? rest[0] : ({ op: 'and', of: rest } satisfies Where);
  const scope = listEntitiesOf({ entity: 'applications', ...(where === undefined ? {} : { where }), what: { kind: 'list' } });
  if (scope === undefined) return undefined;
  return { intent: 'attention', entities: scope, confidence: 0.95, complexity: 'complex', alternatives: [], unused: parsed.unapplied, corrected: parsed.corrections };
}
