import { CABLE_TYPES, IP_ROLES, STATUS, TENANTS } from './catalog.js';
import { parseIp, parseNetwork, contains, type Family, type IpNetwork } from './ip.js';
import { compileModel, type FilterSpec, type Model } from './query.js';
import type {
  NetBoxCable,
  NetBoxDevice,
  NetBoxEstate,
  NetBoxInterface,
  NetBoxIpAddress,
  NetBoxModule,
  NetBoxPrefix,
  NetBoxRack,
  NetBoxNamedRef,
  NetBoxSite,
  NetBoxTagRef,
  NetBoxVlan,
} from './types.js';

/** The REST endpoints the simulator serves, by path (`dcim/devices`), each over its estate list. */
export const MODEL_PATHS = [
  'dcim/sites',
  'dcim/racks',
  'dcim/devices',
  'dcim/interfaces',
  'dcim/cables',
  'dcim/modules',
  'ipam/vlans',
  'ipam/prefixes',
  'ipam/ip-addresses',
  // Organisational lists: what a lexicon reads names from.
  'dcim/regions',
  'dcim/manufacturers',
  'dcim/device-types',
  'dcim/device-roles',
  'dcim/platforms',
  'tenancy/tenants',
  'extras/tags',
  'ipam/roles',
] as const;
export type ModelPath = (typeof MODEL_PATHS)[number];

const choices = (set: Readonly<Record<string, string>>): ReadonlySet<string> => new Set(Object.keys(set));
const tagSlugs = (item: { tags: readonly NetBoxTagRef[] }): string[] => item.tags.map((t) => t.slug);

interface Lookups {
  siteIds: ReadonlySet<number>;
  siteSlugs: ReadonlySet<string>;
  deviceIds: ReadonlySet<number>;
  deviceNames: ReadonlySet<string>;
  rackIds: ReadonlySet<number>;
  interfaceIds: ReadonlySet<number>;
  vlanIds: ReadonlySet<number>;
  tags: ReadonlySet<string>;
  deviceRoles: ReadonlySet<string>;
  deviceRoleIds: ReadonlySet<number>;
  ipamRoles: ReadonlySet<string>;
  regions: ReadonlySet<string>;
  manufacturers: ReadonlySet<string>;
  platforms: ReadonlySet<string>;
  platformIds: ReadonlySet<number>;
  manufacturerIds: ReadonlySet<number>;
  regionIds: ReadonlySet<number>;
  tenants: ReadonlySet<string>;
  tenantIds: ReadonlySet<number>;
  deviceTypes: ReadonlySet<string>;
  deviceTypeIds: ReadonlySet<number>;
  /** Device by id, for filters on interfaces, cables, modules and addresses that go through their device. */
  device: (id: number) => NetBoxDevice | undefined;
}

/** `id`: MultiValueNumberFilter on the primary key. */
const idFilter = <T extends { id: number }>(): FilterSpec<T> => ({ kind: 'number', key: (item) => item.id });

function siteFilters<T>(l: Lookups, site: (item: T) => { id: number; slug: string } | null | undefined): Record<string, FilterSpec<T>> {
  return {
    site_id: { kind: 'model-id', key: (item) => site(item)?.id ?? null, exists: (id) => l.siteIds.has(id) },
    site: { kind: 'model-slug', key: (item) => site(item)?.slug ?? null, exists: (slug) => l.siteSlugs.has(slug) },
  };
}

function deviceFilters<T>(l: Lookups, deviceId: (item: T) => number): Record<string, FilterSpec<T>> {
  const device = (item: T): NetBoxDevice | undefined => l.device(deviceId(item));
  return {
    device_id: { kind: 'model-id', key: deviceId, exists: (id) => l.deviceIds.has(id) },
    device: { kind: 'model-slug', key: (item) => device(item)?.name ?? null, exists: (name) => l.deviceNames.has(name) },
    ...siteFilters(l, (item: T) => device(item)?.site),
  };
}

const tagFilter = <T extends { tags: readonly NetBoxTagRef[] }>(l: Lookups): FilterSpec<T> => ({ kind: 'tag', key: tagSlugs, exists: (slug) => l.tags.has(slug) });

/** The address of an IP address as a number, kept per object. */
function hostOf(ip: NetBoxIpAddress): { family: Family; value: bigint } | undefined {
  return parseIp(ip.address.split('/')[0] ?? '');
}

/** Networks from filter values; `strict` → 'none' on the first bad one (NetBox's behaviour varies by filter). */
function networks(values: readonly string[], strict: boolean): IpNetwork[] | 'none' {
  const out: IpNetwork[] = [];
  for (const value of values) {
    const network = parseNetwork(value);
    if (network !== undefined) out.push(network);
    else if (strict) return 'none';
  }
  return out;
}

export function compileModels(estate: NetBoxEstate): ReadonlyMap<ModelPath, Model> {
  const devices = new Map(estate.devices.map((d) => [d.id, d]));
  const l: Lookups = {
    siteIds: new Set(estate.sites.map((s) => s.id)),
    siteSlugs: new Set(estate.sites.map((s) => s.slug)),
    deviceIds: new Set(devices.keys()),
    deviceNames: new Set(estate.devices.map((d) => d.name)),
    rackIds: new Set(estate.racks.map((r) => r.id)),
    interfaceIds: new Set(estate.interfaces.map((i) => i.id)),
    vlanIds: new Set(estate.vlans.map((v) => v.id)),
    tags: new Set(estate.tags.map((t) => t.slug)),
    deviceRoles: new Set(estate.deviceRoles.map((r) => r.slug)),
    deviceRoleIds: new Set(estate.deviceRoles.map((r) => r.id)),
    ipamRoles: new Set(estate.ipamRoles.map((r) => r.slug)),
    regions: new Set(estate.regions.map((r) => r.slug)),
    manufacturers: new Set(estate.manufacturers.map((m) => m.slug)),
    platforms: new Set(estate.platforms.map((p) => p.slug)),
    platformIds: new Set(estate.platforms.map((p) => p.id)),
    manufacturerIds: new Set(estate.manufacturers.map((m) => m.id)),
    regionIds: new Set(estate.regions.map((r) => r.id)),
    tenants: new Set(TENANTS.map((t) => t.slug)),
    tenantIds: new Set(TENANTS.map((t) => t.id)),
    deviceTypes: new Set(estate.devices.map((d) => d.device_type.slug)),
    deviceTypeIds: new Set(estate.devices.map((d) => d.device_type.id)),
    device: (id) => devices.get(id),
  };
  const hosts = new Map<NetBoxIpAddress, { family: Family; value: bigint } | undefined>();
  const host = (ip: NetBoxIpAddress): { family: Family; value: bigint } | undefined => {
    if (!hosts.has(ip)) hosts.set(ip, hostOf(ip));
    return hosts.get(ip);
  };
  const prefixNets = new Map<NetBoxPrefix, IpNetwork | undefined>();
  const prefixNet = (p: NetBoxPrefix): IpNetwork | undefined => {
    if (!prefixNets.has(p)) prefixNets.set(p, parseNetwork(p.prefix));
    return prefixNets.get(p);
  };
  const ipDevice = (ip: NetBoxIpAddress): NetBoxDevice | undefined =>
    ip.assigned_object_type === 'dcim.interface' && ip.assigned_object !== null ? devices.get(ip.assigned_object.device.id) : undefined;
  const deviceRole = (i: NetBoxInterface): string | null => devices.get(i.device.id)?.role.slug ?? null;
  const sites = new Map(estate.sites.map((x) => [x.id, x]));
  const siteRegion = (siteId: number | undefined): { id: number; slug: string } | null => (siteId === undefined ? null : (sites.get(siteId)?.region ?? null));
  /** The tenant filters every tenancy-aware model has (TenancyFilterSet). */
  const tenancy = <T extends { tenant: NetBoxNamedRef | null }>(): Record<string, FilterSpec<T>> => ({
    tenant: { kind: 'model-slug', key: (x) => x.tenant?.slug ?? null, exists: (slug) => l.tenants.has(slug) },
    tenant_id: { kind: 'model-id', key: (x) => x.tenant?.id ?? null, exists: (id) => l.tenantIds.has(id) },
  });
  /** How many devices point at each organisational object, by a key of the device. */
  const deviceCount = (key: (d: NetBoxDevice) => number | undefined): ((id: number) => number) => {
    const counts = new Map<number, number>();
    for (const d of estate.devices) {
      const k = key(d);
      if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return (id) => counts.get(id) ?? 0;
  };
  const named = <T extends { id: number; name: string; slug: string; description?: string }>(path: ModelPath, verbose: string, items: readonly T[], extra: Record<string, FilterSpec<T>> = {}) =>
    compileModel({
      path,
      verbose,
      items,
      briefKeys: ['id', 'url', 'display', 'name', 'slug', 'description', '_depth'],
      filters: { id: idFilter(), name: { kind: 'char', key: (x) => x.name }, slug: { kind: 'char', key: (x) => x.slug }, ...extra },
      search: { contains: (x) => [x.name, x.slug, x.description] },
    });
  const byTypeId = new Map(estate.devices.map((d) => [d.device_type.id, d.device_type]));
  const typeDevices = deviceCount((d) => d.device_type.id);
  const manufacturerTypes = new Map<number, number>();
  for (const t of byTypeId.values()) manufacturerTypes.set(t.manufacturer.id, (manufacturerTypes.get(t.manufacturer.id) ?? 0) + 1);
  const roleDevices = deviceCount((d) => d.role.id);
  const platformDevices = deviceCount((d) => d.platform?.id);
  const tenantDevices = deviceCount((d) => d.tenant?.id ?? undefined);
  const regionSites = new Map<number, number>();
  for (const x of estate.sites) if (x.region !== null) regionSites.set(x.region.id, (regionSites.get(x.region.id) ?? 0) + 1);
  const tagged = new Map<string, number>();
  for (const list of [estate.devices, estate.interfaces, estate.sites, estate.vlans, estate.prefixes, estate.ipAddresses] as readonly (readonly { tags: readonly NetBoxTagRef[] }[])[]) {
    for (const x of list) for (const t of x.tags) tagged.set(t.slug, (tagged.get(t.slug) ?? 0) + 1);
  }

  const vlanGroups = new Set(estate.vlans.flatMap((v) => (v.group === null ? [] : [v.group.slug])));
  const vlanGroupIds = new Set(estate.vlans.flatMap((v) => (v.group === null ? [] : [v.group.id])));
  const models = [
    named('dcim/regions', 'Region', estate.regions.map((r) => ({ ...r, site_count: regionSites.get(r.id) ?? 0 }))),
    named('dcim/manufacturers', 'Manufacturer', estate.manufacturers.map((m) => ({ ...m, devicetype_count: manufacturerTypes.get(m.id) ?? 0 }))),
    named(
      'dcim/device-types',
      'DeviceType',
      [...byTypeId.values()].sort((a, b) => a.id - b.id).map((t) => ({ ...t, name: t.model, device_count: typeDevices(t.id) })),
      { manufacturer: { kind: 'model-slug', key: (t) => t.manufacturer.slug, exists: (slug) => l.manufacturers.has(slug) }, model: { kind: 'char', key: (t) => t.model } },
    ),
    named('dcim/device-roles', 'DeviceRole', estate.deviceRoles.map((r) => ({ ...r, device_count: roleDevices(r.id) }))),
    named('dcim/platforms', 'Platform', estate.platforms.map((p) => ({ ...p, device_count: platformDevices(p.id) }))),
    named('tenancy/tenants', 'Tenant', TENANTS.map((t) => ({ ...t, device_count: tenantDevices(t.id) }))),
    named('extras/tags', 'Tag', estate.tags.map((t) => ({ ...t, description: '', tagged_items: tagged.get(t.slug) ?? 0 }))),
    named('ipam/roles', 'Role', estate.ipamRoles.map((r) => ({ ...r, prefix_count: estate.prefixes.filter((p) => p.role?.id === r.id).length, vlan_count: estate.vlans.filter((v) => v.role?.id === r.id).length }))),
    compileModel({
      path: 'dcim/sites',
      verbose: 'Site',
      items: estate.sites,
      briefKeys: ['id', 'url', 'display', 'name', 'slug', 'description'],
      filters: {
        id: idFilter(),
        name: { kind: 'char', key: (s) => s.name },
        slug: { kind: 'char', key: (s) => s.slug },
        status: { kind: 'choice', key: (s) => s.status.value, choices: choices(STATUS.site) },
        region: { kind: 'model-slug', key: (s) => s.region?.slug ?? null, exists: (slug) => l.regions.has(slug) },
        region_id: { kind: 'model-id', key: (s) => s.region?.id ?? null, exists: (id) => l.regionIds.has(id) },
        ...tenancy<NetBoxSite>(),
        tag: tagFilter(l),
      },
      search: { contains: (s) => [s.name, s.facility, s.description, s.physical_address, s.shipping_address, s.comments] },
    }),
    compileModel({
      path: 'dcim/racks',
      verbose: 'Rack',
      items: estate.racks,
      briefKeys: ['id', 'url', 'display', 'name', 'description'],
      filters: {
        id: idFilter(),
        name: { kind: 'char', key: (r) => r.name },
        ...siteFilters(l, (r: NetBoxRack) => r.site),
        status: { kind: 'choice', key: (r) => r.status.value, choices: choices(STATUS.rack) },
        ...tenancy<NetBoxRack>(),
        tag: tagFilter(l),
      },
      search: { contains: (r) => [r.name, r.facility_id, r.serial, r.asset_tag, r.description, r.comments] },
    }),
    compileModel({
      path: 'dcim/devices',
      verbose: 'Device',
      items: estate.devices,
      briefKeys: ['id', 'url', 'display', 'name', 'description'],
      filters: {
        id: idFilter(),
        name: { kind: 'char', key: (d) => d.name },
        ...siteFilters(l, (d: NetBoxDevice) => d.site),
        rack_id: { kind: 'model-id', key: (d) => d.rack?.id ?? null, exists: (id) => l.rackIds.has(id) },
        role: { kind: 'model-slug', key: (d) => d.role.slug, exists: (slug) => l.deviceRoles.has(slug) },
        role_id: { kind: 'model-id', key: (d) => d.role.id, exists: (id) => l.deviceRoleIds.has(id) },
        manufacturer: { kind: 'model-slug', key: (d) => d.device_type.manufacturer.slug, exists: (slug) => l.manufacturers.has(slug) },
        manufacturer_id: { kind: 'model-id', key: (d) => d.device_type.manufacturer.id, exists: (id) => l.manufacturerIds.has(id) },
        device_type: { kind: 'model-slug', key: (d) => d.device_type.slug, exists: (slug) => l.deviceTypes.has(slug) },
        device_type_id: { kind: 'model-id', key: (d) => d.device_type.id, exists: (id) => l.deviceTypeIds.has(id) },
        platform: { kind: 'model-slug', key: (d) => d.platform?.slug ?? null, exists: (slug) => l.platforms.has(slug) },
        platform_id: { kind: 'model-id', key: (d) => d.platform?.id ?? null, exists: (id) => l.platformIds.has(id) },
        region: { kind: 'model-slug', key: (d) => siteRegion(d.site.id)?.slug ?? null, exists: (slug) => l.regions.has(slug) },
        region_id: { kind: 'model-id', key: (d) => siteRegion(d.site.id)?.id ?? null, exists: (id) => l.regionIds.has(id) },
        ...tenancy<NetBoxDevice>(),
        status: { kind: 'choice', key: (d) => d.status.value, choices: choices(STATUS.device) },
        serial: { kind: 'char', key: (d) => d.serial },
        asset_tag: { kind: 'char', key: (d) => d.asset_tag },
        has_primary_ip: { kind: 'bool', key: (d) => d.primary_ip !== null },
        tag: tagFilter(l),
      },
      search: { contains: (d) => [d.name, d.serial, d.asset_tag, d.description, d.comments] },
    }),
    compileModel({
      path: 'dcim/interfaces',
      verbose: 'Interface',
      items: estate.interfaces,
      briefKeys: ['id', 'url', 'display', 'device', 'name', 'description', 'cable', '_occupied'],
      filters: {
        id: idFilter(),
        name: { kind: 'char', key: (i) => i.name },
        ...deviceFilters(l, (i: NetBoxInterface) => i.device.id),
        // NetBox 4.1 calls it device_role; `role` is accepted too.
        device_role: { kind: 'model-slug', key: deviceRole, exists: (slug) => l.deviceRoles.has(slug) },
        role: { kind: 'model-slug', key: deviceRole, exists: (slug) => l.deviceRoles.has(slug) },
        type: { kind: 'char', key: (i) => i.type.value },
        kind: {
          kind: 'method',
          make: (values) => {
            const kind = values.at(-1);
            if (kind === 'physical') return (i) => i.type.value !== 'virtual' && i.type.value !== 'lag' && i.type.value !== 'bridge';
            if (kind === 'virtual') return (i) => i.type.value === 'virtual' || i.type.value === 'bridge';
            if (kind === 'wireless') return () => false;
            return undefined;
          },
        },
        enabled: { kind: 'bool', key: (i) => i.enabled },
        mark_connected: { kind: 'bool', key: (i) => i.mark_connected },
        speed: { kind: 'number', key: (i) => i.speed },
        mtu: { kind: 'number', key: (i) => i.mtu },
        mgmt_only: { kind: 'bool', key: (i) => i.mgmt_only },
        cabled: { kind: 'bool', key: (i) => i.cable !== null },
        connected: { kind: 'bool', key: (i) => i.connected_endpoints_reachable === true },
        mac_address: { kind: 'char', key: (i) => i.mac_address },
        tag: tagFilter(l),
      },
      search: { contains: (i) => [i.name, i.label, i.description] },
    }),
    compileModel({
      path: 'dcim/cables',
      verbose: 'Cable',
      items: estate.cables,
      briefKeys: ['id', 'url', 'display', 'label', 'description'],
      filters: (() => {
        // CableFilterSet's termination filters are plain multi-value filters: no existence check.
        const endDevices = (c: NetBoxCable): NetBoxDevice[] =>
          [...c.a_terminations, ...c.b_terminations].map((t) => devices.get(t.object.device.id)).filter((d): d is NetBoxDevice => d !== undefined);
        const filters: Record<string, FilterSpec<NetBoxCable>> = {
          id: idFilter(),
          label: { kind: 'char', key: (c) => c.label },
          type: { kind: 'choice', key: (c) => c.type, choices: new Set<string>(CABLE_TYPES) },
          status: { kind: 'choice', key: (c) => c.status.value, choices: choices(STATUS.cable) },
          device_id: { kind: 'number', key: (c) => endDevices(c).map((d) => d.id) },
          device: { kind: 'char', key: (c) => endDevices(c).map((d) => d.name) },
          site_id: { kind: 'number', key: (c) => endDevices(c).map((d) => d.site.id) },
          site: { kind: 'char', key: (c) => endDevices(c).map((d) => d.site.slug) },
          ...tenancy<NetBoxCable>(),
          tag: tagFilter(l),
        };
        return filters;
      })(),
      search: { contains: (c) => [c.label, c.description] },
    }),
    compileModel({
      path: 'dcim/modules',
      verbose: 'Module',
      items: estate.modules,
      briefKeys: ['id', 'url', 'display', 'device', 'module_bay', 'module_type', 'description'],
      filters: {
        id: idFilter(),
        ...deviceFilters(l, (m: NetBoxModule) => m.device.id),
        status: { kind: 'choice', key: (m) => m.status.value, choices: choices(STATUS.module) },
        serial: { kind: 'char', key: (m) => m.serial },
        tag: tagFilter(l),
      },
      search: { contains: (m) => [m.device.name, m.module_type.model, m.serial, m.asset_tag, m.description, m.comments] },
    }),
    compileModel({
      path: 'ipam/vlans',
      verbose: 'VLAN',
      items: estate.vlans,
      briefKeys: ['id', 'url', 'display', 'vid', 'name', 'description'],
      filters: {
        id: idFilter(),
        vid: { kind: 'number', key: (v) => v.vid },
        name: { kind: 'char', key: (v) => v.name },
        ...siteFilters(l, (v: NetBoxVlan) => v.site),
        role: { kind: 'model-slug', key: (v) => v.role?.slug ?? null, exists: (slug) => l.ipamRoles.has(slug) },
        group: { kind: 'model-slug', key: (v) => v.group?.slug ?? null, exists: (slug) => vlanGroups.has(slug) },
        group_id: { kind: 'model-id', key: (v) => v.group?.id ?? null, exists: (id) => vlanGroupIds.has(id) },
        status: { kind: 'choice', key: (v) => v.status.value, choices: choices(STATUS.vlan) },
        ...tenancy<NetBoxVlan>(),
        tag: tagFilter(l),
      },
      search: {
        contains: (v) => [v.name, v.description, v.comments],
        also: (q) => (/^\d+$/.test(q) ? (v) => v.vid === Number(q) : undefined),
      },
    }),
    compileModel({
      path: 'ipam/prefixes',
      verbose: 'Prefix',
      items: estate.prefixes,
      briefKeys: ['id', 'url', 'display', 'family', 'prefix', 'description', '_depth'],
      filters: {
        id: idFilter(),
        family: { kind: 'number', key: (p) => p.family.value, message: 'Enter a number.' },
        prefix: {
          kind: 'method',
          make: (values) => {
            // filter_prefix: exact networks; unparseable values are dropped (none left: nothing matches).
            const wanted = new Set(
              values.flatMap((v) => {
                const net = parseNetwork(v);
                const ip = parseIp(v.trim().split('/')[0] ?? '');
                return net !== undefined && ip?.value === net.first ? [`${net.family}/${net.first}/${net.length}`] : [];
              }),
            );
            return (p) => {
              const net = prefixNet(p);
              return net !== undefined && wanted.has(`${net.family}/${net.first}/${net.length}`);
            };
          },
        },
        parent: {
          kind: 'method',
          make: (values) => {
            // search_by_parent: contained or equal; bad values are skipped.
            const parents = networks(values, false);
            if (parents === 'none' || parents.length === 0) return undefined;
            return (p) => {
              const net = prefixNet(p);
              return net !== undefined && parents.some((parent) => contains(parent, net));
            };
          },
        },
        within: {
          kind: 'method',
          make: (values) => {
            const outer = parseNetwork(values.at(-1) ?? '');
            if (outer === undefined) return 'none';
            return (p) => {
              const net = prefixNet(p);
              return net !== undefined && contains(outer, net) && net.length > outer.length;
            };
          },
        },
        within_include: {
          kind: 'method',
          make: (values) => {
            const outer = parseNetwork(values.at(-1) ?? '');
            if (outer === undefined) return 'none';
            return (p) => {
              const net = prefixNet(p);
              return net !== undefined && contains(outer, net);
            };
          },
        },
        ...siteFilters(l, (p: NetBoxPrefix) => p.site),
        vlan_id: { kind: 'model-id', key: (p) => p.vlan?.id ?? null, exists: (id) => l.vlanIds.has(id) },
        // PrefixFilterSet.vlan_vid: a NumberFilter on vlan__vid (no existence check).
        vlan_vid: { kind: 'number', key: (p) => (p.vlan === null ? [] : [p.vlan.vid]) },
        ...tenancy<NetBoxPrefix>(),
        role: { kind: 'model-slug', key: (p) => p.role?.slug ?? null, exists: (slug) => l.ipamRoles.has(slug) },
        status: { kind: 'choice', key: (p) => p.status.value, choices: choices(STATUS.prefix) },
        is_pool: { kind: 'bool', key: (p) => p.is_pool },
        tag: tagFilter(l),
      },
      search: {
        contains: (p) => [p.description, p.comments, p.prefix],
        also: (q) => {
          const net = parseNetwork(q);
          if (net === undefined) return undefined;
          return (p) => {
            const own = prefixNet(p);
            return own !== undefined && contains(own, net);
          };
        },
      },
    }),
    compileModel({
      path: 'ipam/ip-addresses',
      verbose: 'IPAddress',
      items: estate.ipAddresses,
      briefKeys: ['id', 'url', 'display', 'family', 'address', 'description'],
      filters: {
        id: idFilter(),
        family: { kind: 'number', key: (ip) => ip.family.value, message: 'Enter a number.' },
        address: {
          kind: 'method',
          make: (values) => {
            // filter_address (net_in): with a mask the exact address, without one the host under any mask.
            const exact = new Set<string>();
            const bare: { family: Family; value: bigint }[] = [];
            for (const v of values) {
              const [addr = '', mask] = v.trim().split('/');
              const ip = parseIp(addr);
              if (ip === undefined || (mask !== undefined && parseNetwork(v) === undefined)) return 'none';
              if (mask === undefined) bare.push(ip);
              else exact.add(`${ip.family}/${ip.value}/${Number(mask)}`);
            }
            return (ip) => {
              const h = host(ip);
              if (h === undefined) return false;
              return exact.has(`${h.family}/${h.value}/${Number(ip.address.split('/')[1])}`) || bare.some((b) => b.family === h.family && b.value === h.value);
            };
          },
        },
        parent: {
          kind: 'method',
          make: (values) => {
            // search_by_parent: host inside any of the prefixes; one bad value and nothing matches.
            const parents = networks(values, true);
            if (parents === 'none') return 'none';
            return (ip) => {
              const h = host(ip);
              return h !== undefined && parents.some((p) => p.family === h.family && h.value >= p.first && h.value <= p.last);
            };
          },
        },
        device_id: { kind: 'number', key: (ip) => ipDevice(ip)?.id ?? null },
        device: { kind: 'char', key: (ip) => ipDevice(ip)?.name ?? null },
        interface_id: {
          kind: 'model-id',
          key: (ip) => (ip.assigned_object_type === 'dcim.interface' ? ip.assigned_object_id : null),
          exists: (id) => l.interfaceIds.has(id),
        },
        assigned_to_interface: { kind: 'bool', key: (ip) => ip.assigned_object_type === 'dcim.interface' },
        dns_name: { kind: 'char', key: (ip) => ip.dns_name },
        status: { kind: 'choice', key: (ip) => ip.status.value, choices: choices(STATUS.ipAddress) },
        role: { kind: 'choice', key: (ip) => ip.role?.value ?? null, choices: choices(IP_ROLES) },
        tag: tagFilter(l),
      },
      search: {
        contains: (ip) => [ip.dns_name, ip.description, ip.comments],
        also: (q) => (ip) => ip.address.toLowerCase().startsWith(q),
      },
    }),
  ];
  return new Map(models.map((m) => [m.path as ModelPath, m]));
}
