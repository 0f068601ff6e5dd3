import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETBOX_ESTATE_ORIGIN } from './catalog.js';
import { generateNetBoxEstate } from './data.js';
import { startNetBoxSimulator, type RunningNetBoxSimulator } from './server.js';
import type { NetBoxDevice, NetBoxInterface } from './types.js';

const TOKEN = '0123456789abcdef0123456789abcdef01234567';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  text: string;
  body: Json;
  headers: Headers;
}
interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: Json[];
}

async function call(path: string, init: { token?: string | null; scheme?: string; method?: string } = {}): Promise<Answer> {
  const token = init.token === undefined ? TOKEN : init.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `${init.scheme ?? 'Token'} ${token}` };
  const response = await fetch(path.startsWith('http') ? path : `${sim.url}${path}`, { method: init.method ?? 'GET', headers });
  const text = await response.text();
  return { status: response.status, text, body: (/^[[{]/.test(text) ? JSON.parse(text) : {}) as Json, headers: response.headers };
}
const page = async (path: string): Promise<Page> => {
  const answer = await call(path);
  expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(200);
  return answer.body as unknown as Page;
};
const ids = (p: Page): number[] => p.results.map((r) => Number(r.id));
/** Every id a filtered list holds, following `next` links. */
async function allIds(path: string): Promise<number[]> {
  const out: number[] = [];
  for (let url: string | null = `${sim.url}${path}`; url !== null; ) {
    const p = await page(url);
    out.push(...ids(p));
    url = p.next;
  }
  return out;
}
const interfacesOf = (test: (i: NetBoxInterface, d: NetBoxDevice) => boolean): number[] => {
  const devices = new Map(estate.devices.map((d) => [d.id, d]));
  return estate.interfaces.filter((i) => test(i, devices.get(i.device.id) as NetBoxDevice)).map((i) => i.id);
};

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
});
afterAll(async () => sim.close());

describe('paging', () => {
  it('pages by limit/offset with absolute next/previous links (other parameters kept, keys sorted)', async () => {
    const first = await page('/api/dcim/devices/?site=ams1&limit=20');
    expect(first.count).toBe(200);
    expect(ids(first)).toEqual(estate.devices.slice(0, 20).map((d) => d.id));
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${sim.url}/api/dcim/devices/?limit=20&offset=20&site=ams1`);
    const second = await page(first.next ?? '');
    expect(ids(second)).toEqual(estate.devices.slice(20, 40).map((d) => d.id));
    expect(second.previous).toBe(`${sim.url}/api/dcim/devices/?limit=20&site=ams1`);
    const third = await page('/api/dcim/devices/?site=ams1&limit=20&offset=50');
    expect(third.previous).toBe(`${sim.url}/api/dcim/devices/?limit=20&offset=30&site=ams1`);
    const last = await page('/api/dcim/devices/?site=ams1&limit=20&offset=180');
    expect([last.results.length, last.next]).toEqual([20, null]);
    expect(await allIds('/api/dcim/devices/?limit=250')).toEqual(estate.devices.map((d) => d.id));
  });

  it('defaults to 50, clamps to the max page size, reads limit=0 as the max, ignores bad values', async () => {
    const plain = await page('/api/dcim/interfaces/');
    expect([plain.count, plain.results.length]).toEqual([24_000, 50]);
    expect(plain.next).toBe(`${sim.url}/api/dcim/interfaces/?limit=50&offset=50`);
    const big = await page('/api/dcim/interfaces/?limit=5000&brief=1');
    expect(big.results).toHaveLength(1000);
    expect(big.next).toBe(`${sim.url}/api/dcim/interfaces/?brief=1&limit=1000&offset=1000`);
    expect((await page('/api/dcim/interfaces/?limit=0&brief=1')).results).toHaveLength(1000);
    for (const bad of ['abc', '-5', '1.5']) expect((await page(`/api/dcim/sites/?limit=${bad}`)).results, bad).toHaveLength(12);
    expect(ids(await page('/api/dcim/racks/?limit=3&offset=-4'))).toEqual([1, 2, 3]);
  });

  it('answers an offset past the end with no results but the count', async () => {
    const past = await page('/api/dcim/devices/?limit=10&offset=5000');
    expect(past).toMatchObject({ count: 600, next: null, results: [] });
    expect(past.previous).toBe(`${sim.url}/api/dcim/devices/?limit=10&offset=4990`);
  });
});

describe('representations', () => {
  it('serves full objects as generated, with URLs on the simulator', async () => {
    const answer = await call('/api/dcim/devices/7/');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('api-version')).toBe('4.1');
    expect(answer.text).toBe(JSON.stringify(estate.devices[6]).replaceAll(`"${NETBOX_ESTATE_ORIGIN}/`, `"${sim.url}/`));
    expect(answer.body.url).toBe(`${sim.url}/api/dcim/devices/7/`);
    expect(answer.text).not.toContain(NETBOX_ESTATE_ORIGIN);
    const iface = (await page('/api/dcim/interfaces/?cabled=true&limit=1')).results[0] as Json;
    expect((iface.cable as Json).url).toMatch(new RegExp(`^${sim.url}/api/dcim/cables/\\d+/$`));
    expect(await call('/api/dcim/devices/7')).toMatchObject({ status: 200, body: { id: 7 } });
  });

  it('has NetBox v4 brief shapes for every model', async () => {
    const brief: [string, string[]][] = [
      ['dcim/sites', ['id', 'url', 'display', 'name', 'slug', 'description']],
      ['dcim/racks', ['id', 'url', 'display', 'name', 'description']],
      ['dcim/devices', ['id', 'url', 'display', 'name', 'description']],
      ['dcim/interfaces', ['id', 'url', 'display', 'device', 'name', 'description', 'cable', '_occupied']],
      ['dcim/cables', ['id', 'url', 'display', 'label', 'description']],
      ['dcim/modules', ['id', 'url', 'display', 'device', 'module_bay', 'module_type', 'description']],
      ['ipam/vlans', ['id', 'url', 'display', 'vid', 'name', 'description']],
      ['ipam/prefixes', ['id', 'url', 'display', 'family', 'prefix', 'description', '_depth']],
      ['ipam/ip-addresses', ['id', 'url', 'display', 'family', 'address', 'description']],
    ];
    for (const [path, keys] of brief) {
      for (const flag of ['1', 'true', 'True']) expect(Object.keys((await page(`/api/${path}/?brief=${flag}&limit=1`)).results[0] ?? {}), path).toEqual(keys);
      expect(Object.keys((await call(`/api/${path}/1/?brief=1`)).body), path).toEqual(keys);
    }
    expect((await page('/api/dcim/interfaces/?brief=1&limit=1')).results[0]?.device).toEqual({
      id: 1,
      url: `${sim.url}/api/dcim/devices/1/`,
      display: 'ams1-rtr-01',
      name: 'ams1-rtr-01',
      description: estate.devices[0]?.description,
    });
  });

  it('projects with fields (unknown names ignored, over brief) and drops config_context on exclude', async () => {
    const slim = await page('/api/dcim/devices/?fields=name,id,status,nonsense&limit=2');
    expect(slim.results).toEqual(estate.devices.slice(0, 2).map((d) => ({ id: d.id, name: d.name, status: d.status })));
    expect((await page('/api/dcim/devices/?fields=id,serial&brief=1&limit=1')).results[0]).toEqual({ id: 1, serial: estate.devices[0]?.serial });
    const full = (await page('/api/dcim/devices/?limit=1')).results[0] as Json;
    expect(full.config_context).toEqual(estate.devices[0]?.config_context);
    const lean = (await page('/api/dcim/devices/?limit=1&exclude=config_context')).results[0] as Json;
    expect(Object.keys(lean)).toEqual(Object.keys(full).filter((k) => k !== 'config_context'));
    expect((await call('/api/dcim/devices/1/?exclude=config_context')).body).not.toHaveProperty('config_context');
  });
});

describe('filters', () => {
  it('ORs repeated parameters and ANDs different ones', async () => {
    const [d1, d2] = [estate.devices[0] as NetBoxDevice, estate.devices[1] as NetBoxDevice];
    const both = await page('/api/dcim/interfaces/?device_id=1&device_id=2&limit=1000');
    expect(both.count).toBe(d1.interface_count + d2.interface_count);
    expect(ids(both)).toEqual(interfacesOf((i) => i.device.id === 1 || i.device.id === 2));
    const enabled = await page('/api/dcim/interfaces/?device_id=1&device_id=2&enabled=false&limit=1000');
    const expected = interfacesOf((i) => (i.device.id === 1 || i.device.id === 2) && !i.enabled);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(enabled)).toEqual(expected);
    expect(await allIds('/api/dcim/devices/?site=ams1&site=fra1&role=switch&status=active&limit=1000')).toEqual(
      estate.devices.filter((d) => ['ams1', 'fra1'].includes(d.site.slug) && d.role.slug === 'switch' && d.status.value === 'active').map((d) => d.id),
    );
    expect(ids(await page('/api/dcim/devices/?id=3&id=9&id=99999'))).toEqual([3, 9]);
    expect((await page('/api/dcim/devices/?site_id=1&made_up=42&limit=1')).count).toBe(200);
  });

  it('answers a hundred repeated device_ids (OR-ed), paged', async () => {
    const query = Array.from({ length: 100 }, (_, k) => `device_id=${k * 5 + 1}`).join('&');
    const wanted = new Set(Array.from({ length: 100 }, (_, k) => k * 5 + 1));
    const answer = await page(`/api/dcim/interfaces/?${query}&limit=1000`);
    expect(answer.count).toBe(interfacesOf((i) => wanted.has(i.device.id)).length);
    expect(ids(answer)).toEqual(interfacesOf((i) => wanted.has(i.device.id)).slice(0, 1000));
  });

  it('filters interfaces through their device (site, role or device_role, name) and by their own fields', async () => {
    const byRole = interfacesOf((_, d) => d.role.slug === 'firewall' && d.site.slug === 'lon1');
    expect(await allIds('/api/dcim/interfaces/?role=firewall&site=lon1&limit=1000')).toEqual(byRole);
    expect(await allIds('/api/dcim/interfaces/?device_role=firewall&site_id=4&limit=1000')).toEqual(byRole);
    expect(await allIds('/api/dcim/interfaces/?device=ams1-rtr-01&device=ams1-sw-001')).toEqual(interfacesOf((_, d) => ['ams1-rtr-01', 'ams1-sw-001'].includes(d.name)));
    expect((await page('/api/dcim/interfaces/?cabled=true&limit=1')).count).toBe(2 * estate.cables.length);
    expect((await page('/api/dcim/interfaces/?mgmt_only=true&limit=1')).count).toBe(600);
    expect((await page('/api/dcim/interfaces/?type=virtual&limit=1')).count).toBe(interfacesOf((i) => i.type.value === 'virtual').length);
    expect((await page('/api/dcim/interfaces/?cabled=maybe&limit=1')).count).toBe(24_000);
  });

  it('filters cables, modules and addresses by device, and addresses and prefixes by network', async () => {
    const cables = estate.cables.filter((c) => [c.a_terminations, c.b_terminations].some((t) => t[0]?.object.device.id === 1)).map((c) => c.id);
    expect(cables.length).toBeGreaterThan(0);
    expect(await allIds('/api/dcim/cables/?device_id=1')).toEqual(cables);
    expect(await allIds('/api/dcim/modules/?device=ams1-rtr-01')).toEqual(estate.modules.filter((m) => m.device.id === 1).map((m) => m.id));
    expect(await allIds('/api/ipam/ip-addresses/?device_id=1')).toEqual(estate.ipAddresses.filter((ip) => ip.assigned_object?.device.id === 1).map((ip) => ip.id));
    const mgmt = estate.ipAddresses.filter((ip) => ip.address.startsWith('10.1.0.')).map((ip) => ip.id);
    expect(await allIds('/api/ipam/ip-addresses/?parent=10.1.0.0/24&limit=1000')).toEqual(mgmt);
    expect((await page('/api/ipam/ip-addresses/?parent=not-a-prefix')).count).toBe(0);
    const iface = estate.ipAddresses[0]?.assigned_object_id ?? 0;
    expect(ids(await page(`/api/ipam/ip-addresses/?interface_id=${iface}`))).toEqual(estate.ipAddresses.filter((ip) => ip.assigned_object_id === iface).map((ip) => ip.id));
    expect((await page('/api/ipam/prefixes/?parent=10.1.0.0/16&limit=1000')).count).toBe(estate.prefixes.filter((p) => p.prefix.startsWith('10.1.')).length);
    expect(ids(await page('/api/ipam/prefixes/?prefix=10.1.0.0/24&prefix=10.2.0.0/16'))).toEqual(
      estate.prefixes.filter((p) => p.prefix === '10.1.0.0/24' || p.prefix === '10.2.0.0/16').map((p) => p.id),
    );
    const vlan = estate.prefixes.find((p) => p.vlan !== null)?.vlan?.id ?? 0;
    expect(ids(await page(`/api/ipam/prefixes/?vlan_id=${vlan}`))).toEqual(estate.prefixes.filter((p) => p.vlan?.id === vlan).map((p) => p.id));
    expect((await page('/api/ipam/vlans/?site_id=null')).count).toBe(4);
    expect(ids(await page('/api/ipam/vlans/?site=ams1&vid=10'))).toEqual(estate.vlans.filter((v) => v.site?.slug === 'ams1' && v.vid === 10).map((v) => v.id));
  });

  it('matches tags (all of several, as NetBox’s TagFilter) and searches with q', async () => {
    const tagged = (...slugs: string[]) => estate.devices.filter((d) => slugs.every((s) => d.tags.some((t) => t.slug === s))).map((d) => d.id);
    expect(await allIds('/api/dcim/devices/?tag=edge&limit=1000')).toEqual(tagged('edge'));
    expect(await allIds('/api/dcim/devices/?tag=edge&tag=pci&limit=1000')).toEqual(tagged('edge', 'pci'));
    expect(tagged('edge', 'pci').length).toBeLessThan(tagged('edge').length);
    expect(await allIds('/api/dcim/devices/?q=AMS1-SW-00&limit=1000')).toEqual(estate.devices.filter((d) => d.name.startsWith('ams1-sw-00')).map((d) => d.id));
    const serial = estate.devices[42]?.serial ?? '';
    expect(ids(await page(`/api/dcim/devices/?q=${serial.toLowerCase()}`))).toContain(43);
    expect(await allIds('/api/dcim/interfaces/?q=ams1-rtr-01%20&limit=1000')).toEqual(
      estate.interfaces.filter((i) => `${i.name}\u0000${i.description}`.toLowerCase().includes('ams1-rtr-01')).map((i) => i.id),
    );
    expect(await allIds('/api/ipam/ip-addresses/?q=10.1.1.1&limit=1000')).toEqual(estate.ipAddresses.filter((ip) => ip.address.startsWith('10.1.1.1')).map((ip) => ip.id));
    expect(ids(await page('/api/ipam/prefixes/?q=10.1.0.77'))).toEqual(estate.prefixes.filter((p) => ['10.0.0.0/8', '10.1.0.0/16', '10.1.0.0/24'].includes(p.prefix)).map((p) => p.id));
    expect((await page('/api/ipam/vlans/?q=prod-web')).count).toBe(estate.vlans.filter((v) => v.name.includes('prod-web') || v.description.includes('prod-web')).length);
  });

  it("rejects unknown slugs and bad numbers with NetBox's 400 bodies", async () => {
    expect(await call('/api/dcim/devices/?site=xyz')).toMatchObject({ status: 400, body: { site: ['Select a valid choice. xyz is not one of the available choices.'] } });
    expect((await call('/api/dcim/devices/?role=switch&role=toaster&tag=nope')).body).toEqual({
      role: ['Select a valid choice. toaster is not one of the available choices.'],
      tag: ['Select a valid choice. nope is not one of the available choices.'],
    });
    expect((await call('/api/dcim/interfaces/?device_id=abc')).body).toEqual({ device_id: ['“abc” is not a valid value.'] });
    expect((await call('/api/dcim/interfaces/?device_id=99999')).body).toEqual({ device_id: ['Select a valid choice. 99999 is not one of the available choices.'] });
    expect((await call('/api/dcim/devices/?site_id=1.5')).body).toEqual({ site_id: ['“1.5” is not a valid value.'] });
    expect((await call('/api/dcim/devices/?id=abc')).body).toEqual({ id: ['Enter a whole number.'] });
    expect((await call('/api/dcim/devices/?status=broken')).body).toEqual({ status: ['Select a valid choice. broken is not one of the available choices.'] });
    expect((await call('/api/ipam/vlans/?role=nope')).status).toBe(400);
    // Cable termination filters are plain multi-value filters: unknown values just match nothing.
    expect((await page('/api/dcim/cables/?site=xyz')).count).toBe(0);
  });
});

describe('available IPs', () => {
  const used = new Set(estate.ipAddresses.map((ip) => ip.address.split('/')[0]));
  const v4 = (p: string): number => p.split('.').reduce((n, o) => n * 256 + Number(o), 0);

  it('lists the free addresses of a nearly full prefix, ascending, without network and broadcast', async () => {
    const full = estate.prefixes.find((p) => p.prefix === '10.1.6.0/24');
    expect(full?.is_pool).toBe(false);
    const answer = await call(`/api/ipam/prefixes/${full?.id}/available-ips/`);
    expect(answer.status).toBe(200);
    const expected = Array.from({ length: 254 }, (_, k) => `10.1.6.${k + 1}`).filter((a) => !used.has(a));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(10);
    expect(answer.body).toEqual(expected.map((a) => ({ family: 4, address: `${a}/24`, vrf: null })));
  });

  it('skips used addresses, defaults to 50, honours and clamps limit', async () => {
    const mgmt = estate.prefixes.find((p) => p.prefix === '10.1.0.0/24');
    const list = async (query: string): Promise<{ address: string }[]> => (await call(`/api/ipam/prefixes/${mgmt?.id}/available-ips/${query}`)).body as unknown as { address: string }[];
    const fifty = await list('');
    expect(fifty).toHaveLength(50);
    expect(fifty.every((a) => !used.has(a.address.split('/')[0]))).toBe(true);
    expect(fifty.map((a) => v4(a.address.split('/')[0] ?? ''))).toEqual([...fifty.map((a) => v4(a.address.split('/')[0] ?? ''))].sort((x, y) => x - y));
    expect((await list('?limit=3')).map((a) => a.address)).toEqual(fifty.slice(0, 3).map((a) => a.address));
    const container = estate.prefixes.find((p) => p.prefix === '10.1.0.0/16');
    const many = (await call(`/api/ipam/prefixes/${container?.id}/available-ips/?limit=5000`)).body as unknown as unknown[];
    expect(many).toHaveLength(1000);
    expect((await call('/api/ipam/prefixes/99999/available-ips/')).status).toBe(404);
    expect(await call(`/api/ipam/prefixes/${mgmt?.id}/available-ips/`, { method: 'POST' })).toMatchObject({ status: 403 });
  });
});

describe('authentication, routing, stats', () => {
  it('wants a token: 403 without one or with a wrong one; Token and Bearer both work; /api/status/ is open', async () => {
    expect(await call('/api/dcim/devices/', { token: null })).toMatchObject({ status: 403, body: { detail: 'Authentication credentials were not provided.' } });
    expect(await call('/api/dcim/devices/', { token: 'wrong' })).toMatchObject({ status: 403, body: { detail: 'Invalid token' } });
    expect((await call('/api/dcim/devices/?limit=1', { scheme: 'Bearer' })).status).toBe(200);
    const status = await call('/api/status/', { token: null });
    expect(status).toMatchObject({ status: 200, body: { 'netbox-version': '4.1.6' } });
    expect((await call('/api/', {})).body).toMatchObject({ dcim: `${sim.url}/api/dcim/` });
    expect((await call('/api/ipam/')).body).toEqual({ vlans: `${sim.url}/api/ipam/vlans/`, prefixes: `${sim.url}/api/ipam/prefixes/`, 'ip-addresses': `${sim.url}/api/ipam/ip-addresses/`, roles: `${sim.url}/api/ipam/roles/` });
  });

  it('is read-only, and answers unknown paths and objects 404', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(await call('/api/dcim/devices/1/', { method })).toMatchObject({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    }
    expect((await call('/api/dcim/devices/', { method: 'POST', token: null })).body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(await call('/api/dcim/devices/99999/')).toMatchObject({ status: 404, body: { detail: 'No Device matches the given query.' } });
    expect(await call('/api/ipam/ip-addresses/0/')).toMatchObject({ status: 404, body: { detail: 'No IPAddress matches the given query.' } });
    for (const path of ['/api/dcim/devices/abc/', '/api/dcim/power-feeds/', '/api/nothing/', '/', '/api/dcim/devices/1/interfaces/']) {
      expect(await call(path), path).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    }
  });

  it('counts requests, body bytes and requests per endpoint', async () => {
    sim.resetStats();
    const answers = [
      await call('/api/dcim/interfaces/?limit=2'),
      await call('/api/dcim/interfaces/5/'),
      await call('/api/dcim/devices/?limit=1'),
      await call('/api/ipam/prefixes/3/available-ips/?limit=2'),
      await call('/api/status/'),
      await call('/api/dcim/interfaces/', { token: null }),
    ];
    expect(sim.stats()).toEqual({
      requests: 6,
      bytesSent: answers.reduce((n, a) => n + Buffer.byteLength(a.text), 0),
      rateLimited: 0,
      byEndpoint: { 'dcim/interfaces': 3, 'dcim/devices': 1, 'ipam/prefixes/available-ips': 1 },
    });
  });
});
