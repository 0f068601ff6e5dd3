import { z } from 'zod';
import { QUERY_OUTPUT, READ_RESULT_OUTPUT, VALUE_ITEM, listPageOutput, objectOutput } from '@flotilla/bounded-tools';
import { NETBOX_MODEL_NAMES, type NetBoxModel } from '../client/netbox-client.js';

/**
 * The output schemas of the NetBox tools (`structuredContent`, advertised as each tool's `outputSchema`), built
 * once per process. Rows leave out what NetBox does not say (`compact`), so items are loose objects: the fields
 * named here are typed, the rest pass through. An agent validates a result with the same schema
 * (`mcpToolCaller(client, { schemas: NETBOX_OUTPUT_SCHEMAS })`).
 */

const str = z.string().optional();
const int = z.number().int().optional();

export const NETBOX_MODEL = z.enum(NETBOX_MODEL_NAMES as [NetBoxModel, ...NetBoxModel[]]);

/** Every row has its NetBox id. */
export const NETBOX_ROW = z.looseObject({ id: z.number().int() });

export const SITE_ITEM = NETBOX_ROW.extend({ name: str, slug: str, status: str, region: str, facility: str, devices: int, racks: int, prefixes: int, vlans: int });
export const DEVICE_ITEM = NETBOX_ROW.extend({
  name: str,
  role: str,
  type: str,
  site: str,
  rack: str,
  status: str,
  primary_ip: str,
  interfaces: int,
  tags: z.array(z.string()).optional(),
});
export const INTERFACE_ITEM = NETBOX_ROW.extend({
  device: str,
  name: str,
  type: str,
  enabled: z.boolean().optional(),
  cabled: z.boolean().optional(),
  mgmt_only: z.literal(true).optional(),
  ips: int,
  description: str,
});
export const PREFIX_ITEM = NETBOX_ROW.extend({ prefix: str, site: str, vlan: str, status: str, role: str, is_pool: z.literal(true).optional() });
export const IP_ADDRESS_ITEM = NETBOX_ROW.extend({ address: str, status: str, role: str, dns_name: str, device: str, interface: str });

export const COUNT_OUTPUT = objectOutput(z.strictObject({ object_type: NETBOX_MODEL, count: z.number().int().min(0), filters: z.record(z.string(), z.unknown()) }));

/** get_netbox_object: the object's row and its type. */
export const OBJECT_OUTPUT = objectOutput(NETBOX_ROW.extend({ object_type: NETBOX_MODEL }));

export const PREFIX_USAGE_OUTPUT = objectOutput(
  PREFIX_ITEM.extend({
    usable: int,
    used: z.number().int().min(0),
    free: int,
    utilisation_percent: z.number().optional(),
    first_free: z.array(z.string()).optional(),
    next_step: z.string(),
  }),
);

export const SEARCH_OUTPUT = objectOutput(
  z.strictObject({
    query: z.string(),
    total: z.number().int().min(0),
    totals_by_type: z.record(z.string(), z.number().int().min(0)),
    matches: z.array(NETBOX_ROW.extend({ object: NETBOX_MODEL })),
    next_step: z.string(),
  }),
);

/** Every NetBox tool's output schema, by tool name. */
export const NETBOX_OUTPUT_SCHEMAS = {
  list_sites: listPageOutput(SITE_ITEM),
  list_devices: listPageOutput(DEVICE_ITEM),
  list_vlans: listPageOutput(NETBOX_ROW),
  list_prefixes: listPageOutput(PREFIX_ITEM),
  list_ip_addresses: listPageOutput(IP_ADDRESS_ITEM),
  list_modules: listPageOutput(NETBOX_ROW),
  list_cables: listPageOutput(NETBOX_ROW),
  list_interfaces: listPageOutput(INTERFACE_ITEM),
  count_netbox_objects: COUNT_OUTPUT,
  get_netbox_object: OBJECT_OUTPUT,
  get_prefix_usage: PREFIX_USAGE_OUTPUT,
  search_netbox: SEARCH_OUTPUT,
  query: QUERY_OUTPUT,
  list_values: listPageOutput(VALUE_ITEM),
  read_result: READ_RESULT_OUTPUT,
} as const satisfies Readonly<Record<string, z.ZodType>>;
