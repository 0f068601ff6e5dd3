/**
 * Generated Argo CD questions (issue 31): queries sampled from a model of the problem (filters on health, sync,
 * cluster and environment, negated or OR-ed; counts and lists; breakdowns by one or two fields; rankings;
 * comparisons of two clusters; named fields of one application; requests to act), with values from the simulator's
 * estate, each rendered through one of several independent phrasings (templates, synonyms, word orders, typos in
 * words and in names). Each expected answer is computed here, straight from the raw estate, by the simple readings
 * below: never by the agent's planner. `pnpm test` asks a few hundred (test/typed-answers.test.ts); `pnpm bench --
 * --suites answers` asks 3,000.
 */
import { createRng, type ArgoApplication } from '@flotilla/simulators';
import { appList, count, facts, type Estates, type Expectation } from './answer-questions.js';

export const TYPED_CONSTRUCTIONS = ['filter_count', 'filter_list', 'breakdown', 'top', 'compare', 'fields', 'action'] as const;
export type TypedConstruction = (typeof TYPED_CONSTRUCTIONS)[number];

export interface TypedQuestion {
  readonly construction: TypedConstruction;
  readonly ask: string;
  readonly expect: Expectation;
}

type Field = 'health' | 'sync' | 'cluster' | 'env';
type GroupField = Field | 'project' | 'namespace' | 'team';

const HEALTH = ['Healthy', 'Degraded', 'Progressing', 'Suspended', 'Missing'];
const SYNC = ['Synced', 'OutOfSync'];
const ENVS = ['prod', 'staging', 'dev', 'qa'];
const VALUE_WORDS: Readonly<Record<'health' | 'sync' | 'env', Readonly<Record<string, readonly string[]>>>> = {
  health: { Healthy: ['healthy'], Degraded: ['degraded'], Progressing: ['progressing'], Suspended: ['suspended', 'paused'], Missing: ['missing'] },
  sync: { Synced: ['synced', 'in sync'], OutOfSync: ['out of sync', 'out-of-sync', 'drifted'] },
  env: { prod: ['prod', 'production'], staging: ['staging', 'stg'], dev: ['dev', 'development'], qa: ['qa'] },
};
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
const PROJECTED = ['image', 'repo', 'revision', 'cluster', 'project', 'history', 'health'] as const;
const PROJECTED_WORDS: Readonly<Record<(typeof PROJECTED)[number], readonly string[]>> = {
  image: ['image', 'images'],
  repo: ['repo', 'repository'],
  revision: ['revision', 'target revision'],
  cluster: ['cluster'],
  project: ['project'],
  history: ['sync history', 'deployment history'],
  health: ['health'],
};

/** Two neighbouring letters swapped, in a word or a name of 6 characters or more. */
const swapped = (w: string): string => (w.length >= 6 && /^[a-z]/.test(w) ? `${w.slice(0, 2)}${w[3] ?? ''}${w[2] ?? ''}${w.slice(4)}` : w);
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The simple readings of the estate every expectation is computed from. */
function readings(d: Estates) {
  const cluster = (a: ArgoApplication): string => d.clusterOf(a) ?? '';
  const get: Readonly<Record<GroupField, (a: ArgoApplication) => string>> = {
    health: (a) => a.status.health.status,
    sync: (a) => a.status.sync.status,
    cluster,
    env: (a) => a.metadata.labels?.env ?? '',
    project: (a) => a.spec.project,
    namespace: (a) => a.spec.destination.namespace ?? '',
    team: (a) => a.metadata.labels?.team ?? '',
  };
  const sources = (a: ArgoApplication) => a.spec.sources ?? (a.spec.source === undefined ? [] : [a.spec.source]);
  const groups = (apps: readonly ArgoApplication[], by: readonly GroupField[]): Map<string, { key: string[]; n: number }> => {
    const out = new Map<string, { key: string[]; n: number }>();
    for (const a of apps) {
      const key = by.map((f) => get[f](a) || '(none)');
      const id = key.join('\u0000');
      const g = out.get(id);
      if (g === undefined) out.set(id, { key, n: 1 });
      else g.n += 1;
    }
    return out;
  };
  return { get, sources, groups, clusters: [...new Set(d.clusters.map((c) => c.name))].filter((c) => c !== 'in-cluster') };
}

/** `n` questions, the same for the same seed and estate. */
export function typedQuestions(d: Estates, n: number, seed = 31): TypedQuestion[] {
  const rng = createRng(seed);
  const r = readings(d);
  const out: TypedQuestion[] = [];
  const valuesOf = (f: Field): readonly string[] => (f === 'health' ? HEALTH : f === 'sync' ? SYNC : f === 'env' ? ENVS : r.clusters);
  const word = (f: Field, v: string, typo: boolean): string => {
    const w = f === 'cluster' ? rng.pick([v, `cluster ${v}`, `the ${v} cluster`]) : rng.pick(VALUE_WORDS[f][v] ?? [v]);
    return typo ? w.split(' ').map(swapped).join(' ') : w;
  };
  const scoped = (f: Field, phrase: string): string => (f === 'cluster' || f === 'env' ? `in ${phrase}` : phrase);
  const noun = (): string => rng.pick(['apps', 'applications', 'argo apps']);
  const filterOf = (): readonly [Field, string] | undefined => (rng.next() < 0.5 ? undefined : ((f: Field) => [f, rng.pick(valuesOf(f))] as const)(rng.pick<Field>(['health', 'sync'])));
  const filterWord = (f: readonly [Field, string] | undefined): string => (f === undefined ? '' : word(f[0], f[1], rng.next() < 0.25));
  const filtered = (f: readonly [Field, string] | undefined): ArgoApplication[] => d.apps.filter((a) => f === undefined || r.get[f[0]](a) === f[1]);
  while (out.length < n) {
    const construction = TYPED_CONSTRUCTIONS[out.length % TYPED_CONSTRUCTIONS.length] as TypedConstruction;
    switch (construction) {
      case 'filter_count':
      case 'filter_list': {
        const f1 = rng.pick<Field>(['health', 'sync', 'cluster', 'env']);
        const negated = rng.next() < 0.3;
        // "not a or b" is ambiguous in English: a negated list is one value.
        const values1 = rng.shuffle(valuesOf(f1)).slice(0, negated ? 1 : rng.int(1, 2));
        const f2 = rng.next() < 0.5 ? rng.pick((['health', 'sync', 'cluster', 'env'] as const).filter((f) => f !== f1)) : undefined;
        const v2 = f2 === undefined ? undefined : rng.pick(valuesOf(f2));
        const typo = rng.next() < 0.25;
        const list = values1.map((v, i) => word(f1, v, typo && i === 0));
        const joined = list.length === 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} or ${list[list.length - 1] ?? ''}`;
        const first = negated ? `${f1 === 'cluster' || f1 === 'env' ? 'not in' : 'not'} ${joined}` : scoped(f1, joined);
        const second = f2 === undefined || v2 === undefined ? '' : scoped(f2, word(f2, v2, false));
        const lead = construction === 'filter_count' ? rng.pick(['how many', 'count', 'number of']) : rng.pick(['list', 'show me', 'which', '']);
        const ask =
          negated || rng.next() < 0.5 ? squash(`${lead} ${noun()} ${negated ? 'that are ' : ''}${first} ${second}`) : squash(`${lead} ${second.replace(/^in (?!sync)/, '')} ${first.replace(/^in (?!sync)/, '')} ${noun()}`);
        const apps = d.apps.filter((a) => values1.includes(r.get[f1](a)) !== negated).filter((a) => f2 === undefined || r.get[f2](a) === v2);
        out.push({ construction, ask, expect: construction === 'filter_count' ? count(apps) : appList(d, apps) });
        break;
      }
      case 'breakdown': {
        const by = rng.shuffle<GroupField>(['health', 'sync', 'cluster', 'project', 'namespace', 'team', 'env']).slice(0, rng.int(1, 2));
        const [g1, g2] = by as [GroupField, GroupField | undefined];
        const f = filterOf();
        const w1 = rng.pick(GROUP_WORDS[g1]);
        const fw = filterWord(f);
        const nn = noun();
        const ask =
          g2 === undefined
            ? rng.pick([`how many ${fw} ${nn} per ${w1}`, `${fw} ${nn} by ${w1}`, `${w1} breakdown of ${fw} ${nn}`, `count ${fw} ${nn} grouped by ${w1}`, `which ${PLURAL[g1]} have ${fw} ${nn}`])
            : rng.pick([`${fw} ${nn} by ${w1} and ${rng.pick(GROUP_WORDS[g2])}`, `count ${fw} ${nn} per ${w1} and ${rng.pick(GROUP_WORDS[g2])}`]);
        const apps = filtered(f);
        const ranked = [...r.groups(apps, by).values()].sort((a, b) => b.n - a.n);
        const row = (g: { key: string[]; n: number }): readonly string[] => [`| ${g.key.join(' | ')} | ${g.n} |`, `| ${[...g.key].reverse().join(' | ')} | ${g.n} |`];
        out.push({ construction, ask: squash(ask), expect: facts([`${apps.length} applications`, `${apps.length} application`], ...ranked.slice(0, 2).map(row)) });
        break;
      }
      case 'top': {
        const by = rng.pick<GroupField>(['cluster', 'project', 'namespace', 'team']);
        const f = filterOf();
        const fw = filterWord(f);
        const nn = noun();
        const ask = rng.pick([`which ${rng.pick(GROUP_WORDS[by])} has the most ${fw} ${nn}`, `which ${PLURAL[by]} have the most ${fw} ${nn}`, `top 3 ${PLURAL[by]} by number of ${fw} ${nn}`]);
        const ranked = [...r.groups(filtered(f), [by]).values()].sort((a, b) => b.n - a.n);
        const best = ranked[0];
        if (best === undefined) continue;
        const tied = ranked.filter((g) => g.n === best.n).map((g) => g.key[0] ?? '');
        out.push({ construction, ask: squash(ask), expect: facts(tied, ` ${best.n} `) });
        break;
      }
      case 'compare': {
        const [a, b] = rng.shuffle(r.clusters) as [string, string];
        const f = filterOf();
        const fw = filterWord(f);
        const nn = noun();
        const ask = rng.pick([`are there more ${fw} ${nn} in ${a} or ${b}?`, `compare ${fw} ${nn} in ${a} and ${b}`, `${a} vs ${b} ${fw} ${nn}`, `does ${a} have more ${fw} ${nn} than ${b}?`]);
        const apps = filtered(f);
        const na = apps.filter((x) => r.get.cluster(x) === a).length;
        const nb = apps.filter((x) => r.get.cluster(x) === b).length;
        out.push({ construction, ask: squash(ask), expect: facts(na === nb ? ['same'] : na > nb ? [`${a} has more`] : [`${b} has more`], ` ${Math.max(na, nb)}`, ` ${Math.min(na, nb)}`) });
        break;
      }
      case 'fields': {
        const app = rng.pick(d.apps);
        const field = rng.pick(PROJECTED);
        const w = rng.pick(PROJECTED_WORDS[field]);
        const name = app.metadata.name;
        const ask = rng.pick([`what ${w} is ${name} running?`, `${w} of ${name}`, `show me the ${w} of ${name}`, `${name} ${w}`, `which ${w} does ${name} use?`]);
        const src = r.sources(app)[0];
        const last = app.status.history?.[app.status.history.length - 1];
        const value =
          field === 'image'
            ? (app.status.summary.images?.[0] ?? 'none')
            : field === 'repo'
              ? (src?.repoURL ?? 'none')
              : field === 'revision'
                ? (src?.targetRevision ?? 'HEAD')
                : field === 'cluster'
                  ? r.get.cluster(app)
                  : field === 'project'
                    ? app.spec.project
                    : field === 'health'
                      ? app.status.health.status
                      : (last?.revision ?? last?.revisions?.[0] ?? 'none');
        out.push({ construction, ask, expect: facts(name, value) });
        break;
      }
      case 'action': {
        const app = rng.pick(d.apps).metadata.name;
        const verb = rng.pick(Object.keys(VERBS));
        const v = rng.pick(VERBS[verb] ?? [verb]);
        out.push({ construction, ask: rng.pick([`${v} ${app}`, `please ${v} the app ${app}`, `can you ${v} ${app}?`, `${v} the application ${app} now`]), expect: { kind: 'cannot' } });
        break;
      }
    }
  }
  return out;
}

/** A tally of verdicts per construction. */
export type ConstructionTally<C extends string = TypedConstruction> = Readonly<Record<C | 'total', { questions: number; correct: number; honest: number; wrong: number }>>;

export function tallyByConstruction<C extends string>(rows: readonly { readonly construction: C; readonly verdict: 'correct' | 'honest' | 'wrong' }[], constructions: readonly C[]): ConstructionTally<C> {
  const of = (subset: typeof rows) => ({
    questions: subset.length,
    correct: subset.filter((x) => x.verdict === 'correct').length,
    honest: subset.filter((x) => x.verdict === 'honest').length,
    wrong: subset.filter((x) => x.verdict === 'wrong').length,
  });
  const out = { total: of(rows) } as Record<C | 'total', ReturnType<typeof of>>;
  for (const c of constructions) out[c] = of(rows.filter((x) => x.construction === c));
  return out;
}

