/**
 * NetBox v4.1 objects in their REST API shape: full representations with keys in the serializer's field order, and
 * the brief (nested) representations NetBox embeds in them. URLs carry the estate's origin
 * ({@link NETBOX_ESTATE_ORIGIN}); the simulator rewrites it to its own address when it answers.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** `{"value": "active", "label": "Active"}` */
export interface NetBoxChoice<V extends string | number = string> {
  value: V;
  label: string;
}

export interface NetBoxRef {
  id: number;
  url: string;
  display: string;
}

/** Brief site, tenant, role, platform, manufacturer, VLAN group: `{id,url,display,name,slug,description}`. */
export interface NetBoxNamedRef extends NetBoxRef {
  name: string;
  slug: string;
  description: string;
}

/** Brief region (a tree model, so `_depth` too). */
export interface NetBoxRegionRef extends NetBoxNamedRef {
  _depth: number;
}

export interface NetBoxTagRef extends NetBoxRef {
  name: string;
  slug: string;
  color: string;
}

/** Brief device and brief rack: `{id,url,display,name,description}`. */
export interface NetBoxDeviceRef extends NetBoxRef {
  name: string;
  description: string;
}
export type NetBoxRackRef = NetBoxDeviceRef;

export interface NetBoxDeviceTypeRef extends NetBoxRef {
  manufacturer: NetBoxNamedRef;
  model: string;
  slug: string;
  description: string;
}

export interface NetBoxCableRef extends NetBoxRef {
  label: string;
  description: string;
}

export interface NetBoxInterfaceRef extends NetBoxRef {
  device: NetBoxDeviceRef;
  name: string;
  description: string;
  cable: NetBoxCableRef | null;
  _occupied: boolean;
}

export interface NetBoxVlanRef extends NetBoxRef {
  vid: number;
  name: string;
  description: string;
}

export interface NetBoxIpAddressRef extends NetBoxRef {
  family: NetBoxChoice<number>;
  address: string;
  description: string;
}

export interface NetBoxModuleBayRef extends NetBoxRef {
  name: string;
  description: string;
}

export interface NetBoxModuleTypeRef extends NetBoxRef {
  manufacturer: NetBoxNamedRef;
  model: string;
  description: string;
}

/** Fields every full representation ends with. */
interface NetBoxTail {
  tags: NetBoxTagRef[];
  custom_fields: Record<string, JsonValue>;
  created: string;
  last_updated: string;
}

export interface NetBoxSite extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  name: string;
  slug: string;
  status: NetBoxChoice;
  region: NetBoxRegionRef | null;
  group: NetBoxNamedRef | null;
  tenant: NetBoxNamedRef | null;
  facility: string;
  time_zone: string | null;
  description: string;
  physical_address: string;
  shipping_address: string;
  latitude: number | null;
  longitude: number | null;
  comments: string;
  asns: NetBoxRef[];
  circuit_count: number;
  device_count: number;
  prefix_count: number;
  rack_count: number;
  virtualmachine_count: number;
  vlan_count: number;
}

export interface NetBoxRack extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  name: string;
  facility_id: string | null;
  site: NetBoxNamedRef;
  location: NetBoxNamedRef | null;
  tenant: NetBoxNamedRef | null;
  status: NetBoxChoice;
  role: NetBoxNamedRef | null;
  rack_type: NetBoxRef | null;
  form_factor: NetBoxChoice | null;
  width: NetBoxChoice<number>;
  serial: string;
  asset_tag: string | null;
  u_height: number;
  starting_unit: number;
  weight: number | null;
  max_weight: number | null;
  weight_unit: NetBoxChoice | null;
  desc_units: boolean;
  outer_width: number | null;
  outer_depth: number | null;
  outer_unit: NetBoxChoice | null;
  mounting_depth: number | null;
  airflow: NetBoxChoice | null;
  description: string;
  comments: string;
  device_count: number;
  powerfeed_count: number;
}

export interface NetBoxDevice extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  name: string;
  device_type: NetBoxDeviceTypeRef;
  role: NetBoxNamedRef;
  tenant: NetBoxNamedRef | null;
  platform: NetBoxNamedRef | null;
  serial: string;
  asset_tag: string | null;
  site: NetBoxNamedRef;
  location: NetBoxNamedRef | null;
  rack: NetBoxRackRef | null;
  position: number | null;
  face: NetBoxChoice | null;
  latitude: number | null;
  longitude: number | null;
  parent_device: NetBoxDeviceRef | null;
  status: NetBoxChoice;
  airflow: NetBoxChoice | null;
  primary_ip: NetBoxIpAddressRef | null;
  primary_ip4: NetBoxIpAddressRef | null;
  primary_ip6: NetBoxIpAddressRef | null;
  oob_ip: NetBoxIpAddressRef | null;
  cluster: NetBoxRef | null;
  virtual_chassis: NetBoxRef | null;
  vc_position: number | null;
  vc_priority: number | null;
  description: string;
  comments: string;
  config_template: NetBoxRef | null;
  /** Rendered config context: present unless `exclude=config_context` (or brief, or a `fields` list without it). */
  config_context: JsonObject;
  local_context_data: JsonObject | null;
  console_port_count: number;
  console_server_port_count: number;
  power_port_count: number;
  power_outlet_count: number;
  interface_count: number;
  front_port_count: number;
  rear_port_count: number;
  device_bay_count: number;
  module_bay_count: number;
  inventory_item_count: number;
}

/** A cable end: `{object_type: "dcim.interface", object_id, object: <brief interface>}`. */
export interface NetBoxTermination {
  object_type: 'dcim.interface';
  object_id: number;
  object: NetBoxInterfaceRef;
}

export interface NetBoxInterface extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  device: NetBoxDeviceRef;
  vdcs: NetBoxRef[];
  module: NetBoxRef | null;
  name: string;
  label: string;
  type: NetBoxChoice;
  enabled: boolean;
  parent: NetBoxInterfaceRef | null;
  bridge: NetBoxInterfaceRef | null;
  lag: NetBoxInterfaceRef | null;
  mtu: number | null;
  mac_address: string | null;
  speed: number | null;
  duplex: NetBoxChoice | null;
  wwn: string | null;
  mgmt_only: boolean;
  description: string;
  mode: NetBoxChoice | null;
  rf_role: NetBoxChoice | null;
  rf_channel: NetBoxChoice | null;
  poe_mode: NetBoxChoice | null;
  poe_type: NetBoxChoice | null;
  rf_channel_frequency: number | null;
  rf_channel_width: number | null;
  tx_power: number | null;
  untagged_vlan: NetBoxVlanRef | null;
  tagged_vlans: NetBoxVlanRef[];
  mark_connected: boolean;
  cable: NetBoxCableRef | null;
  cable_end: string;
  wireless_link: NetBoxRef | null;
  link_peers: NetBoxInterfaceRef[];
  link_peers_type: string | null;
  wireless_lans: NetBoxRef[];
  vrf: NetBoxRef | null;
  l2vpn_termination: NetBoxRef | null;
  connected_endpoints: NetBoxInterfaceRef[] | null;
  connected_endpoints_type: string | null;
  connected_endpoints_reachable: boolean | null;
  count_ipaddresses: number;
  count_fhrp_groups: number;
  _occupied: boolean;
}

export interface NetBoxCable extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  type: string;
  a_terminations: NetBoxTermination[];
  b_terminations: NetBoxTermination[];
  status: NetBoxChoice;
  tenant: NetBoxNamedRef | null;
  label: string;
  color: string;
  length: number | null;
  length_unit: NetBoxChoice | null;
  description: string;
  comments: string;
}

export interface NetBoxModule extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  device: NetBoxDeviceRef;
  module_bay: NetBoxModuleBayRef;
  module_type: NetBoxModuleTypeRef;
  status: NetBoxChoice;
  serial: string;
  asset_tag: string | null;
  description: string;
  comments: string;
}

export interface NetBoxVlan extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  site: NetBoxNamedRef | null;
  group: NetBoxNamedRef | null;
  vid: number;
  name: string;
  tenant: NetBoxNamedRef | null;
  status: NetBoxChoice;
  role: NetBoxNamedRef | null;
  description: string;
  comments: string;
  l2vpn_termination: NetBoxRef | null;
  prefix_count: number;
}

export interface NetBoxPrefix extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  family: NetBoxChoice<number>;
  prefix: string;
  site: NetBoxNamedRef | null;
  vrf: NetBoxRef | null;
  tenant: NetBoxNamedRef | null;
  vlan: NetBoxVlanRef | null;
  status: NetBoxChoice;
  role: NetBoxNamedRef | null;
  is_pool: boolean;
  mark_utilized: boolean;
  description: string;
  comments: string;
  children: number;
  _depth: number;
}

export interface NetBoxIpAddress extends NetBoxTail {
  id: number;
  url: string;
  display_url: string;
  display: string;
  family: NetBoxChoice<number>;
  address: string;
  vrf: NetBoxRef | null;
  tenant: NetBoxNamedRef | null;
  status: NetBoxChoice;
  role: NetBoxChoice | null;
  assigned_object_type: 'dcim.interface' | null;
  assigned_object_id: number | null;
  assigned_object: NetBoxInterfaceRef | null;
  nat_inside: NetBoxIpAddressRef | null;
  nat_outside: NetBoxIpAddressRef[];
  dns_name: string;
  description: string;
  comments: string;
}

/**
 * A whole NetBox estate. The nine served models come sorted by id (ids run 1..n); the catalogs (tags, roles,
 * regions, manufacturers, platforms) are the brief objects the served ones refer to, kept so that filters can tell
 * an unknown slug from one nothing happens to use.
 */
export interface NetBoxEstate {
  sites: NetBoxSite[];
  racks: NetBoxRack[];
  devices: NetBoxDevice[];
  interfaces: NetBoxInterface[];
  cables: NetBoxCable[];
  modules: NetBoxModule[];
  vlans: NetBoxVlan[];
  prefixes: NetBoxPrefix[];
  ipAddresses: NetBoxIpAddress[];
  tags: NetBoxTagRef[];
  deviceRoles: NetBoxNamedRef[];
  ipamRoles: NetBoxNamedRef[];
  regions: NetBoxRegionRef[];
  manufacturers: NetBoxNamedRef[];
  platforms: NetBoxNamedRef[];
}
