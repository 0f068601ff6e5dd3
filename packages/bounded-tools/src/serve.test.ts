import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { bearerMatches, serveMcpOverHttp, type RunningMcpServer } from './serve.js';
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

  it('refuses to start with a short token', async () => {
    await expect(
      serveMcpOverHttp({ name: 'x', host: '127.0.0.1', port: 0, logger: silentLogger(), metrics: createMetrics(), createServer: () => new McpServer({ name: 'x', version: '0' }), tools: 0, mcpTokens: ['short'] }),
    ).rejects.toThrow(/at least 16 characters/);
  });
});
