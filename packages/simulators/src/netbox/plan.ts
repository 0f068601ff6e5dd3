import type { Rng } from '../prng.js';
import {
  DEVICE_TYPES,
  FIRST_SITES,
  GLOBAL_VLANS,
  INTERFACE_WEIGHT,
  MORE_CITIES,
  ROLE_NAMING,
  ROLE_ORDER,
  VLAN_NAMES,
  type CityInfo,
  type DeviceTypeInfo,
  type InterfaceType,
  type IpamRoleSlug,
  type RoleSlug,
  type TagSlug,
} from './catalog.js';
import { formatIp, type IpNetwork } from './ip.js';

/**
 * The estate as numbers and indexes, before any JSON exists: which devices stand where, which ports they have,
 * which ports are cabled to which, which addresses go where. build.ts turns the plan into NetBox objects.
 */

export const at = <T>(items: readonly T[], index: number): T => {
  const item = items[index];
  if (item === undefined) throw new RangeError(`index ${index} out of range (${items.length})`);
  return item;
};

export interface Counts {
  sites: number;
  devices: number;
  interfacesPerDevice: number;
  vlans: number;
  prefixes: number;
}

export interface SitePlan {
  index: number;
  id: number;
  slug: string;
  name: string;
  info: CityInfo;
  status: 'active' | 'planned' | 'staging';
  devices: number[];
  racks: number[];
  vlans: number[];
}

export interface RackPlan {
  id: number;
  site: number;
  name: string;
  status: 'active' | 'planned';
  nextU: number;
  devices: number;
}

export type DeviceStatus = 'active' | 'planned' | 'staged' | 'offline' | 'failed' | 'decommissioning';

export interface DevicePlan {
  id: number;
  site: number;
  role: RoleSlug;
  type: DeviceTypeInfo;
  name: string;
  /** Index of the device among its site's devices of the same role (0-based). */
  ordinal: number;
  status: DeviceStatus;
  rack: number;
  position: number | null;
  interfaces: number;
  firstInterface: number;
  mgmt: number;
  loopback: number;
  primaryIp: number;
  tags: Set<TagSlug>;
}

export type PortKind = 'access' | 'uplink' | 'data' | 'mgmt' | 'loopback';

export interface InterfacePlan {
  id: number;
  device: number;
  name: string;
  type: InterfaceType;
  kind: PortKind;
  cable: number;
  peer: number;
  ips: number;
  /** Trunk towards a firewall (tagged VLANs) rather than an access port. */
  trunk: boolean;
}

export interface CablePlan {
  id: number;
  site: number;
  a: number;
  b: number;
  type: 'cat6' | 'mmf' | 'smf';
  /** Both ends routed: a /31 each. */
  routed: boolean;
}

export interface VlanPlan {
  id: number;
  site: number;
  vid: number;
  name: string;
  role: IpamRoleSlug;
  group: number;
}

export type PrefixCategory = 'mgmt' | 'loopback' | 'p2p' | 'server' | 'other' | 'container';

export interface PrefixPlan {
  id: number;
  site: number;
  network: IpNetwork;
  category: PrefixCategory;
  vlan: number;
  role: IpamRoleSlug | null;
  description: string;
}

export interface IpPlan {
  id: number;
  interface: number;
  address: string;
  value: bigint;
  category: 'mgmt' | 'loopback' | 'p2p' | 'server';
}

export interface EstatePlan {
  sites: SitePlan[];
  racks: RackPlan[];
  devices: DevicePlan[];
  interfaces: InterfacePlan[];
  cables: CablePlan[];
  vlans: VlanPlan[];
  prefixes: PrefixPlan[];
  ips: IpPlan[];
}

/** Largest-remainder apportionment of `total` by `weights` (ties to the lower index); even when all weigh 0. */
export function apportion(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const sum = weights.reduce((s, w) => s + w, 0);
  const shares = weights.map((w) => (sum > 0 ? (total * w) / sum : total / weights.length));
  const out = shares.map(Math.floor);
  let left = total - out.reduce((s, n) => s + n, 0);
  const order = shares.map((s, i) => [s - Math.floor(s), i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left -= 1) out[at(order, k)[1]] = at(out, at(order, k)[1]) + 1;
  return out;
}

/** As {@link apportion}, no share above `cap` (the caller guarantees total <= cap * weights.length). */
function apportionCapped(total: number, weights: readonly number[], cap: number): number[] {
  const out = weights.map(() => 0);
  let open = weights.map((_, i) => i);
  let left = total;
  while (left > 0 && open.length > 0) {
    const shares = apportion(left, open.map((i) => at(weights, i)));
    const full: number[] = [];
    open.forEach((site, k) => {
      const n = Math.min(cap - at(out, site), at(shares, k));
      out[site] = at(out, site) + n;
      left -= n;
      if (at(out, site) >= cap) full.push(site);
    });
    if (full.length === 0) break;
    open = open.filter((i) => !full.includes(i));
  }
  return out;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function planSites(count: number): SitePlan[] {
  const numbers = new Map<string, number>();
  const sites: SitePlan[] = [];
  for (let i = 0; i < count; i += 1) {
    let info: CityInfo;
    let n: number;
    if (i < FIRST_SITES.length) [info, n] = at(FIRST_SITES, i);
    else {
      info = at(MORE_CITIES, (i - FIRST_SITES.length) % MORE_CITIES.length);
      n = (numbers.get(info.code) ?? 0) + 1;
    }
    numbers.set(info.code, n);
    const slug = `${info.code}${n}`;
    // dub1 is being built, chi1 is planned; past the first twelve, every ninth site is planned.
    const status = slug === 'dub1' ? 'staging' : slug === 'chi1' || (i >= FIRST_SITES.length && (i - FIRST_SITES.length) % 9 === 8) ? 'planned' : 'active';
    sites.push({ index: i, id: i + 1, slug, name: slug.toUpperCase(), info, status, devices: [], racks: [], vlans: [] });
  }
  return sites;
}

/** ams1 holds 200 devices once there are 400 (a third before that); the other sites share the rest evenly. */
export function devicesPerSite(devices: number, sites: number): number[] {
  if (sites === 1) return [devices];
  const first = devices >= 400 ? 200 : Math.floor(devices / 3);
  const rest = devices - first;
  const others = sites - 1;
  return [first, ...Array.from({ length: others }, (_, i) => Math.floor(rest / others) + (i < rest % others ? 1 : 0))];
}

function roleCounts(n: number): Record<RoleSlug, number> {
  const router = n >= 4 ? Math.max(2, Math.round(n * 0.06)) : n >= 2 ? 1 : 0;
  const firewall = n >= 6 ? Math.max(2, Math.round(n * 0.05)) : 0;
  const consoleServer = n >= 10 ? Math.max(1, Math.round(n * 0.03)) : 0;
  const pdu = n >= 8 ? Math.round(n * 0.1) : 0;
  const server = n >= 3 ? Math.round(n * 0.21) : 0;
  return { router, firewall, switch: n - router - firewall - consoleServer - pdu - server, server, pdu, 'console-server': consoleServer };
}

const TYPE_BY_ROLE: Readonly<Record<Exclude<RoleSlug, 'switch'>, number>> = { router: 2, firewall: 3, server: 4, pdu: 5, 'console-server': 6 };

function pickStatus(rng: Rng, site: SitePlan): DeviceStatus {
  if (site.status === 'planned') return rng.weighted<DeviceStatus>([['planned', 80], ['staged', 20]]);
  if (site.status === 'staging') return rng.weighted<DeviceStatus>([['staged', 50], ['active', 30], ['planned', 20]]);
  return rng.weighted<DeviceStatus>([
    ['active', 86],
    ['planned', 4],
    ['staged', 3],
    ['offline', 3],
    ['failed', 2],
    ['decommissioning', 2],
  ]);
}

function planDevices(rng: Rng, plan: EstatePlan, counts: Counts): void {
  const perSite = devicesPerSite(counts.devices, counts.sites);
  for (const site of plan.sites) {
    const n = at(perSite, site.index);
    const racks = Math.max(Math.min(Math.max(Math.ceil(n / 10), 10), 25), Math.ceil(n / 30));
    for (let r = 0; r < racks; r += 1) {
      site.racks.push(plan.racks.length);
      plan.racks.push({ id: plan.racks.length + 1, site: site.index, name: `${site.slug}-r${pad(r + 1, 2)}`, status: racks > 12 && r === racks - 1 ? 'planned' : 'active', nextU: 1, devices: 0 });
    }
    const roles = roleCounts(n);
    for (const role of ROLE_ORDER) {
      const [infix, width] = ROLE_NAMING[role];
      const digits = Math.max(width, String(roles[role]).length);
      for (let k = 0; k < roles[role]; k += 1) {
        // Spines (the first four switches of a site) are Arista; the rest mostly Arista, a third Cisco access.
        const type = role === 'switch' ? (k < 4 || rng.next() < 0.68 ? at(DEVICE_TYPES, 0) : at(DEVICE_TYPES, 1)) : at(DEVICE_TYPES, TYPE_BY_ROLE[role]);
        const rackIndex = at(site.racks, site.devices.length % racks);
        const rack = at(plan.racks, rackIndex);
        let position: number | null = null;
        if (type.uHeight > 0 && rack.nextU + type.uHeight - 1 <= 42) {
          position = rack.nextU;
          rack.nextU += type.uHeight;
        }
        rack.devices += 1;
        const tags = new Set<TagSlug>();
        if (role === 'router') tags.add('edge');
        if (role === 'switch' && k < 4) tags.add('core');
        if (role === 'firewall') tags.add('edge').add('pci');
        if (role === 'server' && rng.next() < 0.25) tags.add('pci');
        if (type.id === 2 && rng.next() < 0.4) tags.add('legacy');
        if (rng.next() < 0.35) tags.add('monitoring');
        site.devices.push(plan.devices.length);
        plan.devices.push({
          id: plan.devices.length + 1,
          site: site.index,
          role,
          type,
          name: `${site.slug}-${infix}-${pad(k + 1, digits)}`,
          ordinal: k,
          status: pickStatus(rng, site),
          rack: rackIndex,
          position,
          interfaces: 0,
          firstInterface: 0,
          mgmt: -1,
          loopback: -1,
          primaryIp: -1,
          tags,
        });
      }
    }
  }
}

/**
 * Interface counts: ams1's devices have at most interfacesPerDevice each; the other sites take the rest in
 * proportion to each role's weight, so the total is exactly devices * interfacesPerDevice.
 */
function interfaceCounts(rng: Rng, plan: EstatePlan, perDevice: number): number[] {
  const raw = plan.devices.map((d) => INTERFACE_WEIGHT[d.role] * perDevice * (0.9 + 0.2 * rng.next()));
  const total = plan.devices.length * perDevice;
  const counts = raw.map(() => 0);
  const others = plan.devices.filter((d) => d.site !== 0).map((d) => d.id - 1);
  if (others.length === 0) return apportion(total, raw);
  let used = 0;
  for (const device of plan.devices) {
    if (device.site !== 0) continue;
    const n = Math.min(perDevice, Math.max(perDevice > 0 ? 1 : 0, Math.round(at(raw, device.id - 1))));
    counts[device.id - 1] = n;
    used += n;
  }
  const shares = apportion(total - used, others.map((i) => at(raw, i)));
  others.forEach((i, k) => (counts[i] = at(shares, k)));
  return counts;
}

function planInterfaces(rng: Rng, plan: EstatePlan, perDevice: number): void {
  const counts = interfaceCounts(rng, plan, perDevice);
  for (const device of plan.devices) {
    const n = at(counts, device.id - 1);
    const ports = device.type.ports;
    const withLoopback = ports.loopback !== undefined && n >= 8;
    const dataPorts = Math.max(0, n - 1 - (withLoopback ? 1 : 0));
    const uplinks = device.role !== 'switch' ? 0 : dataPorts >= 8 ? Math.min(4, Math.floor(dataPorts / 8)) : dataPorts >= 2 ? 1 : 0;
    device.firstInterface = plan.interfaces.length;
    device.interfaces = n;
    const add = (name: string, type: InterfaceType, kind: PortKind): void => {
      plan.interfaces.push({ id: plan.interfaces.length + 1, device: device.id - 1, name, type, kind, cable: -1, peer: -1, ips: 0, trunk: false });
    };
    for (let k = 0; k < dataPorts; k += 1) {
      const [name, type] = ports.data(k, dataPorts, uplinks);
      add(name, type, device.role !== 'switch' ? 'data' : k >= dataPorts - uplinks ? 'uplink' : 'access');
    }
    if (n >= 1) {
      device.mgmt = plan.interfaces.length;
      add(ports.mgmt[0], ports.mgmt[1], 'mgmt');
    }
    if (withLoopback && ports.loopback !== undefined) {
      device.loopback = plan.interfaces.length;
      add(ports.loopback, 'virtual', 'loopback');
    }
  }
}

/** Ports handed out round-robin across devices, so cables spread over a site's devices. */
class Pool {
  private cursor = 0;
  constructor(
    private readonly items: number[],
    private readonly deviceOf: (port: number) => number,
  ) {}

  static interleave(lists: readonly (readonly number[])[], deviceOf: (port: number) => number): Pool {
    const items: number[] = [];
    const longest = lists.reduce((m, l) => Math.max(m, l.length), 0);
    for (let k = 0; k < longest; k += 1) for (const list of lists) if (k < list.length) items.push(at(list, k));
    return new Pool(items, deviceOf);
  }

  get size(): number {
    return this.items.length - this.cursor;
  }

  /** The next port not on `device` (looking a little ahead), or -1 when none is left. */
  take(device = -1): number {
    for (let k = this.cursor; k < this.items.length && k < this.cursor + 64; k += 1) {
      const port = at(this.items, k);
      if (this.deviceOf(port) === device) continue;
      this.items[k] = at(this.items, this.cursor);
      this.items[this.cursor] = port;
      this.cursor += 1;
      return port;
    }
    return -1;
  }

  /** Every port left, in order. */
  drain(): number[] {
    const out: number[] = [];
    for (let port = this.take(); port >= 0; port = this.take()) out.push(port);
    return out;
  }
}

function cableType(a: InterfaceType, b: InterfaceType): CablePlan['type'] {
  const copper = (t: InterfaceType): boolean => t === '1000base-t' || t === '100base-tx';
  if (copper(a) || copper(b)) return 'cat6';
  return a === '100gbase-x-qsfp28' || b === '100gbase-x-qsfp28' ? 'smf' : 'mmf';
}

function planCables(rng: Rng, plan: EstatePlan): void {
  const deviceOf = (port: number): number => at(plan.interfaces, port).device;
  const link = (site: number, a: number, b: number, routed: boolean): void => {
    if (a < 0 || b < 0) return;
    const id = plan.cables.length + 1;
    const ia = at(plan.interfaces, a);
    const ib = at(plan.interfaces, b);
    Object.assign(ia, { cable: id - 1, peer: b });
    Object.assign(ib, { cable: id - 1, peer: a });
    plan.cables.push({ id, site, a, b, type: cableType(ia.type, ib.type), routed });
  };
  for (const site of plan.sites) {
    const devices = site.devices.map((i) => at(plan.devices, i));
    const ports = (role: RoleSlug, kinds: readonly PortKind[], slice?: readonly [number, number]): number[][] =>
      devices
        .filter((d) => d.role === role)
        .map((d) => {
          const list: number[] = [];
          for (let p = d.firstInterface; p < d.firstInterface + d.interfaces; p += 1) if (kinds.includes(at(plan.interfaces, p).kind)) list.push(p);
          return slice === undefined ? list : list.slice(slice[0], slice[1]);
        });
    // Leaf switches pair up (MLAG): the last two access ports of each pair are the peer link.
    const leaves = ports('switch', ['access']).filter((_, k) => k >= 4);
    for (let k = 0; k + 1 < leaves.length; k += 2) {
      const [a, b] = [at(leaves, k), at(leaves, k + 1)];
      for (let j = 1; j <= 2 && j <= a.length && j <= b.length; j += 1) {
        const [pa, pb] = [at(a, a.length - j), at(b, b.length - j)];
        link(site.index, pa, pb, false);
        at(plan.interfaces, pa).trunk = true;
        at(plan.interfaces, pb).trunk = true;
      }
    }
    const access = Pool.interleave(
      ports('switch', ['access']).map((list) => list.filter((p) => at(plan.interfaces, p).cable < 0)),
      deviceOf,
    );
    const routers = Pool.interleave(ports('router', ['data']), deviceOf);
    // Switch uplinks and the first two firewall ports are routed links to the routers.
    for (const uplink of Pool.interleave(ports('switch', ['uplink']), deviceOf).drain()) link(site.index, uplink, routers.take(deviceOf(uplink)), true);
    for (const port of Pool.interleave(ports('firewall', ['data'], [0, 2]), deviceOf).drain()) link(site.index, port, routers.take(), true);
    // A quarter of what is left of the routers' ports: router-to-router links.
    for (let pairs = Math.floor(routers.size / 8); pairs > 0 && routers.size >= 2; pairs -= 1) {
      const a = routers.take();
      link(site.index, a, routers.take(deviceOf(a)), true);
    }
    // Firewall trunks (the next four ports), servers' data ports (nine in ten) and management ports (19 in 20).
    for (const port of Pool.interleave(ports('firewall', ['data'], [2, 6]), deviceOf).drain()) {
      const peer = access.take();
      if (peer < 0) break;
      link(site.index, port, peer, false);
      at(plan.interfaces, port).trunk = true;
      at(plan.interfaces, peer).trunk = true;
    }
    for (const port of Pool.interleave(ports('server', ['data']), deviceOf).drain()) if (rng.next() < 0.9) link(site.index, port, access.take(), false);
    for (const device of devices) if (device.mgmt >= 0 && rng.next() < 0.95) link(site.index, device.mgmt, access.take(device.id - 1), false);
  }
}

function planVlans(rng: Rng, plan: EstatePlan, counts: Counts): void {
  const globals = counts.vlans >= 50 ? GLOBAL_VLANS.length : 0;
  const perSite = apportion(counts.vlans - globals, plan.sites.map(() => 1));
  for (const site of plan.sites) {
    const n = at(perSite, site.index);
    const step = Math.max(1, Math.min(10, Math.floor(3880 / Math.max(1, n))));
    for (let k = 0; k < n; k += 1) {
      const [base, role] = at(VLAN_NAMES, k % VLAN_NAMES.length);
      const round = Math.floor(k / VLAN_NAMES.length);
      site.vlans.push(plan.vlans.length);
      plan.vlans.push({
        id: plan.vlans.length + 1,
        site: site.index,
        vid: 10 + k * step + (step >= 4 ? rng.int(0, 3) : 0),
        name: round === 0 ? base : `${base}-${round + 1}`,
        role,
        group: site.index,
      });
    }
  }
  for (let g = 0; g < globals; g += 1) {
    const [name, role] = at(GLOBAL_VLANS, g);
    plan.vlans.push({ id: plan.vlans.length + 1, site: -1, vid: 3900 + 10 * g, name, role, group: plan.sites.length });
  }
}

const V4 = (a: number, b: number, c: number, d: number): bigint => BigInt(((a << 24) >>> 0) + (b << 16) + (c << 8) + d);
const network = (family: 4 | 6, first: bigint, length: number): IpNetwork => {
  const bits = family === 4 ? 32 : 128;
  return { family, first, last: first + (1n << BigInt(bits - length)) - 1n, length };
};
const V6_BASE = 0x20010db8n << 96n;

export const STRUCTURAL_PREFIXES = (sites: number): number => 2 + sites + 2 * Math.min(4, sites);

/** What each site needs addresses for: management, loopbacks, routed links (pairs), server ports. */
interface Demand {
  mgmt: number[];
  loopback: number[];
  p2p: CablePlan[];
  server: number[];
}

function demandOf(plan: EstatePlan, site: SitePlan): Demand {
  const devices = site.devices.map((i) => at(plan.devices, i));
  const server: number[] = [];
  for (const d of devices) {
    if (d.role !== 'server') continue;
    for (let p = d.firstInterface; p < d.firstInterface + d.interfaces; p += 1) {
      const port = at(plan.interfaces, p);
      if (port.kind === 'data' && port.cable >= 0) server.push(p);
    }
  }
  return {
    mgmt: devices.filter((d) => d.mgmt >= 0).map((d) => d.mgmt),
    loopback: devices.filter((d) => d.loopback >= 0).map((d) => d.loopback),
    p2p: plan.cables.filter((c) => c.site === site.index && c.routed),
    server,
  };
}

/** Hosts per /24 before the next one is opened (leaves .251-.254 free), and /31 pairs per /24. */
const HOSTS_PER_PREFIX = 250;
const PAIRS_PER_PREFIX = 124;

function planPrefixesAndIps(plan: EstatePlan, counts: Counts): void {
  const sites = plan.sites.length;
  const structural = STRUCTURAL_PREFIXES(sites);
  const withStructure = counts.prefixes >= structural + sites;
  const slash24 = apportionCapped(withStructure ? counts.prefixes - structural : counts.prefixes, plan.sites.map((s) => 4 + s.devices.length), 256);
  const add = (site: number, net: IpNetwork, category: PrefixCategory, role: IpamRoleSlug | null, description: string, vlan = -1): PrefixPlan => {
    const prefix: PrefixPlan = { id: plan.prefixes.length + 1, site, network: net, category, vlan, role, description };
    plan.prefixes.push(prefix);
    return prefix;
  };
  const addIp = (port: number, value: bigint, mask: number, category: IpPlan['category']): void => {
    const id = plan.ips.length + 1;
    plan.ips.push({ id, interface: port, value, address: [formatIp(4, value), '/', mask].join(''), category });
    const iface = at(plan.interfaces, port);
    iface.ips += 1;
    const device = at(plan.devices, iface.device);
    if (category === 'mgmt' && device.primaryIp < 0) device.primaryIp = id - 1;
  };
  if (withStructure) add(-1, network(4, V4(10, 0, 0, 0), 8), 'container', null, 'RFC 1918 supernet');
  for (const site of plan.sites) {
    const octet = site.index + 1;
    if (withStructure) add(site.index, network(4, V4(10, octet, 0, 0), 16), 'container', null, `${site.name} supernet`);
    const demand = demandOf(plan, site);
    const needs: [PrefixCategory, number][] = [
      ['mgmt', Math.ceil(demand.mgmt.length / HOSTS_PER_PREFIX)],
      ['loopback', Math.ceil(demand.loopback.length / HOSTS_PER_PREFIX)],
      ['p2p', Math.ceil(demand.p2p.length / PAIRS_PER_PREFIX)],
      ['server', Math.ceil(demand.server.length / HOSTS_PER_PREFIX)],
    ];
    const byCategory = new Map<PrefixCategory, PrefixPlan[]>();
    const vlanAt = (k: number): number => (k < site.vlans.length ? at(site.vlans, k) : -1);
    let otherVlan = 0;
    for (let k = 0; k < at(slash24, site.index); k += 1) {
      const net = network(4, V4(10, octet, k, 0), 24);
      const need = needs.find(([, n]) => n > 0);
      let prefix: PrefixPlan;
      if (need !== undefined) {
        need[1] -= 1;
        const category = need[0];
        const [role, description, vlan] = {
          mgmt: ['management', `${site.name} device management`, vlanAt(0)] as const,
          loopback: ['infrastructure', `${site.name} loopbacks`, -1] as const,
          p2p: ['infrastructure', `${site.name} routed point-to-point links`, -1] as const,
          server: ['production', `${site.name} production servers`, vlanAt(3)] as const,
        }[category as 'mgmt' | 'loopback' | 'p2p' | 'server'];
        prefix = add(site.index, net, category, role, description, vlan);
      } else {
        while (otherVlan === 0 || otherVlan === 3) otherVlan += 1;
        const vlan = vlanAt(otherVlan);
        otherVlan += 1;
        const vlanPlan = vlan >= 0 ? at(plan.vlans, vlan) : undefined;
        prefix = add(site.index, net, 'other', vlanPlan?.role ?? null, vlanPlan === undefined ? `${site.name} unallocated` : `${site.name} ${vlanPlan.name}`, vlan);
      }
      byCategory.set(prefix.category, [...(byCategory.get(prefix.category) ?? []), prefix]);
    }
    const hosts = (category: 'mgmt' | 'loopback' | 'server', ports: readonly number[], mask: number | undefined): void => {
      const prefixes = byCategory.get(category) ?? [];
      ports.forEach((port, k) => {
        const prefix = prefixes[Math.floor(k / HOSTS_PER_PREFIX)];
        if (prefix !== undefined) addIp(port, prefix.network.first + BigInt((k % HOSTS_PER_PREFIX) + 1), mask ?? prefix.network.length, category);
      });
    };
    hosts('mgmt', demand.mgmt, undefined);
    hosts('loopback', demand.loopback, 32);
    const p2p = byCategory.get('p2p') ?? [];
    demand.p2p.forEach((cable, k) => {
      const prefix = p2p[Math.floor(k / PAIRS_PER_PREFIX)];
      if (prefix === undefined) return;
      const base = prefix.network.first + BigInt((k % PAIRS_PER_PREFIX) * 2);
      addIp(cable.a, base, 31, 'p2p');
      addIp(cable.b, base + 1n, 31, 'p2p');
    });
    hosts('server', demand.server, undefined);
  }
  if (!withStructure) return;
  add(-1, network(6, V6_BASE, 32), 'container', null, 'Documentation range, all sites');
  for (const site of plan.sites.slice(0, 4)) {
    const base = V6_BASE | (BigInt(site.index + 1) << 80n);
    add(site.index, network(6, base, 48), 'container', null, `${site.name} IPv6`);
    add(site.index, network(6, base | (0x10n << 64n), 64), 'other', 'infrastructure', `${site.name} IPv6 loopbacks`);
  }
}

export function planEstate(rngFor: (stream: number) => Rng, counts: Counts): EstatePlan {
  const plan: EstatePlan = { sites: planSites(counts.sites), racks: [], devices: [], interfaces: [], cables: [], vlans: [], prefixes: [], ips: [] };
  planDevices(rngFor(1), plan, counts);
  planInterfaces(rngFor(2), plan, counts.interfacesPerDevice);
  planCables(rngFor(3), plan);
  planVlans(rngFor(4), plan, counts);
  planPrefixesAndIps(plan, counts);
  return plan;
}
