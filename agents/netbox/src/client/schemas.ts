import { z } from 'zod';

/**
 * NetBox payloads, tolerant (`looseObject`): only what the tools read is declared, anything else passes through
 * unread. Nested objects are NetBox's brief representations.
 */
const Ref = z.looseObject({ id: z.number().int(), name: z.string().nullish(), slug: z.string().nullish(), display: z.string().nullish() });
const Choice = z.looseObject({ value: z.string().nullish(), label: z.string().nullish() });
const Tag = z.looseObject({ slug: z.string().nullish(), name: z.string().nullish() });
const refOrNull = Ref.nullish();

export const Site = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  slug: z.string().nullish(),
  status: Choice.nullish(),
  region: refOrNull,
  facility: z.string().nullish(),
  time_zone: z.string().nullish(),
  description: z.string().nullish(),
  device_count: z.number().nullish(),
  rack_count: z.number().nullish(),
  prefix_count: z.number().nullish(),
  vlan_count: z.number().nullish(),
});
export type Site = z.output<typeof Site>;

export const Device = z.looseObject({
  id: z.number().int(),
  name: z.string().nullish(),
  role: refOrNull,
  device_type: z.looseObject({ model: z.string().nullish(), slug: z.string().nullish(), manufacturer: refOrNull }).nullish(),
  site: refOrNull,
  rack: refOrNull,
  position: z.number().nullish(),
  status: Choice.nullish(),
  platform: refOrNull,
  tenant: refOrNull,
  serial: z.string().nullish(),
  asset_tag: z.string().nullish(),
  primary_ip4: z.looseObject({ address: z.string().nullish() }).nullish(),
  tags: z.array(Tag).nullish(),
  interface_count: z.number().int().nullish(),
  description: z.string().nullish(),
});
export type Device = z.output<typeof Device>;

export const Interface = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  device: refOrNull,
  type: Choice.nullish(),
  enabled: z.boolean().nullish(),
  mgmt_only: z.boolean().nullish(),
  mark_connected: z.boolean().nullish(),
  speed: z.number().nullish(),
  mtu: z.number().nullish(),
  mac_address: z.string().nullish(),
  description: z.string().nullish(),
  cable: refOrNull,
  mode: Choice.nullish(),
  count_ipaddresses: z.number().nullish(),
});
export type Interface = z.output<typeof Interface>;

const Termination = z.looseObject({
  object_type: z.string().nullish(),
  object_id: z.number().nullish(),
  object: z.looseObject({ name: z.string().nullish(), device: refOrNull }).nullish(),
});
export const Cable = z.looseObject({
  id: z.number().int(),
  label: z.string().nullish(),
  type: z.string().nullish(),
  status: Choice.nullish(),
  length: z.number().nullish(),
  length_unit: Choice.nullish(),
  tenant: refOrNull,
  a_terminations: z.array(Termination).nullish(),
  b_terminations: z.array(Termination).nullish(),
});
export type Cable = z.output<typeof Cable>;

export const Module = z.looseObject({
  id: z.number().int(),
  device: refOrNull,
  module_bay: refOrNull,
  module_type: z.looseObject({ model: z.string().nullish(), manufacturer: refOrNull }).nullish(),
  status: Choice.nullish(),
  serial: z.string().nullish(),
});
export type Module = z.output<typeof Module>;

export const Vlan = z.looseObject({
  id: z.number().int(),
  vid: z.number().int(),
  name: z.string(),
  site: refOrNull,
  group: refOrNull,
  status: Choice.nullish(),
  role: refOrNull,
  tenant: refOrNull,
  description: z.string().nullish(),
});
export type Vlan = z.output<typeof Vlan>;

export const Prefix = z.looseObject({
  id: z.number().int(),
  prefix: z.string(),
  site: refOrNull,
  vlan: z.looseObject({ id: z.number().int(), vid: z.number().nullish(), name: z.string().nullish() }).nullish(),
  status: Choice.nullish(),
  role: refOrNull,
  tenant: refOrNull,
  is_pool: z.boolean().nullish(),
  description: z.string().nullish(),
});
export type Prefix = z.output<typeof Prefix>;

export const Rack = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  site: refOrNull,
  status: Choice.nullish(),
  role: refOrNull,
  tenant: refOrNull,
  u_height: z.number().nullish(),
  facility_id: z.string().nullish(),
  description: z.string().nullish(),
  device_count: z.number().nullish(),
});
export type Rack = z.output<typeof Rack>;

export const IpAddress = z.looseObject({
  id: z.number().int(),
  address: z.string(),
  status: Choice.nullish(),
  role: Choice.nullish(),
  dns_name: z.string().nullish(),
  assigned_object: z.looseObject({ name: z.string().nullish(), device: refOrNull }).nullish(),
  description: z.string().nullish(),
});
export type IpAddress = z.output<typeof IpAddress>;

export const AvailableIp = z.looseObject({ address: z.string(), family: z.number().nullish() });
export type AvailableIp = z.output<typeof AvailableIp>;

/** The members of a NetBox list page beside its `results` (read item by item): the total and the page links. */
export const PageMeta = z.object({ count: z.number().int().min(0), next: z.string().nullable(), previous: z.string().nullable() });
