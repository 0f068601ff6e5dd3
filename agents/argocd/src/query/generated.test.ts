import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createParser, matches, type LiveValues, type Query } from '@flotilla/query';
import { generateArgoEstate, type ArgoApplication } from '@flotilla/simulators';
import { ARGOCD_DOMAIN } from './declare.js';

/**
 * The typed parser against questions generated from a model of the problem, not from the phrasings the rules were
 * written for: a random query (health, sync, cluster, environment; negated or OR-ed; counted, listed or broken
 * down) is rendered through independent phrasings (templates, synonyms, word orders, typos in names), parsed, and
 * the parse's set is compared with the set a separate, simple evaluator computes straight from the simulator's
 * raw applications. A parse that reads words into a different set is confidently wrong; one that leaves words
 * unapplied is honest (the agent says so) and counted apart.
 */
const estate = generateArgoEstate();
const apps = estate.applications;
const serverName = new Map(estate.clusters.map((c) => [c.server, c.name]));
const clusterOf = (a: ArgoApplication): string => a.spec.destination.name ?? serverName.get(a.spec.destination.server ?? '') ?? '';
const uniq = (xs: readonly (string | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => x !== undefined && x !== ''))];
const live: LiveValues = {
  applications: {
    name: apps.map((a) => a.metadata.name),
    cluster: uniq(estate.clusters.flatMap((c) => [c.name, c.server])),
    project: uniq(apps.map((a) => a.spec.project)),
    namespace: uniq(apps.map((a) => a.spec.destination.namespace)),
    team: uniq(apps.map((a) => a.metadata.labels?.team)),
    env: uniq(apps.map((a) => a.metadata.labels?.env)),
  },
  clusters: { name: estate.clusters.map((c) => c.name) },
};
const parser = createParser(ARGOCD_DOMAIN, live);

// ---- The model: a query over a few fields, and its meaning over raw applications. ----
type Field = 'health' | 'sync' | 'cluster' | 'env';
interface Model {
  readonly field1: Field;
  readonly values1: readonly string[];
  readonly negated: boolean;
  readonly field2: Field | undefined;
  readonly value2: string | undefined;
  readonly what: 'count' | 'list';
}
const HEALTH = ['Healthy', 'Degraded', 'Progressing', 'Suspended', 'Missing'];
const SYNC = ['Synced', 'OutOfSync'];
const CLUSTERS = uniq(estate.clusters.filter((c) => c.name !== 'in-cluster').map((c) => c.name));
const ENVS = ['prod', 'staging', 'dev', 'qa'];
const valuesOf: Readonly<Record<Field, readonly string[]>> = { health: HEALTH, sync: SYNC, cluster: CLUSTERS, env: ENVS };
const raw: Readonly<Record<Field, (a: ArgoApplication) => string>> = {
  health: (a) => a.status.health.status,
  sync: (a) => a.status.sync.status,
  cluster: clusterOf,
  env: (a) => a.metadata.labels?.env ?? '',
};
function expected(m: Model): Set<string> {
  return new Set(
    apps
      .filter((a) => m.values1.includes(raw[m.field1](a)) !== m.negated)
      .filter((a) => m.field2 === undefined || raw[m.field2](a) === m.value2)
      .map((a) => a.metadata.name),
  );
}

// ---- Phrasings: several per construction, with synonyms and word orders. ----
const WORDS: Readonly<Record<Field, Readonly<Record<string, readonly string[]>>>> = {
  health: { Healthy: ['healthy'], Degraded: ['degraded'], Progressing: ['progressing'], Suspended: ['suspended', 'paused'], Missing: ['missing'] },
  sync: { Synced: ['synced', 'in sync'], OutOfSync: ['out of sync', 'out-of-sync', 'drifted'] },
  cluster: Object.fromEntries(CLUSTERS.map((c) => [c, [c, `cluster ${c}`, `the ${c} cluster`]])),
  env: { prod: ['prod', 'production'], staging: ['staging', 'stg'], dev: ['dev', 'development'], qa: ['qa'] },
};
const typo = (w: string, k: number): string => (w.length >= 6 && /^[a-z]+-/.test(w) ? `${w.slice(0, 1)}${w[2]}${w[1]}${w.slice(3)}` : w).slice(0, k === 0 ? undefined : w.length);
function render(m: Model, pick: number[]): string {
  const p = (xs: readonly string[], i: number): string => xs[(pick[i] ?? 0) % xs.length] ?? '';
  const word = (f: Field, v: string, i: number): string => {
    const w = p(WORDS[f][v] ?? [v], i);
    return f === 'cluster' && (pick[9] ?? 0) % 4 === 0 ? typo(w, 0) : w;
  };
  const scope = (f: Field, phrase: string): string => (f === 'cluster' || f === 'env' ? `in ${phrase}` : phrase);
  const list = m.values1.map((v, i) => word(m.field1, v, i + 1));
  const joined = list.length === 1 ? list[0] ?? '' : `${list.slice(0, -1).join(', ')} or ${list[list.length - 1] ?? ''}`;
  const first = m.negated ? `${m.field1 === 'cluster' || m.field1 === 'env' ? 'not in' : 'not'} ${joined}` : scope(m.field1, joined);
  const second = m.field2 === undefined || m.value2 === undefined ? '' : scope(m.field2, word(m.field2, m.value2, 5));
  const noun = p(['apps', 'applications', 'argo apps'], 6);
  const lead = m.what === 'count' ? p(['how many', 'count', 'number of'], 7) : p(['list', 'show me', 'which', ''], 7);
  const order = (pick[8] ?? 0) % 2;
  return m.negated || order === 0 ? `${lead} ${noun} ${m.negated ? 'that are ' : ''}${first} ${second}`.trim() : `${lead} ${second ? second.replace(/^in /, '') + ' ' : ''}${first.replace(/^in /, '')} ${noun}`.trim();
}

const model: fc.Arbitrary<Model> = fc
  .record({ field1: fc.constantFrom<Field>('health', 'sync', 'cluster', 'env'), n: fc.integer({ min: 1, max: 2 }), negated: fc.boolean(), second: fc.boolean(), what: fc.constantFrom<'count' | 'list'>('count', 'list'), seed: fc.nat() })
  .chain((r) => {
    const pool = valuesOf[r.field1];
    const others = (['health', 'sync', 'cluster', 'env'] as const).filter((f) => f !== r.field1);
    const f2 = others[r.seed % others.length] as Field;
    return fc.record({
      // "not a or b" is ambiguous in English: a negated list is one value.
      values1: fc.shuffledSubarray([...pool], { minLength: r.negated ? 1 : r.n, maxLength: r.negated ? 1 : r.n }),
      value2: fc.constantFrom(...valuesOf[f2]),
    }).map(({ values1, value2 }) => ({ field1: r.field1, values1, negated: r.negated, field2: r.second ? f2 : undefined, value2: r.second ? value2 : undefined, what: r.what }));
  });

const NOW = Date.parse('2026-01-01T00:00:00Z');
/** The parse's set, by the planner's own evaluation over raw applications read the way the tool reads them. */
function parsedSet(q: Query): Set<string> {
  const acc = {
    name: (a: ArgoApplication) => a.metadata.name,
    health: (a: ArgoApplication) => a.status.health.status,
    sync: (a: ArgoApplication) => a.status.sync.status,
    cluster: (a: ArgoApplication) => uniq([clusterOf(a), a.spec.destination.server]),
    env: (a: ArgoApplication) => a.metadata.labels?.env,
    team: (a: ArgoApplication) => a.metadata.labels?.team,
    namespace: (a: ArgoApplication) => a.spec.destination.namespace,
    project: (a: ArgoApplication) => a.spec.project,
  };
  return new Set(apps.filter((a) => matches(q.where, a, acc)).map((a) => a.metadata.name));
}

describe('typed parser, generated questions (Argo CD)', () => {
  it('never reads a generated question into a different set or shape (0 confidently wrong), and applies at least 90% in full', () => {
    let correct = 0;
    let honest = 0;
    const wrong: string[] = [];
    fc.assert(
      fc.property(model, fc.array(fc.nat({ max: 11 }), { minLength: 10, maxLength: 10 }), (m, pick) => {
        const question = render(m, pick);
        const parsed = parser.parse(question, NOW);
        if (parsed.unapplied.length > 0 || parsed.query === undefined) {
          honest += 1;
          return;
        }
        const same = parsed.query.what.kind === m.what && [...parsedSet(parsed.query)].sort().join() === [...expected(m)].sort().join();
        if (same) correct += 1;
        else wrong.push(`${question} -> ${JSON.stringify(parsed.query)}`);
      }),
      { numRuns: 300, seed: 31 },
    );
    expect(wrong).toEqual([]);
    expect(correct / (correct + honest)).toBeGreaterThanOrEqual(0.9);
  });
});
