import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoundedToolResult } from '@flotilla/bounded-tools';
import { createParser, type Condition, type Query, type Where } from '@flotilla/query';
import { generateArgoEstate } from '@flotilla/simulators';
import { ARGOCD_DOMAIN } from '../query/declare.js';
import { applicationFilters } from './domain.js';
import { NOT_HEALTHY } from './intents.js';
import { attentionClassification, listClassification, listEntitiesOf, listQueryOf } from './typed-list.js';
import { argoCdToolsOverSimulator, type ArgoCdToolsHarness } from '../simulated-tools.test-util.js';

/**
 * A list question is read by the typed reading and executed by the list plan (`list_applications`). The translation
 * must lose nothing: for conjunctions generated from the declared fields, with values from the estate, the list tool
 * filtered by the translated entities returns exactly the set the `query` tool counts for the typed query itself.
 */
const TOKEN = 'typed-list-token-012345';
const estate = generateArgoEstate();
const EPOCH = Date.parse('2025-11-20T09:30:00Z');
let harness: ArgoCdToolsHarness;
let tools: ArgoCdToolsHarness['tools'];

beforeAll(async () => {
  harness = await argoCdToolsOverSimulator({ token: TOKEN, estate });
  ({ tools } = harness);
});
afterAll(async () => {
  await harness?.close();
});

const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const result = (await tools.client.callTool({ name, arguments: args })) as BoundedToolResult & { isError?: boolean };
  const first = result.content[0];
  const body = JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, unknown>;
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
};

const distinct = (xs: readonly (string | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => x !== undefined && x !== ''))].sort();
const label = (k: string): string[] => distinct(estate.applications.map((a) => a.metadata.labels?.[k]));
const clusters = distinct(estate.clusters.map((c) => c.name));
const projects = distinct(estate.applications.map((a) => a.spec.project));
const namespaces = distinct(estate.applications.map((a) => a.spec.destination.namespace));
const parts = distinct(estate.applications.flatMap((a) => a.metadata.name.split('-')));

const eq = (field: string, value: string | boolean): Condition => ({ op: 'eq', field, value });
const inOf = (field: string, values: readonly string[]): Where => (values.length === 1 ? eq(field, values[0] ?? '') : { op: 'in', field, values });
const statuses = (all: readonly string[]) => fc.subarray([...all], { minLength: 1, maxLength: 2 });
/** One condition the list plan applies, on one field: the generator's model of what list_applications filters. */
const CONDITIONS: Record<string, fc.Arbitrary<Where>> = {
  sync: fc.oneof(statuses(['Synced', 'OutOfSync', 'Unknown']).map((v) => inOf('sync', v)), fc.constant<Where>({ op: 'not', of: eq('sync', 'Synced') })),
  health: fc.oneof(statuses(['Healthy', ...NOT_HEALTHY]).map((v) => inOf('health', v)), fc.constant<Where>({ op: 'not', of: eq('health', 'Healthy') })),
  env: fc.oneof(fc.subarray(label('env'), { minLength: 1, maxLength: 2 }).map((v) => inOf('env', v)), fc.constantFrom(...label('env')).map((v): Where => ({ op: 'not', of: eq('env', v) }))),
  team: fc.constantFrom(...label('team')).map((v) => eq('team', v)),
  tier: fc.constantFrom(...label('tier')).map((v) => eq('tier', v)),
  cluster: fc.constantFrom(...clusters).map((v) => eq('cluster', v)),
  project: fc.constantFrom(...projects).map((v) => eq('project', v)),
  namespace: fc.constantFrom(...namespaces).map((v) => eq('namespace', v)),
  operation: fc.constant<Where>({ op: 'in', field: 'operation', values: ['Failed', 'Error'] }),
  auto_sync: fc.boolean().map((v) => eq('auto_sync', v)),
  name: fc.constantFrom(...parts.filter((p) => p.length >= 3)).map((v): Where => ({ op: 'contains', field: 'name', value: v })),
  last_sync: fc.integer({ min: 1, max: 24 * 14 }).map((hours): Where => ({ op: 'after', field: 'last_sync', at: new Date(EPOCH - hours * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z') })),
};

describe('a typed list question, planned as the application list', () => {
  it('lists exactly the applications the query tool counts for the typed query (generated conjunctions)', async () => {
    const fields = Object.keys(CONDITIONS);
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(fields, { minLength: 1, maxLength: 3 }).chain((chosen) => fc.tuple(...chosen.map((f) => CONDITIONS[f] as fc.Arbitrary<Where>))),
        fc.constantFrom<'list' | 'count'>('list', 'count'),
        async (conditions, kind) => {
          const where: Where = conditions.length === 1 ? (conditions[0] as Where) : { op: 'and', of: conditions };
          const query: Query = { entity: 'applications', where, what: { kind } };
          const entities = listEntitiesOf(query);
          expect(entities, JSON.stringify(where)).toBeDefined();
          if (entities === undefined) return;
          const listed = await call('list_applications', { ...applicationFilters(entities), limit: 1, offset: 0 });
          const counted = await call('query', { ...query, what: { kind: 'count' } });
          expect(listed.total, JSON.stringify(where)).toBe(counted.count ?? counted.total);
          expect(entities.count !== undefined).toBe(kind === 'count');
        },
      ),
      { numRuns: 120 },
    );
  });

  it('reads an application list back as the query it answered (what a follow-up edits), for generated conjunctions', () => {
    const fields = Object.keys(CONDITIONS);
    fc.assert(
      fc.property(
        fc.subarray(fields, { minLength: 0, maxLength: 4 }).chain((chosen) => fc.tuple(...chosen.map((f) => CONDITIONS[f] as fc.Arbitrary<Where>))),
        (conditions) => {
          const where: Where | undefined = conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : { op: 'and', of: conditions };
          const entities = listEntitiesOf({ entity: 'applications', ...(where === undefined ? {} : { where }), what: { kind: 'list' } });
          if (entities === undefined) throw new Error(`not a list: ${JSON.stringify(where)}`);
          const args = applicationFilters(entities);
          const back = listQueryOf(args);
          expect(back, JSON.stringify(args)).toBeDefined();
          // The query read back plans the very same list call.
          const again = back === undefined ? undefined : listEntitiesOf(back);
          expect(again === undefined ? undefined : applicationFilters(again), JSON.stringify(args)).toEqual(args);
        },
      ),
      { numRuns: 400, seed: 33 },
    );
  });

  it('reads back no query from a list filtered on what the query cannot say', () => {
    for (const args of [{ selector: '!team' }, { selector: 'team!=a' }, { cluster: 'https://10.0.0.1:6443' }, { selector: 'env=prod', unknown_filter: 'x' }]) {
      expect(listQueryOf(args), JSON.stringify(args)).toBeUndefined();
    }
  });

  it('reads "needs attention" in any of its phrasings, within any scope the list applies, as the attention view', () => {
    const parser = createParser(ARGOCD_DOMAIN, {
      applications: { cluster: clusters, project: projects, namespace: namespaces, team: label('team'), env: label('env'), tier: label('tier'), region: label('region') },
    });
    const asks = ['what needs attention{s}?', 'what needs my attention{s}?', 'which apps need our attention{s}', 'which apps need attention{s}', 'any problems{s}?', "what's wrong{s}", 'is anything on fire{s}?', 'show me the apps with issues{s}', 'what requires attention{s}'];
    const scopes: fc.Arbitrary<readonly [string, Record<string, string>]> = fc.oneof(
      fc.constant(['', {}] as const),
      fc.constantFrom(...label('env')).map((v) => [` in ${v}`, { env: v }] as const),
      fc.constantFrom(...projects).map((v) => [` in project ${v}`, { project: v }] as const),
      fc.constantFrom(...clusters.filter((c) => c.includes('-'))).map((v) => [` on cluster ${v}`, { cluster: v }] as const),
      fc.constantFrom(...label('team')).map((v) => [` owned by team ${v}`, { team: v }] as const),
    );
    fc.assert(
      fc.property(fc.constantFrom(...asks), scopes, (ask, [scope, entities]) => {
        const question = ask.replace('{s}', scope);
        const c = attentionClassification(parser.parse(question, EPOCH));
        expect(c?.intent, question).toBe('attention');
        expect(c?.entities, question).toEqual(entities);
      }),
      { numRuns: 200, seed: 34 },
    );
    // A count, or a status of its own, is no attention view: the typed query answers it.
    for (const question of ['how many apps need attention?', 'degraded apps that need attention', 'out of sync apps with problems in prod']) {
      expect(attentionClassification(parser.parse(question, EPOCH)), question).toBeUndefined();
    }
    // A window with no verb to apply it to is named as not applied, never dropped.
    const windowed = attentionClassification(parser.parse('which apps need attention since yesterday', EPOCH));
    if (windowed !== undefined) expect(windowed.unused?.join(' ')).toContain('yesterday');
  });

  it('leaves to the query tool what the list plan would not apply in full', () => {
    const cases: readonly Query[] = [
      { entity: 'applications', what: { kind: 'breakdown', by: ['cluster'] } },
      { entity: 'clusters', what: { kind: 'list' } },
      { entity: 'applications', where: { op: 'or', of: [eq('sync', 'OutOfSync'), eq('health', 'Degraded')] }, what: { kind: 'list' } },
      { entity: 'applications', where: { op: 'not', of: eq('cluster', 'prod-eu-1') }, what: { kind: 'count' } },
      { entity: 'applications', where: { op: 'exists', field: 'chart' }, what: { kind: 'list' } },
      { entity: 'applications', where: { op: 'and', of: [eq('team', 'a'), eq('team', 'b')] }, what: { kind: 'list' } },
      { entity: 'applications', where: eq('operation', 'Failed'), what: { kind: 'list' } },
      { entity: 'applications', what: { kind: 'list' }, sort: { field: 'name', order: 'desc' } },
    ];
    for (const query of cases) expect(listEntitiesOf(query), JSON.stringify(query)).toBeUndefined();
  });

  it('reads the phrasings engineers type as the list they mean, every word applied', () => {
    const parser = createParser(ARGOCD_DOMAIN, {
      applications: { cluster: clusters, project: projects, namespace: namespaces, team: label('team'), env: label('env'), tier: label('tier'), region: label('region') },
    });
    const unhealthy = ['Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'];
    const table: readonly (readonly [string, Record<string, unknown>])[] = [
      ['which apps are out of sync in prod?', { sync: 'OutOfSync', env: 'prod' }],
      ['list all applications', {}],
      ['show me every app', {}],
      ['apps in project payments-prod', { project: 'payments-prod' }],
      ['How many applications are degraded?', { health: 'Degraded', count: 'true' }],
      ['what apps are out-of-sync on cluster prod-eu-1', { sync: 'OutOfSync', cluster: 'prod-eu-1' }],
      ['list applications owned by team checkout', { team: 'checkout' }],
      ['apps with label tier=frontend', { label: ['tier=frontend'] }],
      ['which staging apps are progressing', { env: 'staging', health: 'Progressing' }],
      ['show unhealthy applications in namespace billing', { health: unhealthy, namespace: 'billing' }],
      ['give me the synced apps in dev', { sync: 'Synced', env: 'dev' }],
      ['applications on in-cluster', { cluster: 'in-cluster' }],
      ['apps that arent auto-synced in qa', { auto_sync: 'false', env: 'qa' }],
      ['which prod apps failed their last sync', { phase: 'Failed', env: 'prod' }],
      ['find apps with payment in the name', { name_contains: 'payment' }],
      ['which apps were synced in the last hour?', { window: ['last_sync', '2025-11-20T08:30:00Z', ''] }],
      ['which applications are OutOfSync in the staging-eu-1 cluster', { sync: 'OutOfSync', cluster: 'staging-eu-1' }],
      ['how many unhealthy apps are there?', { health: unhealthy, count: 'true' }],
      ['apps deployed since yesterday', { window: ['last_sync', '2025-11-19T00:00:00Z', ''] }],
      ['applications created in the past 3 days', { window: ['created', '2025-11-17T09:30:00Z', ''] }],
      ['apps in prod or staging that are degraded', { env: ['prod', 'staging'], health: 'Degraded' }],
      ['apps not in prod', { env: '!prod' }],
      ['which syncs failed today', { phase: 'Failed', window: ['last_sync', '2025-11-20T00:00:00Z', ''] }],
      ['apps without auto-sync', { auto_sync: 'false' }],
    ];
    for (const [question, entities] of table) {
      const c = listClassification(parser.parse(question, EPOCH));
      expect(c?.intent, question).toBe('list_applications');
      expect(c?.entities, question).toEqual(entities);
      expect(c?.unused, question).toEqual([]);
    }
  });
});
