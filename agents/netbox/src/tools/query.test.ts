import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningMcpServer } from '@flotilla/bounded-tools';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import type { Query, Where } from '@flotilla/query';
import { generateNetBoxEstate, startNetBoxSimulator, type NetBoxDevice, type NetBoxInterface, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { NETBOX_MCP_SETTINGS } from '../config.js';
import { startNetBoxMcpServer } from '../server.js';

/**
 * The `query` tool against the NetBox simulator, over MCP: queries generated from the declared fields with values
 * from the estate (conditions, negations, OR-lists, conjunctions of fields NetBox filters and fields the tool
 * evaluates), their counts and breakdowns compared with a plain evaluation over the raw estate written here.
 */
const TOKEN = 'query-token-0123456789';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
let server: RunningMcpServer;
let mcp: Client;

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-netbox-query-'));
  const config = parseSettings(NETBOX_MCP_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': TOKEN, 'data-dir': dataDir }, {}, 'test');
  server = await startNetBoxMcpServer(config, { logger: silentLogger(), metrics: createMetrics() });
  mcp = new Client({ name: 'test', version: '0.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
});
afterAll(async () => {
  await mcp.close();
  await server.close();
  await sim.close();
});

async function query(q: Query): Promise<{ body: Record<string, unknown>; isError: boolean }> {
  const raw = (await mcp.callTool({ name: 'query', arguments: q as unknown as Record<string, unknown> })) as { content: { type: string; text?: string }[]; isError?: boolean };
  const first = raw.content[0];
  return { body: JSON.parse(first?.type === 'text' ? (first.text ?? '{}') : '{}') as Record<string, unknown>, isError: raw.isError === true };
}

const distinct = <T,>(xs: readonly T[]): T[] => [...new Set(xs)];
const sites = new Map(estate.sites.map((s) => [s.id, s]));
/** What a device holds for each field, as the raw estate says (a reference by its slug). */
const DEVICE: Readonly<Record<string, (d: NetBoxDevice) => string | null>> = {
  site: (d) => d.site.slug,
  role: (d) => d.role.slug,
  status: (d) => d.status.value,
  tenant: (d) => d.tenant?.slug ?? null,
  manufacturer: (d) => d.device_type.manufacturer.slug,
  platform: (d) => d.platform?.slug ?? null,
  device_type: (d) => d.device_type.slug,
  region: (d) => sites.get(d.site.id)?.region?.slug ?? null,
  rack: (d) => d.rack?.name ?? null,
};
const DEVICE_FIELDS = Object.keys(DEVICE);
const valuesOf = (field: string): string[] => distinct(estate.devices.map((d) => (DEVICE[field] as (d: NetBoxDevice) => string | null)(d)).filter((v): v is string => v !== null)).slice(0, 60);

/** A condition over one field: eq, or in, either negated. */
const condition = fc
  .record({ field: fc.constantFrom(...DEVICE_FIELDS), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), negated: fc.boolean() })
  .map(({ field, picks, negated }): Where => {
    const pool = valuesOf(field);
    const values = distinct(picks.map((p) => pool[p % pool.length] ?? ''));
    const c: Where = values.length === 1 ? { op: 'eq', field, value: values[0] ?? '' } : { op: 'in', field, values };
    return negated ? { op: 'not', of: c } : c;
  });
const where = fc.oneof(
  { arbitrary: fc.array(condition, { minLength: 1, maxLength: 3 }).map((of): Where => (of.length === 1 ? (of[0] as Where) : { op: 'and', of })), weight: 3 },
  { arbitrary: fc.tuple(condition, condition).map(([a, b]): Where => ({ op: 'or', of: [a, b] })), weight: 1 },
);

function holds(w: Where, d: NetBoxDevice): boolean {
  switch (w.op) {
    case 'and':
      return w.of.every((x) => holds(x, d));
    case 'or':
      return w.of.some((x) => holds(x, d));
    case 'not':
      return !holds(w.of, d);
    case 'eq':
      return (DEVICE[w.field] as (d: NetBoxDevice) => string | null)(d) === w.value;
    case 'in':
      return w.values.includes((DEVICE[w.field] as (d: NetBoxDevice) => string | null)(d) ?? '\u0000');
    case 'contains':
    case 'exists':
    case 'after':
    case 'before':
    case 'less':
    case 'more':
      throw new Error(`not generated: ${w.op}`);
  }
}

describe('NetBox query tool', () => {
  it('counts devices exactly for any where over the declared fields, pushed to NetBox or evaluated', async () => {
    await fc.assert(
      fc.asyncProperty(where, async (w) => {
        const { body, isError } = await query({ entity: 'devices', where: w, what: { kind: 'count' } });
        expect(isError, JSON.stringify(body)).toBe(false);
        expect(body.total, JSON.stringify(w)).toBe(estate.devices.filter((d) => holds(w, d)).length);
      }),
      { numRuns: 60 },
    );
  });

  it('breaks devices down by a field exactly, every group accounted for', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(condition, { nil: undefined }), fc.constantFrom('site', 'role', 'status', 'manufacturer', 'platform', 'region'), async (w, by) => {
        const { body, isError } = await query({ entity: 'devices', ...(w === undefined ? {} : { where: w }), what: { kind: 'breakdown', by: [by] } });
        expect(isError, JSON.stringify(body)).toBe(false);
        const matching = estate.devices.filter((d) => w === undefined || holds(w, d));
        expect(body.total).toBe(matching.length);
        const groups = (body.groups ?? []) as { key: string[]; count: number }[];
        const rest = body.rest as { items?: number } | undefined;
        expect(groups.reduce((n, g) => n + g.count, 0) + (rest?.items ?? 0)).toBe(matching.length);
        expect(body.groups_total).toBe(distinct(matching.map((d) => (DEVICE[by] as (d: NetBoxDevice) => string | null)(d) ?? '(none)')).length);
      }),
      { numRuns: 25 },
    );
  });

  it('answers "interfaces of a device that are down" as disabled ones, and says what it used instead of a link state', async () => {
    const device = estate.devices.find((d) => estate.interfaces.some((i) => i.device.id === d.id && !i.enabled)) as NetBoxDevice;
    const theirs = estate.interfaces.filter((i: NetBoxInterface) => i.device.id === device.id);
    const { body } = await query({ entity: 'interfaces', where: { op: 'and', of: [{ op: 'eq', field: 'device', value: device.name }, { op: 'eq', field: 'enabled', value: false }] }, what: { kind: 'list' }, limit: 50 });
    expect(body.total).toBe(theirs.filter((i) => !i.enabled).length);
    expect(JSON.stringify(body.notes)).toMatch(/enabled, not its live link state/);
    const speeds = await query({ entity: 'interfaces', where: { op: 'eq', field: 'device', value: device.name }, what: { kind: 'breakdown', by: ['speed'] } });
    expect(speeds.body.total).toBe(theirs.length);
  });

  it('breaks every interface of the estate down exactly, reading it in pages of NetBox\'s largest size', async () => {
    sim.resetStats();
    const all = await query({ entity: 'interfaces', what: { kind: 'breakdown', by: ['type'] } });
    expect(all.body.total).toBe(estate.interfaces.length);
    const groups = all.body.groups as { key: string[]; count: number }[];
    for (const g of groups) expect(g.count).toBe(estate.interfaces.filter((i) => i.type.value === g.key[0]).length);
    expect(sim.stats().byEndpoint['dcim/interfaces']).toBe(Math.ceil(estate.interfaces.length / 1_000));
  });

  it('refuses what it cannot answer exactly, with a way forward', async () => {
    // Interfaces carry no site: a site inside an "or" cannot be evaluated.
    const site = estate.sites[0]?.slug ?? '';
    const or = await query({ entity: 'interfaces', where: { op: 'or', of: [{ op: 'eq', field: 'site', value: site }, { op: 'eq', field: 'enabled', value: false }] }, what: { kind: 'count' } });
    expect(or.isError).toBe(true);
    expect(JSON.stringify(or.body)).toMatch(/plain condition/);
    // Grouped by what interfaces do not carry.
    const bySite = await query({ entity: 'interfaces', what: { kind: 'breakdown', by: ['site'] } });
    expect(bySite.isError).toBe(true);
    expect(JSON.stringify(bySite.body)).toMatch(/per site/);
    // A field NetBox holds that the tool does not read.
    const cc = await query({ entity: 'devices', what: { kind: 'fields', fields: ['config_context'] }, where: { op: 'eq', field: 'name', value: estate.devices[0]?.name ?? '' } });
    expect(cc.isError).toBe(true);
    expect(JSON.stringify(cc.body)).toMatch(/not read by this tool/);
  });

  it('lists the values the lexicon reads, from NetBox\'s own lists', async () => {
    const raw = (await mcp.callTool({ name: 'list_values', arguments: { entity: 'devices', fields: ['manufacturer', 'tenant', 'site'], limit: 100 } })) as { content: { text?: string }[] };
    const items = (JSON.parse(raw.content[0]?.text ?? '{}') as { items: { field: string; value: string }[] }).items;
    expect(items.filter((i) => i.field === 'manufacturer').map((i) => i.value).sort()).toEqual(estate.manufacturers.map((m) => m.slug).sort());
    expect(items.filter((i) => i.field === 'site')).toHaveLength(estate.sites.length);
    expect(items.filter((i) => i.field === 'tenant').length).toBeGreaterThan(0);
    // Device names: read with their names only, every one (page through list_values as the lexicon does).
    sim.resetStats();
    const names: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = (await mcp.callTool({ name: 'list_values', arguments: { entity: 'devices', fields: ['name'], limit: 100, offset } })) as { content: { text?: string }[] };
      const body = JSON.parse(page.content[0]?.text ?? '{}') as { items: { value: string }[]; has_more: boolean };
      names.push(...body.items.map((i) => i.value));
      if (!body.has_more) break;
    }
    expect(names.sort()).toEqual(estate.devices.map((d) => d.name).sort());
    expect(sim.stats().byEndpoint['dcim/devices']).toBe(Math.ceil(estate.devices.length / 1_000));
  });
});
