import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { LIMITS, PAGE_SHAPE, SNAPSHOT_DEFAULTS, SNAPSHOT_SHAPE, computeCounts, listPageOutput, type BoundedTools, type JsonObject, type ToolPayload } from '@flotilla/bounded-tools';
import { representativeSample, sampleSize } from '@flotilla/limitations';
import { NETBOX_MODEL_NAMES, type Filters, type NetBoxClient, type NetBoxModel, type WalkLimits, type WalkResult } from '../client/netbox-client.js';
import type { Interface } from '../client/schemas.js';
import { COUNT_OUTPUT, DEVICE_ITEM, INTERFACE_ITEM, IP_ADDRESS_ITEM, NETBOX_ROW, OBJECT_OUTPUT, PREFIX_ITEM, PREFIX_USAGE_OUTPUT, SEARCH_OUTPUT, SITE_ITEM } from './outputs.js';
import { registerNetBoxQueryTool, registerNetBoxValuesTool } from './query.js';
import { compact, interfaceRow, prefixRow, rowOf, text, usableAddresses } from './views.js';

const slug = (what: string) =>
  z
    .string({ message: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(100, `${what} must be at most 100 characters`)
    .regex(/^[-\w]+$/, `${what} must be a slug: letters, digits, - and _ (e.g. "ams1")`);
const name = (what: string) => z.string({ message: `${what} must be a string` }).min(1, `${what} must not be empty`).max(128, `${what} must be at most 128 characters`);
const id = (what: string) => z.number({ message: `${what} must be a number` }).int(`${what} must be a whole number`).min(1, `${what} must be >= 1`).max(2_147_483_647);

/** Parent ids one relation call may name. */
export const MAX_IDS = 1_000;
const ids = (what: string) =>
  z
    .union([id(what), z.array(id(what)).min(1, `${what} must not be empty`).max(MAX_IDS, `at most ${MAX_IDS} ${what}s`)])
    .optional()
    .describe(`One ${what} or a list of up to ${MAX_IDS} (any of them; NetBox ORs repeated filters).`);

const STATUSES = ['active', 'planned', 'staged', 'failed', 'offline', 'decommissioning', 'inventory', 'reserved', 'deprecated', 'connected', 'container', 'available', 'dhcp', 'slaac', 'retired'] as const;
const status = z.enum(STATUSES, { message: `status must be one of ${STATUSES.join(', ')}` }).optional().describe('NetBox status value (e.g. active, offline, planned).');
const q = z.string().min(1).max(100, 'q must be at most 100 characters').optional().describe('NetBox search (q): part of a name, description, serial or address.');
const cidr = z
  .string({ message: 'prefix must be a string' })
  .max(50)
  .regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'prefix must be CIDR notation, e.g. "10.12.3.0/24"');

const PAGE = { limit: PAGE_SHAPE.limit, offset: PAGE_SHAPE.offset };

const asList = (value: number | readonly number[] | undefined): readonly number[] | undefined => (value === undefined ? undefined : typeof value === 'number' ? [value] : value);

export interface NetBoxToolsOptions {
  /** Bounds of one relation walk (calls, items, ids per request). */
  readonly walk: WalkLimits;
}

/** Notes a relation walk adds to its result: calls made, early stop, sampling. */
function walkNotes(walk: WalkResult<unknown>, naive: number | undefined, sampled: { shown: number; of: number } | undefined): string[] {
  const notes = [`Read with ${walk.calls} NetBox request${walk.calls === 1 ? '' : 's'}${naive === undefined ? '' : ` (one per device would take ${naive})`}.`];
  if (sampled !== undefined) notes.push(`Sampled ${sampled.shown} of ${sampled.of} devices, spread across the list; call again without sample for all of them (exact).`);
  if (walk.stoppedEarly !== undefined) {
    notes.push(`Stopped early: ${walk.stoppedEarly.message}. ${walk.stoppedEarly.remedy ?? ''} The items are the first ${walk.items.length.toLocaleString('en-US')} of ${walk.count.toLocaleString('en-US')}.`.trim());
  }
  return notes;
}

// The tools' arguments and outputs: module constants, built once per process (a server per request must not rebuild them).

/** A list read page by page from NetBox itself: one request per page, the total from NetBox's count. */
interface PagedList {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly model: NetBoxModel;
  /** The filters and the page arguments, built once per process. */
  readonly input: z.ZodObject;
  readonly item: z.ZodType;
  readonly toQuery: (args: Record<string, unknown>) => Filters;
}

function pagedList<F extends z.ZodObject>(spec: Omit<PagedList, 'input' | 'toQuery'> & { readonly filters: F; readonly toQuery: (filters: z.output<F>) => Filters }): PagedList {
  const { filters, toQuery, ...rest } = spec;
  return { ...rest, input: filters.extend(PAGE), toQuery: (args) => toQuery(args as z.output<F>) };
}

const PAGED_LISTS: readonly PagedList[] = [
  pagedList({
    name: 'list_sites',
    title: 'List NetBox sites',
    description: 'Sites with their device, rack, prefix and VLAN counts, one page at a time.',
    item: SITE_ITEM,
    model: 'sites',
    filters: z.strictObject({ status, region: slug('region').optional(), q }),
    toQuery: (f) => ({ status: f.status, region: f.region, q: f.q }),
  }),
  pagedList({
    name: 'list_devices',
    title: 'List NetBox devices',
    description: 'Devices filtered by site, role, status, tag or search, one page at a time (total from NetBox). Use count_netbox_objects for totals only.',
    item: DEVICE_ITEM,
    model: 'devices',
    filters: z.strictObject({
      site: slug('site').optional().describe('Site slug, e.g. "ams1".'),
      role: slug('role').optional().describe('Device role slug, e.g. "switch", "router", "firewall", "server".'),
      status,
      tag: slug('tag').optional(),
      rack_id: id('rack_id').optional(),
      q,
    }),
    toQuery: (f) => ({ site: f.site, role: f.role, status: f.status, tag: f.tag, rack_id: f.rack_id, q: f.q }),
  }),
  pagedList({
    name: 'list_vlans',
    title: 'List NetBox VLANs',
    description: 'VLANs filtered by site, VLAN id, status, role or search, one page at a time.',
    item: NETBOX_ROW,
    model: 'vlans',
    filters: z.strictObject({ site: slug('site').optional(), vid: z.number().int().min(1).max(4094, 'vid must be 1-4094').optional(), status, role: slug('role').optional(), q }),
    toQuery: (f) => ({ site: f.site, vid: f.vid, status: f.status, role: f.role, q: f.q }),
  }),
  pagedList({
    name: 'list_prefixes',
    title: 'List NetBox prefixes',
    description: 'IP prefixes filtered by site, status, role, VLAN or search, one page at a time. get_prefix_usage tells used and free addresses of one.',
    item: PREFIX_ITEM,
    model: 'prefixes',
    filters: z.strictObject({ site: slug('site').optional(), status, role: slug('role').optional(), vlan_id: id('vlan_id').optional(), q }),
    toQuery: (f) => ({ site: f.site, status: f.status, role: f.role, vlan_id: f.vlan_id, q: f.q }),
  }),
  pagedList({
    name: 'list_ip_addresses',
    title: 'List NetBox IP addresses',
    description: 'IP addresses inside a prefix (parent), of a device, or matching a search, one page at a time: the used addresses of a prefix.',
    item: IP_ADDRESS_ITEM,
    model: 'ip_addresses',
    filters: z.strictObject({ parent: cidr.optional().describe('Only addresses inside this prefix (CIDR).'), device: name('device').optional(), device_id: id('device_id').optional(), status, q }),
    toQuery: (f) => ({ parent: f.parent, device: f.device, device_id: f.device_id, status: f.status, q: f.q }),
  }),
  pagedList({
    name: 'list_modules',
    title: 'List NetBox modules',
    description: 'Modules (line cards, power supplies, optics) of a device or site, one page at a time.',
    item: NETBOX_ROW,
    model: 'modules',
    filters: z.strictObject({ device: name('device').optional(), device_id: ids('device_id'), site: slug('site').optional(), status }),
    toQuery: (f) => ({ device: f.device, device_id: asList(f.device_id), site: f.site, status: f.status }),
  }),
  pagedList({
    name: 'list_cables',
    title: 'List NetBox cables',
    description: 'Cables of a site or of devices (both ends shown as device:interface), one page at a time.',
    item: NETBOX_ROW,
    model: 'cables',
    filters: z.strictObject({ site: slug('site').optional(), device: name('device').optional(), device_id: ids('device_id'), status }),
    toQuery: (f) => ({ site: f.site, device: f.device, device_id: asList(f.device_id), status: f.status }),
  }),
];

const InterfaceFilters = z.strictObject({
  device: name('device').optional().describe('One device by name.'),
  device_id: ids('device_id'),
  site: slug('site').optional().describe('Every device at this site.'),
  role: slug('role').optional().describe('Only devices of this role (with site or device_id).'),
  type: z.string().min(1).max(64).optional().describe('Interface type value, e.g. "1000base-t", "10gbase-x-sfpp".'),
  enabled: z.boolean().optional(),
  cabled: z.boolean().optional(),
  mgmt_only: z.boolean().optional(),
  sample: z.boolean().default(false).describe('A quick look: interfaces of a representative sample of the devices (few requests), not all.'),
});
const InterfaceInput = InterfaceFilters.extend(PAGE).extend(SNAPSHOT_SHAPE);

const objectTypes = z.enum(NETBOX_MODEL_NAMES as [NetBoxModel, ...NetBoxModel[]], { message: `object_type must be one of ${NETBOX_MODEL_NAMES.join(', ')}` });

const CountInput = z.strictObject({
  object_type: objectTypes,
  site: slug('site').optional(),
  role: slug('role').optional(),
  status,
  tag: slug('tag').optional(),
  device: name('device').optional(),
  device_id: ids('device_id'),
  parent: cidr.optional(),
  vid: z.number().int().min(1).max(4094).optional(),
  q,
});

const GetObjectInput = z.strictObject({ object_type: objectTypes, id: id('id').optional(), name: name('name').optional() });

const PrefixUsageInput = z.strictObject({
  prefix: cidr.optional().describe('The prefix in CIDR notation.'),
  id: id('id').optional(),
  free_shown: z.number().int().min(0).max(100, 'free_shown must be 0-100').default(10).describe('Free addresses to list (default 10).'),
});

const SEARCHABLE = ['sites', 'devices', 'vlans', 'prefixes', 'ip_addresses', 'cables', 'modules'] as const satisfies readonly NetBoxModel[];
const SearchInput = z.strictObject({
  query: z.string({ message: 'query must be a string' }).min(2, 'query must be at least 2 characters').max(LIMITS.queryMaxLength, `query must be at most ${LIMITS.queryMaxLength} characters`),
  types: z
    .array(z.enum(SEARCHABLE, { message: `types must be among ${SEARCHABLE.join(', ')}` }))
    .min(1)
    .max(SEARCHABLE.length)
    .default([...SEARCHABLE]),
  per_type: z.number().int().min(1).max(25, 'per_type must be 1-25').default(5).describe('Matches shown per type (default 5).'),
});

export function registerNetBoxTools(kit: BoundedTools, client: NetBoxClient, options: NetBoxToolsOptions): void {
  for (const spec of PAGED_LISTS) {
    kit.register({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      input: spec.input,
      output: listPageOutput(spec.item),
      run: async (args, ctx): Promise<ToolPayload> => {
        const all = args as Record<string, unknown> & { limit: number; offset: number };
        const page = await client.page(spec.model, spec.toQuery(all), { limit: all.limit, offset: all.offset }, ctx.signal);
        return {
          kind: 'page',
          itemKind: spec.model,
          total: page.count,
          offset: all.offset,
          limit: all.limit,
          items: page.results.map((item) => rowOf(spec.model, item)),
          nextCall: (next) => `${spec.name} with the same filters and offset ${next}`,
        };
      },
    });
  }

  kit.register({
    name: 'list_interfaces',
    title: 'List NetBox interfaces',
    description:
      'Interfaces of one device, of many devices (device_id list), or of every device at a site (optionally one role). ' +
      'Many devices are read exactly in few requests (repeated-id batches or a site filter, never one request per device); ' +
      'the result carries counts by device, type and state, and large results come back with a result_id for read_result. ' +
      `Later pages of a many-device read with the same filters come from the interfaces as first read (up to ${SNAPSHOT_DEFAULTS.ttlSeconds} s old; refresh true reads anew).`,
    input: InterfaceInput,
    output: listPageOutput(INTERFACE_ITEM),
    run: async (args, ctx): Promise<ToolPayload> => {
      const common: Filters = { type: args.type, enabled: args.enabled, cabled: args.cabled, mgmt_only: args.mgmt_only };
      const deviceIds = asList(args.device_id);
      const many = args.site !== undefined || (deviceIds !== undefined && deviceIds.length > 1);
      if (!many) {
        if (args.device === undefined && deviceIds === undefined) {
          throw new FlotillaError('invalid_argument', 'list_interfaces needs a device, device_id or site', {
            remedy: 'Name a device ("ams1-sw-001"), device ids, or a site (with a role to narrow it).',
          });
        }
        const page = await client.page('interfaces', { ...common, device: args.device, device_id: deviceIds, role: args.role }, { limit: args.limit, offset: args.offset }, ctx.signal);
        return {
          kind: 'page',
          itemKind: 'interfaces',
          total: page.count,
          offset: args.offset,
          limit: args.limit,
          items: page.results.map(interfaceRow),
          nextCall: (next) => `list_interfaces with the same filters and offset ${next}`,
        };
      }
      // A relation walk reads the whole set (tens of requests for a big site): later pages come from its snapshot.
      const load = async () => {
        let walk: WalkResult<Interface>;
        let naive: number | undefined;
        let sampled: { shown: number; of: number } | undefined;
        if (args.sample) {
          // A quick look: list the parents (ids only), take a spread sample, read its interfaces in one batch.
          const parents = await client.walk('devices', { site: args.site, role: args.role, id: deviceIds }, { ...options.walk, maxCalls: Math.min(5, options.walk.maxCalls) }, ctx.signal);
          const all = parents.items.map((d) => d.id);
          const chosen = representativeSample(all, sampleSize(all.length, 'interfaces'));
          sampled = { shown: chosen.length, of: parents.count };
          naive = 1 + parents.count;
          const children = await client.walkByIds('interfaces', 'device_id', chosen, { ...common }, { ...options.walk, maxCalls: options.walk.maxCalls - parents.calls }, ctx.signal);
          walk = { ...children, calls: children.calls + parents.calls };
        } else if (deviceIds !== undefined) {
          // Parents by id: repeated-id batches, each paged; about ids / idsPerBatch + pages requests.
          naive = deviceIds.length;
          walk = await client.walkByIds('interfaces', 'device_id', deviceIds, { ...common, site: args.site, role: args.role }, options.walk, ctx.signal);
        } else {
          // Every device of a site (and role): NetBox filters interfaces by the device's site and role itself.
          walk = await client.walk('interfaces', { ...common, site: args.site, role: args.role }, options.walk, ctx.signal);
        }
        const rows = walk.items.map(interfaceRow);
        return {
          items: rows,
          counts: computeCounts(rows, {
            by_device: (r) => text(r.device),
            by_type: (r) => text(r.type),
            by_enabled: (r) => text(r.enabled),
            by_cabled: (r) => text(r.cabled),
          }),
          notes: walkNotes(walk, naive, sampled),
          // A walk cut short by a rate limit or an outage is partial for now: the next call reads again. One that
          // stopped at its call cap stops there every time: later pages may come from it.
          reusable: walk.stoppedEarly === undefined || walk.stoppedEarly.code === 'payload_too_large',
        };
      };
      return {
        kind: 'snapshot_list',
        itemKind: 'interfaces',
        page: { limit: args.limit, offset: args.offset },
        query: JSON.parse(JSON.stringify({ ...args, limit: undefined, offset: undefined, refresh: undefined })) as JsonObject,
        refresh: args.refresh,
        load,
      };
    },
  });

  kit.register({
    name: 'count_netbox_objects',
    title: 'Count NetBox objects',
    description: 'How many objects match, without reading them (one cheap request). Use it before listing large sets.',
    input: CountInput,
    output: COUNT_OUTPUT,
    run: async (args, ctx) => {
      const { object_type: model, device_id, ...rest } = args;
      const count = await client.count(model, { ...rest, device_id: asList(device_id) }, ctx.signal);
      return { kind: 'object', data: compact({ object_type: model, count, filters: compact({ ...rest, device_id: asList(device_id) as number[] | undefined }) }) };
    },
  });

  kit.register({
    name: 'get_netbox_object',
    title: 'Get one NetBox object',
    description:
      'One site, rack, device, interface, cable, module, VLAN, prefix or IP address, by id or by its name (a site by slug, a prefix by CIDR, an IP by address).',
    input: GetObjectInput,
    output: OBJECT_OUTPUT,
    run: async (args, ctx) => {
      if (args.id === undefined && args.name === undefined) {
        throw new FlotillaError('invalid_argument', 'get_netbox_object needs an id or a name', { remedy: 'Give the id a list returned, or the exact name.' });
      }
      const byName: Record<NetBoxModel, string> = {
        sites: 'slug',
        devices: 'name',
        interfaces: 'name',
        racks: 'name',
        cables: 'label',
        modules: 'serial',
        vlans: 'name',
        prefixes: 'prefix',
        ip_addresses: 'address',
      };
      const item =
        args.id !== undefined
          ? await client.get(args.object_type, args.id, ctx.signal)
          : await client.findOne(args.object_type, { [byName[args.object_type]]: args.name }, `${args.object_type.replace(/s$/, '').replace('_', ' ')} with ${byName[args.object_type]} "${args.name ?? ''}"`, ctx.signal);
      return { kind: 'object', data: { object_type: args.object_type, ...rowOf(args.object_type, item) }, overflowHint: 'Ask for a list with filters instead.' };
    },
  });

  kit.register({
    name: 'get_prefix_usage',
    title: 'Used and free addresses of a prefix',
    description: 'For one prefix: its size, used and free address counts, utilisation, and the first free addresses. list_ip_addresses with parent lists the used ones.',
    input: PrefixUsageInput,
    output: PREFIX_USAGE_OUTPUT,
    run: async (args, ctx) => {
      if (args.prefix === undefined && args.id === undefined) {
        throw new FlotillaError('invalid_argument', 'get_prefix_usage needs a prefix or an id', { remedy: 'Give the prefix in CIDR notation, e.g. "10.12.3.0/24".' });
      }
      const prefix = args.id !== undefined ? await client.get('prefixes', args.id, ctx.signal) : await client.findOne('prefixes', { prefix: args.prefix }, `prefix ${args.prefix ?? ''}`, ctx.signal);
      const [used, free] = await Promise.all([
        client.count('ip_addresses', { parent: prefix.prefix }, ctx.signal),
        args.free_shown > 0 ? client.availableIps(prefix.id, args.free_shown, ctx.signal) : Promise.resolve([]),
      ]);
      const size = usableAddresses(prefix.prefix, prefix.is_pool === true);
      return {
        kind: 'object',
        data: compact({
          ...prefixRow(prefix),
          usable: size,
          used,
          free: size === undefined ? undefined : Math.max(0, size - used),
          utilisation_percent: size === undefined || size === 0 ? undefined : Math.round((used / size) * 1000) / 10,
          first_free: free.map((f) => f.address),
          next_step: 'Used addresses: list_ip_addresses with parent set to this prefix.',
        }),
      };
    },
  });

  kit.register({
    name: 'search_netbox',
    title: 'Search NetBox',
    description: 'Search several object types at once with NetBox\'s q search: totals per type and the first matches of each. Use it first when a question names something.',
    input: SearchInput,
    output: SEARCH_OUTPUT,
    run: async (args, ctx) => {
      const pages = await Promise.all(args.types.map(async (model) => ({ model, page: await client.page(model, { q: args.query }, { limit: args.per_type, offset: 0 }, ctx.signal) })));
      const totals = Object.fromEntries(pages.map(({ model, page }) => [model, page.count]));
      const matches = pages.flatMap(({ model, page }) => page.results.map((item) => ({ ...rowOf(model, item), object: model })));
      const total = pages.reduce((sum, { page }) => sum + page.count, 0);
      return {
        kind: 'object',
        data: {
          query: args.query,
          total,
          totals_by_type: totals,
          matches,
          next_step: total > matches.length ? 'All matches of one type: its list tool with q set to the query.' : 'These are all the matches.',
        },
        overflowHint: 'Search fewer types or lower per_type.',
      };
    },
  });

  // The typed query and the values its lexicon reads (tools/query.ts).
  registerNetBoxQueryTool(kit, client, options);
  registerNetBoxValuesTool(kit, client, options);

  kit.registerReadResult();
}

/** The tool names the NetBox MCP server registers, in order. */
export const NETBOX_TOOLS = [
  'list_sites',
  'list_devices',
  'list_vlans',
  'list_prefixes',
  'list_ip_addresses',
  'list_modules',
  'list_cables',
  'list_interfaces',
  'count_netbox_objects',
  'get_netbox_object',
  'get_prefix_usage',
  'search_netbox',
  'query',
  'list_values',
  'read_result',
] as const;
export type NetBoxToolName = (typeof NETBOX_TOOLS)[number];

export { NETBOX_OUTPUT_SCHEMAS } from './outputs.js';
