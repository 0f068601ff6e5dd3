import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { silentLogger } from '@flotilla/core';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { createBoundedTools, type BoundedTools } from '../kit.js';
import { createMemoryResultStore } from '../store/memory-store.js';
import type { ResultStore } from '../store/types.js';
import type { BoundedToolResult } from '../measure.js';

export interface Harness {
  readonly client: Client;
  readonly kit: BoundedTools;
  readonly metrics: FlotillaMetrics;
  readonly counter: TokenCounter;
  readonly store: ResultStore;
  call(name: string, args: Record<string, unknown>): Promise<BoundedToolResult>;
  /** The JSON of the first text block. */
  json(result: BoundedToolResult): Record<string, unknown>;
  close(): Promise<void>;
}

/** A real MCP server and client, linked in memory; `setup` registers tools on the kit before connecting. */
export async function harness(setup: (kit: BoundedTools) => void, options: { budgetTokens?: number; store?: ResultStore; counter?: TokenCounter } = {}): Promise<Harness> {
  const counter = options.counter ?? (await loadTokenCounter());
  const metrics = createMetrics();
  const store = options.store ?? createMemoryResultStore({ metrics });
  const server = new McpServer({ name: 'test', version: '0.0.0' });
  const kit = createBoundedTools({ server, counter, store, metrics, logger: silentLogger(), budgetTokens: options.budgetTokens });
  setup(kit);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    kit,
    metrics,
    counter,
    store,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as BoundedToolResult,
    json: (result) => {
      const first = result.content[0];
      if (first?.type !== 'text') throw new Error('expected a text block first');
      return JSON.parse(first.text) as Record<string, unknown>;
    },
    close: async () => {
      await client.close();
      await server.close();
      await store.close();
    },
  };
}
