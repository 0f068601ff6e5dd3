import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { LIMITS, measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { silentLogger, parseSettings } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { ARGOCD_MCP_SETTINGS } from './config.js';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { ARGOCD_TOOLS, startArgoCdMcpServer } from './server.js';

const TOKEN = 'sim-token-0123456789';
const SEED = 7;
const estate = generateArgoEstate({ seed: SEED });

type Json = Record<string, unknown>;
let sim: RunningSimulator;
let mcp: RunningMcpServer;
let client: Client;
let counter: TokenCounter;
let dataDir: string;

function config(overrides: Record<string, string>) {
  return parseSettings(ARGOCD_MCP_SETTINGS, { port: '0', 'log-level': 'silent', 'data-dir': dataDir, ...overrides }, {}, 'test');
}

async function connect(url: string, token?: string): Promise<Client> {
  const c = new Client({ name: 'argocd-test', version: '0.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return c;
}

async function call(name: string, args: Json, c: Client = client): Promise<BoundedToolResult> {
  return (await c.callTool({ name, arguments: args })) as BoundedToolResult;
}

function body(result: BoundedToolResult): Json {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error('expected text first');
  return JSON.parse(first.text) as Json;
}

function withinBudget(result: BoundedToolResult): void {
  expect(measureToolResult(result, counter).tokens).toBeLessThanOrEqual(LIMITS.budgetDefault);
}

const syncOf = (app: (typeof estate.applications)[number]): string => app.status?.sync?.status ?? 'Unknown';

beforeAll(async () => {
  counter = await loadTokenCounter();
  dataDir = await mkdtemp(join(tmpdir(), 'flotilla-argocd-'));
  sim = await startArgoCdSimulator({ token: TOKEN, estate: { seed: SEED } });
  mcp = await startArgoCdMcpServer(config({ 'argocd-url': sim.url, 'argocd-token': TOKEN }), { logger: silentLogger() });
  client = await connect(mcp.mcpUrl);
});

afterAll(async () => {
  await client.close();
  await mcp.close();
  await sim.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('Argo CD MCP server over HTTP', () => {
  it('lists exactly its tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...ARGOCD_TOOLS].sort());
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it('pages applications inside the budget, with counts over the whole estate and a stored snapshot', async () => {
    const result = await call('list_applications', {});
    withinBudget(result);
    const page = body(result);
    expect(page).toMatchObject({ item_kind: 'applications', total: estate.applications.length, offset: 0, has_more: true });
    expect(page.returned).toBe((page.items as unknown[]).length);
    expect(page.returned as number).toBeGreaterThan(0);
    expect(page.returned as number).toBeLessThanOrEqual(LIMITS.pageDefault);
    const bySync = (page.counts as Record<string, Record<string, number>>).by_sync ?? {};
    const expected: Record<string, number> = {};
    for (const app of estate.applications) expected[syncOf(app)] = (expected[syncOf(app)] ?? 0) + 1;
    expect(bySync).toEqual(expected);
    // Names come sorted, as Argo CD sends them, and the rows are compact: no Helm values, no resources.
    const names = (page.items as Json[]).map((i) => i.name);
    expect(names).toEqual(estate.applications.slice(0, names.length).map((a) => a.metadata.name));
    expect(JSON.stringify(page.items)).not.toContain('values');
    const link = result.content[1];
    expect(link?.type).toBe('resource_link');
    expect(link?.type === 'resource_link' ? link.size : 0).toBeGreaterThan(0);
    expect(page.result_id).toMatch(/^r_/);
  });

  it('filters by sync status and pages to exactly the filtered set, no item twice', async () => {
    const wanted = estate.applications.filter((a) => syncOf(a) === 'OutOfSync').map((a) => a.metadata.name);
    expect(wanted.length).toBeGreaterThan(0);
    const seen: string[] = [];
    let offset: number | null = 0;
    let calls = 0;
    while (offset !== null && calls < 100) {
      const result = await call('list_applications', { sync_status: 'OutOfSync', limit: 100, offset });
      withinBudget(result);
      const page = body(result);
      expect(page.total).toBe(wanted.length);
      for (const item of page.items as Json[]) {
        expect(item.sync).toBe('OutOfSync');
        seen.push(String(item.name));
      }
      offset = page.next_offset as number | null;
      calls += 1;
    }
    expect(seen).toEqual(wanted);
  });

  it('pushes project filters to Argo CD and applies cluster and name filters to the projected list', async () => {
    const sample = estate.applications[3];
    if (sample === undefined) throw new Error('estate too small');
    const project = String(sample.spec?.project);
    const page = body(await call('list_applications', { project, limit: 100 }));
    expect(page.total).toBe(estate.applications.filter((a) => a.spec?.project === project).length);
    const part = sample.metadata.name.split('-')[0] ?? '';
    const byName = body(await call('list_applications', { name_contains: part.toUpperCase(), limit: 5 }));
    expect(byName.total).toBe(estate.applications.filter((a) => a.metadata.name.includes(part)).length);
  });

  it('reads a stored snapshot back page by page, filtered and as a summary', async () => {
    const first = body(await call('list_applications', {}));
    const id = String(first.result_id);
    const page = await call('read_result', { result_id: id, offset: 40, limit: 500 });
    withinBudget(page);
    const read = body(page);
    expect(read.offset).toBe(40);
    expect((read.items as Json[])[0]?.name).toBe(estate.applications[40]?.metadata.name);
    const filtered = body(await call('read_result', { result_id: id, filter: 'sync=OutOfSync' }));
    expect(filtered.total).toBe(estate.applications.filter((a) => syncOf(a) === 'OutOfSync').length);
    const summary = body(await call('read_result', { result_id: id, summary_only: true }));
    expect(summary.total).toBe(estate.applications.length);
  });

  it('gets one application as a summary by default and Helm values only on request, inside the budget', async () => {
    const app = estate.applications.find((a) => a.spec?.source?.helm?.values !== undefined);
    if (app === undefined) throw new Error('the estate has no Helm application');
    const summary = await call('get_application', { name: app.metadata.name });
    withinBudget(summary);
    const data = body(summary);
    expect((data.summary as Json).name).toBe(app.metadata.name);
    expect(JSON.stringify(data)).not.toContain(app.spec?.source?.helm?.values?.slice(0, 40) ?? '');
    expect(data.note).toMatch(/helm_values/);
    const values = await call('get_application', { name: app.metadata.name, sections: ['helm_values', 'resources', 'history'] });
    expect(values.isError).toBeFalsy();
    withinBudget(values);
  });

  it('answers a missing application with an isError result that says what to do', async () => {
    const result = await call('get_application', { name: 'no-such-app' });
    expect(result.isError).toBe(true);
    expect(body(result)).toMatchObject({ error: 'not_found' });
    expect(String(body(result).remedy)).toMatch(/search/i);
  });

  it('rejects bad arguments with isError results that name the valid range', async () => {
    const cases: [string, Json, RegExp][] = [
      ['list_applications', { limit: 0 }, /1 to 100/],
      ['list_applications', { limit: 10_000 }, /1 to 100/],
      ['list_applications', { offset: -1 }, /offset/],
      ['list_applications', { sync_status: 'Sideways' }, /Synced, OutOfSync, Unknown/],
      ['search_argocd_resources', { query: '(', mode: 'regex' }, /regular expression/],
      ['read_result', { result_id: 'r_000000000000000000000000' }, /no stored result/],
      ['read_result', { result_id: 'nope' }, /result_id/],
      ['get_application', { name: 'x', sections: ['everything'] }, /sections/],
      // Argo CD answers a bad selector with HTTP 500, gRPC code 2: a caller mistake, reported at once, not retried.
      ['list_applications', { selector: 'env in (prod' }, /upstream_rejected.*selector/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(JSON.stringify(body(result))).toMatch(message);
    }
  });

  it('searches across resource types, and stops at the cap with a way to narrow', async () => {
    const project = String(estate.applications[0]?.spec?.project);
    const result = await call('search_argocd_resources', { query: project });
    withinBudget(result);
    const found = body(result);
    const byType = (found.counts as Record<string, Record<string, number>>).by_type ?? {};
    expect(byType.project).toBeGreaterThanOrEqual(1);
    expect(byType.application).toBeGreaterThanOrEqual(1);
    const broad = body(await call('search_argocd_resources', { query: '.', mode: 'regex' }));
    expect(broad.search).toMatchObject({ capped: true, match_cap: LIMITS.searchMatchCap });
    expect(broad.total).toBe(LIMITS.searchMatchCap);
    expect(String(broad.next_step)).toMatch(/narrow/);
  });

  it('lists projects, application sets and clusters with totals from the estate', async () => {
    expect(body(await call('list_projects', {})).total).toBe(estate.projects.length);
    expect(body(await call('list_applicationsets', {})).total).toBe(estate.applicationSets.length);
    const clusters = body(await call('list_clusters', { limit: 100 }));
    expect(clusters.total).toBe(estate.clusters.length);
    expect(clusters.has_more).toBe(false);
  });

  it('fetches projected lists: far fewer bytes than the unprojected list', async () => {
    sim.resetStats();
    // refresh: earlier tests left a snapshot of this query, which would answer without an upstream request.
    await call('list_applications', { limit: 1, refresh: true });
    expect(sim.stats().requests).toBe(1);
    const projected = sim.stats().bytesSent;
    sim.resetStats();
    const raw = await fetch(`${sim.url}/api/v1/applications`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await raw.arrayBuffer();
    const unprojected = sim.stats().bytesSent;
    // Argo CD projects by whitelist (spec is one unit, Helm values included): about a third of the bytes.
    expect(projected * 2).toBeLessThan(unprojected);
  });

  it('pages one upstream list across HTTP requests: later pages come from its snapshot', async () => {
    // Each HTTP request gets a fresh MCP server; the snapshots live with the shared result store.
    const wanted = estate.applications.filter((a) => a.status?.health?.status === 'Healthy').map((a) => a.metadata.name);
    sim.resetStats();
    const seen: string[] = [];
    let offset: number | null = 0;
    for (let calls = 0; offset !== null && calls < 100; calls += 1) {
      const page = body(await call('list_applications', { health_status: 'Healthy', limit: 100, offset }));
      seen.push(...(page.items as Json[]).map((item) => String(item.name)));
      offset = page.next_offset as number | null;
    }
    expect(seen).toEqual(wanted);
    expect(sim.stats().requests).toBe(1);
    const text = await (await fetch(`${mcp.url}/metrics`)).text();
    expect(text).toMatch(new RegExp(`${METRIC.cacheRequests}\\{cache="snapshot",outcome="hit"\\} [1-9]`));
  });

  it('exposes tool and upstream metrics', async () => {
    const text = await (await fetch(`${mcp.url}/metrics`)).text();
    expect(text).toContain(`${METRIC.toolCalls}{tool="list_applications",outcome="ok"}`);
    expect(text).toContain(METRIC.upstreamRequests);
    expect(text).toContain(METRIC.toolSpills);
    expect((await fetch(`${mcp.url}/healthz`)).status).toBe(200);
  });
});

describe('upstream failures become tool errors, and the server stays up', () => {
  const small = { seed: 3, applications: 30, projects: 5, applicationSets: 5, clusters: 3 };

  async function withUpstream(
    simOptions: Parameters<typeof startArgoCdSimulator>[0],
    overrides: Record<string, string>,
    check: (c: Client) => Promise<void>,
  ): Promise<void> {
    const upstream = await startArgoCdSimulator(simOptions);
    const server = await startArgoCdMcpServer(
      config({ 'argocd-url': upstream.url, 'argocd-token': TOKEN, 'upstream-retries': '1', 'upstream-timeout-ms': '500', ...overrides }),
      { logger: silentLogger() },
    );
    const c = await connect(server.mcpUrl, overrides['mcp-token']);
    try {
      await check(c);
    } finally {
      await c.close();
      await server.close();
      await upstream.close();
    }
  }

  it('maps 5xx, truncated bodies, timeouts, bad tokens and oversized bodies to clear errors', async () => {
    await withUpstream({ token: TOKEN, estate: small, faults: { errorRate: 1 } }, {}, async (c) => {
      const result = await call('list_applications', {}, c);
      expect(body(result)).toMatchObject({ error: 'upstream_unavailable' });
      expect(result.isError).toBe(true);
    });
    await withUpstream({ token: TOKEN, estate: small, faults: { truncateRate: 1 } }, {}, async (c) => {
      expect(body(await call('list_applications', {}, c))).toMatchObject({ error: 'upstream_bad_response' });
    });
    await withUpstream({ token: TOKEN, estate: small, faults: { latencyMs: 2_000 } }, {}, async (c) => {
      expect(body(await call('list_clusters', {}, c))).toMatchObject({ error: 'upstream_timeout' });
    });
    await withUpstream({ token: 'another-token-0000', estate: small }, {}, async (c) => {
      expect(body(await call('list_projects', {}, c))).toMatchObject({ error: 'upstream_auth' });
    });
  });

  it('requires the MCP token when one is configured', async () => {
    await withUpstream({ token: TOKEN, estate: small }, { 'mcp-token': 'client-token-0123456789' }, async (c) => {
      expect(body(await call('list_clusters', {}, c)).total).toBe(3);
    });
    const upstream = await startArgoCdSimulator({ token: TOKEN, estate: small });
    const server = await startArgoCdMcpServer(config({ 'argocd-url': upstream.url, 'argocd-token': TOKEN, 'mcp-token': 'client-token-0123456789' }), {
      logger: silentLogger(),
    });
    try {
      const denied = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(denied.status).toBe(401);
    } finally {
      await server.close();
      await upstream.close();
    }
  });
});
