import { expect } from 'vitest';
import { describeToolOutputs, toolsAgainstSimulator } from '@flotilla/agent-host/testing';
import { generateArgoEstate, startArgoCdSimulator } from '@flotilla/simulators';
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
const tools = toolsAgainstSimulator({
  simulator: () => startArgoCdSimulator({ token: TOKEN, estate: { seed: 11 } }),
  connect: (url, deps) => connectArgoCdToolsInProcess({ ...deps, client: new ArgoCdClient({ baseUrl: url, token: TOKEN, limits: { ...UPSTREAM_DEFAULTS, retries: 0 }, metrics: deps.metrics, logger: deps.logger }) }),
});

describeToolOutputs({
  title: 'Argo CD',
  tools: ARGOCD_TOOLS,
  schemas: ARGOCD_OUTPUT_SCHEMAS,
  client: () => tools().client,
  async exercise(ask) {
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
  },
});
