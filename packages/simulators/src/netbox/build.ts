import type { Rng } from '../prng.js';
import {
  AIRFLOW,
  CABLE_COLORS,
  DEVICE_ROLES,
  DEVICE_TYPES,
  INTERFACE_TYPES,
  IPAM_ROLES,
  MANUFACTURERS,
  MODULE_TYPES,
  PLATFORMS,
  REGIONS,
  TAGS,
  TENANTS,
  apiUrl,
  choice,
  displayUrl,
  flat,
  interfaceType,
  ipamRole,
  status,
  tagRefs,
  type InterfaceType,
  type TagSlug,
} from './catalog.js';
import { configContext } from './context.js';
import { formatNetwork } from './ip.js';
import { at, type CablePlan, type DevicePlan, type EstatePlan, type InterfacePlan, type PrefixPlan, type SitePlan } from './plan.js';
import type {
  JsonObject,
  NetBoxCable,
  NetBoxCableRef,
  NetBoxChoice,
  NetBoxDevice,
  NetBoxDeviceRef,
  NetBoxDeviceTypeRef,
  NetBoxEstate,
  NetBoxInterface,
  NetBoxInterfaceRef,
  NetBoxIpAddress,
  NetBoxIpAddressRef,
  NetBoxModule,
  NetBoxNamedRef,
  NetBoxPrefix,
  NetBoxRack,
  NetBoxSite,
  NetBoxVlan,
  NetBoxVlanRef,
} from './types.js';

const DAY = 86_400_000;
/** Objects were created between March 2022 and mid 2024 and last changed by the end of October 2025. */
const CREATED_FROM = Date.UTC(2022, 2, 1, 8, 0, 0);
const CREATED_SPAN = 850 * DAY;
const UPDATED_BY = Date.UTC(2025, 9, 31, 18, 0, 0);

/**
 * NetBox's timestamps (ISO 8601, UTC, microseconds) from fixed dates, never the clock: `created()` draws a
 * creation time, `updated()` a later change to the object created last. Object literals evaluate in order, so
 * `created: stamp.created(), last_updated: stamp.updated()` pairs them.
 */
class Stamper {
  private last = CREATED_FROM;
  /** `2023-04-05T` by day number: toISOString once per day rather than once per timestamp. */
  private static readonly days = new Map<number, string>();
  constructor(private readonly rng: Rng) {}

  private iso(ms: number): string {
    const day = Math.floor(ms / DAY);
    let date = Stamper.days.get(day);
    if (date === undefined) {
      date = new Date(day * DAY).toISOString().slice(0, 11);
      Stamper.days.set(day, date);
    }
    const rest = ms - day * DAY;
    const two = (n: number): string => (n < 10 ? `0${n}` : String(n));
    const micros = String(rest % 1000 * 1000 + this.rng.int(0, 999)).padStart(6, '0');
    return flat(date, two(Math.floor(rest / 3_600_000)), ':', two(Math.floor(rest / 60_000) % 60), ':', two(Math.floor(rest / 1000) % 60), '.', micros, 'Z');
  }

  created(): string {
    this.last = CREATED_FROM + Math.floor(this.rng.next() * CREATED_SPAN);
    return this.iso(this.last);
  }

  updated(): string {
    return this.iso(Math.min(UPDATED_BY, this.last + Math.floor(this.rng.next() * 500 * DAY)));
  }
}

const FAMILY_4: NetBoxChoice<number> = choice(4, 'IPv4');
const FAMILY_6: NetBoxChoice<number> = choice(6, 'IPv6');
const FACE_FRONT = choice('front', 'Front');
const METERS = choice('m', 'Meters');
const FULL_DUPLEX = choice('full', 'Full');
const MODE_ACCESS = choice('access', 'Access');
const MODE_TAGGED = choice('tagged', 'Tagged');
const POE_PSE = choice('pse', 'PSE');
const POE_AT = choice('type2-ieee802.3at', '802.3at (Type 2)');
const LOOPBACK_ROLE = choice('loopback', 'Loopback');
const RACK_FORM = choice('4-post-cabinet', '4-post cabinet');
const RACK_WIDTH = choice(19, '19 inches');

const MONITORING: ReadonlySet<TagSlug> = new Set(['monitoring']);
const CORE: ReadonlySet<TagSlug> = new Set(['core']);
const INTERFACE_TYPE_CHOICES = Object.fromEntries(Object.keys(INTERFACE_TYPES).map((t) => [t, interfaceType(t as InterfaceType)])) as Record<InterfaceType, NetBoxChoice>;

const tenant = (index: number): NetBoxNamedRef => at(TENANTS, index);

function deviceDescription(device: DevicePlan): string {
  const k = device.ordinal;
  switch (device.role) {
    case 'switch':
      return k < 4 ? 'Spine switch' : 'Top-of-rack switch';
    case 'router':
      return k < 2 ? 'Edge router' : 'Core router';
    case 'firewall':
      return 'Perimeter firewall';
    case 'server':
      return at(['Hypervisor', 'Kubernetes worker', 'Database host', 'Storage node'], k % 4);
    case 'pdu':
      return `Rack PDU ${k % 2 === 0 ? 'A' : 'B'}`;
    case 'console-server':
      return 'Out-of-band console server';
  }
}

/** Every brief object, built once and shared by the full objects that refer to it. */
interface Refs {
  sites: NetBoxNamedRef[];
  vlanGroups: NetBoxNamedRef[];
  racks: NetBoxDeviceRef[];
  devices: NetBoxDeviceRef[];
  cables: NetBoxCableRef[];
  interfaces: NetBoxInterfaceRef[];
  vlans: NetBoxVlanRef[];
  ips: NetBoxIpAddressRef[];
  deviceTypes: NetBoxDeviceTypeRef[];
}

function interfaceDescription(plan: EstatePlan, port: InterfacePlan): string {
  if (port.peer >= 0) {
    const peer = at(plan.interfaces, port.peer);
    return flat(at(plan.devices, peer.device).name, ' ', peer.name);
  }
  return port.kind === 'loopback' ? 'Router ID' : '';
}

function ipDescription(plan: EstatePlan, category: string, port: InterfacePlan): string {
  if (category === 'mgmt') return 'Management';
  if (category === 'loopback') return 'Router ID';
  if (category === 'p2p' && port.peer >= 0) return `p2p ${at(plan.devices, port.device).name} - ${at(plan.devices, at(plan.interfaces, port.peer).device).name}`;
  return '';
}

function buildRefs(plan: EstatePlan): Refs {
  const siteDescription = (s: SitePlan): string => `${s.info.city} data centre (${s.info.facility})`;
  const sites = plan.sites.map((s) => ({ id: s.id, url: apiUrl('dcim/sites', s.id), display: s.name, name: s.name, slug: s.slug, description: siteDescription(s) }));
  const vlanGroups = [...plan.sites.map((s) => [`${s.name} VLANs`, `${s.slug}-vlans`] as const), ['Global VLANs', 'global'] as const].map(([name, slug], i) => ({
    id: i + 1,
    url: apiUrl('ipam/vlan-groups', i + 1),
    display: name,
    name,
    slug,
    description: '',
  }));
  const racks = plan.racks.map((r) => ({ id: r.id, url: apiUrl('dcim/racks', r.id), display: r.name, name: r.name, description: '' }));
  const devices = plan.devices.map((d) => ({ id: d.id, url: apiUrl('dcim/devices', d.id), display: d.name, name: d.name, description: deviceDescription(d) }));
  const cables = plan.cables.map((c) => {
    const label = c.id % 5 < 3 ? `${at(plan.sites, c.site).name}-${String(c.id).padStart(5, '0')}` : '';
    return { id: c.id, url: apiUrl('dcim/cables', c.id), display: label === '' ? `#${c.id}` : label, label, description: '' };
  });
  const interfaces = plan.interfaces.map((p) => ({
    id: p.id,
    url: apiUrl('dcim/interfaces', p.id),
    display: p.name,
    device: at(devices, p.device),
    name: p.name,
    description: interfaceDescription(plan, p),
    cable: p.cable >= 0 ? at(cables, p.cable) : null,
    _occupied: p.cable >= 0,
  }));
  const vlans = plan.vlans.map((v) => ({ id: v.id, url: apiUrl('ipam/vlans', v.id), display: `${v.name} (${v.vid})`, vid: v.vid, name: v.name, description: '' }));
  const ips = plan.ips.map((ip) => ({
    id: ip.id,
    url: apiUrl('ipam/ip-addresses', ip.id),
    display: ip.address,
    family: FAMILY_4,
    address: ip.address,
    description: ipDescription(plan, ip.category, at(plan.interfaces, ip.interface)),
  }));
  const deviceTypes = DEVICE_TYPES.map((t) => ({
    id: t.id,
    url: apiUrl('dcim/device-types', t.id),
    display: t.model,
    manufacturer: at(MANUFACTURERS, t.manufacturer),
    model: t.model,
    slug: t.slug,
    description: '',
  }));
  return { sites, vlanGroups, racks, devices, cables, interfaces, vlans, ips, deviceTypes };
}

function buildSites(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxSite[] {
  const stamp = new Stamper(rng);
  return plan.sites.map((s) => {
    const ref = at(refs.sites, s.index);
    return {
      id: s.id,
      url: ref.url,
      display_url: displayUrl('dcim/sites', s.id),
      display: s.name,
      name: s.name,
      slug: s.slug,
      status: status('site', s.status),
      region: at(REGIONS, s.info.region),
      group: null,
      tenant: tenant(0),
      facility: s.info.facility,
      time_zone: s.info.timeZone,
      description: ref.description,
      physical_address: '',
      shipping_address: '',
      latitude: s.info.latitude,
      longitude: s.info.longitude,
      comments: '',
      asns: [],
      tags: s.status === 'active' ? tagRefs(MONITORING) : [],
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
      circuit_count: 0,
      device_count: s.devices.length,
      prefix_count: plan.prefixes.filter((p) => p.site === s.index).length,
      rack_count: s.racks.length,
      virtualmachine_count: 0,
      vlan_count: s.vlans.length,
    };
  });
}

function buildRacks(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxRack[] {
  const stamp = new Stamper(rng);
  return plan.racks.map((r) => ({
    id: r.id,
    url: at(refs.racks, r.id - 1).url,
    display_url: displayUrl('dcim/racks', r.id),
    display: r.name,
    name: r.name,
    facility_id: null,
    site: at(refs.sites, r.site),
    location: null,
    tenant: tenant(0),
    status: status('rack', r.status),
    role: null,
    rack_type: null,
    form_factor: RACK_FORM,
    width: RACK_WIDTH,
    serial: '',
    asset_tag: null,
    u_height: 42,
    starting_unit: 1,
    weight: null,
    max_weight: null,
    weight_unit: null,
    desc_units: false,
    outer_width: null,
    outer_depth: null,
    outer_unit: null,
    mounting_depth: null,
    airflow: null,
    description: '',
    comments: '',
    tags: [],
    custom_fields: {},
    created: stamp.created(),
      last_updated: stamp.updated(),
    device_count: r.devices,
    powerfeed_count: 0,
  }));
}

function digits(rng: Rng, n: number): string {
  let out = '';
  while (out.length < n) out += String(rng.int(0, 9));
  return out;
}

function buildDevices(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxDevice[] {
  const stamp = new Stamper(rng);
  const contexts = new Map<string, JsonObject>();
  return plan.devices.map((d) => {
    const site = at(plan.sites, d.site);
    const key = `${d.site}/${d.role}`;
    let context = contexts.get(key);
    if (context === undefined) {
      context = configContext({ slug: site.slug, name: site.name, index: site.index + 1, timeZone: site.info.timeZone, facility: site.info.facility, region: at(REGIONS, site.info.region).slug }, d.role);
      contexts.set(key, context);
    }
    const ref = at(refs.devices, d.id - 1);
    const ip = d.primaryIp >= 0 ? at(refs.ips, d.primaryIp) : null;
    const serial = d.type.serial(rng.hex(12), digits(rng, 12));
    const tenantIndex = d.role === 'server' ? (d.tags.has('pci') ? 2 : 1) : 0;
    return {
      id: d.id,
      url: ref.url,
      display_url: displayUrl('dcim/devices', d.id),
      display: d.name,
      name: d.name,
      device_type: at(refs.deviceTypes, d.type.id - 1),
      role: DEVICE_ROLES[d.role],
      tenant: tenant(tenantIndex),
      platform: d.type.platform === null ? null : at(PLATFORMS, d.type.platform),
      serial,
      asset_tag: rng.next() < 0.6 ? `AT-${String(d.id).padStart(6, '0')}` : null,
      site: at(refs.sites, d.site),
      location: null,
      rack: at(refs.racks, d.rack),
      position: d.position,
      face: d.position === null ? null : FACE_FRONT,
      latitude: null,
      longitude: null,
      parent_device: null,
      status: status('device', d.status),
      airflow: d.type.airflow === null ? null : choice(d.type.airflow, AIRFLOW[d.type.airflow] ?? d.type.airflow),
      primary_ip: ip,
      primary_ip4: ip,
      primary_ip6: null,
      oob_ip: null,
      cluster: null,
      virtual_chassis: null,
      vc_position: null,
      vc_priority: null,
      description: ref.description,
      comments: d.status === 'failed' ? 'RMA raised with the vendor; awaiting replacement.' : '',
      config_template: null,
      config_context: context,
      local_context_data: null,
      tags: tagRefs(d.tags),
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
      console_port_count: d.type.console,
      console_server_port_count: d.type.consoleServer,
      power_port_count: d.type.power,
      power_outlet_count: d.type.outlets,
      interface_count: d.interfaces,
      front_port_count: 0,
      rear_port_count: 0,
      device_bay_count: 0,
      module_bay_count: d.type.bays.length,
      inventory_item_count: 0,
    };
  });
}

const CABLE_STATUS = (rng: Rng): 'connected' | 'planned' | 'decommissioning' =>
  rng.weighted<'connected' | 'planned' | 'decommissioning'>([
    ['connected', 92],
    ['planned', 6],
    ['decommissioning', 2],
  ]);

function mac(oui: string, device: number, port: number): string {
  const n = ((device * 97 + port) * 2_654_435_761) >>> 8;
  const bytes = [(n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].map((b) => b.toString(16).toUpperCase().padStart(2, '0'));
  return flat(oui, ':', bytes.join(':'));
}

function buildInterfaces(rng: Rng, plan: EstatePlan, refs: Refs, cableStatus: readonly string[]): NetBoxInterface[] {
  const stamp = new Stamper(rng);
  return plan.interfaces.map((p) => {
    const device = at(plan.devices, p.device);
    const ref = at(refs.interfaces, p.id - 1);
    const type = INTERFACE_TYPES[p.type];
    const peer = p.peer >= 0 ? at(plan.interfaces, p.peer) : undefined;
    const cable = p.cable >= 0 ? at(plan.cables, p.cable) : undefined;
    const peerRef = peer === undefined ? undefined : at(refs.interfaces, peer.id - 1);
    const siteVlans = at(plan.sites, device.site).vlans;
    const vlanRef = (k: number): NetBoxVlanRef | undefined => (k < siteVlans.length ? at(refs.vlans, at(siteVlans, k)) : undefined);
    let mode: NetBoxChoice | null = null;
    let untagged: NetBoxVlanRef | null = null;
    let tagged: NetBoxVlanRef[] = [];
    if (p.trunk) {
      mode = MODE_TAGGED;
      tagged = [2, 3, 7].map(vlanRef).filter((v): v is NetBoxVlanRef => v !== undefined);
    } else if (p.kind === 'access') {
      mode = MODE_ACCESS;
      const peerKind = peer?.kind;
      const k = peerKind === 'mgmt' ? 0 : peerKind === 'data' ? 2 + (p.id % 3) : p.id % Math.min(12, Math.max(1, siteVlans.length));
      untagged = vlanRef(k) ?? null;
    }
    const physical = p.type !== 'virtual';
    const routed = cable?.routed === true || p.kind === 'loopback';
    const enabled = cable !== undefined ? rng.next() < 0.99 : p.kind === 'access' ? rng.next() < 0.6 : p.kind === 'mgmt' || p.kind === 'loopback' ? true : rng.next() < 0.7;
    const poe = device.type.ports.poe === true && p.kind === 'access';
    const connected = peerRef === undefined ? null : [peerRef];
    return {
      id: p.id,
      url: ref.url,
      display_url: displayUrl('dcim/interfaces', p.id),
      display: p.name,
      device: ref.device,
      vdcs: [],
      module: null,
      name: p.name,
      label: '',
      type: INTERFACE_TYPE_CHOICES[p.type],
      enabled,
      parent: null,
      bridge: null,
      lag: null,
      mtu: routed && physical ? (device.type.ports.mtu ?? 9216) : device.role === 'server' && p.type === '25gbase-x-sfp28' ? 9000 : null,
      mac_address: physical ? mac(device.type.oui, device.id, p.id - device.firstInterface) : null,
      speed: type[1],
      duplex: p.type === '1000base-t' || p.type === '100base-tx' ? FULL_DUPLEX : null,
      wwn: null,
      mgmt_only: p.kind === 'mgmt',
      description: ref.description,
      mode,
      rf_role: null,
      rf_channel: null,
      poe_mode: poe ? POE_PSE : null,
      poe_type: poe ? POE_AT : null,
      rf_channel_frequency: null,
      rf_channel_width: null,
      tx_power: null,
      untagged_vlan: untagged,
      tagged_vlans: tagged,
      mark_connected: false,
      cable: ref.cable,
      cable_end: cable === undefined ? '' : cable.a === p.id - 1 ? 'A' : 'B',
      wireless_link: null,
      link_peers: connected ?? [],
      link_peers_type: connected === null ? null : 'dcim.interface',
      wireless_lans: [],
      vrf: null,
      l2vpn_termination: null,
      connected_endpoints: connected,
      connected_endpoints_type: connected === null ? null : 'dcim.interface',
      connected_endpoints_reachable: cable === undefined ? null : at(cableStatus, cable.id - 1) === 'connected',
      tags: p.kind === 'mgmt' ? tagRefs(MONITORING) : p.kind === 'uplink' ? tagRefs(CORE) : [],
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
      count_ipaddresses: p.ips,
      count_fhrp_groups: 0,
      _occupied: ref._occupied,
    };
  });
}

function buildCables(rng: Rng, plan: EstatePlan, refs: Refs, cableStatus: readonly string[]): NetBoxCable[] {
  const stamp = new Stamper(rng);
  const termination = (port: number): NetBoxCable['a_terminations'] => [{ object_type: 'dcim.interface', object_id: port + 1, object: at(refs.interfaces, port) }];
  return plan.cables.map((c: CablePlan) => {
    const ref = at(refs.cables, c.id - 1);
    const length = c.type === 'cat6' ? rng.int(2, 20) / 2 : rng.int(2, 40);
    return {
      id: c.id,
      url: ref.url,
      display_url: displayUrl('dcim/cables', c.id),
      display: ref.display,
      type: c.type,
      a_terminations: termination(c.a),
      b_terminations: termination(c.b),
      status: status('cable', at(cableStatus, c.id - 1) as 'connected'),
      tenant: null,
      label: ref.label,
      color: rng.pick(CABLE_COLORS),
      length,
      length_unit: METERS,
      description: ref.description,
      comments: '',
      tags: [],
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
    };
  });
}

function buildModules(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxModule[] {
  const stamp = new Stamper(rng);
  const modules: NetBoxModule[] = [];
  let bayId = 0;
  for (const device of plan.devices) {
    for (const [bay, typeIndex] of device.type.bays) {
      bayId += 1;
      if (rng.next() >= (bay === 'Network Module' ? 0.8 : 0.95)) continue;
      const [manufacturer, model, description] = at(MODULE_TYPES, typeIndex);
      const id = modules.length + 1;
      modules.push({
        id,
        url: apiUrl('dcim/modules', id),
        display_url: displayUrl('dcim/modules', id),
        display: `${bay}: ${model} (${id})`,
        device: at(refs.devices, device.id - 1),
        module_bay: { id: bayId, url: apiUrl('dcim/module-bays', bayId), display: bay, name: bay, description: '' },
        module_type: { id: typeIndex + 1, url: apiUrl('dcim/module-types', typeIndex + 1), display: model, manufacturer: at(MANUFACTURERS, manufacturer), model, description },
        status: status(
          'module',
          rng.weighted<'active' | 'planned' | 'failed' | 'offline'>([
            ['active', 94],
            ['planned', 2],
            ['failed', 2],
            ['offline', 2],
          ]),
        ),
        serial: rng.hex(11).toUpperCase(),
        asset_tag: null,
        description: '',
        comments: '',
        tags: [],
        custom_fields: {},
        created: stamp.created(),
      last_updated: stamp.updated(),
      });
    }
  }
  return modules;
}

const VLAN_TENANT = (name: string): number => (name.startsWith('pci') ? 2 : name.startsWith('prod') || name.startsWith('k8s') ? 1 : /guest|wifi|voice|printers|badge|cctv|hvac/.test(name) ? 3 : 0);

function buildVlans(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxVlan[] {
  const stamp = new Stamper(rng);
  const prefixCount = new Map<number, number>();
  for (const p of plan.prefixes) if (p.vlan >= 0) prefixCount.set(p.vlan, (prefixCount.get(p.vlan) ?? 0) + 1);
  return plan.vlans.map((v) => {
    const tags = new Set<TagSlug>();
    if (v.name.startsWith('pci')) tags.add('pci');
    if (v.name === 'mgmt' || v.name === 'monitoring') tags.add('monitoring');
    const ref = at(refs.vlans, v.id - 1);
    const where = v.site >= 0 ? at(plan.sites, v.site).name : 'All sites';
    return {
      id: v.id,
      url: ref.url,
      display_url: displayUrl('ipam/vlans', v.id),
      display: ref.display,
      site: v.site >= 0 ? at(refs.sites, v.site) : null,
      group: at(refs.vlanGroups, v.group),
      vid: v.vid,
      name: v.name,
      tenant: tenant(VLAN_TENANT(v.name)),
      status: status(
        'vlan',
        v.vid < 100 ? 'active' : rng.weighted<'active' | 'reserved' | 'deprecated'>([
          ['active', 88],
          ['reserved', 8],
          ['deprecated', 4],
        ]),
      ),
      role: ipamRole(v.role),
      description: `${where} ${v.name}`,
      comments: '',
      l2vpn_termination: null,
      tags: tagRefs(tags),
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
      prefix_count: prefixCount.get(v.id - 1) ?? 0,
    };
  });
}

/** `children` and `_depth` as NetBox annotates them: prefixes strictly inside, prefixes strictly around. */
function nesting(prefixes: readonly PrefixPlan[]): { children: number[]; depth: number[] } {
  const children = prefixes.map(() => 0);
  const depth = prefixes.map(() => 0);
  const order = prefixes
    .map((_, i) => i)
    .sort((x, y) => {
      const a = at(prefixes, x).network;
      const b = at(prefixes, y).network;
      return a.family - b.family || (a.first < b.first ? -1 : a.first > b.first ? 1 : a.length - b.length);
    });
  const stack: number[] = [];
  for (const i of order) {
    const net = at(prefixes, i).network;
    while (stack.length > 0) {
      const top = at(prefixes, at(stack, stack.length - 1)).network;
      if (top.family === net.family && net.first >= top.first && net.last <= top.last && top.length < net.length) break;
      stack.pop();
    }
    depth[i] = stack.length;
    for (const ancestor of stack) children[ancestor] = at(children, ancestor) + 1;
    stack.push(i);
  }
  return { children, depth };
}

function buildPrefixes(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxPrefix[] {
  const stamp = new Stamper(rng);
  const { children, depth } = nesting(plan.prefixes);
  return plan.prefixes.map((p, i) => {
    const vlan = p.vlan >= 0 ? at(plan.vlans, p.vlan) : undefined;
    const tags = new Set<TagSlug>();
    if (vlan?.name.startsWith('pci') === true) tags.add('pci');
    if (p.category === 'mgmt') tags.add('monitoring');
    const prefixStatus =
      p.category === 'container'
        ? 'container'
        : p.category === 'other'
          ? rng.weighted<'active' | 'reserved' | 'deprecated'>([
              ['active', 80],
              ['reserved', 15],
              ['deprecated', 5],
            ])
          : 'active';
    const text = formatNetwork(p.network);
    return {
      id: p.id,
      url: apiUrl('ipam/prefixes', p.id),
      display_url: displayUrl('ipam/prefixes', p.id),
      display: text,
      family: p.network.family === 4 ? FAMILY_4 : FAMILY_6,
      prefix: text,
      site: p.site >= 0 ? at(refs.sites, p.site) : null,
      vrf: null,
      tenant: tenant(vlan === undefined ? 0 : VLAN_TENANT(vlan.name)),
      vlan: vlan === undefined ? null : at(refs.vlans, p.vlan),
      status: status('prefix', prefixStatus),
      role: p.role === null ? null : ipamRole(p.role),
      is_pool: vlan !== undefined && /guest|wifi/.test(vlan.name),
      mark_utilized: false,
      description: p.description,
      comments: '',
      tags: tagRefs(tags),
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
      children: at(children, i),
      _depth: at(depth, i),
    };
  });
}

function buildIps(rng: Rng, plan: EstatePlan, refs: Refs): NetBoxIpAddress[] {
  const stamp = new Stamper(rng);
  return plan.ips.map((ip) => {
    const port = at(plan.interfaces, ip.interface);
    const device = at(plan.devices, port.device);
    const ref = at(refs.ips, ip.id - 1);
    let ipStatus: 'active' | 'reserved' | 'deprecated' | 'dhcp' = 'active';
    if (ip.category === 'mgmt') ipStatus = device.status === 'planned' ? 'reserved' : device.status === 'offline' || device.status === 'decommissioning' ? 'deprecated' : 'active';
    else if (ip.category === 'server') ipStatus = rng.weighted<'active' | 'dhcp' | 'deprecated'>([['active', 95], ['dhcp', 3], ['deprecated', 2]]);
    const firstServerPort = ip.category === 'server' && ip.interface === device.firstInterface;
    const dns = ip.category === 'mgmt' ? `${device.name}.mgmt.example.net` : ip.category === 'loopback' || firstServerPort ? `${device.name}.example.net` : '';
    const tenantIndex = device.role === 'server' ? (device.tags.has('pci') ? 2 : 1) : 0;
    return {
      id: ip.id,
      url: ref.url,
      display_url: displayUrl('ipam/ip-addresses', ip.id),
      display: ip.address,
      family: FAMILY_4,
      address: ip.address,
      vrf: null,
      tenant: tenant(tenantIndex),
      status: status('ipAddress', ipStatus),
      role: ip.category === 'loopback' ? LOOPBACK_ROLE : null,
      assigned_object_type: 'dcim.interface',
      assigned_object_id: ip.interface + 1,
      assigned_object: at(refs.interfaces, ip.interface),
      nat_inside: null,
      nat_outside: [],
      dns_name: dns,
      description: ref.description,
      comments: '',
      tags: ip.category === 'mgmt' ? tagRefs(MONITORING) : [],
      custom_fields: {},
      created: stamp.created(),
      last_updated: stamp.updated(),
    };
  });
}

/** Turns the plan into NetBox objects; each model draws from its own stream, so changing one leaves the rest. */
export function buildEstate(rngFor: (stream: number) => Rng, plan: EstatePlan): NetBoxEstate {
  const refs = buildRefs(plan);
  const statusRng = rngFor(10);
  const cableStatus = plan.cables.map(() => CABLE_STATUS(statusRng));
  return {
    sites: buildSites(rngFor(11), plan, refs),
    racks: buildRacks(rngFor(12), plan, refs),
    devices: buildDevices(rngFor(13), plan, refs),
    interfaces: buildInterfaces(rngFor(14), plan, refs, cableStatus),
    cables: buildCables(rngFor(15), plan, refs, cableStatus),
    modules: buildModules(rngFor(16), plan, refs),
    vlans: buildVlans(rngFor(17), plan, refs),
    prefixes: buildPrefixes(rngFor(18), plan, refs),
    ipAddresses: buildIps(rngFor(19), plan, refs),
    tags: [...TAGS],
    deviceRoles: Object.values(DEVICE_ROLES).sort((a, b) => a.id - b.id),
    ipamRoles: [...IPAM_ROLES],
    regions: [...REGIONS],
    manufacturers: [...MANUFACTURERS],
    platforms: [...PLATFORMS],
  };
}
