import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolCaller } from '@flotilla/agent-kit';
import { createMemoryResultStore } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient } from '../client/argocd-client.js';
import { ARGOCD_TOOLS, connectArgoCdToolsInProcess } from '../server.js';
import { ARGOCD_OUTPUT_SCHEMAS } from './outputs.js';

/**
 * Every Argo CD tool's result against the simulator: the MCP client checks its structuredContent against the
 * advertised outputSchema, and the agent's caller validates it with the same zod schema.
 */

const TOKEN = 'outputs-token-0123456789';
const estate = generateArgoEstate({ seed: 11 });
let sim: RunningSimulator;
let tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate: { seed: 11 } });
  const metrics = createMetrics();
  const client = new ArgoCdClient({ baseUrl: sim.url, token: TOKEN, limits: { ...UPSTREAM_DEFAULTS, retries: 0 }, metrics, logger: silentLogger() });
  tools = await connectArgoCdToolsInProcess({ client, counter: await loadTokenCounter(), store: createMemoryResultStore(), metrics, logger: silentLogger() });
});
afterAll(async () => {
  await tools.close();
  await sim.close();
});

describe('Argo CD tool outputs', () => {
  it('declares an output schema for every tool, and the server advertises each', async () => {
    expect(Object.keys(ARGOCD_OUTPUT_SCHEMAS).sort()).toEqual([...ARGOCD_TOOLS].sort());
    const { tools: listed } = await tools.client.listTools();
    for (const tool of listed) expect(tool.outputSchema?.type, tool.name).toBe('object');
  });

  it('answers every tool with structured content its schema validates, equal to its JSON text', async () => {
    await tools.client.listTools();
    const call = mcpToolCaller(tools.client, { schemas: ARGOCD_OUTPUT_SCHEMAS });
    const signal = new AbortController().signal;
    const ask = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = await call({ tool, args }, signal);
      expect(result.isError, `${tool}: ${JSON.stringify(result.body).slice(0, 300)}`).toBe(false);
      const raw = await tools.client.callTool({ name: tool, arguments: args });
      const first = (raw.content as { type: string; text?: string }[])[0];
      expect(raw.structuredContent).toEqual(JSON.parse(first?.text ?? '{}'));
      return result.body;
    };
    const app = estate.applications[0]?.metadata.name ?? '';
    const apps = await ask('list_applications', {});
    expect(apps.total).toBe(estate.applications.length);
    await ask('read_result', { result_id: apps.result_id, offset: 10 });
    await ask('read_result', { result_id: apps.result_id, summary_only: true });
    await ask('get_application', { name: app, sections: ['summary', 'source', 'resources', 'history', 'conditions', 'operation', 'sync_policy', 'destination'] });
    await ask('list_projects', {});
    await ask('list_applicationsets', {});
    await ask('list_clusters', {});
    await ask('search_argocd_resources', { query: 'a' });
    const tree = await ask('get_resource_tree', { name: app, limit: 100 });
    await ask('get_managed_resources', { name: app });
    await ask('get_application_events', { name: app });
    const rows = tree.items as { kind?: string; name?: string; namespace?: string }[];
    const pod = rows.find((r) => r.kind === 'Pod');
    const deployment = rows.find((r) => r.kind === 'Deployment') ?? rows[0];
    expect(pod).toBeDefined();
    await ask('get_resource_events', { name: app, resource_kind: 'Pod', resource_name: pod?.name, resource_namespace: pod?.namespace });
    await ask('get_logs', { name: app, pod: pod?.name, namespace: pod?.namespace, tail_lines: 20 });
    await ask('get_resource', { name: app, kind: deployment?.kind, resource_name: deployment?.name, namespace: deployment?.namespace });
    await ask('list_resource_actions', { name: app, kind: deployment?.kind, resource_name: deployment?.name, namespace: deployment?.namespace });
  });
});
