import { z } from 'zod';
import { FlotillaError, isFlotillaError, type Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { batches } from '@flotilla/limitations';
import { RATE_LIMIT_DEFAULTS, TokenBucket, UPSTREAM_DEFAULTS, UpstreamHttp, type CircuitOptions, type RateLimitSettings, type UpstreamLimits } from '@flotilla/upstream';
import { djangoRestError } from './errors.js';
import { AvailableIp, Cable, Device, Interface, IpAddress, Module, PageMeta, Prefix, Rack, Site, Vlan } from './schemas.js';

/** The NetBox models Flotilla reads, their API paths, item schemas and the fields it asks for (never more). */
export const NETBOX_MODELS = {
  sites: { path: 'dcim/sites', schema: Site, fields: ['id', 'name', 'slug', 'status', 'region', 'facility', 'time_zone', 'description', 'device_count', 'rack_count', 'prefix_count', 'vlan_count'] },
  devices: { path: 'dcim/devices', schema: Device, fields: ['id', 'name', 'role', 'device_type', 'site', 'rack', 'position', 'status', 'platform', 'tenant', 'serial', 'asset_tag', 'primary_ip4', 'tags', 'interface_count', 'description'] },
  interfaces: { path: 'dcim/interfaces', schema: Interface, fields: ['id', 'name', 'device', 'type', 'enabled', 'mgmt_only', 'mark_connected', 'speed', 'mtu', 'mac_address', 'description', 'cable', 'mode', 'count_ipaddresses'] },
  racks: { path: 'dcim/racks', schema: Rack, fields: ['id', 'name', 'site', 'status', 'role', 'tenant', 'u_height', 'facility_id', 'description', 'device_count'] },
  cables: { path: 'dcim/cables', schema: Cable, fields: ['id', 'label', 'type', 'status', 'length', 'length_unit', 'tenant', 'a_terminations', 'b_terminations'] },
  modules: { path: 'dcim/modules', schema: Module, fields: ['id', 'device', 'module_bay', 'module_type', 'status', 'serial'] },
  vlans: { path: 'ipam/vlans', schema: Vlan, fields: ['id', 'vid', 'name', 'site', 'group', 'status', 'role', 'tenant', 'description'] },
  prefixes: { path: 'ipam/prefixes', schema: Prefix, fields: ['id', 'prefix', 'site', 'vlan', 'status', 'role', 'tenant', 'is_pool', 'description'] },
  ip_addresses: { path: 'ipam/ip-addresses', schema: IpAddress, fields: ['id', 'address', 'status', 'role', 'dns_name', 'assigned_object', 'description'] },
} as const;
export type NetBoxModel = keyof typeof NETBOX_MODELS;
export const NETBOX_MODEL_NAMES = Object.keys(NETBOX_MODELS) as NetBoxModel[];
/** NetBox's organisational lists, read for their names only (the lexicon's). */
export const NETBOX_NAME_LISTS = {
  regions: 'dcim/regions',
  manufacturers: 'dcim/manufacturers',
  device_types: 'dcim/device-types',
  device_roles: 'dcim/device-roles',
  platforms: 'dcim/platforms',
  tenants: 'tenancy/tenants',
  tags: 'extras/tags',
  ipam_roles: 'ipam/roles',
} as const;
export type NetBoxNameList = keyof typeof NETBOX_NAME_LISTS;
/** Every operation label of the client's requests (their metric series start at zero). */
export const NETBOX_OPERATIONS: readonly string[] = [...NETBOX_MODEL_NAMES.flatMap((m) => [`list_${m}`, `count_${m}`, `get_${m}`]), 'available_ips', 'list_names'];
const NamedItem = z.looseObject({ id: z.number().int(), name: z.string().nullish(), slug: z.string().nullish(), model: z.string().nullish() });
export type ItemOf<M extends NetBoxModel> = z.output<(typeof NETBOX_MODELS)[M]['schema']>;

/** Query filters: a list value is sent as repeated parameters, which NetBox ORs. */
export type Filters = Readonly<Record<string, string | number | boolean | readonly (string | number)[] | undefined>>;

/** Limits of the client's own walking; every one is enforced below. */
export interface WalkLimits {
  /** Upstream requests one walk may make. */
  readonly maxCalls: number;
  /** Items one walk may collect. */
  readonly maxItems: number;
  /** Parent ids in one repeated-id request (URL length: gunicorn's request line is 4 KiB by default). */
  readonly idsPerBatch: number;
}

export const NETBOX_DEFAULTS = {
  /** NetBox's MAX_PAGE_SIZE default: the largest page a walk asks for. */
  maxPageSize: 1_000,
  walk: { maxCalls: 40, maxItems: 50_000, idsPerBatch: 100 } satisfies WalkLimits,
  upstream: {
    ...UPSTREAM_DEFAULTS,
    // A page is at most maxPageSize items of the fields asked for: a few hundred KiB. The cap stops anything else;
    // pages are read item by item, so memory holds one item (at most maxValueBytes), not the page.
    maxBodyBytes: 32 * 1024 * 1024,
  } satisfies UpstreamLimits,
  rateLimit: RATE_LIMIT_DEFAULTS,
} as const;

export interface WalkResult<T> {
  readonly items: T[];
  /** What NetBox said the whole (filtered) set holds; for id batches, the sum over batches. */
  readonly count: number;
  readonly calls: number;
  /** Set when the walk stopped before the end (budget, item cap, rate limit): the items are a prefix. */
  readonly stoppedEarly?: FlotillaError;
}

export interface NetBoxClientOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly limits?: UpstreamLimits;
  /** The shared rate limiter's settings; `false` turns it off. */
  readonly rateLimit?: RateLimitSettings | false;
  readonly maxPageSize?: number;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  /** The circuit breaker (CIRCUIT_DEFAULTS of @flotilla/upstream), or false for none. */
  readonly circuit?: CircuitOptions | false | undefined;
}

/** Device components filter by their device's role as `device_role` (NetBox 4.1); devices themselves by `role`. */
const COMPONENT_MODELS: ReadonlySet<NetBoxModel> = new Set(['interfaces', 'modules']);

function query(filters: Filters, model?: NetBoxModel): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    const key = name === 'role' && model !== undefined && COMPONENT_MODELS.has(model) ? 'device_role' : name;
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value as readonly (string | number)[]) params.append(key, String(v));
    else params.set(key, String(value));
  }
  return params;
}

/**
 * The NetBox REST calls Flotilla makes. Every list asks for the fields its tool reads (`fields=`, which also
 * drops `config_context`), pages at most as far as the request needs, and goes through one rate limiter shared by
 * every request of the process (token bucket; a 429's Retry-After pauses it).
 */
export class NetBoxClient {
  private readonly http: UpstreamHttp;
  readonly limiter: TokenBucket | undefined;
  readonly maxPageSize: number;

  constructor(options: NetBoxClientOptions) {
    this.maxPageSize = options.maxPageSize ?? NETBOX_DEFAULTS.maxPageSize;
    this.limiter = options.rateLimit === false ? undefined : new TokenBucket({ displayName: 'NetBox', ...(options.rateLimit ?? NETBOX_DEFAULTS.rateLimit) });
    this.http = new UpstreamHttp({
      system: 'netbox',
      displayName: 'NetBox',
      operations: NETBOX_OPERATIONS,
      baseUrl: options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
      headers: { authorization: `Token ${options.token}` },
      limits: options.limits ?? NETBOX_DEFAULTS.upstream,
      metrics: options.metrics,
      logger: options.logger,
      rateLimiter: this.limiter,
      errorBody: djangoRestError,
      ...(options.circuit === undefined ? {} : { circuit: options.circuit }),
    });
  }

  /**
   * One page: `limit` items from `offset` (limit <= maxPageSize), and the total. One request, read item by item as
   * it streams in (each item validated on its own, `count` captured beside them), never the whole page at once.
   */
  async page<M extends NetBoxModel>(model: M, filters: Filters, page: { limit: number; offset: number; fields?: readonly (typeof NETBOX_MODELS)[M]['fields'][number][] }, signal?: AbortSignal): Promise<{ count: number; results: ItemOf<M>[] }> {
    const spec = NETBOX_MODELS[model];
    const limit = Math.min(page.limit, this.maxPageSize);
    // `fields`: fewer than the model's (a lexicon reads names only); the item schema's other fields are optional.
    const params = query({ ...filters, limit, offset: page.offset, fields: (page.fields ?? spec.fields).join(',') }, model);
    const body = await this.http.getPage({ operation: `list_${model}`, path: `api/${spec.path}/`, query: params, listKey: 'results', itemSchema: spec.schema, scalarsSchema: PageMeta, pageSize: limit, signal });
    return { count: body.scalars.count, results: body.items as ItemOf<M>[] };
  }

  /** How many objects match: `limit=1&brief=1`, the cheapest request NetBox answers with a count. */
  async count(model: NetBoxModel, filters: Filters, signal?: AbortSignal): Promise<number> {
    const spec = NETBOX_MODELS[model];
    const params = query({ ...filters, limit: 1, brief: 1 }, model);
    const body = await this.http.getPage({ operation: `count_${model}`, path: `api/${spec.path}/`, query: params, listKey: 'results', itemSchema: spec.schema.partial().loose(), scalarsSchema: PageMeta, pageSize: 1, signal });
    return body.scalars.count;
  }

  async get<M extends NetBoxModel>(model: M, id: number, signal?: AbortSignal): Promise<ItemOf<M>> {
    const spec = NETBOX_MODELS[model];
    return (await this.http.getJson({
      operation: `get_${model}`,
      path: `api/${spec.path}/${id}/`,
      query: query({ fields: spec.fields.join(',') }),
      schema: spec.schema,
      signal,
    })) as ItemOf<M>;
  }

  /** The first object matching `filters` (e.g. a device by name), or a not_found error naming what was asked. */
  async findOne<M extends NetBoxModel>(model: M, filters: Filters, what: string, signal?: AbortSignal): Promise<ItemOf<M>> {
    const { results } = await this.page(model, filters, { limit: 1, offset: 0 }, signal);
    const found = results[0];
    if (found === undefined) {
      throw new FlotillaError('not_found', `NetBox has no ${what}`, { remedy: 'Check the name: search_netbox finds objects by part of their name.' });
    }
    return found;
  }

  /**
   * Every object matching `filters`, walking maxPageSize pages until the end or a bound: at most `maxCalls`
   * requests and `maxItems` items. A rate limit or the bound ends the walk early with what was read so far.
   */
  async walk<M extends NetBoxModel>(model: M, filters: Filters, limits: WalkLimits, signal?: AbortSignal): Promise<WalkResult<ItemOf<M>>> {
    const items: ItemOf<M>[] = [];
    let count = 0;
    let calls = 0;
    for (let offset = 0; ; offset += this.maxPageSize) {
      if (calls >= limits.maxCalls) return { items, count, calls, stoppedEarly: budgetError(calls, items.length, count) };
      let page: { count: number; results: ItemOf<M>[] };
      try {
        page = await this.page(model, filters, { limit: this.maxPageSize, offset }, signal);
      } catch (error) {
        // Nothing read yet: the caller gets the error itself. Partway: keep what was read and say why it stopped.
        if (calls === 0 || !isFlotillaError(error) || !['rate_limited', 'upstream_timeout', 'upstream_unavailable'].includes(error.code)) throw error;
        return { items, count, calls, stoppedEarly: error };
      }
      calls += 1;
      count = page.count;
      if (count > limits.maxItems && calls === 1) {
        throw new FlotillaError('payload_too_large', `${count.toLocaleString('en-US')} ${model} match; one answer reads at most ${limits.maxItems.toLocaleString('en-US')}`, {
          remedy: 'Narrow it: a site, a role, a status or a device.',
          details: { count, max_items: limits.maxItems },
        });
      }
      items.push(...page.results);
      if (page.results.length < this.maxPageSize || items.length >= count) return { items, count, calls };
    }
  }

  /**
   * The N+1 remedy: children of many parents (interfaces of 200 devices) read with repeated-id filters
   * (`device_id=1&device_id=2...`, which NetBox ORs), `idsPerBatch` parents a request, each batch paged. About
   * parents / idsPerBatch + pages requests instead of one per parent, and exact.
   */
  async walkByIds<M extends NetBoxModel>(model: M, idParam: string, ids: readonly number[], filters: Filters, limits: WalkLimits, signal?: AbortSignal): Promise<WalkResult<ItemOf<M>>> {
    const items: ItemOf<M>[] = [];
    let count = 0;
    let calls = 0;
    for (const batch of batches(ids, limits.idsPerBatch)) {
      const left: WalkLimits = { ...limits, maxCalls: limits.maxCalls - calls, maxItems: limits.maxItems - items.length };
      if (left.maxCalls <= 0) return { items, count, calls, stoppedEarly: budgetError(calls, items.length, count) };
      let part: WalkResult<ItemOf<M>>;
      try {
        part = await this.walk(model, { ...filters, [idParam]: batch }, left, signal);
      } catch (error) {
        if (calls === 0 || !isFlotillaError(error)) throw error;
        return { items, count, calls, stoppedEarly: error };
      }
      items.push(...part.items);
      count += part.count;
      calls += part.calls;
      if (part.stoppedEarly !== undefined) return { items, count, calls, stoppedEarly: part.stoppedEarly };
    }
    return { items, count, calls };
  }

  /**
   * The slugs and names of one organisational list (regions, tenants...), one page of at most maxPageSize: what a
   * lexicon reads. `truncated` when NetBox holds more.
   */
  async names(list: NetBoxNameList, signal?: AbortSignal): Promise<{ readonly items: readonly { readonly slug: string; readonly name: string }[]; readonly truncated: boolean }> {
    const params = query({ limit: this.maxPageSize, offset: 0, brief: 1 });
    const body = await this.http.getPage({ operation: 'list_names', path: `api/${NETBOX_NAME_LISTS[list]}/`, query: params, listKey: 'results', itemSchema: NamedItem, scalarsSchema: PageMeta, pageSize: this.maxPageSize, signal });
    const items = (body.items).flatMap((x) => {
      const slug = x.slug ?? x.name ?? x.model;
      return slug === undefined || slug === null ? [] : [{ slug, name: x.name ?? x.model ?? slug }];
    });
    return { items, truncated: body.scalars.count > items.length };
  }

  /** Free addresses of a prefix, lowest first (NetBox's available-ips), at most `limit`. */
  availableIps(prefixId: number, limit: number, signal?: AbortSignal): Promise<AvailableIp[]> {
    // A plain array, at most `limit` long: small enough to parse whole.
    return this.http.getJson({
      operation: 'available_ips',
      path: `api/ipam/prefixes/${prefixId}/available-ips/`,
      query: query({ limit: Math.min(limit, this.maxPageSize) }),
      schema: z.array(AvailableIp).max(this.maxPageSize),
      signal,
    });
  }
}

function budgetError(calls: number, read: number, count: number): FlotillaError {
  return new FlotillaError('payload_too_large', `stopped after ${calls} NetBox requests with ${read.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} items read`, {
    remedy: 'Narrow the question (a role, a status, fewer devices), or ask for a quick look (a sample).',
    details: { calls, read, count },
  });
}
