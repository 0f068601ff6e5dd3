import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { CapabilityIndex } from '@flotilla/agent-kit';
import { createMemoryResultStore } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { ArgoCdClient } from '../client/argocd-client.js';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { connectArgoCdToolsInProcess } from '../server.js';
import { createArgoCdAgent } from './agent.js';

const TOKEN = 'agent-test-token-01';
const estate = generateArgoEstate();
let sim: RunningSimulator;
let mcp: Client;
let tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;
let counter: TokenCounter;
let agent: ReturnType<typeof createArgoCdAgent>;
let capabilities: CapabilityIndex;

beforeAll(async () => {
  counter = await loadTokenCounter();
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
  const metrics = createMetrics();
  const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits: UPSTREAM_DEFAULTS, metrics, logger: silentLogger() });
  tools = await connectArgoCdToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
  mcp = tools.client;
  capabilities = await CapabilityIndex.fromClient(mcp);
  agent = createArgoCdAgent({ mcp, counter, capabilities });
});
afterAll(async () => {
  await tools.close();
  await sim.close();
});

const outOfSyncProd = estate.applications.filter((a) => a.status.sync?.status === 'OutOfSync' && a.metadata.labels?.env === 'prod');

describe('Argo CD agent workflow (rules model, tools over MCP)', () => {
  it('says what it can do from the capability index: one line per MCP tool', async () => {
    const listed = (await mcp.listTools()).tools;
    const turn = await agent.ask('what can you do?', 'conv-help');
    expect(turn.intent).toBe('help');
    for (const tool of listed) expect(turn.answer).toContain(`- ${tool.name}: `);
    // A line per tool, not the tools' full descriptions and schemas.
    expect(counter.count(turn.answer)).toBeLessThan(counter.count(JSON.stringify(listed)) / 4);
    expect(capabilities.search('out of sync applications')[0]?.name).toBe('list_applications');
    expect(capabilities.search('clusters').map((c) => c.name)).toContain('list_clusters');
    expect(capabilities.search('zzz qqq')).toEqual([]);
  });

  it('answers a big list with page 1 of N, a summary and 20 rows, then continues and narrows in the same conversation', async () => {
    const first = await agent.ask('list all applications', 'conv-1');
    expect(first.strategy).toBe('direct');
    expect(first.answer).toContain(`Page 1 of ${Math.ceil(estate.applications.length / 20)} (${estate.applications.length} applications)`);
    expect(first.answer).toMatch(/by sync: Synced \d+, OutOfSync \d+/);
    expect(first.answer.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| name'))).toHaveLength(20);
    expect(first.options).toContain('next page');

    const next = await agent.ask('next page', 'conv-1');
    expect(next.answer).toContain('Page 2 of');
    expect(next.answer).toContain(estate.applications[20]?.metadata.name ?? '');

    const narrowed = await agent.ask('only the out-of-sync ones', 'conv-1');
    expect(narrowed.answer).toContain(`(${estate.applications.filter((a) => a.status.sync?.status === 'OutOfSync').length} applications (sync OutOfSync)`);
    // Another conversation does not see this one's state.
    expect((await agent.ask('next page', 'conv-2')).answer).toMatch(/no list to continue/);
  });

  it('maps the question people ask first to filters: which apps are out of sync in prod?', async () => {
    const turn = await agent.ask('which apps are out of sync in prod?', 'conv-3');
    expect(turn.entities).toMatchObject({ sync: 'OutOfSync', env: 'prod' });
    const expected = outOfSyncProd.length;
    expect(turn.answer).toContain(`${expected} applications`);
    if (expected <= 50) {
      for (const app of outOfSyncProd) expect(turn.answer).toContain(app.metadata.name);
    }
    expect(counter.count(turn.answer)).toBeLessThanOrEqual(4_000);
  });

  it('shows one application, searches, and uses the complex path for "what needs attention"', async () => {
    const app = estate.applications.find((a) => a.status.health?.status === 'Degraded');
    if (app === undefined) throw new Error('no degraded app');
    const details = await agent.ask(`what's wrong with ${app.metadata.name}`, 'conv-4');
    expect(details.answer).toContain(app.metadata.name);
    expect(details.answer).toContain('health: Degraded');
    const search = await agent.ask('find ledger', 'conv-4');
    expect(search.answer).toMatch(/matches/);
    const attention = await agent.ask('what needs attention?', 'conv-4');
    expect(attention.strategy).toBe('complex');
    expect(attention.toolCalls).toBe(2);
    expect(attention.answer).toContain('Out of sync:');
    expect(attention.answer).toContain('Not healthy:');
  });

  it('answers what it cannot do with options, and turns tool errors into clear answers', async () => {
    const unknown = await agent.ask('what is the weather in Amsterdam?', 'conv-5');
    expect(unknown.strategy).toBe('limitation_aware');
    expect(unknown.answer).toMatch(/can't answer that/);
    expect(unknown.options.length).toBeGreaterThan(0);
    const missing = await agent.ask('status of no-such-app', 'conv-5');
    expect(missing.answer).toMatch(/could not get that application: Argo CD has no application named "no-such-app"/);
    expect(missing.error).toBeUndefined();
  });
});
