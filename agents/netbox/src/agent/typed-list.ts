import type { Classification } from '@flotilla/agent-kit';
import type { Parsed, Query, Where } from '@flotilla/query';
import type { NetBoxIntent } from './intents.js';
import { NETBOX_DOMAIN } from '../query/declare.js';

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

/** What each list tool's arguments say, as the typed query's fields (the inverse of the list plans). */
const LIST_ARGS: Readonly<Record<string, { readonly entity: string; readonly fields: Readonly<Record<string, string>> }>> = {
  list_devices: { entity: 'devices', fields: { site: 'site', role: 'role', status: 'status', tag: 'tag' } },
  list_sites: { entity: 'sites', fields: { status: 'status', region: 'region' } },
  list_interfaces: { entity: 'interfaces', fields: { site: 'site', role: 'role', device: 'device', cabled: 'cabled', enabled: 'enabled' } },
};
/** Arguments that page or sample a list, not filter it. */
const PAGING_ARGS: ReadonlySet<string> = new Set(['limit', 'offset', 'sample', 'refresh']);

/**
 * The typed query a list answered, read back from its tool and arguments: what a follow-up ("only the switches", "what
 * about lon1?", "how many of them are offline?") edits. Undefined for any other answer, or a filter the query cannot
 * say, so the follow-up is not misread.
 */
export function listQueryOf(tool: string, args: Readonly<Record<string, unknown>>): Query | undefined {
  const list = LIST_ARGS[tool];
  if (list === undefined) return undefined;
  const parts: Where[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || PAGING_ARGS.has(key)) continue;
    const field = list.fields[key];
    if (field === undefined || (typeof value !== 'string' && typeof value !== 'boolean')) return undefined;
    parts.push({ op: 'eq', field, value });
  }
  const where: Where | undefined = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { op: 'and', of: parts };
  return { entity: list.entity, ...(where === undefined ? {} : { where }), what: { kind: 'list' } };
}

/**
 * The device view's classification of a typed reading: one device named by its name, asked for as a whole ("show
 * device x", "tell me about x", "x"): its details, interfaces and addresses side by side. A field asked of it ("rack of
 * x", "status of x") is the typed projection.
 */
export function detailsClassification(parsed: Parsed): Classification<NetBoxIntent> | undefined {
  const query = parsed.query;
  if (parsed.kind !== 'query' || query === undefined || query.entity !== 'devices' || query.what.kind !== 'fields' || parsed.inferred.length > 0 || parsed.notRead.length > 0 || parsed.cut) return undefined;
  const devices = NETBOX_DOMAIN.entities.find((e) => e.name === 'devices');
  const details = devices?.details ?? [];
  const fields = query.what.fields;
  if (fields.length !== details.length || !fields.every((f, i) => f === details[i])) return undefined;
  const w = query.where;
  if (w === undefined || w.op !== 'eq' || w.field !== devices?.nameField || typeof w.value !== 'string') return undefined;
  return { intent: 'device_details', entities: { device: w.value }, confidence: 0.95, complexity: 'complex', alternatives: [], unused: parsed.unapplied, corrected: parsed.corrections };
}
