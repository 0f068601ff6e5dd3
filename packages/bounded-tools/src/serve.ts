import type { Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describeError, FlotillaError, type Logger } from '@flotilla/core';
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
  /** Tokens MCP clients must send, one of them (two during a rotation); undefined: no client authentication. */
  readonly mcpTokens?: readonly string[] | undefined;
  /** Runs after the HTTP server closed (e.g. the result store). */
  readonly onClose?: () => Promise<void>;
  /** Logged with the listening line. */
  readonly describe?: Readonly<Record<string, unknown>>;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * True when an Authorization header is `Bearer <one of the tokens>` (the scheme in any case). Compared by SHA-256
 * digest in constant time against every token, so neither a token's content nor its length leaks through timing.
 */
export function bearerMatches(header: string | undefined, tokens: readonly string[]): boolean {
  const bearer = header !== undefined && /^bearer\s+/i.test(header);
  const given = digest(bearer ? header.replace(/^bearer\s+/i, '').trim() : '');
  let found = false;
  for (const token of tokens) found = timingSafeEqual(given, digest(token)) || found;
  return bearer && found;
}

/** An MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
export async function serveMcpOverHttp(options: McpHttpOptions): Promise<RunningMcpServer> {
  const { logger, metrics } = options;
  const mcpTokens = options.mcpTokens;
  if (mcpTokens !== undefined && (mcpTokens.length === 0 || mcpTokens.some((t) => t.length < 16))) {
    throw new FlotillaError('config_invalid', 'MCP tokens: give at least one, each at least 16 characters', { remedy: 'Generate one with: openssl rand -hex 24' });
  }
  // One server built (and dropped) now registers every tool: their metric series exist at zero before the first
  // request, so the first large read or error after a start reaches the alerts.
  await options.createServer().close();
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
    if (mcpTokens !== undefined && !bearerMatches(req.headers.authorization, mcpTokens)) {
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
  // The URL returned is for callers on this host (a wildcard bind is dialled on loopback); the log names what was bound.
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ listen: `${host}:${port}`, endpoint: '/mcp', ...options.describe }, `${options.name} listening`);
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
