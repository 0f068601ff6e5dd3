import type { JsonObject, JsonValue } from '@flotilla/bounded-tools';
import type { ItemOf, NetBoxModel } from '../client/netbox-client.js';
import type { Cable, Device, Interface, IpAddress, Module, Prefix, Rack, Site, Vlan } from '../client/schemas.js';

/** Drop undefined, null and empty values so compact rows stay compact. */
export function compact(entries: Record<string, JsonValue | undefined | null>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out;
}

type Ref = { name?: string | null | undefined; slug?: string | null | undefined; display?: string | null | undefined } | null | undefined;
const refName = (ref: Ref): string | undefined => ref?.name ?? ref?.display ?? ref?.slug ?? undefined;
const refSlug = (ref: Ref): string | undefined => ref?.slug ?? ref?.name ?? undefined;

export function siteRow(s: Site): JsonObject {
  return compact({
    id: s.id,
    name: s.name,
    slug: s.slug,
    status: s.status?.value,
    region: refName(s.region),
    facility: s.facility,
    devices: s.device_count,
    racks: s.rack_count,
    prefixes: s.prefix_count,
    vlans: s.vlan_count,
  });
}

export function deviceRow(d: Device): JsonObject {
  return compact({
    id: d.id,
    name: d.name,
    role: refSlug(d.role),
    type: d.device_type?.model,
    site: refSlug(d.site),
    rack: refName(d.rack),
    status: d.status?.value,
    primary_ip: d.primary_ip4?.address,
    interfaces: d.interface_count,
    tags: (d.tags ?? []).map((t) => t.slug ?? t.name ?? '').filter((t) => t.length > 0),
  });
}

export function interfaceRow(i: Interface): JsonObject {
  return compact({
    id: i.id,
    device: refName(i.device),
    name: i.name,
    type: i.type?.value,
    enabled: i.enabled,
    cabled: i.cable !== null && i.cable !== undefined,
    mgmt_only: i.mgmt_only === true ? true : undefined,
    ips: i.count_ipaddresses === 0 ? undefined : i.count_ipaddresses,
    description: i.description,
  });
}

function termination(ends: Cable['a_terminations']): string | undefined {
  const first = ends?.[0];
  if (first === undefined) return undefined;
  const device = refName(first.object?.device);
  const name = first.object?.name;
  const more = (ends?.length ?? 0) > 1 ? ` (+${(ends?.length ?? 1) - 1})` : '';
  return `${device ?? '?'}:${name ?? first.object_id ?? '?'}${more}`;
}

export function cableRow(c: Cable): JsonObject {
  return compact({
    id: c.id,
    label: c.label,
    a: termination(c.a_terminations),
    b: termination(c.b_terminations),
    type: c.type,
    status: c.status?.value,
    length: c.length === null || c.length === undefined ? undefined : `${c.length}${c.length_unit?.value === undefined || c.length_unit.value === null ? '' : ` ${c.length_unit.value}`}`,
  });
}

export function moduleRow(m: Module): JsonObject {
  return compact({ id: m.id, device: refName(m.device), bay: refName(m.module_bay), type: m.module_type?.model, status: m.status?.value, serial: m.serial });
}

export function rackRow(r: Rack): JsonObject {
  return compact({ id: r.id, name: r.name, site: refSlug(r.site), status: r.status?.value, tenant: refName(r.tenant), u_height: r.u_height ?? undefined, device_count: r.device_count ?? undefined });
}

export function vlanRow(v: Vlan): JsonObject {
  return compact({ id: v.id, vid: v.vid, name: v.name, site: refSlug(v.site), group: refName(v.group), status: v.status?.value, role: refSlug(v.role) });
}

export function prefixRow(p: Prefix): JsonObject {
  return compact({
    id: p.id,
    prefix: p.prefix,
    site: refSlug(p.site),
    vlan: p.vlan === null || p.vlan === undefined ? undefined : `${p.vlan.vid ?? ''} ${p.vlan.name ?? ''}`.trim(),
    status: p.status?.value,
    role: refSlug(p.role),
    is_pool: p.is_pool === true ? true : undefined,
  });
}

export function ipRow(ip: IpAddress): JsonObject {
  return compact({
    id: ip.id,
    address: ip.address,
    status: ip.status?.value,
    role: ip.role?.value,
    dns_name: ip.dns_name,
    device: refName(ip.assigned_object?.device),
    interface: ip.assigned_object?.name,
  });
}

/** The compact row of any model, for generic tools (get, search). */
export function rowOf<M extends NetBoxModel>(model: M, item: ItemOf<M>): JsonObject {
  switch (model) {
    case 'sites':
      return siteRow(item as Site);
    case 'devices':
      return deviceRow(item as Device);
    case 'interfaces':
      return interfaceRow(item as Interface);
    case 'racks':
      return rackRow(item as Rack);
    case 'cables':
      return cableRow(item as Cable);
    case 'modules':
      return moduleRow(item);
    case 'vlans':
      return vlanRow(item as Vlan);
    case 'prefixes':
      return prefixRow(item as Prefix);
    case 'ip_addresses':
      return ipRow(item as IpAddress);
    default:
      throw new Error(`no row view for ${String(model)}`);
  }
}

/** A row's string field, for aggregates. */
export function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'boolean' || typeof value === 'number' ? String(value) : undefined;
}

/** Addresses in an IPv4 prefix that can be assigned (network and broadcast excluded below /31), or undefined for IPv6. */
export function usableAddresses(cidr: string, isPool: boolean): number | undefined {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(cidr);
  if (match === null) return undefined;
  const length = Number(match[2]);
  const size = 2 ** (32 - length);
  return isPool || length >= 31 ? size : size - 2;
}
