import type { Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { resolve } from 'node:path';
import express from 'express';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createBoundedTools, createFileResultStore, type ResultStore } from '@flotilla/bounded-tools';
import { describeError, type Logger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { ArgoCdClient } from './client/argocd-client.js';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import type { ArgoCdMcpConfig } from './config.js';
import { registerApplicationTools } from './tools/applications.js';
import { registerCatalogTools } from './tools/catalog.js';
import { registerSearchTool } from './tools/search.js';

export const SERVER_INFO = { name: 'flotilla-argocd', version: '0.1.0' } as const;

/** The tool names this server registers, in order. */
export const ARGOCD_TOOLS = [
  'list_applications',
  'get_application',
  'list_projects',
  'list_applicationsets',
  'list_clusters',
  'search_argocd_resources',
  'read_result',
] as const;
export type ArgoCdToolName = (typeof ARGOCD_TOOLS)[number];

export interface ArgoCdToolsetDeps {
  readonly client: ArgoCdClient;
  readonly counter: TokenCounter;
  readonly store: ResultStore;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  readonly budgetTokens?: number | undefined;
}

/**
 * A fresh MCP server with every Argo CD tool registered through the bounded-tools kit. Cheap: the heavy parts
 * (client, token counter, result store, metrics) are shared, so the HTTP handler builds one per request and an
 * in-process caller builds one per connection.
 */
export function createArgoCdMcpServer(deps: ArgoCdToolsetDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Argo CD, read-only. Search first (search_argocd_resources) when a question names something; list tools page and carry ' +
      'counts over all matches, so answer totals from counts, not by paging. Large results come back with a result_id: page them with read_result.',
  });
  const kit = createBoundedTools({ server, counter: deps.counter, store: deps.store, metrics: deps.metrics, logger: deps.logger, budgetTokens: deps.budgetTokens });
  registerApplicationTools(kit, deps.client);
  registerCatalogTools(kit, deps.client);
  registerSearchTool(kit, deps.client);
  kit.registerReadResult();
  return server;
}

/**
 * An MCP client linked in memory to a fresh Argo CD MCP server: the tools in process, seen exactly as a remote
 * MCP client sees them (validation, budgets, isError results).
 */
export async function connectArgoCdToolsInProcess(deps: ArgoCdToolsetDeps): Promise<{ readonly client: Client; close(): Promise<void> }> {
  const server = createArgoCdMcpServer(deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'flotilla-in-process', version: SERVER_INFO.version });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export interface RunningMcpServer {
  /** Base URL, e.g. http://127.0.0.1:8091 */
  readonly url: string;
  /** The MCP endpoint: `${url}/mcp`. */
  readonly mcpUrl: string;
  readonly metrics: FlotillaMetrics;
  close(): Promise<void>;
}

export interface StartOptions {
  readonly logger: Logger;
  /** Shared with other components in one process; a fresh registry with process metrics otherwise. */
  readonly metrics?: FlotillaMetrics;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length));
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The Argo CD MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
export async function startArgoCdMcpServer(config: ArgoCdMcpConfig, options: StartOptions): Promise<RunningMcpServer> {
  const logger = options.logger;
  const metrics = options.metrics ?? createMetrics({ defaultMetrics: true });
  const counter = await loadTokenCounter(config.tokenEncoding);
  const store = await createFileResultStore({
    directory: resolve(config.dataDir),
    ttlSeconds: config.resultTtlSeconds,
    diskCapBytes: config.resultDiskCapMiB * 1024 * 1024,
    maxResultBytes: Math.min(64, config.resultDiskCapMiB) * 1024 * 1024,
    metrics,
  });
  const client = new ArgoCdClient({
    baseUrl: config.argocdUrl,
    token: config.argocdToken,
    limits: {
      ...UPSTREAM_DEFAULTS,
      maxBodyBytes: config.upstreamMaxBodyMiB * 1024 * 1024,
      timeoutMs: config.upstreamTimeoutMs,
      retries: config.upstreamRetries,
      maxConcurrent: config.upstreamConcurrency,
    },
    metrics,
    logger: logger.child({ component: 'argocd-client' }),
  });
  const deps: ArgoCdToolsetDeps = { client, counter, store, metrics, logger: logger.child({ component: 'argocd-mcp' }), budgetTokens: config.budgetTokens };
  const handler = createMcpHandler(() => createArgoCdMcpServer(deps), {
    onerror: (error) => logger.warn({ err: describeError(error) }, 'MCP request failed'),
  });
  const mcp = toNodeHandler(handler, { onerror: (error) => logger.error({ err: error }, 'MCP adapter failed') });

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res.json({ status: 'ready', tools: ARGOCD_TOOLS.length });
  });
  app.get('/metrics', (_req, res, next) => {
    metrics.registry
      .metrics()
      .then((text) => res.type(metrics.registry.contentType).send(text))
      .catch(next);
  });
  app.all('/mcp', (req, res) => {
    if (config.mcpToken !== undefined && !bearerMatches(req.headers.authorization, config.mcpToken)) {
      res.status(401).set('www-authenticate', 'Bearer').json({ error: 'unauthorized', message: 'send Authorization: Bearer <the MCP token>' });
      return;
    }
    mcp(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'MCP request handling failed');
      if (!res.headersSent) res.status(500).json({ error: 'internal', message: 'the request failed; the error was logged' });
    });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', message: 'endpoints: POST /mcp, GET /metrics, /healthz, /readyz' });
  });

  const http = await new Promise<Server>((resolveListen, reject) => {
    const server = app.listen(config.port, config.host, (error?: Error) => (error === undefined ? resolveListen(server) : reject(error)));
  });
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ url: `${url}/mcp`, argocd: config.argocdUrl, budgetTokens: config.budgetTokens }, 'Argo CD MCP server listening');
  return {
    url,
    mcpUrl: `${url}/mcp`,
    metrics,
    async close() {
      await handler.close();
      await new Promise<void>((done) => {
        http.close(() => done());
        http.closeIdleConnections();
      });
      await store.close();
    },
  };
}
