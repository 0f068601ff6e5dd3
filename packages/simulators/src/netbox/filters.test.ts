import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANTS } from './catalog.js';
import { generateNetBoxEstate } from './data.js';
import { startNetBoxSimulator, type RunningNetBoxSimulator } from './server.js';
import type { NetBoxDevice, NetBoxInterface } from './types.js';

/**
 * The simulator applies the filters real NetBox applies, negations (`__n`) included: for random filters drawn from
 * the estate's own values, the count it answers equals the count over the raw estate, evaluated here by a plain
 * predicate per filter (django-filter's semantics: a repeated parameter ORs, different parameters AND, `__n`
 * excludes any of its values).
 */
const TOKEN = '0123456789abcdef0123456789abcdef01234567';
const estate = generateNetBoxEstate();
let sim: RunningNetBoxSimulator;
beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: TOKEN, estate });
});
afterAll(async () => {
  await sim.close();
});

async function count(path: string, params: readonly (readonly [string, string])[]): Promise<number> {
  const query = new URLSearchParams([...params.map(([k, v]): [string, string] => [k, v]), ['limit', '1']]);
  const response = await fetch(`${sim.url}/api/${path}/?${query.toString()}`, { headers: { authorization: `Token ${TOKEN}` } });
  const body = (await response.json()) as { count?: number };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.count ?? -1;
}

const distinct = <T>(xs: readonly T[]): T[] => [...new Set(xs)];
const sites = new Map(estate.sites.map((s) => [s.id, s]));

/** Device filters: the parameter, its values in the estate, and what an item holds for it (several: any matches). */
const DEVICE_FILTERS: readonly { name: string; values: readonly string[]; of: (d: NetBoxDevice) => readonly (string | null)[] }[] = [
  { name: 'site', values: estate.sites.map((s) => s.slug), of: (d) => [d.site.slug] },
  { name: 'role', values: estate.deviceRoles.map((r) => r.slug), of: (d) => [d.role.slug] },
  { name: 'status', values: distinct(estate.devices.map((d) => d.status.value)), of: (d) => [d.status.value] },
  { name: 'tenant', values: TENANTS.map((t) => t.slug), of: (d) => [d.tenant?.slug ?? null] },
  { name: 'manufacturer', values: estate.manufacturers.map((m) => m.slug), of: (d) => [d.device_type.manufacturer.slug] },
  { name: 'device_type', values: distinct(estate.devices.map((d) => d.device_type.slug)), of: (d) => [d.device_type.slug] },
  { name: 'platform', values: estate.platforms.map((p) => p.slug), of: (d) => [d.platform?.slug ?? null] },
  { name: 'region', values: estate.regions.map((r) => r.slug), of: (d) => [sites.get(d.site.id)?.region?.slug ?? null] },
  { name: 'rack_id', values: distinct(estate.devices.flatMap((d) => (d.rack === null ? [] : [String(d.rack.id)]))).slice(0, 200), of: (d) => [d.rack === null ? null : String(d.rack.id)] },
  { name: 'asset_tag', values: distinct(estate.devices.flatMap((d) => (d.asset_tag === null ? [] : [d.asset_tag]))).slice(0, 200), of: (d) => [d.asset_tag] },
];

const INTERFACE_FILTERS: readonly { name: string; values: readonly string[]; of: (i: NetBoxInterface) => readonly (string | null)[] }[] = [
  { name: 'speed', values: distinct(estate.interfaces.flatMap((i) => (i.speed === null ? [] : [String(i.speed)]))), of: (i) => [i.speed === null ? null : String(i.speed)] },
  { name: 'type', values: distinct(estate.interfaces.map((i) => i.type.value)), of: (i) => [i.type.value] },
];

const condition = <T>(filters: readonly { name: string; values: readonly string[]; of: (x: T) => readonly (string | null)[] }[]) =>
  fc
    .record({ filter: fc.constantFrom(...filters), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), negated: fc.boolean() })
    .map(({ filter, picks, negated }) => ({ filter, values: distinct(picks.map((p) => filter.values[p % filter.values.length] ?? '')), negated }));

describe('NetBox simulator filters', () => {
  it('counts devices as the raw estate does, for any conjunction of filters and negations', async () => {
    await fc.assert(
      // One condition per parameter: a parameter sent twice is one repeated filter (its values ORed).
      fc.asyncProperty(fc.uniqueArray(condition(DEVICE_FILTERS), { minLength: 1, maxLength: 3, selector: (c) => `${c.filter.name}${c.negated ? '__n' : ''}` }), async (conditions) => {
        const params = conditions.flatMap((c) => c.values.map((v) => [c.negated ? `${c.filter.name}__n` : c.filter.name, v] as const));
        const expected = estate.devices.filter((d) => conditions.every((c) => c.filter.of(d).some((x) => x !== null && c.values.includes(x)) !== c.negated)).length;
        expect(await count('dcim/devices', params), JSON.stringify(params)).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('counts interfaces by speed, type, enabled and mark_connected as the raw estate does', async () => {
    await fc.assert(
      fc.asyncProperty(condition(INTERFACE_FILTERS), fc.constantFrom('enabled', 'mark_connected'), fc.boolean(), async (c, flag, value) => {
        const params = [...c.values.map((v) => [c.negated ? `${c.filter.name}__n` : c.filter.name, v] as const), [flag, String(value)] as const];
        const expected = estate.interfaces.filter((i) => c.filter.of(i).some((x) => x !== null && c.values.includes(x)) !== c.negated && i[flag] === value).length;
        expect(await count('dcim/interfaces', params), JSON.stringify(params)).toBe(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses a value that does not exist, negated or not, naming the parameter as NetBox does', async () => {
    for (const param of ['tenant', 'tenant__n', 'manufacturer', 'region__n', 'device_type']) {
      const response = await fetch(`${sim.url}/api/dcim/devices/?${param}=no-such-thing`, { headers: { authorization: `Token ${TOKEN}` } });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ [param]: ['Select a valid choice. no-such-thing is not one of the available choices.'] });
    }
  });

  it('serves the organisational lists a lexicon reads, with their counts', async () => {
    const lists: readonly (readonly [string, number])[] = [
      ['dcim/manufacturers', estate.manufacturers.length],
      ['dcim/platforms', estate.platforms.length],
      ['dcim/device-roles', estate.deviceRoles.length],
      ['dcim/regions', estate.regions.length],
      ['tenancy/tenants', TENANTS.length],
      ['extras/tags', estate.tags.length],
      ['dcim/device-types', distinct(estate.devices.map((d) => d.device_type.id)).length],
    ];
    for (const [path, n] of lists) expect(await count(path, []), path).toBe(n);
    const response = await fetch(`${sim.url}/api/tenancy/tenants/?slug=${TENANTS[2]?.slug ?? ''}`, { headers: { authorization: `Token ${TOKEN}` } });
    const body = (await response.json()) as { results: { name: string; device_count: number }[] };
    expect(body.results[0]?.name).toBe(TENANTS[2]?.name);
    expect(body.results[0]?.device_count).toBe(estate.devices.filter((d) => d.tenant?.id === TENANTS[2]?.id).length);
    const missing = await fetch(`${sim.url}/api/tenancy/tenants/999999/`, { headers: { authorization: `Token ${TOKEN}` } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'No Tenant matches the given query.' });
  });
});
