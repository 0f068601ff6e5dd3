import { FlotillaError } from '@flotilla/core';
import { checkQueryFields, conjuncts, fieldNotes, fieldsUsed, LIST_VALUES_LIMITS, listValuesFilters, queryOutcome, QUERY_OUTPUT, valueFields, valueOut, VALUE_ITEM, type BoundedTools, type JsonObject, type ToolPayload } from '@flotilla/bounded-tools';
import { conditionsOf, entityOf, fieldOf, querySchema, QueryRun, type Accessors, type Query, type Scalar, type Where } from '@flotilla/query';
import type { Filters, NetBoxClient, NetBoxModel, NetBoxNameList, WalkLimits } from '../client/netbox-client.js';
import type { Cable, Device, Interface, Prefix, Rack, Site, Vlan } from '../client/schemas.js';
import { NETBOX_DOMAIN, NETBOX_QUERY_ENTITIES } from '../query/declare.js';

/**
 * `query`: one typed query over NetBox (devices, interfaces or sites), planned here. Plain conditions at the top of
 * the where go to NetBox as its own filters (`site=ams1`, `status__n=active`, `enabled=false`); the rest is evaluated
 * over the matching objects, read page by page within the walk's bounds. A count or a page NetBox can filter on its
 * own is one request; a breakdown, a ranking or a comparison reads every matching object once (at most the walk's
 * items), and a set larger than that is refused with a way to narrow it, never counted in part.
 */

const FIELD_NAMES = [...new Set(NETBOX_DOMAIN.entities.flatMap((e) => e.fields.map((f) => f.name)))] as [string, ...string[]];
export const NetBoxQueryInput = querySchema(NETBOX_QUERY_ENTITIES, FIELD_NAMES);

type Entity = (typeof NETBOX_QUERY_ENTITIES)[number];
const MODEL_OF: Readonly<Record<Entity, NetBoxModel>> = { devices: 'devices', interfaces: 'interfaces', sites: 'sites', vlans: 'vlans', prefixes: 'prefixes', cables: 'cables', racks: 'racks' };

/** The NetBox filter parameter of each field a condition may be pushed to, by entity. */
const PARAMS: Readonly<Record<Entity, Readonly<Record<string, string>>>> = {
  devices: { name: 'name', site: 'site', role: 'role', status: 'status', tenant: 'tenant', manufacturer: 'manufacturer', platform: 'platform', device_type: 'device_type', region: 'region', tag: 'tag' },
  interfaces: { name: 'name', device: 'device', site: 'site', role: 'role', type: 'type', enabled: 'enabled', cabled: 'cabled', mark_connected: 'mark_connected', mgmt_only: 'mgmt_only', speed: 'speed', mtu: 'mtu' },
  sites: { status: 'status', region: 'region', tenant: 'tenant' },
  vlans: { name: 'name', vid: 'vid', site: 'site', group: 'group', status: 'status', role: 'role', tenant: 'tenant' },
  prefixes: { prefix: 'prefix', site: 'site', vlan: 'vlan_vid', status: 'status', role: 'role', tenant: 'tenant', is_pool: 'is_pool' },
  cables: { label: 'label', type: 'type', status: 'status', device: 'device', site: 'site', tenant: 'tenant' },
  racks: { name: 'name', site: 'site', status: 'status', tenant: 'tenant' },
};
/** Fields NetBox filters on that the objects it returns do not carry (an interface's site): pushed, or refused. */
const PUSHED_ONLY: Readonly<Record<Entity, ReadonlySet<string>>> = { devices: new Set(), interfaces: new Set(['site', 'role']), sites: new Set(), vlans: new Set(), prefixes: new Set(), cables: new Set(['site']), racks: new Set() };
/** Boolean filters: NetBox has no `__n` for them; a negation is the other value. */
const BOOLEAN_PARAMS = new Set(['enabled', 'cabled', 'mark_connected', 'mgmt_only', 'is_pool']);
/** Slugs and names NetBox takes as filter values as they are. */
const PLAIN_VALUE = /^[\w.:/-]{1,100}$/;

type Ref = { readonly slug?: string | null | undefined; readonly name?: string | null | undefined; readonly display?: string | null | undefined } | null | undefined;
/** A referenced object is its slug and its name: a condition on either finds it. */
const refValues = (ref: Ref): string[] => [...new Set([ref?.slug, ref?.name].filter((x): x is string => typeof x === 'string' && x !== ''))];
const refName = (ref: Ref): string | undefined => ref?.name ?? ref?.display ?? ref?.slug ?? undefined;

function deviceAccessors(regionOf: (siteId: number | undefined) => Ref): Accessors<Device> {
  return {
    name: (d) => d.name ?? undefined,
    site: (d) => refValues(d.site),
    role: (d) => refValues(d.role),
    status: (d) => d.status?.value ?? undefined,
    tenant: (d) => refValues(d.tenant),
    manufacturer: (d) => refValues(d.device_type?.manufacturer),
    platform: (d) => refValues(d.platform),
    device_type: (d) => [...new Set([d.device_type?.slug, d.device_type?.model].filter((x): x is string => typeof x === 'string' && x !== ''))],
    rack: (d) => refName(d.rack),
    region: (d) => refValues(regionOf(d.site?.id)),
    serial: (d) => (d.serial === '' ? undefined : d.serial),
    asset_tag: (d) => d.asset_tag ?? undefined,
    tag: (d) => (d.tags ?? []).map((t) => t.slug ?? t.name ?? '').filter((t) => t !== ''),
    primary_ip: (d) => d.primary_ip4?.address ?? undefined,
    interface_count: (d) => d.interface_count ?? undefined,
    description: (d) => (d.description === '' ? undefined : d.description),
  };
}
/** A device grouped and shown: each reference by one spelling (its slug, a model by its model name). */
const DEVICE_SHOWN = (regionOf: (siteId: number | undefined) => Ref): Partial<Accessors<Device>> => ({
  site: (d) => d.site?.slug ?? refName(d.site),
  role: (d) => d.role?.slug ?? refName(d.role),
  tenant: (d) => refName(d.tenant),
  manufacturer: (d) => refName(d.device_type?.manufacturer),
  platform: (d) => refName(d.platform),
  device_type: (d) => d.device_type?.model ?? d.device_type?.slug ?? undefined,
  region: (d) => refName(regionOf(d.site?.id)),
});

const INTERFACE_ACCESSORS: Accessors<Interface> = {
  name: (i) => i.name,
  device: (i) => refName(i.device),
  type: (i) => i.type?.value ?? undefined,
  enabled: (i) => i.enabled ?? undefined,
  cabled: (i) => i.cable !== null && i.cable !== undefined,
  mark_connected: (i) => i.mark_connected ?? undefined,
  mgmt_only: (i) => i.mgmt_only ?? undefined,
  speed: (i) => i.speed ?? undefined,
  mtu: (i) => i.mtu ?? undefined,
  mac_address: (i) => i.mac_address ?? undefined,
  description: (i) => (i.description === '' ? undefined : i.description),
};

const SITE_ACCESSORS: Accessors<Site> = {
  name: (s) => [...new Set([s.name, s.slug].filter((x): x is string => typeof x === 'string' && x !== ''))],
  status: (s) => s.status?.value ?? undefined,
  region: (s) => refValues(s.region),
  tenant: (s) => refValues((s as { tenant?: Ref }).tenant),
  facility: (s) => (s.facility === '' ? undefined : s.facility),
  time_zone: (s) => s.time_zone ?? undefined,
  device_count: (s) => s.device_count ?? undefined,
};
const SITE_SHOWN: Partial<Accessors<Site>> = { name: (s) => s.slug ?? s.name, region: (s) => refName(s.region), tenant: (s) => refName((s as { tenant?: Ref }).tenant) };

const VLAN_ACCESSORS: Accessors<Vlan> = {
  name: (v) => v.name,
  vid: (v) => v.vid,
  site: (v) => refValues(v.site),
  group: (v) => refValues(v.group),
  status: (v) => v.status?.value ?? undefined,
  role: (v) => refValues(v.role),
  tenant: (v) => refValues(v.tenant),
  description: (v) => (v.description === '' ? undefined : v.description),
};
const VLAN_SHOWN: Partial<Accessors<Vlan>> = { site: (v) => v.site?.slug ?? refName(v.site), group: (v) => refName(v.group), role: (v) => v.role?.slug ?? refName(v.role), tenant: (v) => refName(v.tenant) };

const PREFIX_ACCESSORS: Accessors<Prefix> = {
  prefix: (p) => p.prefix,
  site: (p) => refValues(p.site),
  vlan: (p) => p.vlan?.vid ?? undefined,
  status: (p) => p.status?.value ?? undefined,
  role: (p) => refValues(p.role),
  tenant: (p) => refValues(p.tenant),
  is_pool: (p) => p.is_pool ?? false,
  family: (p) => (p.prefix.includes(':') ? '6' : '4'),
  description: (p) => (p.description === '' ? undefined : p.description),
};
const PREFIX_SHOWN: Partial<Accessors<Prefix>> = { site: (p) => p.site?.slug ?? refName(p.site), role: (p) => p.role?.slug ?? refName(p.role), tenant: (p) => refName(p.tenant) };

type CableEnd = NonNullable<Cable['a_terminations']>[number];
/** One end of a cable as people read it: "ams1-sw-005 GigabitEthernet1/0/34" (several terminations joined). */
const endText = (ends: readonly CableEnd[] | null | undefined): string | undefined => {
  const parts = (ends ?? []).map((t) => [refName(t.object?.device), t.object?.name].filter((x): x is string => typeof x === 'string' && x !== '').join(' ')).filter((x) => x !== '');
  return parts.length === 0 ? undefined : parts.join(', ');
};
const endDevices = (c: Cable): string[] => [...new Set([...(c.a_terminations ?? []), ...(c.b_terminations ?? [])].map((t) => refName(t.object?.device)).filter((x): x is string => typeof x === 'string' && x !== ''))];
const CABLE_ACCESSORS: Accessors<Cable> = {
  label: (c) => (c.label === '' || c.label === null || c.label === undefined ? `#${c.id}` : c.label),
  type: (c) => (c.type === '' ? undefined : (c.type ?? undefined)),
  status: (c) => c.status?.value ?? undefined,
  device: (c) => endDevices(c),
  a_end: (c) => endText(c.a_terminations),
  b_end: (c) => endText(c.b_terminations),
  length: (c) => (c.length === null || c.length === undefined ? undefined : c.length),
  tenant: (c) => refValues(c.tenant),
};
const CABLE_SHOWN: Partial<Accessors<Cable>> = { tenant: (c) => refName(c.tenant), length: (c) => (c.length === null || c.length === undefined ? undefined : `${c.length} ${c.length_unit?.value ?? ''}`.trim()) };

const RACK_ACCESSORS: Accessors<Rack> = {
  name: (r) => r.name,
  site: (r) => refValues(r.site),
  status: (r) => r.status?.value ?? undefined,
  role: (r) => refValues(r.role),
  tenant: (r) => refValues(r.tenant),
  u_height: (r) => r.u_height ?? undefined,
  device_count: (r) => r.device_count ?? undefined,
  facility_id: (r) => (r.facility_id === '' ? undefined : (r.facility_id ?? undefined)),
};
const RACK_SHOWN: Partial<Accessors<Rack>> = { site: (r) => r.site?.slug ?? refName(r.site), role: (r) => refName(r.role), tenant: (r) => refName(r.tenant) };

/** Each entity's accessors (conditions), how its values are shown, and the name its row goes by. */
const READERS = {
  vlans: { acc: VLAN_ACCESSORS, shown: VLAN_SHOWN, name: (v: Vlan) => `${v.name} (${v.vid})` },
  prefixes: { acc: PREFIX_ACCESSORS, shown: PREFIX_SHOWN, name: (p: Prefix) => p.prefix },
  cables: { acc: CABLE_ACCESSORS, shown: CABLE_SHOWN, name: (c: Cable) => String(CABLE_ACCESSORS.label?.(c) ?? c.id) },
  racks: { acc: RACK_ACCESSORS, shown: RACK_SHOWN, name: (r: Rack) => r.name },
} as const;

/** A condition's values as NetBox filter values, when they can be sent as they are. */
function plainValues(c: Where): readonly Scalar[] | undefined {
  if (c.op !== 'eq' && c.op !== 'in') return undefined;
  const values = c.op === 'eq' ? [c.value] : c.values;
  return values.every((v) => typeof v !== 'string' || PLAIN_VALUE.test(v)) ? values : undefined;
}

/**
 * The top-level conditions NetBox applies itself (as its filters, `__n` for a negation), and the rest of the where,
 * evaluated here. A condition on a field the returned objects do not carry (an interface's site) must be pushed.
 */
export function planFilters(entity: Entity, where: Where | undefined): { readonly filters: Filters; readonly residual: Where | undefined } {
  const params = PARAMS[entity];
  const filters: Record<string, (string | number)[]> = {};
  const rest: Where[] = [];
  for (const part of conjuncts(where)) {
    const negated = part.op === 'not' ? part.of : undefined;
    const c = negated ?? part;
    const param = c.op === 'eq' || c.op === 'in' ? params[c.field] : undefined;
    const values = plainValues(c);
    if (param === undefined || values === undefined) {
      rest.push(part);
      continue;
    }
    if (BOOLEAN_PARAMS.has(param)) {
      // One value: a negation is the other one; "true or false" is no condition at all.
      const bools = [...new Set(values.map((v) => v === true || v === 'true'))];
      if (bools.length !== 1 || filters[param] !== undefined) {
        rest.push(part);
        continue;
      }
      filters[param] = [String(negated === undefined ? bools[0] : !bools[0])];
      continue;
    }
    const key = negated === undefined ? param : `${param}__n`;
    // A parameter sent twice ORs its values: a second condition on the same field is evaluated here instead.
    if (filters[key] !== undefined) {
      rest.push(part);
      continue;
    }
    filters[key] = values.map((v) => (typeof v === 'number' ? v : String(v)));
  }
  const residual = rest.length === 0 ? undefined : rest.length === 1 ? rest[0] : { op: 'and' as const, of: rest };
  const unreadable = conditionsOf(residual).map((c) => c.field).filter((f) => PUSHED_ONLY[entity].has(f));
  if (unreadable.length > 0) {
    const labels = [...new Set(unreadable)].map((f) => fieldOf(entityOf(NETBOX_DOMAIN, entity), f)?.label ?? f);
    throw new FlotillaError('invalid_argument', `NetBox filters ${entity} by ${labels.join(' and ')} only as a plain condition at the top of the query (it is not part of what it returns)`, {
      remedy: `Ask with one ${labels.join(' and one ')} (e.g. {"op":"eq","field":"${unreadable[0] ?? 'site'}","value":"ams1"}), not inside an "or" or a comparison.`,
    });
  }
  return { filters, residual };
}

export interface NetBoxQueryOptions {
  readonly walk: WalkLimits;
}

async function regionsOfSites(client: NetBoxClient, walk: WalkLimits, signal: AbortSignal): Promise<(siteId: number | undefined) => Ref> {
  const sites = await client.walk('sites', {}, walk, signal);
  if (sites.stoppedEarly !== undefined) throw sites.stoppedEarly;
  const byId = new Map(sites.items.map((s) => [s.id, s.region]));
  return (id) => (id === undefined ? undefined : byId.get(id));
}

export async function runNetBoxQuery(query: Query, client: NetBoxClient, options: NetBoxQueryOptions, signal: AbortSignal): Promise<ToolPayload> {
  checkQueryFields(NETBOX_DOMAIN, query, 'NetBox');
  const entity = query.entity as Entity;
  const model = MODEL_OF[entity];
  const notes = fieldNotes(NETBOX_DOMAIN, query);
  const { filters, residual } = planFilters(entity, query.where);
  const planned: Query = { ...query, ...(residual === undefined ? { where: undefined } : { where: residual }) };
  const groupFields = query.what.kind === 'breakdown' ? query.what.by : query.what.kind === 'top' ? [query.what.by] : [];
  const unreadableGroups = groupFields.filter((f) => PUSHED_ONLY[entity].has(f));
  if (unreadableGroups.length > 0 || (query.what.kind === 'compare' && query.what.groups.some((g) => conditionsOf(g).some((c) => PUSHED_ONLY[entity].has(c.field))))) {
    throw new FlotillaError('invalid_argument', `NetBox does not return the ${[...new Set(unreadableGroups)].join(', ') || 'site or role'} of ${entity}: they cannot be grouped or compared by it`, {
      remedy: entity === 'interfaces' ? 'Group interfaces by device, type, speed or state, or ask per site (one site a question).' : 'Group by another field.',
    });
  }

  // One request: a count or a page NetBox filters on its own.
  if (residual === undefined && query.what.kind === 'count') return { kind: 'object', data: { entity, kind: 'count', total: await client.count(model, filters, signal), ...(notes.length === 0 ? {} : { notes }) } };

  const regionOf = fieldsUsed(query).includes('region') && entity === 'devices' ? await regionsOfSites(client, options.walk, signal) : () => undefined;
  const outcome = <T>(run: QueryRun<T>, accessors: Accessors<T>, shown: Partial<Accessors<T>>, project: (item: T, fields: readonly string[]) => JsonObject): ToolPayload => queryOutcome(query, run, { domain: NETBOX_DOMAIN, accessors, shown, notes, project });
  const projectWith =
    <T>(accessors: Accessors<T>, shown: Partial<Accessors<T>>, name: (item: T) => string) =>
    (item: T, fields: readonly string[]): JsonObject => {
      const out: JsonObject = { name: name(item) };
      for (const f of fields) out[f] = valueOut((shown[f] ?? accessors[f])?.(item), false);
      return out;
    };

  if (residual === undefined && query.what.kind === 'list' && query.sort === undefined) {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await client.page(model, filters, { limit, offset }, signal);
    return listPage(query, page.count, offset, limit, page.results, notes, regionOf);
  }

  const walked = await client.walk(model, filters, options.walk, signal);
  // Never an answer from part of the set: a walk that stopped early is the answer's error.
  if (walked.stoppedEarly !== undefined) throw walked.stoppedEarly;
  if (walked.calls > 1) notes.push(`Read ${walked.count.toLocaleString('en-US')} ${entity} with ${walked.calls} NetBox requests.`);
  switch (entity) {
    case 'devices': {
      const acc = deviceAccessors(regionOf);
      const shown = DEVICE_SHOWN(regionOf);
      const run = new QueryRun(planned, acc, shown);
      for (const d of walked.items as Device[]) run.add(d);
      return outcome(run, acc, shown, projectWith(acc, shown, (d) => d.name ?? String(d.id)));
    }
    case 'interfaces': {
      const run = new QueryRun(planned, INTERFACE_ACCESSORS);
      for (const i of walked.items as Interface[]) run.add(i);
      return outcome(run, INTERFACE_ACCESSORS, {}, projectWith(INTERFACE_ACCESSORS, {}, (i) => `${refName(i.device) ?? '?'} ${i.name}`));
    }
    case 'sites': {
      const run = new QueryRun(planned, SITE_ACCESSORS, SITE_SHOWN);
      for (const s of walked.items as Site[]) run.add(s);
      return outcome(run, SITE_ACCESSORS, SITE_SHOWN, projectWith(SITE_ACCESSORS, SITE_SHOWN, (s) => s.name));
    }
    case 'vlans':
    case 'prefixes':
    case 'cables':
    case 'racks': {
      const r = READERS[entity] as unknown as { acc: Accessors<unknown>; shown: Partial<Accessors<unknown>>; name: (item: unknown) => string };
      const run = new QueryRun<unknown>(planned, r.acc, r.shown);
      for (const item of walked.items) run.add(item);
      return outcome(run, r.acc, r.shown, projectWith(r.acc, r.shown, r.name));
    }
  }
}

/** A page of rows NetBox already cut (its own filters only): the rows as the query's columns show them. */
function listPage(query: Query, total: number, offset: number, limit: number, items: readonly unknown[], notes: string[], regionOf: (siteId: number | undefined) => Ref): ToolPayload {
  const entity = query.entity as Entity;
  const run = (entity === 'devices' ? { acc: deviceAccessors(regionOf), shown: DEVICE_SHOWN(regionOf) } : entity === 'interfaces' ? { acc: INTERFACE_ACCESSORS, shown: {} } : entity === 'sites' ? { acc: SITE_ACCESSORS, shown: SITE_SHOWN } : READERS[entity]) as {
    acc: Accessors<unknown>;
    shown: Partial<Accessors<unknown>>;
  };
  // The rows, cut by NetBox; a QueryRun over them with no where and the page at 0 shapes them as a list.
  const shaped = new QueryRun<unknown>({ ...query, where: undefined, offset: 0, limit }, run.acc, run.shown);
  for (const item of items) shaped.add(item);
  const payload = queryOutcome(query, shaped, { domain: NETBOX_DOMAIN, accessors: run.acc, shown: run.shown, notes, project: () => ({}) });
  return payload.kind === 'page' ? { ...payload, total, offset } : payload;
}

export function registerNetBoxQueryTool(kit: BoundedTools, client: NetBoxClient, options: NetBoxQueryOptions): void {
  kit.register({
    name: 'query',
    title: 'Query NetBox',
    description:
      'One typed query over NetBox devices, interfaces, sites, VLANs, prefixes, cables or racks: where (and/or/not over eq, in, contains, exists, less/more on fields such as site, role, status, tenant, ' +
      'manufacturer, platform, device_type, rack, region, tag, serial; for interfaces device, type, enabled, cabled, speed), what (count; list with limit/offset; breakdown by ' +
      '1-2 fields; top N groups; compare two groups; named fields of one object such as serial, rack, platform). Counts and groups are exact over every matching object. ' +
      'NetBox stores whether an interface is enabled, not its live link state.',
    input: NetBoxQueryInput,
    output: QUERY_OUTPUT,
    run: async (args, ctx) => runNetBoxQuery(args as Query, client, options, ctx.signal),
  });
}

/** Where each live field's values come from: an organisational list (one request), or a walk of the objects. */
type ValueSource = NetBoxNameList | 'sites' | 'device_names' | 'vlan_names' | 'vlan_groups' | 'rack_names';
const VALUE_SOURCES: Readonly<Record<string, ValueSource>> = {
  site: 'sites',
  role: 'device_roles',
  tenant: 'tenants',
  manufacturer: 'manufacturers',
  platform: 'platforms',
  device_type: 'device_types',
  region: 'regions',
  tag: 'tags',
  device: 'device_names',
};

/** Where one entity's field takes its values from: an entity's own names, IPAM roles for VLANs and prefixes, else by field. */
function sourceOf(entity: string, field: string): ValueSource | undefined {
  if (field === 'name') return ({ sites: 'sites', devices: 'device_names', vlans: 'vlan_names', racks: 'rack_names' } as const)[entity as 'sites'];
  if (field === 'role' && (entity === 'vlans' || entity === 'prefixes')) return 'ipam_roles';
  if (field === 'group') return entity === 'vlans' ? 'vlan_groups' : undefined;
  return VALUE_SOURCES[field];
}

const ListValuesFilters = listValuesFilters(NETBOX_QUERY_ENTITIES, FIELD_NAMES, 'Fields of that entity whose values are names (site, role, tenant, manufacturer, platform, device_type, region, tag, device name, VLAN name or group, rack...).');

export function registerNetBoxValuesTool(kit: BoundedTools, client: NetBoxClient, options: NetBoxQueryOptions): void {
  kit.registerList({
    name: 'list_values',
    title: 'List the values of NetBox fields',
    description: 'The distinct values fields take (every site, role, tenant, manufacturer, platform, device type, region or tag, or the devices\' names) as {field, value, label?} (label: how NetBox names the slug), one page at a time.',
    itemKind: 'values',
    snapshot: true,
    filters: ListValuesFilters,
    item: VALUE_ITEM,
    load: async (filters, ctx) => {
      const fields = valueFields(NETBOX_DOMAIN, filters.entity, filters.fields);
      const out: { field: string; value: string; label?: string }[] = [];
      // The VLANs, walked once for their names and their groups alike.
      let vlans: Promise<readonly Vlan[]> | undefined;
      const vlansOnce = (): Promise<readonly Vlan[]> => (vlans ??= client.walk('vlans', {}, options.walk, ctx.signal).then((w) => w.items));
      for (const field of fields) {
        const source = sourceOf(filters.entity, field);
        if (source === undefined) continue;
        const values = new Set<string>();
        // NetBox's name of a slug ("Arista EOS" of eos, "Platform Engineering" of platform): people say either.
        const labels = new Map<string, string>();
        const labelled = (slug: string, name: unknown): void => {
          values.add(slug);
          if (typeof name === 'string' && name !== '' && name.toLowerCase() !== slug.toLowerCase()) labels.set(slug, name);
        };
        if (source === 'sites') {
          const sites = await client.walk('sites', {}, options.walk, ctx.signal);
          for (const s of sites.items) if (typeof s.slug === 'string' && s.slug !== '') labelled(s.slug, s.name);
        } else if (source === 'vlan_names' || source === 'vlan_groups') {
          for (const v of await vlansOnce()) {
            if (values.size >= LIST_VALUES_LIMITS.maxValues) break;
            if (source === 'vlan_names') values.add(v.name);
            else if (typeof v.group?.slug === 'string' && v.group.slug !== '') labelled(v.group.slug, v.group.name);
          }
        } else if (source === 'rack_names') {
          for (const r of (await client.walk('racks', {}, options.walk, ctx.signal)).items) if (values.size < LIST_VALUES_LIMITS.maxValues) values.add(r.name);
        } else if (source === 'device_names') {
          // Names only, page by page, up to maxValues (and the walk's request budget).
          const pageOf = (offset: number) => client.page('devices', {}, { limit: client.maxPageSize, offset, fields: ['id', 'name'] }, ctx.signal);
          const first = await pageOf(0);
          const pages = Math.min(Math.ceil(Math.min(first.count, LIST_VALUES_LIMITS.maxValues) / client.maxPageSize), options.walk.maxCalls);
          for (const d of first.results) if (typeof d.name === 'string') values.add(d.name);
          for (let p = 1; p < pages && values.size < LIST_VALUES_LIMITS.maxValues; p += 1) {
            for (const d of (await pageOf(p * client.maxPageSize)).results) if (typeof d.name === 'string') values.add(d.name);
          }
        } else {
          for (const x of (await client.names(source, ctx.signal)).items) labelled(x.slug, x.name);
        }
        for (const value of [...values].sort().slice(0, LIST_VALUES_LIMITS.maxValues)) {
          const label = labels.get(value);
          out.push(label === undefined ? { field, value } : { field, value, label });
        }
      }
      return out;
    },
  });
}
