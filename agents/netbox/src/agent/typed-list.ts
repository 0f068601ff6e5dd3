import type { Classification } from '@flotilla/agent-kit';
import type { Parsed, Query, Where } from '@flotilla/query';
import type { NetBoxIntent } from './intents.js';

/**
 * The typed reading of a list question, planned as NetBox's list: devices (by site, role, status, tag) or sites (by
 * status, region) listed, with conditions the list tool pushes to NetBox itself, run by the list plan, which shows a
 * short list whole, batches a long one progressively and says the filters. Anything else (a count, a negation, an OR,
 * another field) stays with the `query` tool.
 */
const LIST_FIELDS: Readonly<Record<string, { readonly intent: NetBoxIntent; readonly fields: readonly string[] }>> = {
  devices: { intent: 'list_devices', fields: ['site', 'role', 'status', 'tag'] },
  sites: { intent: 'list_sites', fields: ['status', 'region'] },
};

/** The list plan's intent and entities of a typed query, or undefined when the list plan would not apply all of it. */
export function listOfQuery(query: Query): { readonly intent: NetBoxIntent; readonly entities: Readonly<Record<string, string>> } | undefined {
  const list = LIST_FIELDS[query.entity];
  if (list === undefined || query.what.kind !== 'list' || query.sort !== undefined || query.offset !== undefined) return undefined;
  const parts: readonly Where[] = query.where === undefined ? [] : query.where.op === 'and' ? query.where.of : [query.where];
  const entities: Record<string, string> = {};
  for (const w of parts) {
    if (w.op !== 'eq' || typeof w.value !== 'string' || !list.fields.includes(w.field) || entities[w.field] !== undefined) return undefined;
    entities[w.field] = w.value;
  }
  return { intent: list.intent, entities };
}

/** The list plan's classification of a typed reading that it applies in full, with the reading's corrections. */
export function listClassification(parsed: Parsed): Classification<NetBoxIntent> | undefined {
  if (parsed.kind !== 'query' || parsed.query === undefined || parsed.inferred.length > 0 || parsed.notRead.length > 0 || parsed.cut || parsed.unapplied.length > 0) return undefined;
  const list = listOfQuery(parsed.query);
  if (list === undefined) return undefined;
  return { intent: list.intent, entities: list.entities, confidence: 0.95, complexity: 'simple', alternatives: [], unused: [], corrected: parsed.corrections };
}
