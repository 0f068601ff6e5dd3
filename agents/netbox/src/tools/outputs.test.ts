import { describeToolOutputs, toolsAgainstSimulator } from '@flotilla/agent-host/testing';
import { generateNetBoxEstate, startNetBoxSimulator } from '@flotilla/simulators';
import { NetBoxClient } from '../client/netbox-client.js';
import { connectNetBoxToolsInProcess } from '../server.js';
import { NETBOX_OUTPUT_SCHEMAS, NETBOX_TOOLS } from './tools.js';

/**
 * Every NetBox tool's result against the simulator: the MCP client checks its structuredContent against the
 * advertised outputSchema, and the agent's caller validates it with the same zod schema.
 */

const TOKEN = 'outputs-token-0123456789';
const estate = generateNetBoxEstate();
const tools = toolsAgainstSimulator({
  simulator: () => startNetBoxSimulator({ token: TOKEN, estate }),
  connect: (url, deps) => connectNetBoxToolsInProcess({ ...deps, client: new NetBoxClient({ baseUrl: url, token: TOKEN, metrics: deps.metrics, logger: deps.logger }) }),
});

describeToolOutputs({
  title: 'NetBox',
  tools: NETBOX_TOOLS,
  schemas: NETBOX_OUTPUT_SCHEMAS,
  client: () => tools().client,
  async exercise(ask) {
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
  },
});
