import type { DeclaredValue, DomainDecl, EntityDecl, FieldDecl } from '@flotilla/query';

/**
 * The NetBox domain, declared once: devices, interfaces and sites, their fields (type, words, how each is executed)
 * and the actions a read-only agent is asked for. The agent's parser, the `query` tool's schema and its planner read
 * this. Values of `live` fields come from NetBox itself (list_values): site and device names, roles, tenants...
 */

const STATUS_VALUES: readonly DeclaredValue[] = [
  { value: 'active', words: ['active', 'in service', 'live', 'up and running', 'production'] },
  { value: 'offline', words: ['offline', 'off line', 'out of service', 'powered off'] },
  { value: 'planned', words: ['planned', 'future', 'not yet installed'] },
  { value: 'staged', words: ['staged', 'staging'] },
  { value: 'failed', words: ['failed', 'broken', 'faulty', 'dead'] },
  { value: 'inventory', words: ['inventory', 'in inventory', 'spare', 'spares', 'in stock'] },
  { value: 'decommissioning', words: ['decommissioning', 'being decommissioned', 'decom', 'retiring'] },
];

/** The usual device roles, with the words people use; the estate's own roles come in live beside them. */
const ROLE_VALUES: readonly DeclaredValue[] = [
  { value: 'switch', words: ['switch', 'switches', 'network switch', 'network switches', 'leaf', 'leaves', 'spine', 'spines', 'tor', 'tors'] },
  { value: 'router', words: ['router', 'routers', 'edge router', 'edge routers'] },
  { value: 'firewall', words: ['firewall', 'firewalls', 'fw', 'fws'] },
  { value: 'server', words: ['server', 'servers', 'hypervisor', 'hypervisors', 'compute node', 'compute nodes'] },
  { value: 'pdu', words: ['pdu', 'pdus', 'power strip', 'power strips'] },
  { value: 'console-server', words: ['console server', 'console servers', 'terminal server', 'terminal servers'] },
];

/**
 * What people call NetBox's usual regions ("APAC", "EMEA"), as the region slugs of the estate; a region of another
 * name is read by its live name only.
 */
const REGION_VALUES: readonly DeclaredValue[] = [
  { value: 'europe', words: ['european', 'emea', 'eu'] },
  { value: 'north-america', words: ['north american', 'americas', 'usa'] },
  { value: 'asia-pacific', words: ['asia pacific', 'apac', 'asia', 'apj'] },
  { value: 'south-america', words: ['south america', 'latam', 'latin america'] },
  { value: 'africa', words: ['african'] },
];
export const DEVICES: EntityDecl = {
  name: 'devices',
  singular: 'device',
  plural: 'devices',
  words: ['devices', 'device', 'boxes', 'box', 'hosts', 'host', 'machines', 'machine', 'hardware', 'network devices', 'nodes', 'equipment', 'appliances', 'appliance', 'kit', 'gear', 'network gear'],
  nameField: 'name',
  rowFields: ['name', 'site', 'role', 'status', 'device_type', 'rack'],
  details: ['site', 'role', 'status', 'device_type', 'rack', 'primary_ip', 'platform', 'serial'],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'hostname', 'hostnames', 'device name'], live: true, exec: 'upstream', rank: 0 },
    { name: 'site', label: 'site', type: 'name', words: ['site', 'sites', 'datacenter', 'data center', 'datacentre', 'dc', 'location', 'pop', 'facility'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 6 },
    { name: 'role', label: 'role', type: 'name', words: ['role', 'roles', 'device role', 'device roles', 'kind', 'function'], values: ROLE_VALUES, live: true, exec: 'upstream', groupable: true, projection: true, rank: 5 },
    { name: 'status', label: 'status', type: 'enum', words: ['status', 'statuses', 'state', 'lifecycle'], values: STATUS_VALUES, exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'tenant', label: 'tenant', type: 'name', words: ['tenant', 'tenants', 'owner', 'owners', 'owned by', 'customer', 'business unit'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 3 },
    { name: 'manufacturer', label: 'manufacturer', type: 'name', words: ['manufacturer', 'manufacturers', 'vendor', 'vendors', 'make', 'brand', 'made by', 'oem'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'platform', label: 'platform', type: 'name', words: ['platform', 'platforms', 'os', 'operating system', 'software', 'nos'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 3 },
    { name: 'device_type', label: 'device type', type: 'name', words: ['device type', 'device types', 'model', 'models', 'hardware model', 'type', 'types', 'sku'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 2 },
    { name: 'rack', label: 'rack', type: 'name', words: ['rack', 'racks', 'cabinet', 'cabinets'], live: true, exec: 'tool', groupable: true, projection: true, rank: 1 },
    { name: 'region', label: 'region', type: 'name', words: ['region', 'regions', 'continent', 'geography'], values: REGION_VALUES, live: true, exec: 'upstream', groupable: true, projection: true, rank: 2 },
    { name: 'serial', label: 'serial number', type: 'text', words: ['serial', 'serials', 'serial number', 'serial numbers', 'sn', 's/n'], exec: 'tool', projection: true },
    { name: 'asset_tag', label: 'asset tag', type: 'text', words: ['asset tag', 'asset tags', 'asset number', 'asset id'], exec: 'tool', projection: true },
    { name: 'tag', label: 'tag', type: 'name', words: ['tag', 'tags', 'tagged', 'tagged with', 'labelled', 'labeled'], live: true, exec: 'upstream', multi: true, groupable: true, projection: true, rank: 1 },
    { name: 'primary_ip', label: 'primary IPv4 address', type: 'text', words: ['ip', 'ips', 'ip address', 'primary ip', 'management ip', 'address', 'ipv4'], exec: 'tool', projection: true },
    { name: 'interface_count', label: 'interface count', type: 'number', words: ['interface count', 'number of interfaces', 'port count', 'ports'], exec: 'tool', projection: true },
    { name: 'description', label: 'description', type: 'text', words: ['description', 'descriptions', 'comment'], exec: 'tool', projection: true },
    // NetBox holds these; the agent does not read them yet, and says so.
    { name: 'config_context', label: 'config context', type: 'text', words: ['config context', 'config contexts', 'rendered config'], exec: 'not_read' },
    { name: 'custom_fields', label: 'custom fields', type: 'text', words: ['custom field', 'custom fields'], exec: 'not_read' },
    { name: 'warranty', label: 'warranty or support contract', type: 'text', words: ['warranty', 'support contract', 'end of life', 'eol', 'end of support'], exec: 'not_read', note: 'NetBox does not keep warranty or end-of-life dates unless a plugin or custom field does.' },
  ],
};

export const INTERFACES: EntityDecl = {
  name: 'interfaces',
  singular: 'interface',
  plural: 'interfaces',
  words: ['interfaces', 'interface', 'ports', 'port', 'nics', 'nic', 'links', 'uplinks', 'ifaces', 'iface'],
  nameField: 'name',
  rowFields: ['device', 'name', 'type', 'enabled', 'cabled', 'speed'],
  // Port speeds as people say them: the interface types of that speed (NetBox's speed is often not set).
  phrases: [
    { words: ['1g', '1 gig', '1gbe', 'gigabit'], where: { op: 'in', field: 'type', values: ['1000base-t', '1000base-x-sfp', '1000base-x-gbic'] } },
    { words: ['10g', '10 gig', '10gbe', 'ten gig', 'tengig'], where: { op: 'in', field: 'type', values: ['10gbase-t', '10gbase-x-sfpp', '10gbase-cx4', '10gbase-x-xfp', '10gbase-x-xenpak', '10gbase-x-x2'] } },
  ],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'interface name', 'port name'], exec: 'upstream', rank: 0 },
    // A device's interfaces are asked by the device's name: a device name is the interfaces' `device`.
    { name: 'device', label: 'device', type: 'name', words: ['device', 'on device', 'switch name', 'device name'], live: true, liveFrom: 'devices.name', exec: 'upstream', groupable: true, projection: true, rank: 6 },
    { name: 'site', label: 'site', type: 'name', words: ['site', 'sites', 'datacenter', 'data center', 'dc', 'location'], live: true, liveFrom: 'devices.site', exec: 'upstream', rank: 6 },
    { name: 'role', label: 'device role', type: 'name', words: ['role', 'device role', 'roles'], values: ROLE_VALUES, live: true, liveFrom: 'devices.role', exec: 'upstream', rank: 5 },
    {
      name: 'type',
      label: 'type',
      type: 'name',
      words: ['type', 'types', 'interface type', 'media', 'port type'],
      values: [
        { value: '100base-tx', words: ['100base-tx', 'fast ethernet', '100m copper'] },
        { value: '1000base-t', words: ['1g copper', 'gigabit copper', '1000base-t', 'rj45'] },
        { value: '2.5gbase-t', words: ['2.5gbase-t', '2.5g copper'] },
        { value: '10gbase-t', words: ['10gbase-t', '10g copper'] },
        { value: '1000base-x-sfp', words: ['sfp', '1g sfp', '1000base-x-sfp'] },
        { value: '40gbase-x-qsfpp', words: ['qsfp+', '40g', '40gbase-x-qsfpp'] },
        { value: '400gbase-x-qsfpdd', words: ['qsfp-dd', '400g', '400gbase-x-qsfpdd'] },
        { value: 'bridge', words: ['bridge', 'bridges'] },
        { value: '10gbase-x-sfpp', words: ['sfp+', '10g sfp+', '10gbase-x-sfpp'] },
        { value: '25gbase-x-sfp28', words: ['sfp28', '25g', '25gbase-x-sfp28'] },
        { value: '100gbase-x-qsfp28', words: ['qsfp28', '100g', '100gbase-x-qsfp28'] },
        { value: 'virtual', words: ['virtual', 'logical'] },
        { value: 'lag', words: ['lag', 'port channel', 'port-channel', 'bond', 'bonds', 'aggregate'] },
      ],
      exec: 'upstream',
      groupable: true,
      projection: true,
      rank: 3,
    },
    {
      name: 'enabled',
      label: 'enabled',
      type: 'bool',
      words: ['admin state', 'administrative state', 'enabled state'],
      values: [
        { value: 'true', words: ['enabled', 'up', 'admin up', 'turned on', 'not shut'] },
        { value: 'false', words: ['disabled', 'down', 'admin down', 'shut', 'shutdown', 'shut down', 'turned off'] },
      ],
      exec: 'upstream',
      groupable: true,
      projection: true,
      rank: 4,
      note: 'NetBox stores whether an interface is enabled, not its live link state: "up" and "down" were read as enabled and disabled.',
    },
    { name: 'cabled', label: 'cabled', type: 'bool', words: ['cable', 'cabling'], values: [{ value: 'true', words: ['cabled', 'with a cable', 'patched'] }, { value: 'false', words: ['uncabled', 'not cabled', 'without a cable', 'unpatched', 'free', 'unused'] }], exec: 'upstream', groupable: true, projection: true },
    { name: 'mark_connected', label: 'marked connected', type: 'bool', values: [{ value: 'true', words: ['marked connected', 'mark connected', 'mark_connected'] }], exec: 'upstream', groupable: true, projection: true },
    { name: 'mgmt_only', label: 'management only', type: 'bool', values: [{ value: 'true', words: ['management', 'mgmt', 'management only', 'mgmt only', 'oob', 'out of band'] }], exec: 'upstream', groupable: true, projection: true },
    { name: 'speed', label: 'speed (kbit/s)', type: 'number', words: ['speed', 'speeds', 'configured speed', 'port speed'], exec: 'upstream', groupable: true, projection: true },
    { name: 'mtu', label: 'MTU', type: 'number', words: ['mtu', 'mtus', 'jumbo'], exec: 'upstream', groupable: true, projection: true },
    { name: 'mac_address', label: 'MAC address', type: 'text', words: ['mac', 'mac address', 'mac addresses', 'hardware address'], exec: 'tool', projection: true },
    { name: 'description', label: 'description', type: 'text', words: ['description', 'descriptions'], exec: 'tool', projection: true },
    { name: 'cable_peer', label: 'cable peer', type: 'text', words: ['cable peer', 'peer', 'neighbor', 'neighbour'], exec: 'not_read', note: 'ask "cables of <device>": each cable\'s row shows both of its ends.' },
    { name: 'link_state', label: 'live link state', type: 'text', words: ['link state', 'oper status', 'operational status', 'link status'], exec: 'not_read', note: 'NetBox stores whether an interface is enabled, not its live link state.' },
    { name: 'utilisation', label: 'live traffic', type: 'text', words: ['bandwidth', 'utilisation', 'utilization', 'traffic', 'throughput', 'load', 'errors', 'drops'], exec: 'not_read', note: 'NetBox keeps inventory, not live traffic: ask your monitoring (Prometheus, SNMP) for it.' },
  ],
};

export const SITES: EntityDecl = {
  name: 'sites',
  singular: 'site',
  plural: 'sites',
  words: ['sites', 'site', 'datacenters', 'datacenter', 'data centers', 'data centres', 'dcs', 'locations', 'pops', 'facilities'],
  nameField: 'name',
  rowFields: ['name', 'status', 'region', 'facility', 'device_count'],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'site name'], live: true, liveFrom: 'devices.site', exec: 'upstream', rank: 6 },
    { name: 'status', label: 'status', type: 'enum', words: ['status', 'statuses', 'state'], values: [...STATUS_VALUES, { value: 'retired', words: ['retired', 'closed'] }], exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'region', label: 'region', type: 'name', words: ['region', 'regions', 'continent'], values: REGION_VALUES, live: true, liveFrom: 'devices.region', exec: 'upstream', groupable: true, projection: true, rank: 2 },
    { name: 'tenant', label: 'tenant', type: 'name', words: ['tenant', 'tenants', 'owner'], live: true, liveFrom: 'devices.tenant', exec: 'upstream', groupable: true, projection: true, rank: 3 },
    { name: 'facility', label: 'facility', type: 'text', words: ['facility', 'facility id', 'building', 'colo', 'colocation'], exec: 'tool', projection: true },
    { name: 'time_zone', label: 'time zone', type: 'text', words: ['time zone', 'timezone', 'tz'], exec: 'tool', groupable: true, projection: true },
    { name: 'device_count', label: 'device count', type: 'number', words: [], exec: 'tool', projection: true },
  ],
};

/** Statuses VLANs, prefixes and racks share (each adds its own). */
const IPAM_ACTIVE: DeclaredValue = { value: 'active', words: ['active', 'in use', 'live'] };
const RESERVED: DeclaredValue = { value: 'reserved', words: ['reserved'] };
const DEPRECATED: DeclaredValue = { value: 'deprecated', words: ['deprecated', 'retired'] };

/** IPAM roles of VLANs and prefixes (NetBox's ipam/roles): the estate's own come in live beside them. */
const IPAM_ROLE_WORDS = ['role', 'roles', 'purpose', 'function', 'used for'];
const TENANT: FieldDecl = { name: 'tenant', label: 'tenant', type: 'name', words: ['tenant', 'tenants', 'owner', 'owners', 'owned by', 'customer', 'business unit'], live: true, liveFrom: 'devices.tenant', exec: 'upstream', groupable: true, projection: true, rank: 3 };
const SITE: FieldDecl = { name: 'site', label: 'site', type: 'name', words: ['site', 'sites', 'datacenter', 'data center', 'datacentre', 'dc', 'location', 'pop', 'facility'], live: true, liveFrom: 'devices.site', exec: 'upstream', groupable: true, projection: true, rank: 6 };

export const VLANS: EntityDecl = {
  name: 'vlans',
  singular: 'VLAN',
  plural: 'VLANs',
  words: ['vlans', 'vlan', 'virtual lans', 'vlan ids', 'l2 segments', 'broadcast domains'],
  nameField: 'name',
  // A VLAN's role is asked for ("vlans by role"), not shown in every row: roles and VLAN names share words ("iot").
  rowFields: ['vid', 'name', 'site', 'status', 'tenant'],
  numberField: 'vid',
  details: ['vid', 'site', 'group', 'status', 'role', 'tenant', 'description'],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'vlan name'], live: true, exec: 'upstream', rank: 2 },
    { name: 'vid', label: 'VLAN ID', type: 'number', words: ['vid', 'vids', 'vlan id', 'vlan ids', 'vlan number', 'vlan tag'], exec: 'upstream', groupable: true, projection: true },
    SITE,
    { name: 'group', label: 'VLAN group', type: 'name', words: ['group', 'groups', 'vlan group', 'vlan groups'], live: true, exec: 'upstream', groupable: true, projection: true, rank: 1 },
    { name: 'status', label: 'status', type: 'enum', words: ['status', 'statuses', 'state'], values: [IPAM_ACTIVE, RESERVED, DEPRECATED], exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'role', label: 'role', type: 'name', words: IPAM_ROLE_WORDS, live: true, exec: 'upstream', groupable: true, projection: true, rank: 5 },
    TENANT,
    { name: 'description', label: 'description', type: 'text', words: ['description', 'descriptions'], exec: 'tool', projection: true },
  ],
};

export const PREFIXES: EntityDecl = {
  name: 'prefixes',
  singular: 'prefix',
  plural: 'prefixes',
  words: ['prefixes', 'prefix', 'subnets', 'subnet', 'networks', 'cidrs', 'cidr', 'ip ranges', 'address ranges', 'ip blocks'],
  nameField: 'prefix',
  rowFields: ['prefix', 'site', 'vlan', 'status', 'role', 'tenant'],
  details: ['site', 'vlan', 'status', 'role', 'tenant', 'is_pool', 'description'],
  fields: [
    { name: 'prefix', label: 'prefix', type: 'name', words: ['prefix', 'cidr', 'network', 'subnet'], exec: 'upstream', rank: 2, pattern: /^[0-9a-f:.]+\/\d{1,3}$/ },
    SITE,
    { name: 'vlan', label: 'VLAN ID', type: 'number', words: ['vlan', 'vlan id', 'on vlan', 'vid'], exec: 'upstream', groupable: true, projection: true },
    { name: 'status', label: 'status', type: 'enum', words: ['status', 'statuses', 'state'], values: [IPAM_ACTIVE, { value: 'container', words: ['container', 'containers'] }, RESERVED, DEPRECATED], exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'role', label: 'role', type: 'name', words: IPAM_ROLE_WORDS, live: true, liveFrom: 'vlans.role', exec: 'upstream', groupable: true, projection: true, rank: 5 },
    TENANT,
    { name: 'is_pool', label: 'a pool', type: 'bool', values: [{ value: 'true', words: ['pool', 'pools', 'address pool', 'ip pool'] }], exec: 'upstream', groupable: true, projection: true },
    { name: 'family', label: 'address family', type: 'enum', words: ['family', 'address family', 'ip version'], values: [{ value: '4', words: ['ipv4', 'v4', 'ip4'] }, { value: '6', words: ['ipv6', 'v6', 'ip6'] }], exec: 'tool', groupable: true, projection: true },
    { name: 'description', label: 'description', type: 'text', words: ['description', 'descriptions'], exec: 'tool', projection: true },
    // NetBox answers these through other endpoints; the query does not read them.
    { name: 'utilisation', label: 'utilisation', type: 'text', words: ['utilisation', 'utilization', 'usage', 'how full', 'free ips', 'free addresses', 'available ips'], exec: 'not_read', note: 'ask "free IPs in <prefix>" or "used IPs in <prefix>": they are read from the prefix\'s available-ips.' },
  ],
};

export const CABLES: EntityDecl = {
  name: 'cables',
  singular: 'cable',
  plural: 'cables',
  words: ['cables', 'cable', 'patch cables', 'patch leads', 'cabling', 'wires', 'connections'],
  phrases: [
    { words: ['fibre', 'fiber', 'fibres', 'fibers', 'optical', 'fibre optic', 'fiber optic', 'optics'], where: { op: 'in', field: 'type', values: ['mmf', 'mmf-om1', 'mmf-om2', 'mmf-om3', 'mmf-om4', 'mmf-om5', 'smf', 'smf-os1', 'smf-os2', 'aoc'] } },
    { words: ['copper', 'twisted pair', 'utp', 'ethernet cables'], where: { op: 'in', field: 'type', values: ['cat3', 'cat5', 'cat5e', 'cat6', 'cat6a', 'cat7', 'cat7a', 'cat8', 'dac-active', 'dac-passive'] } },
  ],
  nameField: 'label',
  rowFields: ['label', 'type', 'status', 'a_end', 'b_end'],
  details: ['type', 'status', 'a_end', 'b_end', 'length', 'tenant'],
  fields: [
    { name: 'label', label: 'label', type: 'name', words: ['label', 'labels', 'cable label', 'cable id'], exec: 'upstream', rank: 2 },
    {
      name: 'type',
      label: 'type',
      // NetBox's cable types are many (cat3 … smf-os2, aoc, power): the usual ones have words, any is a value.
      type: 'name',
      words: ['type', 'types', 'cable type', 'media'],
      values: [
        { value: 'cat5e', words: ['cat5e', 'cat 5e'] },
        { value: 'cat6', words: ['cat6', 'cat 6'] },
        { value: 'cat6a', words: ['cat6a', 'cat 6a'] },
        { value: 'mmf', words: ['mmf', 'multimode', 'multi-mode', 'multimode fibre', 'multimode fiber'] },
        { value: 'smf', words: ['smf', 'singlemode', 'single-mode', 'singlemode fibre', 'singlemode fiber'] },
        { value: 'dac-passive', words: ['dac', 'passive dac', 'twinax'] },
        { value: 'aoc', words: ['aoc', 'active optical'] },
        { value: 'power', words: ['power cable', 'power cables', 'power cord', 'power cords'] },
      ],
      exec: 'upstream',
      groupable: true,
      projection: true,
      rank: 3,
    },
    { name: 'status', label: 'status', type: 'enum', words: ['status', 'statuses', 'state'], values: [{ value: 'connected', words: ['connected', 'in place', 'installed', 'live'] }, { value: 'planned', words: ['planned', 'to be installed', 'future'] }, { value: 'decommissioning', words: ['decommissioning', 'being removed', 'to be removed'] }], exec: 'upstream', groupable: true, projection: true, rank: 4 },
    // A cable's ends: the devices (and interfaces) at either end. NetBox filters cables by device and by site.
    { name: 'device', label: 'device at either end', type: 'name', words: ['device', 'devices', 'on device', 'attached to', 'connected to', 'plugged into'], live: true, liveFrom: 'devices.name', exec: 'upstream', groupable: true, projection: true, multi: true, rank: 6 },
    { name: 'site', label: 'site', type: 'name', words: ['site', 'sites', 'datacenter', 'data center', 'dc', 'location'], live: true, liveFrom: 'devices.site', exec: 'upstream', rank: 6 },
    { name: 'a_end', label: 'A end', type: 'text', words: ['a end', 'a side', 'a-side', 'near end'], exec: 'tool', projection: true },
    { name: 'b_end', label: 'B end', type: 'text', words: ['b end', 'b side', 'b-side', 'far end', 'other end'], exec: 'tool', projection: true },
    { name: 'length', label: 'length', type: 'number', words: ['length', 'lengths', 'how long'], exec: 'tool', projection: true },
    TENANT,
    { name: 'color', label: 'colour', type: 'text', words: ['colour', 'color', 'colours', 'colors'], exec: 'not_read' },
  ],
};

export const RACKS: EntityDecl = {
  name: 'racks',
  singular: 'rack',
  plural: 'racks',
  words: ['racks', 'rack', 'cabinets', 'cabinet'],
  nameField: 'name',
  rowFields: ['name', 'site', 'status', 'u_height', 'device_count'],
  details: ['site', 'status', 'role', 'tenant', 'u_height', 'device_count', 'facility_id'],
  fields: [
    { name: 'name', label: 'name', type: 'name', words: ['name', 'names', 'rack name'], live: true, exec: 'upstream', rank: 2 },
    SITE,
    { name: 'status', label: 'status', type: 'enum', words: ['status', 'statuses', 'state'], values: [IPAM_ACTIVE, { value: 'planned', words: ['planned', 'future'] }, RESERVED, { value: 'available', words: ['available'] }, DEPRECATED], exec: 'upstream', groupable: true, projection: true, rank: 4 },
    { name: 'role', label: 'rack role', type: 'name', words: ['rack role', 'rack roles'], exec: 'tool', groupable: true, projection: true },
    TENANT,
    { name: 'u_height', label: 'height (U)', type: 'number', words: ['height', 'u height', 'units', 'rack units', 'size'], exec: 'tool', groupable: true, projection: true },
    { name: 'device_count', label: 'devices in it', type: 'number', words: ['devices in it', 'occupancy'], exec: 'tool', projection: true },
    { name: 'facility_id', label: 'facility ID', type: 'text', words: ['facility id', 'facility ids'], exec: 'tool', projection: true },
  ],
};

export const NETBOX_DOMAIN: DomainDecl = {
  name: 'netbox',
  words: ['netbox', 'net box', 'dcim', 'ipam', 'in netbox', 'source of truth'],
  entities: [DEVICES, INTERFACES, SITES, VLANS, PREFIXES, CABLES, RACKS],
  defaultEntity: 'devices',
  actions: [
    { verb: 'decommission', words: ['decommission', 'retire', 'decom'], how: 'set the status of {name} to Decommissioning on its page in NetBox (Edit), or PATCH /api/dcim/devices/<id>/ {"status": "decommissioning"}' },
    { verb: 'delete', words: ['delete', 'remove', 'destroy', 'purge', 'drop'], how: 'the Delete button on the page of {name} in NetBox, with an account allowed to' },
    { verb: 'create', words: ['create', 'add', 'provision', 'register', 'onboard', 'allocate', 'reserve', 'assign'], how: 'the Add button of the list in NetBox (or POST to its API endpoint)' },
    { verb: 'change', words: ['edit', 'update', 'change', 'modify', 'rename', 'set', 'move', 'patch', 'enable', 'disable', 'shut', 'shutdown', 'shut down', 'no shut', 'bring up', 'bring down', 'bounce', 'renumber', 'turn off', 'turn on'], how: 'Edit on the page of {name} in NetBox (or PATCH its API endpoint)' },
    { verb: 'restart', words: ['restart', 'reboot', 'reload', 'power cycle', 'power-cycle'], how: 'NetBox records devices, it does not run them: use the device itself or your automation' },
    { verb: 'cable', words: ['connect', 'plug', 'patch in', 'unplug', 'disconnect'], how: 'Connect or Disconnect on the interface of {name} in NetBox records a cable; the physical work is yours' },
  ],
};

/** The entities the `query` tool executes (every one declared). */
export const NETBOX_QUERY_ENTITIES = ['devices', 'interfaces', 'sites', 'vlans', 'prefixes', 'cables', 'racks'] as const;
