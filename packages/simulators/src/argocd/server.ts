import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { describeError, silentLogger, type Logger } from '@flotilla/core';
import type { SimulatorClock } from '../clock.js';
import { countBodyBytes, listen } from '../http.js';
import { createRng } from '../prng.js';
import { ARGO_ESTATE_DEFAULTS, estateEpoch, generateArgoEstate, type ArgoEstateOptions } from './data.js';
import { GrpcCode, GrpcError, PERMISSION_DENIED, sendGrpcError, sendJson } from './grpc.js';
import { SimulatorOptionsSchema, parseOptions } from './options.js';
import { podLogs } from './pod-logs.js';
import * as resources from './resources.js';
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
  /** Sizes of the generated pod logs (defaults: `LOG_LIMITS`). */
  logs?: ArgoLogOptions;
  /** What `faults.latencyMs` waits on (default: real time); tests step their own. */
  clock?: SimulatorClock;
  logger?: Logger;
}

/** Log sizes: per pod by default, and per application (by name) to make one application's logs huge. */
export interface ArgoLogOptions {
  /** Lines a pod that has run for a day logs; a younger pod logs in proportion (default 3,000). */
  linesPerPod?: number;
  /** How long a `follow=true` stream stays open after the existing lines (ms, default 300,000). */
  followMs?: number;
  /** Per application: `linesPerPod`, and `longLineChars` to make one line of each pod's log that long. */
  apps?: Record<string, { linesPerPod?: number; longLineChars?: number }>;
}

export interface SimulatorStats extends resources.LiveCounters {
  /** Requests received, every path included. */
  requests: number;
  /** Response body bytes written (a truncated body counts what was sent). */
  bytesSent: number;
}

const newStats = (): SimulatorStats => ({ requests: 0, bytesSent: 0, logLinesGenerated: 0, logStreamsOpen: 0, logStreamsWaiting: 0 });

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
type LiveHandler = (req: Request, res: Response, ctx: routes.RouteContext, live: resources.LiveContext) => Promise<void> | void;

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

/** The application resource routes, which also need the estate's clock and the log settings. */
const LIVE_API: readonly (readonly [string, LiveHandler | undefined, readonly ('post' | 'put' | 'patch' | 'delete')[]])[] = [
  ['/applications/:name/resource-tree', resources.resourceTree, []],
  ['/applications/:name/managed-resources', resources.managedResources, []],
  ['/applications/:name/events', resources.events, []],
  ['/applications/:name/logs', podLogs, []],
  ['/applications/:name/pods/:podName/logs', podLogs, []],
  // PatchResource (POST) and DeleteResource share the path.
  ['/applications/:name/resource', resources.resource, ['post', 'delete']],
  // RunResourceAction (deprecated) and RunResourceActionV2.
  ['/applications/:name/resource/actions', resources.resourceActions, ['post']],
  ['/applications/:name/resource/actions/v2', undefined, ['post']],
];

/**
 * An express app that answers Argo CD's REST API (applications and their resource tree, managed resources,
 * events, live manifests, actions and pod logs; projects, application sets, clusters, version) over a fixed
 * estate, with Argo CD's semantics: bearer auth, grpc-gateway error bodies, unpaginated lists sorted by name and
 * streamed item by item, the `fields` projection, label selectors, sanitised clusters. Every request, body byte
 * and generated log line is counted in `counters`.
 */
export function createArgoCdApp(options: ArgoCdSimulatorOptions, counters: SimulatorStats = newStats()): express.Express {
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
  const live: resources.LiveContext = { now: estateEpoch(estate), logs: parsed.logs, counters };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req, res, next) => {
    counters.requests += 1;
    countBodyBytes(req, res, counters);
    res.on('close', () => logger.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, complete: res.writableFinished }, 'argocd-sim request'));
    if (faults.latencyMs > 0 && req.path !== '/healthz') parsed.clock.delay(faults.latencyMs, next);
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
  const routesOf = [...API, ...LIVE_API.map(([path, get, writes]) => [path, get === undefined ? undefined : (req: Request, res: Response, c: routes.RouteContext) => get(req, res, c, live), writes] as const)];
  for (const [path, get, writes] of routesOf) {
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
  const counters = newStats();
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
      counters.logLinesGenerated = 0;
    },
    close: () => listening.close(),
  };
}
