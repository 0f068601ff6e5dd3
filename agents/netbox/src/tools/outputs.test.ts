import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolCaller } from '@flotilla/agent-kit';
import { createMemoryResultStore } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { generateNetBoxEstate, startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { NetBoxClient } from '../client/netbox-client.js';
import { connectNetBoxToolsInProcess } from '../server.js';
import { NETBOX_OUTPUT_SCHEMAS, NETBOX_TOOLS } from './tools.js';

/**
 * Every NetBox tool's result against the simulator: the MCP client checks its structuredContent against the
 * advertised outputSchema, and the agent's caller validates it with the same zod schema.
 */

const TOKEN = 'outputs-token-0123456789';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
let tools: Awaited<ReturnType<typeof connectNetBoxToolsInProcess>>;

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
  const metrics = createMetrics();
  const client = new NetBoxClient({ baseUrl: sim.url, token: TOKEN, metrics, logger: silentLogger() });
  tools = await connectNetBoxToolsInProcess({ client, counter: await loadTokenCounter(), store: createMemoryResultStore(), metrics, logger: silentLogger() });
});
afterAll(async () => {
  await tools.close();
  await sim.close();
});

describe('NetBox tool outputs', () => {
  it('declares an output schema for every tool, and the server advertises each', async () => {
    expect(Object.keys(NETBOX_OUTPUT_SCHEMAS).sort()).toEqual([...NETBOX_TOOLS].sort());
    const { tools: listed } = await tools.client.listTools();
    for (const tool of listed) expect(tool.outputSchema?.type, tool.name).toBe('object');
  });

  it('answers every tool with structured content its schema validates, equal to its JSON text', async () => {
    await tools.client.listTools();
    const call = mcpToolCaller(tools.client, { schemas: NETBOX_OUTPUT_SCHEMAS });
    const signal = new AbortController().signal;
    const ask = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = await call({ tool, args }, signal);
      expect(result.isError, `${tool}: ${JSON.stringify(result.body).slice(0, 300)}`).toBe(false);
      const raw = await tools.client.callTool({ name: tool, arguments: args });
      const first = (raw.content as { type: string; text?: string }[])[0];
      expect(raw.structuredContent).toEqual(JSON.parse(first?.text ?? '{}'));
      return result.body;
    };
    for (const tool of ['list_sites', 'list_devices', 'list_vlans', 'list_prefixes', 'list_ip_addresses', 'list_modules', 'list_cables']) await ask(tool, { limit: 30 });
    const devices = (await ask('list_devices', { limit: 3 })).items as { id: number; name: string }[];
    await ask('list_interfaces', { device: devices[0]?.name });
    const many = await ask('list_interfaces', { site: 'ams1' });
    await ask('read_result', { result_id: many.result_id, filter: 'cabled=false' });
    await ask('read_result', { result_id: many.result_id, summary_only: true });
    await ask('count_netbox_objects', { object_type: 'devices', site: 'ams1' });
    await ask('get_netbox_object', { object_type: 'devices', id: devices[0]?.id });
    const prefixes = (await ask('list_prefixes', { limit: 1 })).items as { prefix: string }[];
    await ask('get_prefix_usage', { prefix: prefixes[0]?.prefix });
    await ask('search_netbox', { query: 'ams' });
  });
});
