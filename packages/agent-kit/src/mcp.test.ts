import { afterEach, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { isFlotillaError } from '@flotilla/core';
import { mcpToolCaller } from './mcp.js';

type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown> };

/**
 * A minimal MCP server over the SDK's in-memory transport: it answers initialize and tools/call with the result
 * given, so a caller can be tried against servers that do and do not send structured content.
 */
async function serverAnswering(result: Record<string, unknown>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message) => {
    const request = message as Message;
    if (request.id === undefined || request.method === undefined) return;
    const reply = (body: Record<string, unknown>): void => void serverSide.send({ jsonrpc: '2.0', id: request.id ?? 0, result: body });
    if (request.method === 'initialize') {
      reply({ protocolVersion: request.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '0.0.0' } });
    } else if (request.method === 'tools/call') {
      reply(result);
    } else {
      void serverSide.send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `no ${request.method}` } });
    }
  };
  await serverSide.start();
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const call = { tool: 'count_things', args: {} };
const COUNT = z.strictObject({ count: z.number().int(), kind: z.string() });

describe('mcpToolCaller', () => {
  it('reads structuredContent when the server sends it, not the text', async () => {
    const client = await serverAnswering({ content: [{ type: 'text', text: 'not JSON at all' }], structuredContent: { count: 3, kind: 'things' } });
    const result = await mcpToolCaller(client)(call, new AbortController().signal);
    expect(result).toMatchObject({ isError: false, body: { count: 3, kind: 'things' } });
  });

  it('falls back to the JSON text for servers that send no structuredContent, and to { text } for other text', async () => {
    const json = await serverAnswering({ content: [{ type: 'text', text: '{"count":4,"kind":"things"}' }] });
    expect((await mcpToolCaller(json)(call, new AbortController().signal)).body).toEqual({ count: 4, kind: 'things' });
    const plain = await serverAnswering({ content: [{ type: 'text', text: 'hello' }] });
    expect((await mcpToolCaller(plain)(call, new AbortController().signal)).body).toEqual({ text: 'hello' });
  });

  it('validates a result with the tool schema it is given, and refuses one that does not match', async () => {
    const good = await serverAnswering({ content: [{ type: 'text', text: '' }], structuredContent: { count: 5, kind: 'things' } });
    expect((await mcpToolCaller(good, { schemas: { count_things: COUNT } })(call, new AbortController().signal)).body).toEqual({ count: 5, kind: 'things' });

    const bad = await serverAnswering({ content: [{ type: 'text', text: '{"count":"five"}' }] });
    const error = await mcpToolCaller(bad, { schemas: { count_things: COUNT } })(call, new AbortController().signal).catch((e: unknown) => e);
    expect(isFlotillaError(error) && error.code).toBe('upstream_bad_response');
    expect((error as Error).message).toContain('count_things');
  });

  it('reads an error result as a result, without validating it against the output schema', async () => {
    const client = await serverAnswering({ content: [{ type: 'text', text: '{"error":"not_found","message":"no such thing"}' }], isError: true });
    const result = await mcpToolCaller(client, { schemas: { count_things: COUNT } })(call, new AbortController().signal);
    expect(result).toMatchObject({ isError: true, body: { error: 'not_found', message: 'no such thing' } });
  });
});
