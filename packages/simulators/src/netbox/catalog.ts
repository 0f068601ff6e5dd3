import type { NetBoxChoice, NetBoxNamedRef, NetBoxRegionRef, NetBoxTagRef } from './types.js';

/** The origin every URL in a generated estate carries; the simulator answers with its own in its place. */
export const NETBOX_ESTATE_ORIGIN = 'https://netbox.example.net';

/**
 * A string built flat in one piece. Concatenation makes rope (cons) strings, several heap objects each, which every
 * garbage collection then copies; an estate keeps hundreds of thousands of these, so joining them flat up front
 * makes generating a large estate markedly faster.
 */
export const flat = (...parts: readonly (string | number)[]): string => parts.join('');

export const apiUrl = (model: string, id: number): string => flat(NETBOX_ESTATE_ORIGIN, '/api/', model, '/', id, '/');
export const displayUrl = (model: string, id: number): string => flat(NETBOX_ESTATE_ORIGIN, '/', model, '/', id, '/');

export const choice = <V extends string | number>(value: V, label: string): NetBoxChoice<V> => ({ value, label });

function named(model: string, id: number, name: string, slug: string, description = ''): NetBoxNamedRef {
  return { id, url: apiUrl(model, id), display: name, name, slug, description };
}

/** Status choices per model (value → label), NetBox's full choice sets: filters accept exactly these. */
export const STATUS = {
  site: { planned: 'Planned', staging: 'Staging', active: 'Active', decommissioning: 'Decommissioning', retired: 'Retired' },
  rack: { reserved: 'Reserved', available: 'Available', planned: 'Planned', active: 'Active', deprecated: 'Deprecated' },
  device: { offline: 'Offline', active: 'Active', planned: 'Planned', staged: 'Staged', failed: 'Failed', inventory: 'Inventory', decommissioning: 'Decommissioning' },
  cable: { connected: 'Connected', planned: 'Planned', decommissioning: 'Decommissioning' },
  module: { offline: 'Offline', active: 'Active', planned: 'Planned', staged: 'Staged', failed: 'Failed', decommissioning: 'Decommissioning' },
  vlan: { active: 'Active', reserved: 'Reserved', deprecated: 'Deprecated' },
  prefix: { container: 'Container', active: 'Active', reserved: 'Reserved', deprecated: 'Deprecated' },
  ipAddress: { active: 'Active', reserved: 'Reserved', deprecated: 'Deprecated', dhcp: 'DHCP', slaac: 'SLAAC' },
} as const;

export const IP_ROLES = {
  loopback: 'Loopback',
  secondary: 'Secondary',
  anycast: 'Anycast',
  vip: 'VIP',
  vrrp: 'VRRP',
  hsrp: 'HSRP',
  glbp: 'GLBP',
  carp: 'CARP',
} as const;

export const CABLE_TYPES = ['cat3', 'cat5', 'cat5e', 'cat6', 'cat6a', 'cat7', 'cat7a', 'cat8', 'dac-active', 'dac-passive', 'mrj21-trunk', 'coaxial', 'mmf', 'mmf-om1', 'mmf-om2', 'mmf-om3', 'mmf-om4', 'mmf-om5', 'smf', 'smf-os1', 'smf-os2', 'aoc', 'power'] as const;

export const status = <K extends keyof typeof STATUS>(model: K, value: keyof (typeof STATUS)[K] & string): NetBoxChoice => {
  const labels = STATUS[model] as Readonly<Record<string, string>>;
  return choice(value, labels[value] ?? value);
};

export const TAGS: readonly NetBoxTagRef[] = [
  ['core', 'Core', 'f44336'],
  ['edge', 'Edge', '2196f3'],
  ['legacy', 'Legacy', '9e9e9e'],
  ['monitoring', 'Monitoring', '4caf50'],
  ['pci', 'PCI', 'ff9800'],
].map(([slug, name, color], i) => ({ id: i + 1, url: apiUrl('extras/tags', i + 1), display: name ?? '', name: name ?? '', slug: slug ?? '', color: color ?? '' }));
export type TagSlug = 'core' | 'edge' | 'legacy' | 'monitoring' | 'pci';
const TAG_ORDER: readonly TagSlug[] = ['core', 'edge', 'legacy', 'monitoring', 'pci'];
/** Tag refs for a set of slugs, sorted by name as NetBox lists them. */
export const tagRefs = (slugs: ReadonlySet<TagSlug>): NetBoxTagRef[] =>
  slugs.size === 0 ? [] : TAG_ORDER.flatMap((slug, i) => (slugs.has(slug) ? [TAGS[i] as NetBoxTagRef] : []));

export const REGIONS: readonly NetBoxRegionRef[] = [
  ['Europe', 'europe'],
  ['North America', 'north-america'],
  ['Asia Pacific', 'asia-pacific'],
  ['South America', 'south-america'],
  ['Africa', 'africa'],
].map(([name, slug], i) => ({ ...named('dcim/regions', i + 1, name ?? '', slug ?? ''), _depth: 0 }));
export type RegionIndex = 0 | 1 | 2 | 3 | 4;

export const TENANTS: readonly NetBoxNamedRef[] = [
  named('tenancy/tenants', 1, 'Network Operations', 'netops', 'Owns the network estate'),
  named('tenancy/tenants', 2, 'Platform Engineering', 'platform', 'Compute and Kubernetes platform'),
  named('tenancy/tenants', 3, 'Payments', 'payments', 'Cardholder data environment'),
  named('tenancy/tenants', 4, 'Corporate IT', 'corp-it', 'Offices and internal systems'),
];

export interface CityInfo {
  code: string;
  region: RegionIndex;
  timeZone: string;
  facility: string;
  city: string;
  latitude: number;
  longitude: number;
}

const city = (code: string, region: RegionIndex, timeZone: string, facility: string, cityName: string, latitude: number, longitude: number): CityInfo => ({
  code,
  region,
  timeZone,
  facility,
  city: cityName,
  latitude,
  longitude,
});

/** The first twelve sites, in order (slug = code + number). */
export const FIRST_SITES: readonly (readonly [CityInfo, number])[] = [
  [city('ams', 0, 'Europe/Amsterdam', 'Equinix AM5', 'Amsterdam', 52.303585, 4.938398), 1],
  [city('ams', 0, 'Europe/Amsterdam', 'Digital Realty AMS17', 'Amsterdam', 52.356751, 4.953127), 2],
  [city('fra', 0, 'Europe/Berlin', 'Equinix FR5', 'Frankfurt', 50.098426, 8.624105), 1],
  [city('lon', 0, 'Europe/London', 'Telehouse North', 'London', 51.511737, -0.001529), 1],
  [city('nyc', 1, 'America/New_York', 'Equinix NY5', 'Secaucus', 40.777939, -74.072283), 1],
  [city('sfo', 1, 'America/Los_Angeles', 'Digital Realty SFO12', 'San Francisco', 37.784825, -122.393394), 1],
  [city('sin', 2, 'Asia/Singapore', 'Equinix SG3', 'Singapore', 1.32146, 103.695617), 1],
  [city('syd', 2, 'Australia/Sydney', 'Equinix SY4', 'Sydney', -33.921204, 151.188717), 1],
  [city('tyo', 2, 'Asia/Tokyo', 'Equinix TY8', 'Tokyo', 35.628011, 139.7414), 1],
  [city('par', 0, 'Europe/Paris', 'Equinix PA3', 'Saint-Denis', 48.92339, 2.356129), 1],
  [city('dub', 0, 'Europe/Dublin', 'Equinix DB3', 'Dublin', 53.399562, -6.379538), 1],
  [city('chi', 1, 'America/Chicago', 'Equinix CH1', 'Chicago', 41.853898, -87.618683), 1],
];

/** Cities for sites past the twelfth, cycled; the cycle numbers them 1, 2, 3... */
export const MORE_CITIES: readonly CityInfo[] = [
  city('mad', 0, 'Europe/Madrid', 'Equinix MD2', 'Madrid', 40.435093, -3.61713),
  city('mil', 0, 'Europe/Rome', 'Equinix ML2', 'Milan', 45.475498, 9.109818),
  city('waw', 0, 'Europe/Warsaw', 'Equinix WA3', 'Warsaw', 52.182131, 20.943624),
  city('sto', 0, 'Europe/Stockholm', 'Equinix SK2', 'Stockholm', 59.356718, 17.98071),
  city('zrh', 0, 'Europe/Zurich', 'Equinix ZH4', 'Zurich', 47.396372, 8.450567),
  city('vie', 0, 'Europe/Vienna', 'Digital Realty VIE1', 'Vienna', 48.259187, 16.427148),
  city('mia', 1, 'America/New_York', 'Equinix MI1', 'Miami', 25.782512, -80.193079),
  city('dfw', 1, 'America/Chicago', 'Equinix DA6', 'Dallas', 32.800556, -96.819367),
  city('sea', 1, 'America/Los_Angeles', 'Equinix SE2', 'Seattle', 47.614474, -122.338631),
  city('yyz', 1, 'America/Toronto', 'Equinix TR2', 'Toronto', 43.643843, -79.384331),
  city('hkg', 2, 'Asia/Hong_Kong', 'Equinix HK1', 'Hong Kong', 22.363491, 114.131632),
  city('icn', 2, 'Asia/Seoul', 'Equinix SL1', 'Seoul', 37.57145, 126.897926),
  city('bom', 2, 'Asia/Kolkata', 'Equinix MB1', 'Mumbai', 19.11653, 72.861553),
  city('gru', 3, 'America/Sao_Paulo', 'Equinix SP3', 'Sao Paulo', -23.505587, -46.84968),
  city('jnb', 4, 'Africa/Johannesburg', 'Teraco JB1', 'Johannesburg', -26.031246, 28.152745),
];

export type RoleSlug = 'router' | 'firewall' | 'switch' | 'server' | 'pdu' | 'console-server';
/** Device roles, in the order a site's devices are numbered. */
export const ROLE_ORDER: readonly RoleSlug[] = ['router', 'firewall', 'switch', 'server', 'pdu', 'console-server'];
export const DEVICE_ROLES: Readonly<Record<RoleSlug, NetBoxNamedRef>> = {
  router: named('dcim/device-roles', 1, 'Router', 'router', 'WAN and data centre edge routing'),
  firewall: named('dcim/device-roles', 2, 'Firewall', 'firewall', 'Perimeter and segmentation firewalls'),
  switch: named('dcim/device-roles', 3, 'Switch', 'switch', 'Spine, leaf and access switching'),
  server: named('dcim/device-roles', 4, 'Server', 'server', 'Bare-metal compute'),
  pdu: named('dcim/device-roles', 5, 'PDU', 'pdu', 'Metered rack power distribution'),
  'console-server': named('dcim/device-roles', 6, 'Console Server', 'console-server', 'Out-of-band console access'),
};
/** Name infix per role: ams1-rtr-01, ams1-sw-001... and the minimum number width. */
export const ROLE_NAMING: Readonly<Record<RoleSlug, readonly [string, number]>> = {
  router: ['rtr', 2],
  firewall: ['fw', 2],
  switch: ['sw', 3],
  server: ['srv', 3],
  pdu: ['pdu', 2],
  'console-server': ['con', 2],
};

export const IPAM_ROLES: readonly NetBoxNamedRef[] = [
  ['Production', 'production'],
  ['Staging', 'staging'],
  ['Development', 'development'],
  ['Management', 'management'],
  ['Storage', 'storage'],
  ['DMZ', 'dmz'],
  ['User', 'user'],
  ['Voice', 'voice'],
  ['IoT', 'iot'],
  ['Infrastructure', 'infrastructure'],
].map(([name, slug], i) => named('ipam/roles', i + 1, name ?? '', slug ?? ''));
export type IpamRoleSlug = 'production' | 'staging' | 'development' | 'management' | 'storage' | 'dmz' | 'user' | 'voice' | 'iot' | 'infrastructure';
export const ipamRole = (slug: IpamRoleSlug): NetBoxNamedRef => IPAM_ROLES.find((r) => r.slug === slug) as NetBoxNamedRef;

/** VLAN names in the order a site allocates them, with their IPAM role and a tag where one fits. */
export const VLAN_NAMES: readonly (readonly [string, IpamRoleSlug])[] = [
  ['mgmt', 'management'],
  ['oob', 'management'],
  ['prod-web', 'production'],
  ['prod-app', 'production'],
  ['prod-db', 'production'],
  ['storage', 'storage'],
  ['backup', 'storage'],
  ['dmz', 'dmz'],
  ['voice', 'voice'],
  ['guest', 'user'],
  ['iot', 'iot'],
  ['k8s-nodes', 'production'],
  ['k8s-pods', 'production'],
  ['vmotion', 'infrastructure'],
  ['iscsi', 'storage'],
  ['cctv', 'iot'],
  ['printers', 'user'],
  ['build', 'development'],
  ['staging-web', 'staging'],
  ['staging-app', 'staging'],
  ['dev', 'development'],
  ['lab', 'development'],
  ['pci-cde', 'production'],
  ['pci-mgmt', 'management'],
  ['hvac', 'iot'],
  ['badge', 'iot'],
  ['wifi-corp', 'user'],
  ['wifi-guest', 'user'],
  ['nfs', 'storage'],
  ['replication', 'storage'],
  ['monitoring', 'management'],
  ['ilo', 'management'],
  ['transit', 'infrastructure'],
];
export const GLOBAL_VLANS: readonly (readonly [string, IpamRoleSlug, string])[] = [
  ['global-transit', 'infrastructure', 'Inter-site transit'],
  ['corp-wifi', 'user', 'Corporate wireless, every site'],
  ['voice-global', 'voice', 'Voice, every site'],
  ['backup-global', 'storage', 'Backup replication between sites'],
];

export type InterfaceType = '100base-tx' | '1000base-t' | '10gbase-x-sfpp' | '25gbase-x-sfp28' | '100gbase-x-qsfp28' | 'virtual';
export const INTERFACE_TYPES: Readonly<Record<InterfaceType, readonly [string, number | null]>> = {
  '100base-tx': ['100BASE-TX (10/100ME)', 100_000],
  '1000base-t': ['1000BASE-T (1GE)', 1_000_000],
  '10gbase-x-sfpp': ['SFP+ (10GE)', 10_000_000],
  '25gbase-x-sfp28': ['SFP28 (25GE)', 25_000_000],
  '100gbase-x-qsfp28': ['QSFP28 (100GE)', 100_000_000],
  virtual: ['Virtual', null],
};
export const interfaceType = (type: InterfaceType): NetBoxChoice => choice(type, INTERFACE_TYPES[type][0]);

export const MANUFACTURERS: readonly NetBoxNamedRef[] = [
  ['Arista', 'arista'],
  ['Cisco', 'cisco'],
  ['Juniper', 'juniper'],
  ['Palo Alto Networks', 'palo-alto'],
  ['Dell', 'dell'],
  ['APC', 'apc'],
  ['Opengear', 'opengear'],
].map(([name, slug], i) => named('dcim/manufacturers', i + 1, name ?? '', slug ?? ''));

export const PLATFORMS: readonly NetBoxNamedRef[] = [
  ['Arista EOS', 'eos'],
  ['Cisco IOS-XE', 'ios-xe'],
  ['Juniper Junos', 'junos'],
  ['PAN-OS', 'panos'],
  ['Ubuntu 22.04', 'ubuntu-22-04'],
  ['Opengear OS', 'opengear-os'],
].map(([name, slug], i) => named('dcim/platforms', i + 1, name ?? '', slug ?? ''));

/** How a device type names and types its ports. */
export interface PortTemplate {
  /** Data port `k` (0-based) of `dataPorts`, uplinks being the last `uplinks` of them. */
  data(k: number, dataPorts: number, uplinks: number): readonly [string, InterfaceType];
  mgmt: readonly [string, InterfaceType];
  loopback?: string;
  /** Access ports deliver PoE. */
  poe?: boolean;
  mtu?: number;
}

export interface DeviceTypeInfo {
  id: number;
  manufacturer: number;
  model: string;
  slug: string;
  uHeight: number;
  platform: number | null;
  oui: string;
  airflow: string | null;
  ports: PortTemplate;
  /** Module bays, with the module type (index into MODULE_TYPES) installed when occupied. */
  bays: readonly (readonly [string, number])[];
  console: number;
  consoleServer: number;
  power: number;
  outlets: number;
  serial: (hex: string, digits: string) => string;
}

export const MODULE_TYPES: readonly (readonly [number, string, string])[] = [
  [0, 'PWR-511-AC-RED', '500W AC power supply, front-to-rear'],
  [1, 'PWR-C1-715WAC-P', '715W AC power supply, platinum'],
  [1, 'C9300-NM-8X', '8 x 10GE network module'],
  [2, 'JPSU-650W-AC-AFO', '650W AC power supply, airflow out'],
  [2, 'JNP-FAN-1RU', 'Fan tray, 1U'],
  [3, 'PAN-PA-3200-AC-PWR', 'AC power supply'],
  [4, 'PSU-1100W-TITANIUM', '1100W hot-plug power supply'],
];

export const DEVICE_TYPES: readonly DeviceTypeInfo[] = [
  {
    id: 1,
    manufacturer: 0,
    model: 'DCS-7050SX3-48C8',
    slug: 'dcs-7050sx3-48c8',
    uHeight: 1,
    platform: 0,
    oui: '00:1C:73',
    airflow: 'front-to-rear',
    ports: {
      data: (k, n, up) => (k >= n - up ? [`Ethernet${k + 1}/1`, '100gbase-x-qsfp28'] : [`Ethernet${k + 1}`, '10gbase-x-sfpp']),
      mgmt: ['Management1', '1000base-t'],
      loopback: 'Loopback0',
      mtu: 9214,
    },
    bays: [
      ['PSU1', 0],
      ['PSU2', 0],
    ],
    console: 1,
    consoleServer: 0,
    power: 2,
    outlets: 0,
    serial: (_hex, digits) => `JPE${digits.slice(0, 8)}`,
  },
  {
    id: 2,
    manufacturer: 1,
    model: 'C9300-48P',
    slug: 'c9300-48p',
    uHeight: 1,
    platform: 1,
    oui: '70:B3:17',
    airflow: 'front-to-rear',
    ports: {
      data: (k, n, up) => (k >= n - up ? [`TenGigabitEthernet1/1/${k - (n - up) + 1}`, '10gbase-x-sfpp'] : [`GigabitEthernet1/0/${k + 1}`, '1000base-t']),
      mgmt: ['GigabitEthernet0/0', '1000base-t'],
      loopback: 'Loopback0',
      poe: true,
    },
    bays: [
      ['PSU1', 1],
      ['PSU2', 1],
      ['Network Module', 2],
    ],
    console: 1,
    consoleServer: 0,
    power: 2,
    outlets: 0,
    serial: (hex, digits) => `FOC${digits.slice(0, 4)}${hex.slice(0, 4).toUpperCase()}`,
  },
  {
    id: 3,
    manufacturer: 2,
    model: 'MX204',
    slug: 'mx204',
    uHeight: 1,
    platform: 2,
    oui: '2C:6B:F5',
    airflow: 'front-to-rear',
    ports: {
      data: (k) => (k < 4 ? [`et-0/0/${k}`, '100gbase-x-qsfp28'] : [`xe-0/1/${k - 4}`, '10gbase-x-sfpp']),
      mgmt: ['fxp0', '1000base-t'],
      loopback: 'lo0',
      mtu: 9192,
    },
    bays: [
      ['PEM0', 3],
      ['PEM1', 3],
      ['Fan Tray 0', 4],
    ],
    console: 1,
    consoleServer: 0,
    power: 2,
    outlets: 0,
    serial: (hex) => `HN${hex.slice(0, 10).toUpperCase()}`,
  },
  {
    id: 4,
    manufacturer: 3,
    model: 'PA-3220',
    slug: 'pa-3220',
    uHeight: 1,
    platform: 3,
    oui: '00:1B:17',
    airflow: 'front-to-rear',
    ports: {
      data: (k) => [`ethernet1/${k + 1}`, k < 12 ? '1000base-t' : '10gbase-x-sfpp'],
      mgmt: ['mgmt', '1000base-t'],
      loopback: 'loopback.1',
    },
    bays: [
      ['PSU1', 5],
      ['PSU2', 5],
    ],
    console: 1,
    consoleServer: 0,
    power: 2,
    outlets: 0,
    serial: (_hex, digits) => `0132${digits.slice(0, 8)}`,
  },
  {
    id: 5,
    manufacturer: 4,
    model: 'PowerEdge R650',
    slug: 'poweredge-r650',
    uHeight: 1,
    platform: 4,
    oui: 'B0:7B:25',
    airflow: 'front-to-rear',
    ports: {
      data: (k) => [`eth${k}`, k < 2 ? '1000base-t' : '25gbase-x-sfp28'],
      mgmt: ['mgmt0', '1000base-t'],
    },
    bays: [
      ['PSU1', 6],
      ['PSU2', 6],
    ],
    console: 0,
    consoleServer: 0,
    power: 2,
    outlets: 0,
    serial: (hex) => hex.slice(0, 7).toUpperCase(),
  },
  {
    id: 6,
    manufacturer: 5,
    model: 'AP8868',
    slug: 'ap8868',
    uHeight: 0,
    platform: null,
    oui: '28:29:86',
    airflow: null,
    ports: {
      data: (k) => [`eth${k + 1}`, '100base-tx'],
      mgmt: ['eth0', '100base-tx'],
    },
    bays: [],
    console: 0,
    consoleServer: 0,
    power: 1,
    outlets: 21,
    serial: (_hex, digits) => `5A${digits.slice(0, 4)}E${digits.slice(4, 9)}`,
  },
  {
    id: 7,
    manufacturer: 6,
    model: 'CM8100',
    slug: 'cm8100-10g',
    uHeight: 1,
    platform: 5,
    oui: '00:13:C6',
    airflow: 'side-to-rear',
    ports: {
      data: (k) => [`eth${k + 1}`, k < 1 ? '1000base-t' : '10gbase-x-sfpp'],
      mgmt: ['eth0', '1000base-t'],
    },
    bays: [],
    console: 0,
    consoleServer: 48,
    power: 2,
    outlets: 0,
    serial: (_hex, digits) => `3108${digits.slice(0, 7)}`,
  },
];

export const AIRFLOW: Readonly<Record<string, string>> = { 'front-to-rear': 'Front to rear', 'side-to-rear': 'Side to rear' };

/** Relative interface counts by role (times interfacesPerDevice, before the total is made exact). */
export const INTERFACE_WEIGHT: Readonly<Record<RoleSlug, number>> = {
  switch: 1.3,
  router: 1.2,
  firewall: 0.8,
  server: 0.3,
  pdu: 0.05,
  'console-server': 0.08,
};

export const CABLE_COLORS = ['', '', '', '2196f3', 'ffeb3b', 'f44336', '4caf50', '9e9e9e', 'ff9800', '111111'];
