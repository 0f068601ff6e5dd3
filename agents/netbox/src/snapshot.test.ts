import { beforeEach, describe, expect, it } from 'vitest';
import { callToolOk, toolsAgainstSimulator } from '@flotilla/agent-host/testing';
import { generateNetBoxEstate, startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { NetBoxClient } from './client/netbox-client.js';
import { connectNetBoxToolsInProcess } from './server.js';

/**
 * Issue 9, "Upstream snapshot", for NetBox: the paged lists (list_devices, ...) already page through NetBox itself,
 * one request of just that page each; the relation walks of list_interfaces read the whole set, so their later
 * pages come from a snapshot instead of walking again. The simulator counts requests per endpoint.
 */
const TOKEN = 'snapshot-token-0123456789';
const estate = generateNetBoxEstate();
type Json = Record<string, unknown>;

let sim: RunningNetBoxSimulator;
const tools = toolsAgainstSimulator({
  simulator: async () => {
    sim = await startNetBoxSimulator({ token: TOKEN, estate });
    return sim;
  },
  connect: (url, deps) => connectNetBoxToolsInProcess({ ...deps, client: new NetBoxClient({ baseUrl: url, token: TOKEN, metrics: deps.metrics, logger: deps.logger }) }),
});
beforeEach(() => {
  sim.resetStats();
});

const call = (name: string, args: Json): Promise<Json> => callToolOk(tools().client, name, args);

describe('NetBox relation walks page from a snapshot', () => {
  const ams1 = new Set(estate.devices.filter((d) => d.site.slug === 'ams1').map((d) => d.id));
  const expected = estate.interfaces.filter((i) => ams1.has(i.device.id));
  const walkPages = Math.ceil(expected.length / 1_000);

  it('walks the interfaces of a site once; later pages with the same filters make no NetBox request', async () => {
    const first = await call('list_interfaces', { site: 'ams1', limit: 50 });
    expect(first.total).toBe(expected.length);
    expect(sim.stats().byEndpoint).toEqual({ 'dcim/interfaces': walkPages });
    const ids: unknown[] = (first.items as Json[]).map((i) => i.id);
    let offset = first.next_offset as number | null;
    for (let calls = 0; offset !== null && calls < 4; calls += 1) {
      const page = await call('list_interfaces', { site: 'ams1', limit: 50, offset });
      expect(page.total).toBe(expected.length);
      ids.push(...(page.items as Json[]).map((i) => i.id));
      offset = page.next_offset as number | null;
    }
    expect(ids).toEqual(expected.slice(0, ids.length).map((i) => i.id));
    expect(sim.stats().requests).toBe(walkPages);
  });

  it('walks again for other filters and on refresh', async () => {
    await call('list_interfaces', { site: 'ams1', role: 'switch', limit: 20, offset: 20 });
    const afterFilter = sim.stats().requests;
    expect(afterFilter).toBeGreaterThan(0);
    await call('list_interfaces', { site: 'ams1', role: 'switch', limit: 20, offset: 40 });
    expect(sim.stats().requests).toBe(afterFilter);
    await call('list_interfaces', { site: 'ams1', role: 'switch', limit: 20, offset: 40, refresh: true });
    expect(sim.stats().requests).toBe(afterFilter * 2);
  });

  it('leaves the paged lists paging through NetBox: one request of one page each', async () => {
    await call('list_devices', { site: 'ams1', limit: 50 });
    await call('list_devices', { site: 'ams1', limit: 50, offset: 50 });
    expect(sim.stats().byEndpoint).toEqual({ 'dcim/devices': 2 });
  });
});
