import type { Server } from 'node:http';
import { once } from 'node:events';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { silentLogger, type Logger } from '@flotilla/core';
import { createRng } from '../prng.js';
import { generateArgoEstate, type ArgoEstate, type ArgoEstateOptions } from './estate.js';
import { projectFields, selectedFields } from './fields.js';
import { parseLabelSelector, SelectorError } from './selector.js';

export interface ArgoFaults {
  /** Added before every /api/v1 answer. */
  latencyMs?: number;
  /** Fraction (0..1) of /api/v1 requests answered 503, from a seeded sequence (deterministic). */
  errorRate?: number;
  /** Fraction (0..1) of list responses whose connection is dropped halfway through the body. */
  truncateRate?: number;
}

export interface ArgoCdSimulatorOptions {
  host?: string;
  port?: number;
  token: string;
  estate?: ArgoEstate | ArgoEstateOptions;
  faults?: ArgoFaults;
  logger?: Logger;
}

export interface SimulatorStats {
  requests: number;
  bytesSent: number;
}

export interface RunningSimulator {
  readonly url: string;
  stats(): SimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

const OptionsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(0),
  token: z.string().min(1, 'token must not be empty'),
  faults: z
    .object({
      latencyMs: z.number().int().min(0).max(300_000).default(0),
      errorRate: z.number().min(0).max(1).default(0),
      truncateRate: z.number().min(0).max(1).default(0),
    })
    .default({ latencyMs: 0, errorRate: 0, truncateRate: 0 }),
});

/** grpc-gateway error bodies, as Argo CD sends them. */
function grpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ error: message, code, message });
}

function isEstate(value: ArgoEstate | ArgoEstateOptions | undefined): value is ArgoEstate {
  return value !== undefined && Array.isArray((value as ArgoEstate).applications);
}

function queryList(req: Request, ...names: string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const value = req.query[name];
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') out.push(v);
  }
  return out.filter((v) => v.length > 0);
}

function queryOne(req: Request, name: string): string | undefined {
  const values = queryList(req, name);
  return values[0];
}

interface Counters {
  requests: number;
  bytesSent: number;
}

/**
 * An express app that answers the Argo CD REST API for applications, projects, application sets and clusters
 * over a fixed estate. Lists are not paginated and come sorted by name, as Argo CD sends them; application lists
 * honour `fields`. Every response body is counted in `counters`.
 */
export function createArgoCdApp(options: ArgoCdSimulatorOptions, counters: Counters = { requests: 0, bytesSent: 0 }): express.Express {
  const parsed = OptionsSchema.parse({ host: options.host, port: options.port, token: options.token, faults: options.faults });
  const estate = isEstate(options.estate) ? options.estate : generateArgoEstate(options.estate);
  const logger = options.logger ?? silentLogger();
  const faults = parsed.faults;
  const faultRng = createRng(0x5eed);
  const byName = new Map(estate.applications.map((a) => [a.metadata.name, a]));

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((req, res, next) => {
    counters.requests += 1;
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => Response;
    const count = (chunk: unknown): void => {
      if (typeof chunk === 'string') counters.bytesSent += Buffer.byteLength(chunk);
      else if (chunk instanceof Uint8Array) counters.bytesSent += chunk.length;
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      count(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') count(chunk);
      return end(chunk, ...rest);
    }) as typeof res.end;
    logger.debug({ method: req.method, url: req.url }, 'request');
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/api/version', (_req, res) => {
    res.json({ Version: 'v2.14.9+simulated', BuildDate: '2026-01-01T00:00:00Z', GoVersion: 'go1.23', Platform: 'linux/amd64' });
  });

  // Auth, then faults, for the whole API.
  app.use('/api/v1', (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || !header.startsWith('Bearer ')) {
      grpcError(res, 401, 16, 'no session information');
      return;
    }
    if (header.slice('Bearer '.length) !== parsed.token) {
      grpcError(res, 401, 16, 'invalid session: token signature is invalid');
      return;
    }
    const go = (): void => {
      if (faults.errorRate > 0 && faultRng.next() < faults.errorRate) {
        grpcError(res, 503, 14, 'connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.12:8083: connect: connection refused"');
        return;
      }
      next();
    };
    if (faults.latencyMs > 0) setTimeout(go, faults.latencyMs);
    else go();
  });

  /** Streams `{"metadata":{...},"items":[...]}` item by item, honouring backpressure; may drop the connection. */
  async function sendList(res: Response, items: readonly unknown[], project: (item: unknown) => unknown = (item) => item): Promise<void> {
    const truncate = faults.truncateRate > 0 && faultRng.next() < faults.truncateRate;
    res.status(200).type('application/json');
    const write = async (text: string): Promise<void> => {
      if (!res.write(text)) await once(res, 'drain');
    };
    await write(`{"metadata":{"resourceVersion":"${estate.applications.length + 1000}"},"items":`);
    if (items.length === 0) {
      res.end('null}');
      return;
    }
    await write('[');
    const cut = truncate ? Math.max(1, Math.floor(items.length / 2)) : -1;
    for (let i = 0; i < items.length; i += 1) {
      if (i === cut) {
        res.destroy();
        return;
      }
      await write(`${i > 0 ? ',' : ''}${JSON.stringify(project(items[i]))}`);
    }
    if (truncate) {
      // One item only: cut inside it.
      res.destroy();
      return;
    }
    res.end(']}');
  }

  const selectorOf = (req: Request, res: Response): ((labels: Record<string, string> | undefined) => boolean) | undefined => {
    try {
      return parseLabelSelector(queryOne(req, 'selector') ?? '');
    } catch (error) {
      if (!(error instanceof SelectorError)) throw error;
      grpcError(res, 400, 3, `error parsing selector: ${error.message}`);
      return undefined;
    }
  };
  const handle = (work: (req: Request, res: Response) => Promise<void> | void) => (req: Request, res: Response) => {
    Promise.resolve(work(req, res)).catch((error: unknown) => {
      logger.warn({ err: error }, 'response failed');
      if (!res.headersSent) grpcError(res, 500, 13, 'internal error');
      else res.destroy();
    });
  };

  app.get(
    '/api/v1/applications',
    handle(async (req, res) => {
      const matches = selectorOf(req, res);
      if (matches === undefined) return;
      const name = queryOne(req, 'name');
      const projects = new Set(queryList(req, 'projects', 'project'));
      const repo = queryOne(req, 'repo');
      const namespace = queryOne(req, 'appNamespace');
      const items = estate.applications.filter(
        (a) =>
          (name === undefined || a.metadata.name === name) &&
          (projects.size === 0 || projects.has(a.spec.project)) &&
          (repo === undefined || [a.spec.source, ...(a.spec.sources ?? [])].some((s) => s?.repoURL === repo)) &&
          (namespace === undefined || a.metadata.namespace === namespace) &&
          matches(a.metadata.labels),
      );
      const paths = selectedFields(queryOne(req, 'fields'));
      await sendList(res, items, paths === undefined ? undefined : (item) => projectFields(item as Record<string, unknown>, paths));
    }),
  );
  app.get('/api/v1/applications/:name', (req, res) => {
    const found = byName.get(req.params.name);
    const namespace = queryOne(req, 'appNamespace');
    if (found === undefined || (namespace !== undefined && found.metadata.namespace !== namespace)) {
      grpcError(res, 404, 5, `applications.argoproj.io "${req.params.name}" not found`);
      return;
    }
    res.json(found);
  });

  app.get('/api/v1/projects', handle((_req, res) => sendList(res, estate.projects)));
  app.get('/api/v1/projects/:name', (req, res) => {
    const found = estate.projects.find((p) => p.metadata.name === req.params.name);
    if (found === undefined) grpcError(res, 404, 5, `appprojects.argoproj.io "${req.params.name}" not found`);
    else res.json(found);
  });

  app.get(
    '/api/v1/applicationsets',
    handle(async (req, res) => {
      const matches = selectorOf(req, res);
      if (matches === undefined) return;
      const projects = new Set(queryList(req, 'projects', 'project'));
      await sendList(res, estate.applicationSets.filter((s) => (projects.size === 0 || projects.has(s.spec.template.spec.project)) && matches(s.metadata.labels)));
    }),
  );
  app.get('/api/v1/applicationsets/:name', (req, res) => {
    const found = estate.applicationSets.find((s) => s.metadata.name === req.params.name);
    if (found === undefined) grpcError(res, 404, 5, `applicationsets.argoproj.io "${req.params.name}" not found`);
    else res.json(found);
  });

  app.get(
    '/api/v1/clusters',
    handle(async (req, res) => {
      const server = queryOne(req, 'server');
      const name = queryOne(req, 'name');
      await sendList(res, estate.clusters.filter((c) => (server === undefined || c.server === server) && (name === undefined || c.name === name)));
    }),
  );
  app.get('/api/v1/clusters/:server', (req, res) => {
    const found = estate.clusters.find((c) => c.server === req.params.server || c.name === req.params.server);
    if (found === undefined) grpcError(res, 404, 5, `cluster "${req.params.server}" not found`);
    else res.json(found);
  });

  app.all('/api/v1/{*rest}', (req, res) => {
    if (req.method !== 'GET') grpcError(res, 405, 12, `method ${req.method} is not served by the simulator`);
    else grpcError(res, 404, 5, 'Not Found');
  });
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('404 page not found');
  });
  return app;
}

/** Starts the Argo CD simulator on `host:port` (port 0 picks a free one). */
export async function startArgoCdSimulator(options: ArgoCdSimulatorOptions): Promise<RunningSimulator> {
  const parsed = OptionsSchema.parse({ host: options.host, port: options.port, token: options.token, faults: options.faults });
  const counters: Counters = { requests: 0, bytesSent: 0 };
  const app = createArgoCdApp(options, counters);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(parsed.port, parsed.host, (error?: Error) => (error === undefined ? resolve(s) : reject(error)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : parsed.port;
  const host = parsed.host === '0.0.0.0' ? '127.0.0.1' : parsed.host.includes(':') ? `[${parsed.host}]` : parsed.host;
  return {
    url: `http://${host}:${port}`,
    stats: () => ({ ...counters }),
    resetStats: () => {
      counters.requests = 0;
      counters.bytesSent = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
