import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { describeError, silentLogger, type Logger } from '@flotilla/core';
import { countBodyBytes, listen } from '../http.js';
import { createRng } from '../prng.js';
import { ARGO_ESTATE_DEFAULTS, generateArgoEstate, type ArgoEstateOptions } from './data.js';
import { GrpcCode, GrpcError, PERMISSION_DENIED, sendGrpcError, sendJson } from './grpc.js';
import { SimulatorOptionsSchema, parseOptions } from './options.js';
import * as routes from './routes.js';
import type { ArgoEstate } from './types.js';

export interface ArgoFaults {
  /** Milliseconds added before every answer (health checks excepted). */
  latencyMs?: number;
  /** Fraction (0..1) of authenticated /api/v1 requests answered 503 (gRPC Unavailable), from a seeded sequence. */
  errorRate?: number;
  /** Fraction (0..1) of list responses whose body stops midway and whose connection is destroyed. */
  truncateRate?: number;
  /** Seed of both fault sequences; defaults to the estate's seed. */
  seed?: number;
}

export interface ArgoCdSimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The bearer token clients must send (`Authorization: Bearer <token>`, or the `argocd.token` cookie). */
  token: string;
  /** A ready estate, or the options to generate one (default: the 819-application estate). */
  estate?: ArgoEstate | ArgoEstateOptions;
  faults?: ArgoFaults;
  logger?: Logger;
}

export interface SimulatorStats {
  /** Requests received, every path included. */
  requests: number;
  /** Response body bytes written (a truncated body counts what was sent). */
  bytesSent: number;
}

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  stats(): SimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

const VERSION = 'v3.1.9+8f4e2c1';
/** VersionMessage as an authenticated caller sees it; anonymous callers get `Version` alone (server/version). */
const FULL_VERSION = {
  Version: VERSION,
  BuildDate: '2025-10-17T21:35:08Z',
  GitCommit: `8f4e2c1${createRng(0x5eed).hex(33)}`,
  GitTreeState: 'clean',
  GoVersion: 'go1.24.6',
  Compiler: 'gc',
  Platform: 'linux/amd64',
  KustomizeVersion: 'v5.7.0 2025-06-28T07:00:07Z',
  HelmVersion: 'v3.18.4+gd80839c',
  KubectlVersion: 'v0.33.1',
  JsonnetVersion: 'v0.21.0',
};

function isEstate(value: unknown): value is ArgoEstate {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.applications) && Array.isArray(v.projects) && Array.isArray(v.applicationSets) && Array.isArray(v.clusters);
}

/** The `argocd.token` cookie Argo CD's UI uses. */
function cookieToken(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === 'argocd.token') return rest.join('=');
  }
  return undefined;
}

/**
 * Argo CD's authentication (server.go getClaims/getToken): a bearer token is only considered when it looks like a
 * JWT (three dot-separated parts), so anything else means "no session information"; a JWT that does not verify is
 * an invalid session. The simulator's own token is accepted whatever its shape.
 */
function authenticate(req: Request, token: string): GrpcError | undefined {
  const header = req.headers.authorization;
  const candidates = [typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined, cookieToken(req.headers.cookie)].filter(
    (t): t is string => t !== undefined,
  );
  if (candidates.includes(token)) return undefined;
  const jwt = candidates.find((t) => t.split('.').length >= 3);
  if (jwt === undefined) return new GrpcError(GrpcCode.Unauthenticated, 'no session information');
  try {
    JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8'));
  } catch {
    return new GrpcError(GrpcCode.Unauthenticated, 'invalid session: token is malformed: could not JSON decode header');
  }
  // golang-jwt v5's wording for a token signed with another key.
  return new GrpcError(GrpcCode.Unauthenticated, 'invalid session: token signature is invalid: signature is invalid');
}

type Handler = (req: Request, res: Response, ctx: routes.RouteContext) => Promise<void> | void;

/** Read routes, and the write methods Argo CD serves on the same paths (answered as for a read-only account). */
const API: readonly (readonly [string, Handler | undefined, readonly ('post' | 'put' | 'patch' | 'delete')[]])[] = [
  ['/applications', routes.listApplications, ['post']],
  ['/applications/:name', routes.getApplication, ['put', 'patch', 'delete']],
  ['/applications/:name/sync', undefined, ['post']],
  ['/applications/:name/rollback', undefined, ['post']],
  ['/projects', routes.listProjects, ['post']],
  ['/projects/:name', routes.getProject, ['put', 'delete']],
  ['/applicationsets', routes.listApplicationSets, ['post']],
  ['/applicationsets/:name', routes.getApplicationSet, ['delete']],
  ['/clusters', routes.listClusters, ['post']],
  ['/clusters/:id', routes.getCluster, ['put', 'delete']],
];

/**
 * An express app that answers Argo CD's REST API (applications, projects, application sets, clusters, version)
 * over a fixed estate, with Argo CD's semantics: bearer auth, grpc-gateway error bodies, unpaginated lists sorted
 * by name and streamed item by item, the `fields` projection, label selectors. Every request and body byte is
 * counted in `counters`.
 */
export function createArgoCdApp(options: ArgoCdSimulatorOptions, counters: SimulatorStats = { requests: 0, bytesSent: 0 }): express.Express {
  const parsed = parseOptions(SimulatorOptionsSchema, options, 'Argo CD simulator options');
  const estate = isEstate(options.estate) ? options.estate : generateArgoEstate(options.estate);
  const logger = options.logger ?? silentLogger();
  const { faults } = parsed;
  const seed = faults.seed ?? (isEstate(options.estate) ? undefined : options.estate?.seed) ?? ARGO_ESTATE_DEFAULTS.seed;
  const errorRng = createRng(seed ^ 0x0e770e77);
  const truncateRng = createRng(seed ^ 0x7c07c07c);
  const ctx: routes.RouteContext = {
    index: routes.indexEstate(estate),
    truncate: () => faults.truncateRate > 0 && truncateRng.next() < faults.truncateRate,
  };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req, res, next) => {
    counters.requests += 1;
    countBodyBytes(req, res, counters);
    res.on('close', () => logger.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, complete: res.writableFinished }, 'argocd-sim request'));
    if (faults.latencyMs > 0 && req.path !== '/healthz') setTimeout(next, faults.latencyMs);
    else next();
  });

  const handle =
    (handler: Handler): RequestHandler =>
    (req, res) => {
      Promise.resolve()
        .then(() => handler(req, res, ctx))
        .catch((error: unknown) => {
          if (res.headersSent) {
            logger.warn({ err: describeError(error), url: req.originalUrl }, 'argocd-sim response failed midway');
            res.destroy();
          } else if (error instanceof GrpcError) sendGrpcError(res, error);
          else {
            logger.error({ err: describeError(error), url: req.originalUrl }, 'argocd-sim handler failed');
            sendGrpcError(res, new GrpcError(GrpcCode.Internal, describeError(error)));
          }
        });
    };
  const guard: RequestHandler = (req, res, next) => {
    const denied = authenticate(req, parsed.token);
    if (denied !== undefined) return sendGrpcError(res, denied);
    if (faults.errorRate > 0 && errorRng.next() < faults.errorRate) {
      return sendGrpcError(res, new GrpcError(GrpcCode.Unavailable, 'connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:8080: connect: connection refused"'));
    }
    next();
  };
  const readOnly = handle(() => {
    throw new GrpcError(GrpcCode.PermissionDenied, PERMISSION_DENIED);
  });
  const methodNotAllowed: RequestHandler = (_req, res) => sendJson(res, 405, { error: 'Method Not Allowed', code: GrpcCode.Unimplemented, message: 'Method Not Allowed' });

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/api/version', (req, res) => sendJson(res, 200, authenticate(req, parsed.token) === undefined ? FULL_VERSION : { Version: VERSION }));
  const api = express.Router();
  for (const [path, get, writes] of API) {
    const route = api.route(path);
    if (get !== undefined) route.get(guard, handle(get));
    for (const method of writes) route[method](guard, readOnly);
    route.all(methodNotAllowed);
  }
  app.use('/api/v1', api);
  // Unknown routes: a grpc-gateway style 404 (Argo CD itself would serve its web UI outside /api).
  app.use((_req, res) => sendJson(res, 404, { error: 'Not Found', code: GrpcCode.NotFound, message: 'Not Found' }));
  app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    sendGrpcError(res, new GrpcError(GrpcCode.InvalidArgument, describeError(error)));
  });
  return app;
}

/** Starts the simulator on `host:port` (port 0: any free port). */
export async function startArgoCdSimulator(options: ArgoCdSimulatorOptions): Promise<RunningSimulator> {
  const parsed = parseOptions(SimulatorOptionsSchema, options, 'Argo CD simulator options');
  const counters: SimulatorStats = { requests: 0, bytesSent: 0 };
  const app = createArgoCdApp(options, counters);
  const listening = await listen(app, parsed.host, parsed.port);
  const url = listening.url;
  (options.logger ?? silentLogger()).info({ url }, 'Argo CD simulator listening');
  return {
    url,
    stats: () => ({ ...counters }),
    resetStats: () => {
      counters.requests = 0;
      counters.bytesSent = 0;
    },
    close: () => listening.close(),
  };
}
