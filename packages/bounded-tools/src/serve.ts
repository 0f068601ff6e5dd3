import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createMcpHandler, type JSONRPCRequest, type McpHttpHandler, type McpServer } from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { compiledOnFirstUse, describeError, FlotillaError, TOKEN_MIN_CHARS, type Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { fastPathRequest, JsonExchangeTransport } from './exchange.js';

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
  /**
   * Builds an MCP server with every tool registered; the heavy parts it uses are shared by the caller. Servers are
   * reused between requests (`mcpServerPool`), so it must not hold per-request state.
   */
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
 * Idle MCP servers kept for reuse. The SDK serves each HTTP request on a server that is not serving another one;
 * building one registers every tool again (zod schemas, JSON Schemas, metric series), which cost about a third of
 * a paging call's CPU and most of its garbage. A server whose request has ended goes back to the pool instead;
 * more requests at once than this build servers that are dropped after their request.
 */
export const MCP_SERVER_POOL_MAX = 32;

/** Servers for the SDK's per-request factory: reused between requests when that is safe, built when none is idle. */
export interface McpServerPool {
  /** The factory to hand to the SDK (one server per request, never one that is still serving). */
  readonly factory: (context?: { readonly era?: 'legacy' | 'modern' }) => McpServer;
  /** Idle servers now. */
  readonly idle: number;
  /** Servers built so far. */
  readonly built: number;
  /** Drops the idle servers; servers still serving are dropped when their request ends. */
  close(): void;
}

/**
 * A pool over `create`. Only 2025-era (stateless legacy) servers are reused, and only those that learnt nothing of
 * their caller: a server that answered an `initialize` (it keeps the client's capabilities and version) is dropped,
 * so no request sees another client's state. 2026-era servers are built per request, as the SDK's own default.
 */
export function mcpServerPool(create: () => McpServer, max = MCP_SERVER_POOL_MAX): McpServerPool {
  let built = 0;
  let closed = false;
  const build = (): McpServer => {
    built += 1;
    return create();
  };
  // None at once: the fast path's server, built at start, registers every tool (so their metric series exist at zero
  // before the first request); the pool builds on its first request (an initialize).
  const idle: McpServer[] = [];
  return {
    factory(context) {
      if (context?.era === 'modern') return build();
      const server = idle.pop() ?? build();
      const protocol = server.server;
      let returned = false;
      // The SDK closes the server when the request's exchange ends (its transport closed): then it may serve again.
      protocol.onclose = () => {
        if (returned) return;
        returned = true;
        const clean = protocol.transport === undefined && protocol.getClientCapabilities() === undefined && protocol.getClientVersion() === undefined;
        if (clean && !closed && idle.length < max) idle.push(server);
      };
      return server;
    },
    get idle() {
      return idle.length;
    },
    get built() {
      return built;
    },
    close() {
      closed = true;
      idle.length = 0;
    },
  };
}

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

/** Most bytes of one MCP request body (the SDK's own default): a longer one is answered 413 before it is parsed. */
export const MCP_REQUEST_MAX_BYTES = 4 * 1024 * 1024;

/** A JSON-RPC error as the SDK writes its own. */
function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The exchange id of a response on the fast path (for its 'close' listener, which is shared, not made per request). */
const EXCHANGE_ID = Symbol('flotilla.exchangeId');
type ExchangeResponse = ServerResponse & { [EXCHANGE_ID]?: number };

/**
 * The JSON fast path: the calls clients make while they work (tools/call, tools/list, ping on a 2025-era protocol
 * version; see fastPathRequest) are answered by one long-lived MCP server over a JsonExchangeTransport, as one JSON
 * response (Streamable HTTP lets a server answer a POST with JSON instead of an event stream; clients accept both).
 */
interface FastPath {
  answer(request: JSONRPCRequest, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

async function fastPath(server: McpServer, onerror: (error: Error) => void): Promise<FastPath> {
  const transport = new JsonExchangeTransport();
  await server.connect(transport);
  const previous = server.server.onerror;
  server.server.onerror = (error) => {
    previous?.(error);
    onerror(error);
  };
  // One listener for every response: a client that goes away before its answer cancels the call.
  function cancelOnClose(this: ExchangeResponse): void {
    const id = this[EXCHANGE_ID];
    if (id !== undefined) transport.cancel(id);
  }
  return {
    async answer(request, res) {
      const exchange = transport.exchange(request);
      (res as ExchangeResponse)[EXCHANGE_ID] = exchange.id;
      res.on('close', cancelOnClose);
      const text = JSON.stringify(await exchange.response);
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    },
    close: () => server.close(),
  };
}

/**
 * Serves a Node request with the SDK's web-standard handler (what `toNodeHandler` of @modelcontextprotocol/node does),
 * without what keeps each request's objects alive until a major GC: that adapter builds the web Request with an abort
 * signal, and without a parsed body the SDK clones it; undici follows the signal of either through a WeakRef, which
 * the young-generation GC treats as strong, so the SDK's per-request transport and everything it holds were promoted
 * to the old generation on every call (the heap grew to ~3x its live size between major GCs while paging). Here the
 * body is read and parsed first and handed over as `parsedBody` (no clone), and the Request follows no signal: a client
 * that goes away cancels the response stream instead, which the SDK answers by closing the exchange (its transport,
 * and the tool call's signal).
 */
function nodeAdapter(handler: McpHttpHandler, fast: FastPath): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const method = (req.method ?? 'GET').toUpperCase();
    let body: string | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MCP_REQUEST_MAX_BYTES) {
          jsonRpcError(res, 413, -32000, `the request body is larger than ${MCP_REQUEST_MAX_BYTES} bytes`);
          return;
        }
        chunks.push(chunk);
      }
      body = Buffer.concat(chunks).toString('utf8');
    }
    let parsedBody: unknown;
    try {
      parsedBody = body === undefined || body === '' ? undefined : JSON.parse(body);
    } catch {
      // Not JSON: the SDK reads the body itself and answers the parse error in its own words.
    }
    const fastRequest = method === 'POST' ? fastPathRequest(req.headers, parsedBody) : undefined;
    if (fastRequest !== undefined) {
      await fast.answer(fastRequest, res);
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name.startsWith(':')) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const response = await handler.fetch(request, parsedBody === undefined ? {} : { parsedBody });
    const outgoing: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      outgoing[name] = value;
    });
    res.writeHead(response.status, outgoing);
    if (response.body === null) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    let gone = false;
    let drained: (() => void) | undefined;
    const onClose = (): void => {
      gone = true;
      drained?.();
      reader.cancel().catch(() => undefined);
    };
    const onDrain = (): void => drained?.();
    res.once('close', onClose);
    res.on('drain', onDrain);
    try {
      for (let next = await reader.read(); !next.done && !gone; next = await reader.read()) {
        if (!res.write(next.value)) {
          await new Promise<void>((resolve) => {
            drained = resolve;
          });
          drained = undefined;
        }
      }
    } catch {
      // The stream failed or was cancelled (the client went away): end what was sent.
    } finally {
      res.off('close', onClose);
      res.off('drain', onDrain);
      res.end();
    }
  };
}

/** An MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
export async function serveMcpOverHttp(options: McpHttpOptions): Promise<RunningMcpServer> {
  const { logger, metrics } = options;
  const mcpTokens = options.mcpTokens;
  if (mcpTokens !== undefined && (mcpTokens.length === 0 || mcpTokens.some((t) => t.length < TOKEN_MIN_CHARS))) {
    throw new FlotillaError('config_invalid', `MCP tokens: give at least one, each at least ${TOKEN_MIN_CHARS} characters`, { remedy: 'Generate one with: openssl rand -hex 24' });
  }
  const pool = mcpServerPool(options.createServer);
  const onerror = (error: Error): void => logger.warn({ err: describeError(error) }, 'MCP request failed');
  const handler = createMcpHandler(pool.factory, { onerror });
  const fast = await fastPath(options.createServer(), onerror);
  const mcp = nodeAdapter(handler, fast);

  /** A JSON answer, as express's `res.json` wrote it (no body for HEAD). */
  const json = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  // Plain node:http, not express: express re-prototypes each request and response (Object.setPrototypeOf), after
  // which V8's young-generation GC no longer lets what they hold die young. Measured with one trivial route: express
  // promoted ~8 KiB per request to the old generation, the same handler on node:http (or express without those two
  // calls) nothing; with the rest of an exchange, a fifth of what grew the old generation while paging.
  const route = (req: IncomingMessage, res: ServerResponse): void => {
    const method = (req.method ?? 'GET').toUpperCase();
    const read = method === 'GET' || method === 'HEAD';
    // Paths as express matched them: without the query, case-insensitive, one trailing slash allowed.
    const path = (req.url ?? '/').replace(/[?#].*$/s, '').replace(/(.)\/$/, '$1').toLowerCase();
    if (path === '/healthz' && read) {
      json(req, res, 200, { status: 'ok' });
    } else if (path === '/readyz' && read) {
      json(req, res, 200, { status: 'ready', tools: options.tools });
    } else if (path === '/metrics' && read) {
      metrics.registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType, 'content-length': Buffer.byteLength(text) });
          res.end(method === 'HEAD' ? undefined : text);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'metrics could not be rendered');
          if (!res.headersSent) json(req, res, 500, { error: 'internal', message: 'the metrics could not be rendered; the error was logged' });
        });
    } else if (path === '/mcp') {
      if (mcpTokens !== undefined && !bearerMatches(req.headers.authorization, mcpTokens)) {
        json(req, res, 401, { error: 'unauthorized', message: 'send Authorization: Bearer <the MCP token>' }, { 'www-authenticate': 'Bearer' });
        return;
      }
      mcp(req, res).catch((error: unknown) => {
        logger.error({ err: error }, 'MCP request handling failed');
        if (!res.headersSent) json(req, res, 500, { error: 'internal', message: 'the request failed; the error was logged' });
      });
    } else {
      json(req, res, 404, { error: 'not_found', message: 'endpoints: POST /mcp, GET /metrics, /healthz, /readyz' });
    }
  };

  const http = createServer(route);
  try {
    await new Promise<void>((resolveListen, reject) => {
      http.once('error', reject);
      http.listen(options.port, options.host, () => {
        http.off('error', reject);
        resolveListen();
      });
    });
  } catch (error) {
    await fast.close();
    throw error;
  }
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
      pool.close();
      await fast.close();
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
  // The MCP client is loaded by a process that calls its tools in process, not by an MCP server (~10 MiB of RSS).
  const { Client, InMemoryTransport } = await import('@modelcontextprotocol/client');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/client/validators/ajv');
  // Output validators compile when their tool is first called, not all at the first call.
  const client = new Client({ name: 'flotilla-in-process', version }, { jsonSchemaValidator: compiledOnFirstUse(new AjvJsonSchemaValidator()) });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
