import { describe, expect, it } from 'vitest';
import { describeToolFuzz } from '@flotilla/agent-host/testing';
import { generateNetBoxEstate, startNetBoxSimulator } from '@flotilla/simulators';
import { connectNetBoxToolsInProcess, NETBOX_DEFAULTS, NETBOX_TOOLS, NetBoxClient } from './index.js';

/**
 * Every NetBox tool under the shared fuzz suite of `@flotilla/agent-host/testing` (hostile arguments from each tool's
 * own schema, against the simulator); then the simulator and server keep answering.
 */
const TOKEN = 'fuzz-token-0123456789';
const estate = generateNetBoxEstate({ seed: 7, sites: 6, devices: 240, interfacesPerDevice: 8, vlans: 80, prefixes: 60 });
/** Names the simulator knows, so valid-shaped calls also succeed, not only miss. */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  site: estate.sites.map((s) => s.slug),
  device: estate.devices.slice(0, 20).map((d) => d.name),
  name: estate.devices.slice(0, 20).map((d) => d.name),
  query: estate.devices.slice(0, 10).map((d) => d.name),
  prefix: estate.prefixes.slice(0, 10).map((p) => p.prefix),
  parent: estate.prefixes.slice(0, 10).map((p) => p.prefix),
};

const fuzz = describeToolFuzz({
  title: 'NetBox',
  tools: NETBOX_TOOLS,
  known: KNOWN,
  simulator: () => startNetBoxSimulator({ token: TOKEN, estate }),
  // No rate limit: the fuzz makes a thousand calls, and the limiter is not what it tests.
  connect: (url, deps) =>
    connectNetBoxToolsInProcess({ ...deps, client: new NetBoxClient({ baseUrl: url, token: TOKEN, limits: NETBOX_DEFAULTS.upstream, rateLimit: false, metrics: deps.metrics, logger: deps.logger }) }),
});
const call = fuzz.call;

describe('NetBox MCP tools under hostile arguments (fuzz): afterwards', () => {
  it('keeps the simulator and the server usable afterwards', async () => {
    const page = await call('list_devices', {});
    expect(page.isError).toBe(false);
    expect(page.body.total).toBe(estate.devices.length);
    const device = await call('get_netbox_object', { object_type: 'devices', name: estate.devices[0]?.name });
    expect(device.isError).toBe(false);
  });
});
