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

// ---- More constructions: breakdowns, rankings, comparisons, named fields, actions; typos in words. ----
type GroupField = 'health' | 'sync' | 'cluster' | 'project' | 'namespace' | 'team' | 'env';
const GROUP_WORDS: Readonly<Record<GroupField, readonly string[]>> = {
  health: ['health', 'health status'],
  sync: ['sync status', 'sync state'],
  cluster: ['cluster', 'destination cluster'],
  project: ['project'],
  namespace: ['namespace'],
  team: ['team'],
  env: ['environment', 'env'],
};
const PLURAL: Readonly<Record<GroupField, string>> = { health: 'health statuses', sync: 'sync statuses', cluster: 'clusters', project: 'projects', namespace: 'namespaces', team: 'teams', env: 'environments' };
const VERBS: Readonly<Record<string, readonly string[]>> = { sync: ['sync', 'resync'], 'roll back': ['roll back', 'rollback'], restart: ['restart'], delete: ['delete', 'remove'] };
const PROJECTED: Readonly<Record<string, readonly string[]>> = { image: ['image', 'images'], repo: ['repo', 'repository'], revision: ['revision', 'target revision'], cluster: ['cluster'], project: ['project'], history: ['sync history', 'deployment history'], health: ['health'] };

type Construction =
  | { readonly kind: 'breakdown'; readonly by: readonly GroupField[]; readonly filter: readonly [Field, string] | undefined }
  | { readonly kind: 'top'; readonly by: GroupField; readonly filter: readonly [Field, string] | undefined }
  | { readonly kind: 'compare'; readonly a: string; readonly b: string; readonly filter: readonly [Field, string] | undefined }
  | { readonly kind: 'fields'; readonly field: string; readonly app: string }
  | { readonly kind: 'action'; readonly verb: string; readonly app: string };

const filterArb = fc.option(fc.constantFrom<Field>('health', 'sync').chain((f) => fc.constantFrom(...valuesOf[f]).map((v) => [f, v] as const)), { nil: undefined });
const groupArb = fc.constantFrom<GroupField>('health', 'sync', 'cluster', 'project', 'namespace', 'team', 'env');
const appArb = fc.constantFrom(...apps.slice(0, 200).map((a) => a.metadata.name));
const construction: fc.Arbitrary<Construction> = fc.oneof(
  fc.record({ kind: fc.constant('breakdown' as const), by: fc.uniqueArray(groupArb, { minLength: 1, maxLength: 2 }), filter: filterArb }),
  fc.record({ kind: fc.constant('top' as const), by: fc.constantFrom<GroupField>('cluster', 'project', 'namespace', 'team'), filter: filterArb }),
  fc.record({ kind: fc.constant('compare' as const), a: fc.constantFrom(...CLUSTERS), b: fc.constantFrom(...CLUSTERS), filter: filterArb }).filter((c) => c.a !== c.b),
  fc.record({ kind: fc.constant('fields' as const), field: fc.constantFrom(...Object.keys(PROJECTED)), app: appArb }),
  fc.record({ kind: fc.constant('action' as const), verb: fc.constantFrom(...Object.keys(VERBS)), app: appArb }),
);

/** A word with two neighbouring letters swapped (a typo people make), for words of 6 letters or more. */
const swapTypo = (w: string): string => (/^[a-z]{6,}$/.test(w) ? `${w.slice(0, 2)}${w[3] ?? ''}${w[2] ?? ''}${w.slice(4)}` : w);

function renderConstruction(c: Construction, pick: readonly number[]): string {
  const p = (xs: readonly string[], i: number): string => xs[(pick[i] ?? 0) % xs.length] ?? '';
  const filterWord = (f: readonly [Field, string] | undefined): string => {
    if (f === undefined) return '';
    const w = p(WORDS[f[0]][f[1]] ?? [f[1]], 3);
    return (pick[9] ?? 0) % 3 === 0 ? swapTypo(w) : w;
  };
  const noun = p(['apps', 'applications'], 4);
  switch (c.kind) {
    case 'breakdown': {
      const [f1, f2] = c.by;
      const w1 = p(GROUP_WORDS[f1 as GroupField], 1);
      const w2 = f2 === undefined ? '' : p(GROUP_WORDS[f2], 2);
      const filter = filterWord(c.filter);
      if (f2 === undefined) return p([`how many ${filter} ${noun} per ${w1}`, `${filter} ${noun} by ${w1}`, `${w1} breakdown of ${filter} ${noun}`, `count ${filter} ${noun} grouped by ${w1}`, `which ${PLURAL[f1 as GroupField]} have ${filter} ${noun}`], 5).replace(/\s+/g, ' ').trim();
      return p([`${filter} ${noun} by ${w1} and ${w2}`, `count ${filter} ${noun} per ${w1} and ${w2}`, `${w2} breakdown per ${w1} for ${filter} ${noun}`], 5).replace(/\s+/g, ' ').trim();
    }
    case 'top': {
      const filter = filterWord(c.filter);
      return p([`which ${p(GROUP_WORDS[c.by], 1)} has the most ${filter} ${noun}`, `top 3 ${PLURAL[c.by]} by number of ${filter} ${noun}`, `which ${PLURAL[c.by]} have the most ${filter} ${noun}`], 5).replace(/\s+/g, ' ').trim();
    }
    case 'compare': {
      const filter = filterWord(c.filter);
      return p([`are there more ${filter} ${noun} in ${c.a} or ${c.b}?`, `compare ${filter} ${noun} in ${c.a} and ${c.b}`, `${c.a} vs ${c.b} ${filter} ${noun}`, `does ${c.a} have more ${filter} ${noun} than ${c.b}?`], 5).replace(/\s+/g, ' ').trim();
    }
    case 'fields': {
      const w = p(PROJECTED[c.field] ?? [c.field], 1);
      return p([`what ${w} is ${c.app} running?`, `${w} of ${c.app}`, `show me the ${w} of ${c.app}`, `${c.app} ${w}`, `which ${w} does ${c.app} use?`], 5);
    }
    case 'action': {
      const v = p(VERBS[c.verb] ?? [c.verb], 1);
      return p([`${v} ${c.app}`, `please ${v} the app ${c.app}`, `can you ${v} ${c.app}?`, `${v} the application ${c.app} now`], 5);
    }
  }
}

const filterWhere = (f: readonly [Field, string] | undefined): Set<string> =>
  new Set(apps.filter((a) => f === undefined || raw[f[0]](a) === f[1]).map((a) => a.metadata.name));
const sameSet = (a: Set<string>, b: Set<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

/** Whether a parse means what the construction means (an independent reading of each). */
function means(c: Construction, parsed: ReturnType<typeof parser.parse>): boolean {
  if (c.kind === 'action') return parsed.kind === 'action' && parsed.action?.verb === c.verb && parsed.action.target === c.app;
  const q = parsed.query;
  if (parsed.kind !== 'query' || q === undefined || q.entity !== 'applications') return false;
  switch (c.kind) {
    case 'breakdown':
      return q.what.kind === 'breakdown' && [...q.what.by].sort().join() === [...c.by].sort().join() && sameSet(parsedSet(q), filterWhere(c.filter));
    case 'top':
      return q.what.kind === 'top' && q.what.by === c.by && q.what.order === 'most' && sameSet(parsedSet(q), filterWhere(c.filter));
    case 'compare': {
      if (q.what.kind !== 'compare') return false;
      const groups = q.what.groups.map((g) => parsedSet({ ...q, where: g }));
      const inCluster = (name: string) => new Set(apps.filter((a) => clusterOf(a) === name).map((a) => a.metadata.name));
      return sameSet(parsedSet(q), filterWhere(c.filter)) && sameSet(groups[0] ?? new Set(), inCluster(c.a)) && sameSet(groups[1] ?? new Set(), inCluster(c.b));
    }
    case 'fields':
      return q.what.kind === 'fields' && q.what.fields.length === 1 && q.what.fields[0] === c.field && q.where?.op === 'eq' && q.where.field === 'name' && q.where.value === c.app;
  }
}

describe('typed parser, generated constructions (Argo CD)', () => {
  it('reads breakdowns, rankings, comparisons, named fields and actions as their model means them, or says what it did not apply', () => {
    const tally = new Map<string, { correct: number; honest: number }>();
    const wrong: string[] = [];
    fc.assert(
      fc.property(construction, fc.array(fc.nat({ max: 11 }), { minLength: 10, maxLength: 10 }), (c, pick) => {
        const question = renderConstruction(c, pick);
        const parsed = parser.parse(question, NOW);
        const t = tally.get(c.kind) ?? { correct: 0, honest: 0 };
        tally.set(c.kind, t);
        if (parsed.kind !== 'action' && (parsed.unapplied.length > 0 || parsed.query === undefined)) t.honest += 1;
        else if (means(c, parsed)) t.correct += 1;
        else wrong.push(`${question} -> ${JSON.stringify(parsed.action ?? parsed.query)}`);
      }),
      { numRuns: 400, seed: 3131 },
    );
    expect(wrong).toEqual([]);
    for (const [kind, t] of tally) expect(t.correct / (t.correct + t.honest), kind).toBeGreaterThanOrEqual(0.9);
  });
});
