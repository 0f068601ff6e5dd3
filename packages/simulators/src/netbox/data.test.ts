import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { NETBOX_ESTATE_DEFAULTS, generateNetBoxEstate } from './data.js';
import type { NetBoxEstate } from './types.js';

const estate = generateNetBoxEstate();

const tally = (values: readonly string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
};

/** Every cross-reference an estate promises, checked the slow, obvious way: the problems found. */
function referenceProblems(e: NetBoxEstate): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string): void => {
    if (!ok) problems.push(problem);
  };
  const byId = <T extends { id: number }>(items: readonly T[]): Map<number, T> => new Map(items.map((i) => [i.id, i]));
  for (const list of [e.sites, e.racks, e.devices, e.interfaces, e.cables, e.modules, e.vlans, e.prefixes, e.ipAddresses]) {
    check(list.every((item, k) => item.id === k + 1), 'ids are not 1..n');
  }
  const devices = byId(e.devices);
  const interfaces = byId(e.interfaces);
  const ips = byId(e.ipAddresses);
  const perDevice = tally(e.interfaces.map((i) => String(i.device.id)));
  for (const d of e.devices) check(d.interface_count === (perDevice[String(d.id)] ?? 0), `${d.name}: interface_count ${d.interface_count}`);
  for (const cable of e.cables) {
    const ends = [cable.a_terminations, cable.b_terminations];
    check(ends.every((t) => t.length === 1 && t[0]?.object_type === 'dcim.interface'), `cable ${cable.id}: terminations`);
    const [a, b] = ends.map((t) => interfaces.get(t[0]?.object_id ?? -1));
    if (a === undefined || b === undefined) {
      problems.push(`cable ${cable.id}: an end is not an interface`);
      continue;
    }
    for (const [end, peer, term] of [
      [a, b, cable.a_terminations[0]],
      [b, a, cable.b_terminations[0]],
    ] as const) {
      check(term?.object.device.id === end.device.id && term.object.name === end.name, `cable ${cable.id}: termination object`);
      check(end.cable?.id === cable.id, `cable ${cable.id}: interface ${end.id} has cable ${end.cable?.id}`);
      check(end.link_peers.length === 1 && end.link_peers[0]?.id === peer.id, `cable ${cable.id}: link_peers of ${end.id}`);
      check(end.connected_endpoints?.length === 1 && end.connected_endpoints[0]?.id === peer.id, `cable ${cable.id}: connected_endpoints of ${end.id}`);
      check(end._occupied, `cable ${cable.id}: ${end.id} not occupied`);
    }
    check(a.device.id !== b.device.id, `cable ${cable.id}: both ends on one device`);
    check(devices.get(a.device.id)?.site.id === devices.get(b.device.id)?.site.id, `cable ${cable.id}: crosses sites`);
  }
  check(e.interfaces.filter((i) => i.cable !== null).length === 2 * e.cables.length, 'cabled interfaces != 2 * cables');
  const ipsPerInterface = tally(e.ipAddresses.map((ip) => String(ip.assigned_object_id)));
  for (const iface of e.interfaces) check(iface.count_ipaddresses === (ipsPerInterface[String(iface.id)] ?? 0), `interface ${iface.id}: count_ipaddresses`);
  for (const d of e.devices) {
    if (d.primary_ip4 === null) continue;
    const ip = ips.get(d.primary_ip4.id);
    check(ip?.address === d.primary_ip4.address && interfaces.get(ip.assigned_object_id ?? -1)?.device.id === d.id, `${d.name}: primary_ip4 is not its own`);
  }
  // Every address is unique and lies in a /24 of its device's site.
  const slash24 = new Map(e.prefixes.filter((p) => p.prefix.endsWith('.0/24')).map((p) => [p.prefix, p]));
  const hosts = new Set<string>();
  for (const ip of e.ipAddresses) {
    const host = ip.address.split('/')[0] ?? '';
    check(!hosts.has(host), `${host} assigned twice`);
    hosts.add(host);
    const home = slash24.get(`${host.split('.').slice(0, 3).join('.')}.0/24`);
    check(home !== undefined && home.site?.id === devices.get(ip.assigned_object?.device.id ?? -1)?.site.id, `${ip.address} outside its site's prefixes`);
    check(interfaces.get(ip.assigned_object_id ?? -1)?.name === ip.assigned_object?.name, `${ip.address}: assigned_object`);
  }
  for (const m of e.modules) check(devices.get(m.device.id)?.name === m.device.name, `module ${m.id}: device`);
  return problems;
}

describe('the generated NetBox estate', () => {
  it('is deterministic: the same options give byte-identical JSON, another seed another estate', () => {
    const options = { seed: 7, sites: 5, devices: 420, interfacesPerDevice: 12, vlans: 60, prefixes: 40 };
    const first = JSON.stringify(generateNetBoxEstate(options));
    expect(JSON.stringify(generateNetBoxEstate(options))).toBe(first);
    expect(JSON.stringify(generateNetBoxEstate({ ...options, seed: 8 }))).not.toBe(first);
  });

  it('has the default scale: 12 sites, 600 devices, exactly 24,000 interfaces, 400 VLANs, 240 prefixes', () => {
    expect(NETBOX_ESTATE_DEFAULTS).toEqual({ seed: 20251105, sites: 12, devices: 600, interfacesPerDevice: 40, vlans: 400, prefixes: 240 });
    expect(estate.sites.map((s) => s.slug)).toEqual(['ams1', 'ams2', 'fra1', 'lon1', 'nyc1', 'sfo1', 'sin1', 'syd1', 'tyo1', 'par1', 'dub1', 'chi1']);
    expect(estate.sites.filter((s) => s.status.value !== 'active').map((s) => [s.slug, s.status.value])).toEqual([
      ['dub1', 'staging'],
      ['chi1', 'planned'],
    ]);
    expect(estate.devices).toHaveLength(600);
    expect(estate.interfaces).toHaveLength(24_000);
    expect(estate.vlans).toHaveLength(400);
    expect(estate.prefixes).toHaveLength(240);
    expect(estate.cables.length).toBeGreaterThan(3_000);
    expect(estate.ipAddresses.length).toBeGreaterThan(4_000);
    expect(estate.modules.length).toBeGreaterThan(800);
    expect(estate.modules.length).toBeLessThan(1_500);
  });

  it('puts exactly 200 devices at ams1, none with more than 40 interfaces, and spreads the rest evenly', () => {
    const ams1 = estate.devices.filter((d) => d.site.slug === 'ams1');
    expect(ams1).toHaveLength(200);
    expect(Math.max(...ams1.map((d) => d.interface_count))).toBeLessThanOrEqual(40);
    const ams1Ids = new Set(ams1.map((d) => d.id));
    expect(estate.interfaces.filter((i) => ams1Ids.has(i.device.id)).length).toBeLessThanOrEqual(8_000);
    const others = Object.values(tally(estate.devices.filter((d) => d.site.slug !== 'ams1').map((d) => d.site.slug)));
    expect(others).toHaveLength(11);
    expect(Math.max(...others) - Math.min(...others)).toBeLessThanOrEqual(1);
    expect(estate.sites.map((s) => s.device_count)).toEqual(estate.sites.map((s) => estate.devices.filter((d) => d.site.id === s.id).length));
    // Small estates: a third at ams1; one site: everything there.
    expect(generateNetBoxEstate({ devices: 90, interfacesPerDevice: 10 }).devices.filter((d) => d.site.slug === 'ams1')).toHaveLength(30);
    const single = generateNetBoxEstate({ sites: 1, devices: 50, interfacesPerDevice: 10, vlans: 10, prefixes: 10 });
    expect(single.interfaces).toHaveLength(500);
  });

  it('names, roles, types and tags devices realistically', () => {
    const names = estate.devices.map((d) => d.name);
    expect(new Set(names).size).toBe(600);
    for (const name of names) expect(name).toMatch(/^[a-z]{3}\d+-(sw-\d{3}|rtr-\d{2}|fw-\d{2}|srv-\d{3}|pdu-\d{2}|con-\d{2})$/);
    expect(names).toEqual(expect.arrayContaining(['ams1-sw-001', 'ams1-rtr-01', 'ams1-fw-01', 'ams1-srv-001', 'ams1-pdu-01', 'ams1-con-01', 'chi1-sw-001']));
    const roles = tally(estate.devices.map((d) => d.role.slug));
    expect(Object.keys(roles).sort()).toEqual(['console-server', 'firewall', 'pdu', 'router', 'server', 'switch']);
    expect((roles.switch ?? 0) / 600).toBeGreaterThan(0.5);
    expect((roles.switch ?? 0) / 600).toBeLessThan(0.6);
    expect(new Set(estate.devices.map((d) => d.device_type.model))).toEqual(new Set(['DCS-7050SX3-48C8', 'C9300-48P', 'MX204', 'PA-3220', 'PowerEdge R650', 'AP8868', 'CM8100']));
    expect(Object.keys(tally(estate.devices.map((d) => d.status.value))).sort()).toEqual(['active', 'decommissioning', 'failed', 'offline', 'planned', 'staged']);
    expect(Object.keys(tally(estate.devices.flatMap((d) => d.tags.map((t) => t.slug)))).sort()).toEqual(['core', 'edge', 'legacy', 'monitoring', 'pci']);
    expect(estate.devices.filter((d) => d.rack !== null && d.position !== null).length).toBeGreaterThan(500);
    const context = JSON.stringify(estate.devices[0]?.config_context);
    expect(context.length).toBeGreaterThan(1_000);
    expect(context.length).toBeLessThan(2_500);
    expect(estate.devices.filter((d) => d.primary_ip4 !== null).length).toBeGreaterThan(500);
  });

  it('gives interfaces names and types by device type, and VLANs unique vids per site', () => {
    const ifaceNames = new Set(estate.interfaces.map((i) => i.name));
    for (const name of ['Ethernet1', 'et-0/0/1', 'xe-0/1/0', 'GigabitEthernet1/0/1', 'ethernet1/1', 'eth0', 'mgmt0', 'Management1', 'fxp0', 'lo0']) expect(ifaceNames.has(name), name).toBe(true);
    expect(Object.keys(tally(estate.interfaces.map((i) => i.type.value))).sort()).toEqual(['1000base-t', '100base-tx', '100gbase-x-qsfp28', '10gbase-x-sfpp', '25gbase-x-sfp28', 'virtual']);
    expect(estate.interfaces.find((i) => i.type.value === '10gbase-x-sfpp')?.type.label).toBe('SFP+ (10GE)');
    expect(estate.interfaces.filter((i) => !i.enabled).length).toBeGreaterThan(1_000);
    expect(estate.interfaces.filter((i) => i.mgmt_only)).toHaveLength(600);
    const vids = new Map<string, Set<number>>();
    for (const v of estate.vlans) {
      const key = v.site?.slug ?? '(global)';
      const seen = vids.get(key) ?? new Set<number>();
      expect(seen.has(v.vid), `${key} ${v.vid}`).toBe(false);
      expect(v.vid).toBeGreaterThanOrEqual(1);
      expect(v.vid).toBeLessThanOrEqual(4094);
      seen.add(v.vid);
      vids.set(key, seen);
    }
    expect(estate.vlans.filter((v) => v.site === null)).toHaveLength(4);
    expect(estate.vlans.map((v) => v.name)).toEqual(expect.arrayContaining(['mgmt', 'prod-web', 'prod-db']));
  });

  it('keeps every cross-reference consistent (cables, counts, primary IPs, addresses inside their prefixes)', () => {
    expect(referenceProblems(estate)).toEqual([]);
    expect(referenceProblems(generateNetBoxEstate({ seed: 3, sites: 3, devices: 30, interfacesPerDevice: 9, vlans: 12, prefixes: 12 }))).toEqual([]);
  });

  it('nests prefixes (children, _depth) and leaves some nearly full and some nearly empty', () => {
    const p = (prefix: string) => estate.prefixes.find((x) => x.prefix === prefix);
    expect(p('10.0.0.0/8')).toMatchObject({ _depth: 0, children: 239 - 9, status: { value: 'container' } });
    expect(p('10.1.0.0/16')).toMatchObject({ _depth: 1, site: { slug: 'ams1' } });
    expect(p('10.1.0.0/24')).toMatchObject({ _depth: 2, children: 0, vlan: { name: 'mgmt' }, role: { slug: 'management' } });
    expect(estate.prefixes.filter((x) => x.family.value === 6).map((x) => x.prefix)).toContain('2001:db8:1::/48');
    const used = tally(estate.ipAddresses.map((ip) => ip.address.split('.').slice(0, 3).join('.')));
    const fills = Object.values(used);
    expect(fills.some((n) => n >= 240)).toBe(true);
    expect(fills.some((n) => n <= 40)).toBe(true);
    expect(estate.prefixes.filter((x) => x.prefix.endsWith('/24') && used[x.prefix.split('.').slice(0, 3).join('.')] === undefined).length).toBeGreaterThan(100);
  });

  it('rejects bad options with a config error naming each field', () => {
    const fails = (options: Parameters<typeof generateNetBoxEstate>[0]): string => {
      try {
        generateNetBoxEstate(options);
      } catch (error) {
        if (isFlotillaError(error) && error.code === 'config_invalid') return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(fails({ devices: -1, sites: 0, vlans: 1.5 })).toMatch(/sites: must be at least 1.*devices: must be at least 0.*vlans: must be a whole number/);
    expect(fails({ sites: 1, vlans: 5_000 })).toMatch(/vlans: at most 3,880 per site/);
    expect(fails({ sites: 2, prefixes: 600 })).toMatch(/prefixes: at most/);
  });
});
