import express, { type NextFunction, type Request, type Response } from 'express';
import { describeError, silentLogger, type Logger } from '@flotilla/core';
import type { SimulatorClock } from '../clock.js';
import { countBodyBytes, listen } from '../http.js';
import { createRng } from '../prng.js';
import { parseOptions } from '../argocd/options.js';
import { NETBOX_ESTATE_DEFAULTS, generateNetBoxEstate, type NetBoxEstateOptions } from './data.js';
import { compileModels } from './models.js';
import { NetBoxSimulatorOptionsSchema } from './options.js';
import * as routes from './routes.js';
import type { NetBoxEstate } from './types.js';

export interface NetBoxFaults {
  /** Milliseconds added before every answer. */
  latencyMs?: number;
  /** Fraction (0..1) of authenticated API requests answered 503 (an nginx page or `{"detail": ...}`), from a seeded sequence. */
  errorRate?: number;
  /** Fraction (0..1) of list responses whose body stops midway and whose connection is destroyed. */
  truncateRate?: number;
  /** Seed of both fault sequences; defaults to the estate's seed. */
  seed?: number;
}

/** A token bucket per API token: `burst` requests at once, refilled at `requestsPerSecond`. */
export interface NetBoxRateLimit {
  requestsPerSecond: number;
  burst: number;
}

export interface NetBoxSimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The API token clients must send (`Authorization: Token <token>`, or `Bearer <token>`). */
  token: string;
  /** A ready estate, or the options to generate one (default: 12 sites, 600 devices, 24,000 interfaces). */
  estate?: NetBoxEstate | NetBoxEstateOptions;
  faults?: NetBoxFaults;
  /** Off by default. */
  rateLimit?: NetBoxRateLimit;
  /** NetBox's MAX_PAGE_SIZE: the largest `limit` honoured, and what `limit=0` means. Default 1000. */
  maxPageSize?: number;
  /** What the rate limiter reads and `faults.latencyMs` waits on (default: real time); tests step their own. */
  clock?: SimulatorClock;
  logger?: Logger;
}

export interface NetBoxSimulatorStats {
  /** Requests received, every path included (429s and 503s too). */
  requests: number;
  /** Response body bytes written (a truncated body counts what was sent). */
  bytesSent: number;
  /** Requests answered 429. */
  rateLimited: number;
  /** Requests per endpoint, e.g. {"dcim/interfaces": 8, "dcim/devices": 1} (API list/detail requests only). */
  byEndpoint: Record<string, number>;
}

export interface RunningNetBoxSimulator {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  stats(): NetBoxSimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

const newStats = (): NetBoxSimulatorStats => ({ requests: 0, bytesSent: 0, rateLimited: 0, byEndpoint: {} });

function isEstate(value: unknown): value is NetBoxEstate {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return ['sites', 'racks', 'devices', 'interfaces', 'cables', 'modules', 'vlans', 'prefixes', 'ipAddresses', 'tags', 'deviceRoles', 'ipamRoles'].every((k) => Array.isArray(v[k]));
}

/**
 * The key from `Authorization: Token <key>` (NetBox) or `Bearer <key>`: undefined when no such header (no
 * credentials), '' when the keyword comes without a key.
 */
function presentedToken(req: Request): string | undefined {
  const parts = (req.headers.authorization ?? '').trim().split(/\s+/);
  const keyword = parts[0]?.toLowerCase();
  if (keyword !== 'token' && keyword !== 'bearer') return undefined;
  return parts.length === 2 ? (parts[1] ?? '') : '';
}

class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly limit: { requestsPerSecond: number; burst: number }) {}

  /** 0 when the request may go ahead, else the whole seconds (at least 1) until a token is available. */
  take(key: string, now: number): number {
    const { requestsPerSecond, burst } = this.limit;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * requestsPerSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / requestsPerSecond));
  }
}

const NGINX_503 =
  '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/**
 * An express app answering NetBox v4.1's REST API, read-only, over a fixed estate: sites, racks, devices,
 * interfaces, cables, modules, VLANs, prefixes (with available-ips) and IP addresses. Token auth, limit/offset
 * paging with absolute next/previous links, brief/fields/exclude, django-filter filters with NetBox's 400 bodies,
 * an optional per-token rate limit and seeded faults. Every request, body byte, 429 and endpoint hit is counted in
 * `counters`.
 */
export function createNetBoxApp(options: NetBoxSimulatorOptions, counters: NetBoxSimulatorStats = newStats()): express.Express {
  const parsed = parseOptions(NetBoxSimulatorOptionsSchema, options, 'NetBox simulator options');
  const estate = isEstate(options.estate) ? options.estate : generateNetBoxEstate(options.estate);
  const logger = options.logger ?? silentLogger();
  const { faults } = parsed;
  const seed = faults.seed ?? (isEstate(options.estate) ? undefined : options.estate?.seed) ?? NETBOX_ESTATE_DEFAULTS.seed;
  const errorRng = createRng(seed ^ 0x0e770e77);
  const truncateRng = createRng(seed ^ 0x7c07c07c);
  const buckets = parsed.rateLimit === undefined ? undefined : new TokenBuckets(parsed.rateLimit);
  const ctx: routes.RouteContext = {
    estate,
    models: compileModels(estate),
    maxPageSize: parsed.maxPageSize,
    truncate: () => faults.truncateRate > 0 && truncateRng.next() < faults.truncateRate,
  };
  let used: routes.UsedHosts | undefined;

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req, res, next) => {
    counters.requests += 1;
    const key = routes.endpointKey(routes.resolveRoute(req.path));
    if (key !== undefined) counters.byEndpoint[key] = (counters.byEndpoint[key] ?? 0) + 1;
    countBodyBytes(req, res, counters);
    res.on('close', () => logger.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, complete: res.writableFinished }, 'netbox-sim request'));
    if (faults.latencyMs > 0) parsed.clock.delay(faults.latencyMs, next);
    else next();
  });

  const answer = async (req: Request, res: Response): Promise<void> => {
    const route = routes.resolveRoute(req.path);
    if (route === undefined) return routes.sendJson(res, 404, routes.NOT_FOUND);
    const token = presentedToken(req);
    // Authentication runs before anything else; a bad token fails even where anonymous access is allowed.
    if (token !== undefined && token !== parsed.token) return routes.sendJson(res, 403, { detail: token === '' ? 'Invalid token header. No credentials provided.' : 'Invalid token' });
    if (token === undefined && route.kind !== 'status') return routes.sendJson(res, 403, { detail: 'Authentication credentials were not provided.' });
    if (token !== undefined && buckets !== undefined) {
      const wait = buckets.take(token, parsed.clock.now());
      if (wait > 0) {
        counters.rateLimited += 1;
        res.setHeader('Retry-After', String(wait));
        return routes.sendJson(res, 429, { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` });
      }
    }
    if (route.kind !== 'status' && faults.errorRate > 0 && errorRng.next() < faults.errorRate) {
      // Half the time the proxy in front of NetBox answers, half the time NetBox itself.
      if (errorRng.next() < 0.5) return routes.sendText(res, 503, NGINX_503, false, 'text/html');
      return routes.sendJson(res, 503, { detail: 'Service temporarily unavailable, try again later.' });
    }
    if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH' || req.method === 'DELETE') {
      return routes.sendJson(res, 403, { detail: 'You do not have permission to perform this action.' });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return routes.sendJson(res, 405, { detail: `Method "${req.method}" not allowed.` });
    switch (route.kind) {
      case 'root':
        return routes.sendJson(res, 200, routes.root(req, undefined));
      case 'app':
        return routes.sendJson(res, 200, routes.root(req, route.app));
      case 'status':
        return routes.sendJson(res, 200, routes.status());
      case 'list':
        return routes.list(req, res, ctx, route.model);
      case 'detail':
        return routes.detail(req, res, ctx, route.model, route.id);
      case 'available-ips':
        used ??= routes.usedHosts(estate);
        return routes.availableIps(req, res, ctx, route.id, used);
    }
  };

  app.use((req, res) => {
    answer(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        logger.warn({ err: describeError(error), url: req.originalUrl }, 'netbox-sim response failed midway');
        res.destroy();
      } else if (error instanceof routes.ApiError) void routes.sendJson(res, error.status, error.body);
      else {
        logger.error({ err: describeError(error), url: req.originalUrl }, 'netbox-sim handler failed');
        void routes.sendJson(res, 500, { error: describeError(error), exception: 'Exception', netbox_version: routes.NETBOX_VERSION, python_version: '3.12.3' });
      }
    });
  });
  app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    void routes.sendJson(res, 400, { detail: describeError(error) });
  });
  return app;
}

/** Starts the simulator on `host:port` (port 0: any free port). */
export async function startNetBoxSimulator(options: NetBoxSimulatorOptions): Promise<RunningNetBoxSimulator> {
  const parsed = parseOptions(NetBoxSimulatorOptionsSchema, options, 'NetBox simulator options');
  const counters = newStats();
  const app = createNetBoxApp(options, counters);
  const listening = await listen(app, parsed.host, parsed.port);
  const url = listening.url;
  (options.logger ?? silentLogger()).info({ url }, 'NetBox simulator listening');
  return {
    url,
    stats: () => ({ ...counters, byEndpoint: { ...counters.byEndpoint } }),
    resetStats: () => {
      counters.requests = 0;
      counters.bytesSent = 0;
      counters.rateLimited = 0;
      counters.byEndpoint = {};
    },
    close: () => listening.close(),
  };
}
