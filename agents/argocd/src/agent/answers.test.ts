import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CACHE_DEFAULTS, AnswerCache, CapabilityIndex } from '@flotilla/agent-kit';
import { generateArgoEstate } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';
import { createArgoCdAgent } from './agent.js';
import { argoCdToolsOverSimulator, type ArgoCdToolsHarness } from '../simulated-tools.test-util.js';

/**
 * Issue 17's seen cases: questions a new user typed, each expected answer computed from the simulator's estate.
 * The agent's clock is the estate's epoch, so "in the last hour" means the same thing on every run.
 */
const TOKEN = 'answers-test-token-01';
const NOW = Date.parse('2025-11-20T09:30:00Z');
const estate = generateArgoEstate();
const apps = estate.applications;
let harness: ArgoCdToolsHarness;
let counter: TokenCounter;
let tools: ArgoCdToolsHarness['tools'];
let agent: ReturnType<typeof createArgoCdAgent>;
let cached: ReturnType<typeof createArgoCdAgent>;

beforeAll(async () => {
  harness = await argoCdToolsOverSimulator({ token: TOKEN, estate });
  ({ tools, counter } = harness);
  const capabilities = await CapabilityIndex.fromClient(tools.client);
  agent = createArgoCdAgent({ mcp: tools.client, counter, capabilities, now: () => NOW });
  cached = createArgoCdAgent({ mcp: tools.client, counter, capabilities, now: () => NOW, answerCache: new AnswerCache(ANSWER_CACHE_DEFAULTS) });
});
afterAll(async () => {
  await harness?.close();
});

/** The cluster an application deploys to, whichever way its destination names it. */
const clusterOf = (app: (typeof apps)[number]): string | undefined =>
  app.spec.destination.name ?? estate.clusters.find((c) => c.server === app.spec.destination.server)?.name;
const firstLine = (text: string): string => text.split('\n')[0] ?? '';
/** "1 application", "35 applications", as the answers count. */
const applications = (n: number): string => `${n} application${n === 1 ? '' : 's'}`;
let conversation = 0;
const ask = (question: string) => agent.ask(question, `answers-${(conversation += 1)}`);

/** The filters an answer's first line says it applied ("12 applications (project a, health not Healthy)"), sorted. */
const filtersOf = (answer: string | undefined): string[] => (/\(([^)]*)\)/.exec(answer?.split('\n')[0] ?? '')?.[1] ?? '').split(', ').sort();

describe('answers that never mislead (issue 17)', () => {
  it('"find apps with payment in the name" lists the apps whose name contains it, not all of them', async () => {
    const wanted = apps.filter((a) => a.metadata.name.includes('payment'));
    expect(wanted.length).toBeGreaterThan(20);
    expect(wanted.length).toBeLessThan(apps.length);
    const turn = await ask('find apps with payment in the name');
    expect(turn.answer).toMatch(new RegExp(`\\b${wanted.length} applications \\(name contains "payment"\\)`));
    for (const app of wanted) expect(turn.answer).toContain(app.metadata.name);
  });

  it('"which apps were synced in the last hour?" applies the time window to the last sync', async () => {
    const since = NOW - 3_600_000;
    const wanted = apps.filter((a) => Date.parse(a.status.operationState?.finishedAt ?? '') >= since);
    const turn = await ask('which apps were synced in the last hour?');
    expect(turn.answer).toMatch(new RegExp(`^${applications(wanted.length)} \\(last sync finished since 2025-11-20 08:30 UTC\\)`));
    for (const app of wanted) expect(turn.answer).toContain(app.metadata.name);
    // Over a day the window still holds: the count is exact, not the Synced ones.
    const day = apps.filter((a) => Date.parse(a.status.operationState?.finishedAt ?? '') >= NOW - 86_400_000);
    expect((await ask('how many apps were deployed in the last 24 hours?')).answer).toMatch(new RegExp(`^${day.length} applications`));
  });

  it('one cluster, one identity: a cluster by name finds the apps that name it by URL too', async () => {
    const staging = apps.filter((a) => a.status.sync.status === 'OutOfSync' && clusterOf(a) === 'staging-eu-1');
    const byName = apps.filter((a) => a.spec.destination.name === 'staging-eu-1' && a.status.sync.status === 'OutOfSync');
    expect(staging.length).toBeGreaterThan(byName.length);
    const turn = await ask('which applications are OutOfSync in the staging-eu-1 cluster');
    expect(firstLine(turn.answer)).toContain(`${staging.length} applications (sync OutOfSync, cluster staging-eu-1)`);
    for (const app of staging) expect(turn.answer).toContain(app.metadata.name);

    const prod = apps.filter((a) => clusterOf(a) === 'prod-eu-1');
    const listed = estate.clusters.find((c) => c.name === 'prod-eu-1')?.info.applicationsCount;
    expect(prod.length).toBe(listed);
    expect(firstLine((await ask('apps in cluster prod-eu-1')).answer)).toContain(`(${prod.length} applications (cluster prod-eu-1)`);
    // By its API URL: the same apps.
    const server = estate.clusters.find((c) => c.name === 'prod-eu-1')?.server ?? '';
    expect(firstLine((await ask(`how many apps are deployed to ${server}?`)).answer)).toMatch(new RegExp(`^${prod.length} applications`));
    // Aggregates count each cluster once, under its name.
    const perCluster = await ask('how many apps per cluster');
    const counted = new Set(apps.map(clusterOf));
    expect(firstLine(perCluster.answer)).toBe(`${apps.length} applications, by cluster:`);
    expect(perCluster.answer).not.toContain('https://');
    expect(perCluster.answer).toContain(`| prod-eu-1 | ${prod.length} |`);
    expect(counted.size).toBe(estate.clusters.filter((c) => c.info.applicationsCount > 0).length);
  });

  it('"unhealthy" means every health status but Healthy', async () => {
    const wanted = apps.filter((a) => a.status.health.status !== 'Healthy' && a.metadata.labels?.env === 'prod');
    const degraded = wanted.filter((a) => a.status.health.status === 'Degraded');
    expect(wanted.length).toBeGreaterThan(degraded.length);
    // Said as read: the count, and what "unhealthy" was taken to mean.
    const answer = (await ask('how many unhealthy apps are in prod?')).answer;
    expect(answer).toMatch(new RegExp(`^${wanted.length} applications\\b`));
    expect(answer).toMatch(/health (is )?not Healthy/);
  });

  it('a count question leads with the number', async () => {
    const wanted = apps.filter((a) => a.status.sync.status === 'OutOfSync');
    const turn = await ask('how many apps are out of sync?');
    expect(turn.answer).toMatch(new RegExp(`^${wanted.length} applications \\(sync OutOfSync\\)\\.`));
    expect(turn.answer).not.toMatch(/^Page 1/);
    expect(turn.answer).not.toContain('| name |');
  });

  it('a two-part question the rules do not read is answered part by part by the typed reading, a later part without a subject narrowing the one before', async () => {
    const versions = [...new Set(estate.clusters.flatMap((c) => (c.info.serverVersion === undefined ? [] : [c.info.serverVersion])))];
    for (const version of versions) {
      const running = estate.clusters.filter((c) => c.info.serverVersion === version);
      const degraded = apps.filter((a) => a.status.health.status === 'Degraded');
      const turn = await ask(`which clusters run ${version}, and how many apps are degraded?`);
      const [first, second] = turn.answer.split('\n\n2. ');
      expect(first, version).toMatch(new RegExp(`^1\\. ${running.length} clusters? match`));
      for (const c of running) expect(first).toContain(c.name);
      expect(second, version).toMatch(new RegExp(`^${applications(degraded.length)}\\b`));
    }
    // "…, and how many of them are degraded?": the second part has no subject, and counts within the first's answer.
    const manual = (a: (typeof apps)[number]): boolean => a.spec.syncPolicy?.automated === undefined || a.spec.syncPolicy.automated === null;
    for (const cluster of estate.clusters.slice(0, 4).map((c) => c.name)) {
      const inCluster = apps.filter((a) => clusterOf(a) === cluster && manual(a));
      for (const health of ['Degraded', 'Progressing']) {
        const turn = await ask(`which apps in ${cluster} don't auto-sync, and how many of them are ${health.toLowerCase()}?`);
        const [first, second] = turn.answer.split('\n\n2. ');
        expect(first, cluster).toMatch(new RegExp(`^1\\. ${applications(inCluster.length)} \\(cluster ${cluster}, auto-sync off\\)`));
        // The count within the first part's answer (its scope carried over, said in the first line).
        const n = inCluster.filter((a) => a.status.health.status === health).length;
        expect(second, `${cluster} ${health}`).toMatch(new RegExp(`^${applications(n)}(?: match)? \\(`));
        expect(filtersOf(second), `${cluster} ${health}`).toEqual([`cluster ${cluster}`, 'auto-sync off', `health ${health}`].sort());
      }
    }
  });

  it('an empty list whose names all exist says so; one naming what the estate lacks says it may be misspelt', async () => {
    const teams = [...new Set(apps.map((a) => a.metadata.labels?.team).filter((t): t is string => t !== undefined))].sort();
    const clusters = [...new Set(apps.map(clusterOf).filter((c): c is string => c !== undefined))].sort();
    // A team and a cluster the estate both has, with no application of that team on that cluster.
    const pair = teams.flatMap((team) => clusters.map((cluster) => [team, cluster] as const)).find(([team, cluster]) => !apps.some((a) => a.metadata.labels?.team === team && clusterOf(a) === cluster));
    expect(pair).toBeDefined();
    const [team, cluster] = pair ?? ['', ''];
    const none = await ask(`list the apps of team ${team} on ${cluster}`);
    expect(none.answer).toMatch(/^0 applications match/);
    expect(none.answer).toContain('Every name in it is one Argo CD has');
    expect(none.answer).not.toMatch(/misspelt/);
    const unknown = await ask(`list the apps of team zyxwvut on ${cluster}`);
    expect(unknown.answer).toMatch(/misspelt|not one Argo CD has/);
  });

  it('a two-part question answers both parts, the second narrowing the first', async () => {
    const project = 'payments-prod';
    const inProject = apps.filter((a) => a.spec.project === project);
    const unhealthy = inProject.filter((a) => a.status.health.status !== 'Healthy');
    expect(inProject.length).toBeGreaterThan(unhealthy.length);
    const turn = await ask(`how many apps are in project ${project}, and which are unhealthy?`);
    const [first, second] = turn.answer.split('\n\n2. ');
    expect(first).toMatch(new RegExp(`^1\\. ${applications(inProject.length)} \\(project ${project}\\)`));
    expect(second).toMatch(new RegExp(`^${applications(unhealthy.length)} \\(`));
    expect(filtersOf(second)).toEqual([`project ${project}`, 'health not Healthy'].sort());
    for (const app of unhealthy) expect(second).toContain(app.metadata.name);
  });

  it('says what it did not understand instead of answering the rest confidently', async () => {
    const costly = await ask('which app costs the most?');
    expect(costly.answer).toMatch(/I did not understand "costs", "most"/);
    expect(costly.answer).not.toMatch(/819 applications/);
    expect(costly.toolCalls).toBe(0);
    const partial = await ask('which apps in prod were reconciled in the last hour?');
    expect(partial.answer).toMatch(/^I did not understand "reconciled"/);
    expect(partial.answer).toContain('(selector env=prod)');
    const typo = await ask('whcih apps are out of snyc in prod');
    expect(typo.answer).toContain('(Read "whcih" as "which", "snyc" as "sync".)');
    expect(typo.answer).toContain('sync OutOfSync, selector env=prod');
  });

  it('never answers a question with words it did not understand from the cached answer of another', async () => {
    const all = await cached.ask('list all applications', 'cache-1');
    expect(all.cached).toBe(false);
    expect((await cached.ask('list all applications', 'cache-2')).cached).toBe(true);
    const costly = await cached.ask('which app costs the most?', 'cache-3');
    expect(costly.cached).toBe(false);
    expect(costly.answer).toMatch(/I did not understand "costs", "most"/);
  });

  it('applies "not" and "or" as the typed query reads them (issue 31): the data answers them', async () => {
    const notPayments = apps.filter((a) => a.metadata.labels?.team !== 'payments').length;
    const either = apps.filter((a) => ['payments', 'checkout'].includes(a.spec.destination.namespace ?? '')).length;
    expect(either).toBeGreaterThan(0);
    expect(firstLine((await ask('how many apps are not owned by team payments?')).answer)).toMatch(new RegExp(`^${notPayments} applications\\b`));
    expect(firstLine((await ask('how many apps in namespace payments or checkout?')).answer)).toMatch(new RegExp(`^${either} applications\\b`));
  });

  it('offers follow-ups only where they make sense', async () => {
    const projects = await ask('list projects');
    expect(projects.options).not.toContain('only the out-of-sync ones');
    expect(projects.options).toContain('next page');
    const outOfSync = await ask('which apps are out of sync?');
    expect(outOfSync.options).not.toContain('only the out-of-sync ones');
    expect(outOfSync.options).toContain('only the unhealthy ones');
  });

  it('"what\'s wrong with payments-api-prod" says why the last sync failed: the operation message and the SyncError condition', async () => {
    const app = apps.find((a) => a.metadata.name === 'payments-api-prod');
    const message = app?.status.operationState?.message ?? '';
    const condition = app?.status.conditions?.find((c) => c.type === 'SyncError')?.message ?? '';
    expect(message).toMatch(/admission webhook/);
    const turn = await ask("what's wrong with payments-api-prod?");
    expect(turn.answer).toContain(message);
    expect(turn.answer).toContain(`Condition SyncError: ${condition}`);
  });
});
