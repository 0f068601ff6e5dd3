/**
 * Generated Argo CD questions (issue 31): queries sampled from a model of the problem (filters on health, sync,
 * cluster and environment, negated or OR-ed; counts and lists; breakdowns by one or two fields; rankings;
 * comparisons of two clusters; named fields of one application; requests to act; clusters, projects and application
 * sets: their filters, breakdowns and named fields, and the applications a set generates), with values from the simulator's
 * estate, each rendered through one of several independent phrasings (templates, synonyms, word orders, typos in
 * words and in names). Each expected answer is computed here, straight from the raw estate, by the simple readings
 * below: never by the agent's planner. `pnpm test` asks a few hundred (test/typed-answers.test.ts); `pnpm bench --
 * --suites answers` asks 3,000.
 */
import { createRng, type ArgoApplication, type Rng } from '@flotilla/simulators';
import { appList, count, facts, names, type Estates, type Expectation } from './answer-questions.js';

export const TYPED_CONSTRUCTIONS = ['filter_count', 'filter_list', 'breakdown', 'top', 'compare', 'fields', 'action', 'inventory'] as const;
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
      case 'inventory': {
        out.push(inventoryQuestion(d, rng, rng.next() < 0.2));
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

/** Words for a cluster's connection state, as people say it. */
const CONNECTED = ['connected', 'reachable', 'working', 'up', 'connected ok'];
const NOT_CONNECTED = ['failing', 'down', 'unreachable', 'disconnected', 'with connection problems', 'with connection issues', 'not connected'];
const GENERATOR_WORDS: Readonly<Record<string, readonly string[]>> = { list: ['list'], clusters: ['cluster', 'clusters'], git: ['git'], matrix: ['matrix'], merge: ['merge'] };

/**
 * One question about the estate's inventory: clusters (connection, version, API server), projects (where they may
 * deploy, their source repositories) and application sets (generators, team, errors, the applications each
 * generated). Expected answers read the raw estate: a project may deploy to a cluster when a destination names it
 * (by name or API URL) or allows any ('*'); a set's applications are those whose owner reference names it.
 */
function inventoryQuestion(d: Estates, rng: Rng, typo: boolean): TypedQuestion {
  const construction = 'inventory' as const;
  const spell = (name: string): string => (typo ? swapped(name) : name);
  const clusterName = (dest: { name?: string; server?: string }): string => (dest.name !== undefined && dest.name !== '' ? dest.name : (d.clusters.find((c) => c.server === dest.server)?.name ?? dest.server ?? ''));
  const clusters = d.clusters.filter((c) => c.name !== 'in-cluster');
  const generators = (s: (typeof d.appSets)[number]): string[] => (s.spec.generators ?? []).flatMap((g) => Object.keys(g));
  switch (rng.int(0, 11)) {
    case 0: {
      const counted = rng.next() < 0.5;
      const ask = counted ? rng.pick(['how many clusters', 'how many clusters do we have?', 'number of registered clusters', 'count the k8s clusters']) : rng.pick(['list clusters', 'which clusters do we have?', 'show me all the kubernetes clusters', 'clusters']);
      return { construction, ask, expect: counted ? count(d.clusters) : names(d.clusters.map((c) => c.name), d.names.clusters) };
    }
    case 1: {
      const up = rng.next() < 0.5;
      const w = rng.pick(up ? CONNECTED : NOT_CONNECTED);
      const counted = rng.next() < 0.4;
      const ask = counted ? rng.pick([`how many clusters are ${w}?`, `number of clusters ${w}`]) : rng.pick([`which clusters are ${w}?`, `list clusters that are ${w}`, `${w} clusters`, `show the clusters ${w}`]);
      const set = d.clusters.filter((c) => (c.connectionState.status === 'Successful') === up);
      return { construction, ask: squash(ask.replace('that are with', 'with').replace('are with', 'have')), expect: counted ? count(set) : names(set.map((c) => c.name), d.names.clusters) };
    }
    case 2: {
      const c = rng.pick(clusters);
      const field = rng.pick(['version', 'server', 'connection'] as const);
      const ask =
        field === 'version'
          ? rng.pick([`what version is ${spell(c.name)} running?`, `kubernetes version of cluster ${spell(c.name)}`, `${spell(c.name)} k8s version`])
          : field === 'server'
            ? rng.pick([`api server url of cluster ${spell(c.name)}`, `what is the server of the ${spell(c.name)} cluster?`])
            : rng.pick([`is the ${spell(c.name)} cluster ok?`, `connection state of cluster ${spell(c.name)}`, `is cluster ${spell(c.name)} connected?`]);
      const value = field === 'version' ? (c.serverVersion ?? c.info.serverVersion ?? '') : field === 'server' ? c.server : c.connectionState.status;
      return { construction, ask, expect: facts(c.name, value) };
    }
    case 3: {
      const groups = new Map<string, number>();
      for (const c of d.clusters) groups.set(c.serverVersion ?? '', (groups.get(c.serverVersion ?? '') ?? 0) + 1);
      const [top] = [...groups].sort((a, b) => b[1] - a[1]);
      const ask = rng.pick(['clusters by kubernetes version', 'how many clusters per k8s version', 'cluster version breakdown']);
      return { construction, ask, expect: facts(`${d.clusters.length} clusters`, `| ${top?.[0] ?? ''} | ${top?.[1] ?? 0} |`) };
    }
    case 4: {
      const counted = rng.next() < 0.5;
      const ask = counted ? rng.pick(['how many projects are there?', 'number of argo projects', 'count the argo cd projects']) : rng.pick(['list projects', 'which projects do we have', 'show all argo projects']);
      return { construction, ask, expect: counted ? count(d.projects) : names(d.projects.map((p) => p.metadata.name), d.names.projects) };
    }
    case 5: {
      const c = rng.pick(clusters).name;
      const set = d.projects.filter((p) => (p.spec.destinations ?? []).some((x) => x.server === '*' || x.name === '*' || clusterName(x) === c));
      const counted = rng.next() < 0.4;
      const ask = counted ? rng.pick([`how many projects can deploy to ${spell(c)}?`, `number of projects allowed to deploy to ${spell(c)}`]) : rng.pick([`which projects can deploy to ${spell(c)}?`, `projects that deploy to cluster ${spell(c)}`, `list the projects with destination cluster ${spell(c)}`]);
      return { construction, ask, expect: counted ? count(set) : names(set.map((p) => p.metadata.name), d.names.projects) };
    }
    case 6: {
      const p = rng.pick(d.projects.filter((x) => (x.spec.sourceRepos ?? []).length > 0));
      const name = p.metadata.name;
      const ask = rng.pick([`source repos of project ${spell(name)}`, `what repos can the ${spell(name)} project use?`, `which repositories does project ${spell(name)} allow?`]);
      return { construction, ask, expect: facts(name, ...(p.spec.sourceRepos ?? []).slice(0, 3)) };
    }
    case 7: {
      const counted = rng.next() < 0.5;
      const ask = counted ? rng.pick(['how many application sets are there?', 'number of appsets', 'count the applicationsets']) : rng.pick(['list application sets', 'show the appsets', 'which applicationsets do we have']);
      return { construction, ask, expect: counted ? count(d.appSets) : names(d.appSets.map((s) => s.metadata.name), d.names.appSets) };
    }
    case 8: {
      const present = [...new Set(d.appSets.flatMap(generators))].filter((g) => GENERATOR_WORDS[g] !== undefined);
      const g = rng.pick(present);
      const w = rng.pick(GENERATOR_WORDS[g] ?? [g]);
      const set = d.appSets.filter((s) => generators(s).includes(g));
      const counted = rng.next() < 0.4;
      const ask = counted ? rng.pick([`how many application sets use a ${w} generator?`, `number of ${w} generator appsets`]) : rng.pick([`${w} generator appsets`, `application sets using the ${w} generator`, `which appsets have a ${w} generator?`]);
      return { construction, ask, expect: counted ? count(set) : names(set.map((s) => s.metadata.name), d.names.appSets) };
    }
    case 9: {
      const teams = [...new Set(d.appSets.map((s) => s.metadata.labels?.team).filter((t): t is string => t !== undefined))];
      const t = rng.pick(teams);
      const set = d.appSets.filter((s) => s.metadata.labels?.team === t);
      const counted = rng.next() < 0.4;
      const ask = counted ? rng.pick([`how many application sets does team ${t} have?`, `number of appsets owned by ${t}`]) : rng.pick([`application sets of the ${t} team`, `appsets owned by team ${t}`, `which applicationsets belong to team ${t}?`]);
      return { construction, ask, expect: counted ? count(set) : names(set.map((s) => s.metadata.name), d.names.appSets) };
    }
    case 10: {
      const s = rng.pick(d.appSets.filter((x) => (x.status.resources ?? []).length > 0));
      const name = s.metadata.name;
      const apps = d.apps.filter((a) => (a.metadata.ownerReferences ?? []).some((o) => o.kind === 'ApplicationSet' && o.name === name));
      const ask = rng.pick([`which apps does the ${name} application set generate?`, `apps generated by the ${name} appset`, `applications of application set ${name}`, `how many apps does appset ${name} generate?`]);
      return { construction, ask, expect: ask.startsWith('how many') ? count(apps) : appList(d, apps) };
    }
    default: {
      const set = d.appSets.filter((s) => (s.status.conditions ?? []).some((c) => c.status === 'True' && /error/i.test(c.type)));
      const counted = rng.next() < 0.4;
      const ask = counted ? rng.pick(['how many application sets have errors?', 'number of failing appsets']) : rng.pick(['application sets with errors', 'which appsets are failing?', 'list the applicationsets in error']);
      return { construction, ask, expect: counted ? count(set) : names(set.map((x) => x.metadata.name), d.names.appSets) };
    }
  }
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

