import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
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

  it('serve calls without building a server per call, never on one that learnt its caller (an initialize)', async () => {
    const client = new Client({ name: 'pool-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    const before = built;
    for (let i = 0; i < 20; i += 1) expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'echo' }] });
    // Built per request, this would be 20 more. The calls go to the fast path's one server; the server that answered
    // initialize kept the client's capabilities: it was dropped, so no other client is served by it.
    expect(built - before).toBeLessThanOrEqual(1);
    await client.close();
  });

  // With a 2025-era version header the call takes the JSON fast path; without one, the SDK's handler (its event stream).
  for (const [path, version] of [['the JSON fast path', '2025-06-18'], ["the SDK's handler", undefined]] as const) {
    it(`stop a tool call whose client went away (${path}): the call sees its signal, the server goes on`, async () => {
      const running = new Promise<void>((resolve) => (started = resolve));
      const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
      const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: {} } });
      const request = httpRequest(server.mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(version === undefined ? {} : { 'mcp-protocol-version': version }),
          'content-length': Buffer.byteLength(body),
        },
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
  }

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

describe('the JSON fast path (tools/call, tools/list, ping from a client past initialize)', () => {
  let server: RunningMcpServer;
  let asked = '';
  beforeAll(async () => {
    server = await serveMcpOverHttp({
      name: 'fast path test MCP server',
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      metrics: createMetrics(),
      createServer: () => {
        const mcp = new McpServer({ name: 'fast-test', version: '0.0.0' });
        mcp.registerTool('echo', { description: 'echo', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
        mcp.registerTool('ask', { description: 'asks the client for a completion' }, async (ctx) => {
          try {
            await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
            asked = 'answered';
          } catch (error) {
            asked = (error as Error).message;
          }
          return { content: [{ type: 'text', text: asked }] };
        });
        return mcp;
      },
      tools: 2,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
      body: JSON.stringify(body),
    });
  const call = (id: string | number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

  it('answers with one JSON response, under the id the client gave (a string or a number)', async () => {
    const response = await post(call('abc', 'one'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 'abc', result: { content: [{ type: 'text', text: 'one' }] } });
    expect(await (await post({ jsonrpc: '2.0', id: 0, method: 'ping' })).json()).toEqual({ jsonrpc: '2.0', id: 0, result: {} });
  });

  it('keeps calls of clients that number alike apart (the same id at once, each gets its own answer)', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `text-${i}`);
    const answers = await Promise.all(texts.map(async (text) => (await post(call(1, text))).json()));
    expect(answers).toEqual(texts.map((text) => ({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })));
  });

  it('answers invalid arguments and unknown tools as the SDK does', async () => {
    const invalid = (await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } } })).json()) as { result: { isError: boolean } };
    expect(invalid.result.isError).toBe(true);
    const unknown = (await (await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope', arguments: {} } })).json()) as { result?: { isError: boolean }; error?: unknown };
    expect(unknown.result?.isError === true || unknown.error !== undefined).toBe(true);
  });

  it("leaves everything else to the SDK's handler: no version header, a batch, a notification, a session id", async () => {
    const noVersion = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(call(4, 'sdk')) });
    expect(noVersion.headers.get('content-type')).toBe('text/event-stream');
    expect(await noVersion.text()).toContain('"text":"sdk"');
    const notAccepted = await post(call(5, 'x'), { accept: 'application/json' });
    expect(notAccepted.status).toBe(406);
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await post(call(6, 'x'), { 'mcp-session-id': 'abc' })).headers.get('content-type')).not.toBe('application/json');
  });

  it('refuses at once what a tool asks of the client (no channel back on a JSON answer), so the tool goes on', async () => {
    const answer = (await (await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'ask', arguments: {} } })).json()) as { result: { content: Array<{ text: string }> } };
    expect(answer.result.content[0]?.text).toMatch(/cannot send requests to the client/);
  });

  it('serves the SDK client through it (initialize on the SDK path, then calls on the fast one)', async () => {
    const client = new Client({ name: 'fast-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask', 'echo']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'sdk client' } })).toMatchObject({ content: [{ text: 'sdk client' }] });
    await client.close();
  });
});
