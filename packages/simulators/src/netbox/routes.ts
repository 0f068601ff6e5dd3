import type { Request, Response } from 'express';
import { NETBOX_ESTATE_ORIGIN } from './catalog.js';
import { formatIp, parseNetwork, type Family } from './ip.js';
import { MODEL_PATHS, type ModelPath } from './models.js';
import { pageLink, pageRequest, type Model, type View } from './query.js';
import type { NetBoxEstate } from './types.js';

export const NETBOX_VERSION = '4.1.6';

/** Where a request goes: resolved from the path alone (trailing slash optional), before any authentication. */
export type Route =
  | { kind: 'root' }
  | { kind: 'status' }
  | { kind: 'app'; app: ServedApp }
  | { kind: 'list'; model: ModelPath }
  | { kind: 'detail'; model: ModelPath; id: number }
  | { kind: 'available-ips'; id: number };

const MODELS = new Set<string>(MODEL_PATHS);
/** The apps whose lists are served (their roots list them). */
export const SERVED_APPS = ['dcim', 'ipam', 'tenancy', 'extras'] as const;
export type ServedApp = (typeof SERVED_APPS)[number];

export function resolveRoute(path: string): Route | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] !== 'api') return undefined;
  const [, app, model, id, action, ...rest] = parts;
  if (rest.length > 0) return undefined;
  if (app === undefined) return { kind: 'root' };
  if (app === 'status') return model === undefined ? { kind: 'status' } : undefined;
  if (!(SERVED_APPS as readonly string[]).includes(app)) return undefined;
  if (model === undefined) return { kind: 'app', app: app as ServedApp };
  const key = `${app}/${model}`;
  if (!MODELS.has(key)) return undefined;
  if (id === undefined) return { kind: 'list', model: key as ModelPath };
  if (!/^\d+$/.test(id)) return undefined;
  if (action === undefined) return { kind: 'detail', model: key as ModelPath, id: Number(id) };
  return key === 'ipam/prefixes' && action === 'available-ips' ? { kind: 'available-ips', id: Number(id) } : undefined;
}

/** The `byEndpoint` key of a route: the model path for lists and details, and `ipam/prefixes/available-ips`. */
export function endpointKey(route: Route | undefined): string | undefined {
  if (route === undefined) return undefined;
  switch (route.kind) {
    case 'list':
    case 'detail':
      return route.model;
    case 'available-ips':
      return 'ipam/prefixes/available-ips';
    case 'root':
    case 'status':
    case 'app':
      return undefined;
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

export const NOT_FOUND = { detail: 'Not found.' };

export interface RouteContext {
  readonly estate: NetBoxEstate;
  readonly models: ReadonlyMap<ModelPath, Model>;
  readonly maxPageSize: number;
  /** Whether this list response is to be cut off (one draw of the truncation sequence). */
  truncate(): boolean;
}

/** `http://127.0.0.1:41234`: as the client addressed us (Django's build_absolute_uri). */
export function requestOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** The estate's URLs, re-pointed at the origin the client used (JSON-escaped, as it lands inside strings). */
function rewrite(text: string, origin: string): string {
  if (origin === NETBOX_ESTATE_ORIGIN) return text;
  const replacement = `"${JSON.stringify(origin).slice(1, -1)}/`;
  return text.replaceAll(`"${NETBOX_ESTATE_ORIGIN}/`, () => replacement);
}

export function setHeaders(res: Response, contentType = 'application/json'): void {
  res.setHeader('Content-Type', contentType);
  res.setHeader('API-Version', NETBOX_VERSION.split('.').slice(0, 2).join('.'));
  res.setHeader('Vary', 'Accept, Cookie, Origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** Sends a body; with `truncate`, half of it (the full length announced) and then the connection is destroyed. */
export async function sendText(res: Response, status: number, text: string, truncate = false, contentType = 'application/json'): Promise<void> {
  setHeaders(res, contentType);
  res.status(status);
  if (!truncate) {
    res.end(text);
    return;
  }
  const bytes = Buffer.from(text);
  res.setHeader('Content-Length', bytes.length);
  const half = bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
  if (!res.destroyed) await new Promise<void>((resolve) => res.write(half, () => resolve()));
  res.destroy();
}

export const sendJson = (res: Response, status: number, value: unknown): Promise<void> => sendText(res, status, JSON.stringify(value));

const params = (req: Request): URLSearchParams => new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');

/** brief/fields/exclude as NetBox reads them (the last value of each; `fields` wins over `brief`). */
function viewOf(query: URLSearchParams): View {
  const fields = query.getAll('fields').at(-1);
  const brief = query.getAll('brief').at(-1);
  return {
    brief: brief !== undefined && brief !== '' && !['false', 'False', '0'].includes(brief),
    fields: fields === undefined || fields.trim() === '' ? undefined : new Set(fields.split(',').map((f) => f.trim())),
    excludeConfigContext: query.getAll('exclude').some((v) => v.split(',').map((f) => f.trim()).includes('config_context')),
  };
}

function modelOf(ctx: RouteContext, path: ModelPath): Model {
  const model = ctx.models.get(path);
  if (model === undefined) throw new ApiError(404, NOT_FOUND);
  return model;
}

/** GET /api/<app>/<model>/: `{"count","next","previous","results"}`, ordered by id. */
export async function list(req: Request, res: Response, ctx: RouteContext, path: ModelPath): Promise<void> {
  const model = modelOf(ctx, path);
  const query = params(req);
  const selection = model.select(query);
  if ('errors' in selection) throw new ApiError(400, selection.errors);
  const { limit, offset } = pageRequest(query, ctx.maxPageSize);
  const count = selection.positions === null ? model.size : selection.positions.length;
  const origin = requestOrigin(req);
  const base = `${origin}${req.originalUrl.split('?')[0] ?? ''}`;
  const next = offset + limit < count ? pageLink(base, query, { limit, offset: offset + limit }) : null;
  const previous = offset <= 0 ? null : pageLink(base, query, { limit, offset: offset - limit <= 0 ? undefined : offset - limit });
  const view = viewOf(query);
  const end = Math.min(count, offset + limit);
  const results: string[] = [];
  for (let k = offset; k < end; k += 1) results.push(model.serialise(selection.positions === null ? k : (selection.positions[k] as number), view));
  const body = `{"count":${count},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":[${results.join(',')}]}`;
  await sendText(res, 200, rewrite(body, origin), ctx.truncate());
}

/** GET /api/<app>/<model>/<id>/ */
export async function detail(req: Request, res: Response, ctx: RouteContext, path: ModelPath, id: number): Promise<void> {
  const model = modelOf(ctx, path);
  const position = model.position(id);
  if (position === undefined) throw new ApiError(404, { detail: `No ${model.verbose} matches the given query.` });
  await sendText(res, 200, rewrite(model.serialise(position, viewOf(params(req))), requestOrigin(req)));
}

/** Every assigned address's host value, sorted, per family: what available-ips skips. */
export interface UsedHosts {
  4: bigint[];
  6: bigint[];
}

export function usedHosts(estate: NetBoxEstate): UsedHosts {
  const used: UsedHosts = { 4: [], 6: [] };
  for (const ip of estate.ipAddresses) {
    const net = parseNetwork(ip.address.split('/')[0] ?? '');
    if (net !== undefined) used[net.family].push(net.first);
  }
  const order = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
  used[4].sort(order);
  used[6].sort(order);
  return used;
}

/**
 * GET /api/ipam/prefixes/<id>/available-ips/: up to `limit` free addresses in ascending order. As
 * Prefix.get_available_ips: an IPv4 prefix below /31 loses its network and broadcast addresses, an IPv6 one below
 * /127 its subnet-router anycast address, unless the prefix is a pool.
 */
export async function availableIps(req: Request, res: Response, ctx: RouteContext, id: number, used: UsedHosts): Promise<void> {
  const prefix = ctx.estate.prefixes[(ctx.models.get('ipam/prefixes')?.position(id) ?? -1)];
  if (prefix === undefined) throw new ApiError(404, { detail: 'No Prefix matches the given query.' });
  const net = parseNetwork(prefix.prefix);
  if (net === undefined) throw new ApiError(404, NOT_FOUND);
  const { limit } = pageRequest(params(req), ctx.maxPageSize);
  const family: Family = net.family;
  let first = net.first;
  let last = net.last;
  const whole = prefix.is_pool || (family === 4 && net.length >= 31) || (family === 6 && net.length >= 127);
  if (!whole) {
    first += 1n;
    if (family === 4) last -= 1n;
  }
  const hosts = used[family];
  let lo = 0;
  let hi = hosts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((hosts[mid] as bigint) < first) lo = mid + 1;
    else hi = mid;
  }
  const out: { family: number; address: string; vrf: null }[] = [];
  for (let value = first, i = lo; value <= last && out.length < limit; value += 1n) {
    while (i < hosts.length && (hosts[i] as bigint) < value) i += 1;
    if (i < hosts.length && hosts[i] === value) continue;
    out.push({ family, address: `${formatIp(family, value)}/${net.length}`, vrf: null });
  }
  await sendJson(res, 200, out);
}

/** GET /api/status/ */
export function status(): Record<string, unknown> {
  return {
    'django-version': '5.0.9',
    'installed-apps': {
      debug_toolbar: '4.3.0',
      django_filters: '24.3',
      django_prometheus: '2.3.1',
      django_rq: '2.10.2',
      django_tables2: '2.7.0',
      drf_spectacular: '0.27.2',
      drf_spectacular_sidecar: '2024.7.1',
      mptt: '0.16.0',
      rest_framework: '3.15.2',
      social_django: '5.4.2',
      taggit: '6.0.0',
      timezone_field: '7.0',
    },
    'netbox-version': NETBOX_VERSION,
    'netbox-full-version': NETBOX_VERSION,
    plugins: {},
    'python-version': '3.12.3',
    'rq-workers-running': 1,
  };
}

/** GET /api/ and /api/<app>/: the browsable roots, listing what is served. */
export function root(req: Request, app: ServedApp | undefined): Record<string, string> {
  const origin = requestOrigin(req);
  if (app === undefined) {
    const apps = ['circuits', 'core', 'dcim', 'extras', 'ipam', 'plugins', 'status', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless'];
    return Object.fromEntries(apps.map((a) => [a, `${origin}/api/${a}/`]));
  }
  return Object.fromEntries(MODEL_PATHS.filter((p) => p.startsWith(`${app}/`)).map((p) => [p.slice(app.length + 1), `${origin}/api/${p}/`]));
}
