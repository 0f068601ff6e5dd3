import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMemoryResultStore, measureToolResult, type BoundedToolResult, type RunningMcpServer } from '@flotilla/bounded-tools';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { generateNetBoxEstate, startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { createNetBoxAgent } from './agent/agent.js';
import { NETBOX_DEFAULTS, NetBoxClient } from './client/netbox-client.js';
import { NETBOX_MCP_SETTINGS } from './config.js';
import { connectNetBoxToolsInProcess, startNetBoxMcpServer } from './server.js';
import { NETBOX_TOOLS } from './tools/tools.js';

const TOKEN = 'tools-token-0123456789';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
let server: RunningMcpServer;
let mcp: Client;
let counter: TokenCounter;

beforeAll(async () => {
  counter = await loadTokenCounter();
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-netbox-tools-'));
  const config = parseSettings(NETBOX_MCP_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, 'data-dir': dataDir }, {}, 'test');
  server = await startNetBoxMcpServer(config, { logger: silentLogger(), metrics: createMetrics() });
  mcp = new Client({ name: 'test', version: '0.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
});
afterAll(async () => {
  await mcp.close();
  await server.close();
  await sim.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<{ body: Record<string, unknown>; isError: boolean; tokens: number; raw: BoundedToolResult }> {
  const raw = (await mcp.callTool({ name, arguments: args })) as unknown as BoundedToolResult & { isError?: boolean };
  const first = raw.content[0];
  return { body: JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, unknown>, isError: raw.isError === true, tokens: measureToolResult(raw, counter).tokens, raw };
}

describe('NetBox MCP server over Streamable HTTP', () => {
  it('lists its tools with schemas', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual([...NETBOX_TOOLS]);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it('pages a list through NetBox itself: one request a page, the total from NetBox, within the budget', async () => {
    sim.resetStats();
    const page = await call('list_devices', { site: 'ams1', limit: 100, offset: 100 });
    expect(page.body.total).toBe(200);
    expect(page.body.offset).toBe(100);
    expect(page.tokens).toBeLessThanOrEqual(2_000);
    expect(sim.stats().byEndpoint).toEqual({ 'dcim/devices': 1 });
  });

  it('reads interfaces of 200 devices by id in repeated-id batches: exact, and (N / batch) + pages requests', async () => {
    const ids = estate.devices.filter((d) => d.site.slug === 'ams1').map((d) => d.id);
    const expected = estate.interfaces.filter((i) => ids.includes(i.device.id));
    sim.resetStats();
    const r = await call('list_interfaces', { device_id: ids, limit: 20 });
    expect(r.isError).toBe(false);
    expect(r.body.total).toBe(expected.length);
    expect(typeof r.body.result_id).toBe('string');
    // Two batches of 100 ids; each batch pages at 1,000 interfaces.
    const perBatch = [ids.slice(0, 100), ids.slice(100)].map((batch) => expected.filter((i) => batch.includes(i.device.id)).length);
    const pages = perBatch.reduce((sum, count) => sum + Math.max(1, Math.ceil(count / 1_000)), 0);
    expect(sim.stats().byEndpoint).toEqual({ 'dcim/interfaces': pages });
    expect(pages).toBeLessThan(ids.length / 10);
    expect(r.tokens).toBeLessThanOrEqual(2_000);
    // The rest is read back from the stored result with no NetBox request.
    sim.resetStats();
    const rest = await call('read_result', { result_id: r.body.result_id, offset: expected.length - 5, limit: 10 });
    expect(rest.body.returned).toBe(5);
    expect(sim.stats().requests).toBe(0);
  });

  it('interfaces of a whole site use the site filter: pages only', async () => {
    const ams1 = new Set(estate.devices.filter((d) => d.site.slug === 'ams1').map((d) => d.id));
    const expected = estate.interfaces.filter((i) => ams1.has(i.device.id)).length;
    sim.resetStats();
    const r = await call('list_interfaces', { site: 'ams1' });
    expect(r.body.total).toBe(expected);
    expect(sim.stats().byEndpoint).toEqual({ 'dcim/interfaces': Math.ceil(expected / 1_000) });
    // What the tool read before the budget is a metric: thousands of interfaces are far over 200 KiB, the page is not.
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const bucket = (le: string): number => Number(new RegExp(`flotilla_mcp_tool_raw_result_bytes_bucket\\{le="${le.replace("+", "\\+")}",tool="list_interfaces"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
    expect(bucket('+Inf') - bucket('204800')).toBeGreaterThanOrEqual(1);
    expect(r.tokens).toBeLessThanOrEqual(2_000);
  });

  it('answers bad arguments and NetBox rejections as isError results that say what to do', async () => {
    const bad = await call('list_devices', { site: 'AMS 1', limit: 500 });
    expect(bad.isError).toBe(true);
    expect(String(bad.body.message)).toMatch(/site must be a slug/);
    expect(String(bad.body.message)).toMatch(/limit must be a whole number from 1 to 100/);
    const unknown = await call('list_devices', { site: 'nowhere9' });
    expect(unknown.isError).toBe(true);
    expect(String(unknown.body.message)).toContain('nowhere9');
    const missing = await call('get_netbox_object', { object_type: 'devices', name: 'no-such-device-01' });
    expect(missing.body.error).toBe('not_found');
    const none = await call('list_interfaces', {});
    expect(String(none.body.message)).toMatch(/needs a device, device_id or site/);
  });

  it('counts, gets, searches and tells prefix usage', async () => {
    expect((await call('count_netbox_objects', { object_type: 'interfaces' })).body.count).toBe(estate.interfaces.length);
    const device = estate.devices[0];
    const got = await call('get_netbox_object', { object_type: 'devices', name: device?.name });
    expect(got.body.id).toBe(device?.id);
    const search = await call('search_netbox', { query: 'ams1-rtr', types: ['devices'] });
    expect((search.body.totals_by_type as Record<string, number>).devices).toBe(estate.devices.filter((d) => d.name.includes('ams1-rtr')).length);
    const prefix = estate.prefixes.find((p) => p.prefix.endsWith('/24') && p.prefix.startsWith('10.'));
    const usage = await call('get_prefix_usage', { prefix: prefix?.prefix, free_shown: 5 });
    expect(usage.body.usable).toBe(254);
    expect((usage.body.first_free as string[]).length).toBeLessThanOrEqual(5);
    expect(Number(usage.body.used) + Number(usage.body.free)).toBe(254);
  });
});

describe('NetBox rate limits (429 storms)', () => {
  const storm = { requestsPerSecond: 5, burst: 5 };

  async function toolsAgainst(rateLimit: ConstructorParameters<typeof NetBoxClient>[0]['rateLimit'], simulator: RunningNetBoxSimulator) {
    const metrics = createMetrics();
    const client = new NetBoxClient({ baseUrl: simulator.url, token: TOKEN, rateLimit, metrics, logger: silentLogger() });
    const tools = await connectNetBoxToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
    return { client, tools };
  }

  it('with our bucket matched to NetBox\'s, a large read completes and NetBox throttles at most a bucket of requests', async () => {
    const limited = await startNetBoxSimulator({ token: TOKEN, estate, rateLimit: storm });
    const { tools } = await toolsAgainst({ ratePerSecond: storm.requestsPerSecond, burst: storm.burst, maxWaitMs: 30_000, maxWaiting: 100 }, limited);
    try {
      const r = await tools.client.callTool({ name: 'list_interfaces', arguments: { site: 'ams1' } });
      const body = JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as Record<string, unknown>;
      expect(body.total).toBe(estate.interfaces.filter((i) => estate.devices.find((d) => d.id === i.device.id)?.site.slug === 'ams1').length);
      expect(limited.stats().rateLimited).toBeLessThanOrEqual(storm.burst);
    } finally {
      await tools.close();
      await limited.close();
    }
  });

  it('without our bucket, 429s are retried after Retry-After and the read still completes exactly', async () => {
    const limited = await startNetBoxSimulator({ token: TOKEN, estate, rateLimit: { requestsPerSecond: 0.5, burst: 2 } });
    const { tools } = await toolsAgainst(false, limited);
    try {
      const r = await tools.client.callTool({ name: 'list_interfaces', arguments: { site: 'fra1' } });
      const body = JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as Record<string, unknown>;
      const fra1 = new Set(estate.devices.filter((d) => d.site.slug === 'fra1').map((d) => d.id));
      expect(body.total).toBe(estate.interfaces.filter((i) => fra1.has(i.device.id)).length);
      const devices = await tools.client.callTool({ name: 'list_devices', arguments: { site: 'fra1' } });
      expect((devices as { isError?: boolean }).isError).not.toBe(true);
      expect(limited.stats().rateLimited).toBeGreaterThan(0);
    } finally {
      await tools.close();
      await limited.close();
    }
  });

  it('when the rate limit cannot be waited out, the agent answers with what it read and says it stopped early', async () => {
    const limited = await startNetBoxSimulator({ token: TOKEN, estate, rateLimit: { requestsPerSecond: 1, burst: 3 } });
    const { tools, client } = await toolsAgainst({ ratePerSecond: 0.5, burst: 3, maxWaitMs: 1_500, maxWaiting: 10 }, limited);
    try {
      const limiter = client.limiter;
      // The storm is about the answer's reads: the lexicon's own reads of NetBox's names are left out.
      const agent = createNetBoxAgent({ mcp: tools.client, counter, liveLexicon: false, rate: () => (limiter === undefined ? undefined : { available: limiter.available(), ratePerSecond: 0.5 }) });
      const turn = await agent.ask('interfaces of all devices in ams1', 'storm-1');
      expect(turn.limitations.map((l) => l.kind)).toContain('rate_limit_pressure');
      expect(turn.answer).toMatch(/Only part of the interfaces of 200 devices at ams1 could be read: 1,000 so far/);
      expect(turn.answer).toMatch(/Stopped early: NetBox is rate limited.*Try again in \d+ s/);
      expect(turn.answer).toMatch(/rate limit/);
      expect(limited.stats().rateLimited).toBeLessThanOrEqual(3);
    } finally {
      await tools.close();
      await limited.close();
    }
  });

  it('when even waiting would take too long, the agent reads nothing and offers the options (graceful fallback)', async () => {
    const { tools } = await toolsAgainst(false, sim);
    try {
      // The shared limiter reports itself drained at 0.1 requests per second: 6+ calls would wait over a minute.
      const agent = createNetBoxAgent({ mcp: tools.client, counter, liveLexicon: false, rate: () => ({ available: 0, ratePerSecond: 0.1 }) });
      sim.resetStats();
      const turn = await agent.ask('interfaces of all devices in ams1', 'fallback-1');
      expect(turn.handling?.strategies).toEqual(['fallback']);
      expect(turn.answer).toMatch(/I can't read that now without overrunning a limit: .*calls against a rate limit/);
      expect(turn.options).toEqual(expect.arrayContaining(['just a quick look', 'summary instead', 'try again']));
      expect(turn.data).toMatchObject({ limitation: { strategies: ['fallback'] } });
      // Only the two count queries reached NetBox.
      expect(sim.stats().byEndpoint).toEqual({ 'dcim/devices': 1, 'dcim/interfaces': 1 });
      // The question is remembered: each option continues it.
      const quick = await agent.ask('just a quick look', 'fallback-1');
      expect(quick.answer).toContain('Sampled 8 of 200 devices');
      const summary = await agent.ask('summary instead', 'fallback-1');
      expect(summary.answer).toMatch(/^[\d,]+ interfaces at ams1\./);
    } finally {
      await tools.close();
    }
  });

  it('defaults keep NetBox\'s page size', () => {
    expect(NETBOX_DEFAULTS.maxPageSize).toBe(1_000);
  });
});
