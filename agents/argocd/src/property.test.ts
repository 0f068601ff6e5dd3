import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { computeCounts, createMemoryResultStore, measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { generateArgoEstate, startArgoCdSimulator } from '@flotilla/simulators';
import { ArgoCdClient } from './client/argocd-client.js';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { createArgoCdMcpServer } from './server.js';
import { HEALTH_STATUSES, SYNC_STATUSES } from './tools/views.js';

/**
 * For random estates, budgets and arguments, through the real MCP client and server against the simulator:
 * no result exceeds the budget, pages concatenate to exactly the filtered set in Argo CD's order (no item twice,
 * none missing), and the counts equal counts computed from the full generated data.
 */
const TOKEN = 'prop-token-0123456789';
let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('Argo CD tools (property)', () => {
  it('stay inside the budget, page consistently and count the whole filtered set', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 0, max: 1_000_000 }),
          applications: fc.integer({ min: 0, max: 260 }),
          budget: fc.constantFrom(256, 500, 1000, 2000),
          limit: fc.integer({ min: 1, max: 100 }),
          sync: fc.option(fc.constantFrom(...SYNC_STATUSES), { nil: undefined }),
          health: fc.option(fc.constantFrom(...HEALTH_STATUSES), { nil: undefined }),
        }),
        async ({ seed, applications, budget, limit, sync, health }) => {
          const estate = generateArgoEstate({ seed, applications, projects: 7, applicationSets: 3, clusters: 4 });
          const sim = await startArgoCdSimulator({ token: TOKEN, estate });
          const metrics = createMetrics();
          const store = createMemoryResultStore({ metrics });
          const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits: { ...UPSTREAM_DEFAULTS, retries: 0 }, metrics, logger: silentLogger() });
          const server = createArgoCdMcpServer({ client, counter, store, metrics, logger: silentLogger(), budgetTokens: budget });
          const [a, b] = InMemoryTransport.createLinkedPair();
          await server.connect(b);
          const mcp = new Client({ name: 'prop', version: '0.0.0' });
          await mcp.connect(a);
          try {
            const wanted = estate.applications.filter(
              (app) => (sync === undefined || (app.status?.sync?.status ?? 'Unknown') === sync) && (health === undefined || (app.status?.health?.status ?? 'Unknown') === health),
            );
            const names: string[] = [];
            let offset: number | null = 0;
            for (let calls = 0; offset !== null; calls += 1) {
              expect(calls).toBeLessThan(wanted.length + 2);
              const result = (await mcp.callTool({ name: 'list_applications', arguments: { sync_status: sync, health_status: health, limit, offset } })) as BoundedToolResult;
              expect(result.isError).toBeFalsy();
              expect(measureToolResult(result, counter).tokens).toBeLessThanOrEqual(budget);
              const first = result.content[0];
              const page = JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, unknown>;
              expect(page.total).toBe(wanted.length);
              const items = page.items as { name: string; _clipped?: boolean }[];
              expect(page.returned).toBe(items.length);
              // Every position is delivered once, whole or (when one row alone exceeds the budget) clipped.
              items.forEach((item, i) => {
                if (item._clipped !== true) expect(item.name).toBe(wanted[(offset ?? 0) + i]?.metadata.name);
                names.push(item.name);
              });
              if (offset === 0 && items.length > 0) {
                const counts = computeCounts(wanted, { by_sync: (x) => x.status?.sync?.status ?? 'Unknown', by_health: (x) => x.status?.health?.status ?? 'Unknown' });
                const got = page.counts as Record<string, unknown> | undefined;
                // Counts may be dropped from a page only when the budget is too small to carry them, and then it says so.
                if (got === undefined) expect(page.counts_omitted).toBe(true);
                else {
                  expect(got.by_sync).toEqual(counts.by_sync);
                  expect(got.by_health).toEqual(counts.by_health);
                }
              }
              offset = page.next_offset as number | null;
            }
            expect(names).toHaveLength(wanted.length);
          } finally {
            await mcp.close();
            await server.close();
            await store.close();
            await sim.close();
          }
        },
      ),
      { numRuns: 20, interruptAfterTimeLimit: 90_000, markInterruptAsFailure: true },
    );
  });
});
