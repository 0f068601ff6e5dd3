// The NetBox tools as the agent's plans, probes and answers name them: which object each list tool lists, the
// filters a count takes, and the small helper over tool arguments the three share.

/** A tool call's arguments. */
export type Args = Record<string, unknown>;

/** The object kind each list tool lists (the `object_type` of count_netbox_objects). */
export const LIST_TOOLS: Readonly<Record<string, string>> = {
  list_sites: 'sites',
  list_devices: 'devices',
  list_interfaces: 'interfaces',
  list_cables: 'cables',
  list_vlans: 'vlans',
  list_prefixes: 'prefixes',
  list_ip_addresses: 'ip_addresses',
  list_modules: 'modules',
};

/** Filters count_netbox_objects takes (list tools take a few more). */
export const COUNT_FILTERS = ['site', 'role', 'status', 'tag', 'device', 'device_id', 'parent', 'vid', 'q'] as const;

/** The arguments that have a value. */
export const defined = (args: Args): Args => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
