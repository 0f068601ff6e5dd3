import type { Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import express from 'express';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describeError, type Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';

export interface RunningMcpServer {
  /** Base URL, e.g. http://127.0.0.1:8091 */
  readonly url: string;
  /** The MCP endpoint: `${url}/mcp`. */
  readonly mcpUrl: string;
  readonly metrics: FlotillaMetrics;
  close(): Promise<void>;
}

export interface McpHttpOptions {
  /** Human name for logs ("Argo CD MCP server"). */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly metrics: FlotillaMetrics;
  /** A fresh MCP server per request; the heavy parts it uses are shared by the caller. */
  readonly createServer: () => McpServer;
  /** Tools the server registers (for /readyz). */
  readonly tools: number;
  /** Bearer token MCP clients must send; undefined: no client authentication. */
  readonly mcpToken?: string | undefined;
  /** Runs after the HTTP server closed (e.g. the result store). */
  readonly onClose?: () => Promise<void>;
  /** Logged with the listening line. */
  readonly describe?: Readonly<Record<string, unknown>>;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length));
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** An MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
export async function serveMcpOverHttp(options: McpHttpOptions): Promise<RunningMcpServer> {
  const { logger, metrics } = options;
  const handler = createMcpHandler(options.createServer, {
    onerror: (error) => logger.warn({ err: describeError(error) }, 'MCP request failed'),
  });
  const mcp = toNodeHandler(handler, { onerror: (error) => logger.error({ err: error }, 'MCP adapter failed') });

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res.json({ status: 'ready', tools: options.tools });
  });
  app.get('/metrics', (_req, res, next) => {
    metrics.registry
      .metrics()
      .then((text) => res.type(metrics.registry.contentType).send(text))
      .catch(next);
  });
  app.all('/mcp', (req, res) => {
    if (options.mcpToken !== undefined && !bearerMatches(req.headers.authorization, options.mcpToken)) {
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
    const server = app.listen(options.port, options.host, (error?: Error) => (error === undefined ? resolveListen(server) : reject(error)));
  });
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ url: `${url}/mcp`, ...options.describe }, `${options.name} listening`);
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
      await options.onClose?.();
    },
  };
}

/**
 * An MCP client linked in memory to `server`: tools in process, seen exactly as a remote MCP client sees them
 * (validation, budgets, isError results).
 */
export async function connectInProcess(server: McpServer, version: string): Promise<{ readonly client: Client; close(): Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'flotilla-in-process', version });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
