import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { bearerMatches, MCP_REQUEST_MAX_BYTES, MCP_SERVER_POOL_MAX, mcpServerPool, serveMcpOverHttp, type RunningMcpServer } from './serve.js';
import { MCP_SERVER_SETTINGS } from './settings.js';

const OLD = 'old-mcp-token-0123456789';
const NEW = 'new-mcp-token-abcdefghij';

describe('bearerMatches', () => {
  it('takes Bearer in any case with any of the tokens, and nothing else', () => {
    for (const header of [`Bearer ${NEW}`, `bearer ${OLD}`, `BEARER ${NEW}`, `Bearer   ${NEW}  `]) expect(bearerMatches(header, [OLD, NEW])).toBe(true);
    for (const header of [undefined, '', NEW, `Basic ${NEW}`, `Bearer ${NEW}x`, `Bearer ${NEW.slice(0, -1)}`, 'Bearer ', `Bearer${NEW}`]) expect(bearerMatches(header, [OLD, NEW])).toBe(false);
    expect(bearerMatches(`Bearer ${OLD}`, [NEW])).toBe(false);
  });
});

describe('--mcp-token', () => {
  it('takes comma-separated tokens (rotation), each 16-512 characters, at most 8, never echoed', () => {
    const parse = (value: string) => parseSettings({ mcpTokens: MCP_SERVER_SETTINGS.mcpTokens }, { 'mcp-token': value }, {}, 'test').mcpTokens;
    expect(parse(`${OLD}, ${NEW}`)).toEqual([OLD, NEW]);
    expect(() => parse(`${OLD},short`)).toThrow(/--mcp-token \/ FLOTILLA_MCP_TOKEN: each token must be at least 16 characters \(given\)/);
    expect(() => parse(Array.from({ length: 9 }, (_, i) => `${OLD}${i}`).join(','))).toThrow(/at most 8 tokens/);
    let message = '';
    try {
      parse(`${OLD},short`);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('(given)');
    expect(message).not.toContain(OLD);
  });
});

describe('an MCP server over HTTP with tokens', () => {
  let server: RunningMcpServer;
  beforeAll(async () => {
    server = await serveMcpOverHttp({
      name: 'test MCP server',
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      metrics: createMetrics(),
      createServer: () => new McpServer({ name: 'serve-test', version: '0.0.0' }),
      tools: 0,
      mcpTokens: [OLD, NEW],
    });
  });
  afterAll(async () => {
    await server.close();
  });

  /** 'connected', or the HTTP status the connection failed with. */
  async function connects(authorization: string | undefined): Promise<'connected' | number> {
    const client = new Client({ name: 'serve-test', version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), authorization === undefined ? {} : { requestInit: { headers: { authorization } } });
    try {
      await client.connect(transport);
      return 'connected';
    } catch (error) {
      if (error instanceof SdkHttpError) return error.status;
      throw error;
    } finally {
      await client.close();
    }
  }

  it('serves MCP clients with either token of a rotation, bearer in any case', async () => {
    expect(await connects(`Bearer ${OLD}`)).toBe('connected');
    expect(await connects(`bearer ${NEW}`)).toBe('connected');
  });

  it('answers 401 without a token or with a wrong one; probes stay open', async () => {
    expect(await connects(undefined)).toBe(401);
    expect(await connects(`Bearer ${NEW}-wrong`)).toBe(401);
    const denied = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Basic ${NEW}` }, body: '{}' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('routes the probes, /metrics and unknown paths as before (any case, a query, one trailing slash; HEAD without a body)', async () => {
    const readyz = await fetch(`${server.url}/READYZ/?probe=1`);
    expect(readyz.status).toBe(200);
    expect(readyz.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await readyz.json()).toEqual({ status: 'ready', tools: 0 });
    const head = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toContain('# HELP');
    for (const [method, path] of [['GET', '/nope'], ['POST', '/healthz'], ['GET', '/healthz//']] as const) {
      const missing = await fetch(`${server.url}${path}`, { method });
      expect(missing.status, `${method} ${path}`).toBe(404);
      expect(await missing.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('refuses to start with a short token', async () => {
    await expect(
      serveMcpOverHttp({ name: 'x', host: '127.0.0.1', port: 0, logger: silentLogger(), metrics: createMetrics(), createServer: () => new McpServer({ name: 'x', version: '0' }), tools: 0, mcpTokens: ['short'] }),
    ).rejects.toThrow(/at least 16 characters/);
  });
});

describe('MCP servers reused between requests', () => {
  let server: RunningMcpServer;
  let built = 0;
  let sawAbort: () => void;
  let started: () => void;
  beforeAll(async () => {
    server = await serveMcpOverHttp({
      name: 'pool test MCP server',
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      metrics: createMetrics(),
      createServer: () => {
        built += 1;
        const mcp = new McpServer({ name: 'pool-test', version: '0.0.0' });
        mcp.registerTool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text: 'echo' }] }));
        mcp.registerTool('wait', { description: 'waits for its call to be abandoned' }, (ctx) =>
          new Promise((resolve) => {
            started();
            ctx.mcpReq.signal.addEventListener('abort', () => {
              sawAbort();
              resolve({ content: [{ type: 'text', text: 'aborted' }] });
            });
          }),
        );
        return mcp;
      },
      tools: 2,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('serve sequential calls on one server, never on one that learnt its caller (an initialize)', async () => {
    const client = new Client({ name: 'pool-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    const before = built;
    for (let i = 0; i < 20; i += 1) expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'echo' }] });
    // Built per request, this would be 20 more. The server that answered initialize kept the client's capabilities:
    // it was dropped, so another client's calls are served by a server that knows nothing of the first.
    expect(built - before).toBeLessThanOrEqual(1);
    await client.close();
  });

  it('stop a tool call whose client went away: the dropped connection closes its exchange, and the call sees its signal', async () => {
    const running = new Promise<void>((resolve) => (started = resolve));
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    const request = httpRequest(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'content-length': Buffer.byteLength(body) },
    });
    request.on('error', () => undefined);
    request.end(body);
    await running;
    request.destroy();
    await aborted;
    // The server is still there for the next call.
    const client = new Client({ name: 'pool-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'echo' }] });
    await client.close();
  });

  it(`answer 413 to a body over MCP_REQUEST_MAX_BYTES (${MCP_REQUEST_MAX_BYTES}) before parsing it`, async () => {
    const response = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(MCP_REQUEST_MAX_BYTES) } }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('keep at most their max idle: more requests at once build servers that are dropped after', async () => {
    let made = 0;
    const pool = mcpServerPool(() => ((made += 1), new McpServer({ name: 'p', version: '0' })), 2);
    const busy = Array.from({ length: 5 }, () => pool.factory());
    expect(made).toBe(5);
    for (const mcp of busy) {
      const [mine, theirs] = InMemoryTransport.createLinkedPair();
      await mcp.connect(mine);
      await theirs.close();
    }
    expect(pool.idle).toBe(2);
    pool.factory();
    expect(made).toBe(5);
    expect(MCP_SERVER_POOL_MAX).toBeGreaterThanOrEqual(10);
  });
});
