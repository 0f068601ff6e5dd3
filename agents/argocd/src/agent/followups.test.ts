import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actPage, actTurn, CapabilityIndex, type ToolResult } from '@flotilla/agent-kit';
import { generateArgoEstate } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';
import { createArgoCdAgent } from './agent.js';
import { createArgoCdDomain, PRESENTATION } from './domain.js';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';
import { listClassification } from './typed-list.js';
import { createParser, readAct } from '@flotilla/query';
import { ARGOCD_DOMAIN } from '../query/declare.js';
import { argoCdToolsOverSimulator, type ArgoCdToolsHarness } from '../simulated-tools.test-util.js';

/**
 * Follow-ups of a count answer: a count leads with the number and shows its rows only when there are at most
 * PRESENTATION.countRowsMax; "next page" and "list them" after a count start at row 1 (the count showed none).
 * The simulator's estate is the oracle; the agent's clock is fixed. Then the diagnosis caps (diagnosisRows,
 * logLines) over the domain's own plan and presentation.
 */
const TOKEN = 'followups-test-token-01';
const NOW = Date.parse('2025-11-20T09:30:00Z');
const estate = generateArgoEstate();
const apps = estate.applications;
let harness: ArgoCdToolsHarness;
let counter: TokenCounter;
let tools: ArgoCdToolsHarness['tools'];
let agent: ReturnType<typeof createArgoCdAgent>;

beforeAll(async () => {
  harness = await argoCdToolsOverSimulator({ token: TOKEN, estate });
  ({ tools, counter } = harness);
  const capabilities = await CapabilityIndex.fromClient(tools.client);
  agent = createArgoCdAgent({ mcp: tools.client, counter, capabilities, now: () => NOW });
});
afterAll(async () => {
  await harness?.close();
});

let conversation = 0;
/** A conversation of its own: each question asked in turn, in the same context. */
function conversationOf() {
  const id = `followups-${(conversation += 1)}`;
  return (question: string) => agent.ask(question, id);
}
/** Application names in the rows of an answer's table, in order. */
const rowNames = (answer: string): string[] =>
  answer
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| name |'))
    .map((line) => line.split('|')[1]?.trim() ?? '');
const firstLine = (text: string): string => text.split('\n')[0] ?? '';

const prod = apps.filter((a) => a.metadata.labels?.env === 'prod');
const projectOf = (count: (n: number) => boolean): { name: string; size: number } => {
  const sizes = new Map<string, number>();
  for (const a of apps) sizes.set(a.spec.project, (sizes.get(a.spec.project) ?? 0) + 1);
  const found = [...sizes].filter(([, n]) => count(n)).sort((a, b) => b[1] - a[1])[0];
  if (found === undefined) throw new Error('the estate has no such project');
  return { name: found[0], size: found[1] };
};

type App = (typeof apps)[number];
/** A condition as people say it, and the simple evaluator of it over the raw estate (not the planner). */
interface Said {
  readonly words: string;
  readonly field: 'sync' | 'health';
  /** One value of its field ("degraded"), not a set of them ("unhealthy"). */
  readonly one: boolean;
  readonly holds: (a: App) => boolean;
}
const distinctOf = (xs: readonly (string | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => x !== undefined && x !== ''))].sort();
const envs = distinctOf(apps.map((a) => a.metadata.labels?.env));
const STATUS: readonly Said[] = [
  { words: 'out of sync', field: 'sync', one: true, holds: (a) => a.status.sync.status === 'OutOfSync' },
  { words: 'synced', field: 'sync', one: true, holds: (a) => a.status.sync.status === 'Synced' },
  ...['Degraded', 'Healthy', 'Progressing', 'Missing', 'Suspended'].map((h): Said => ({ words: h.toLowerCase(), field: 'health', one: true, holds: (a: App) => a.status.health.status === h })),
  { words: 'unhealthy', field: 'health', one: false, holds: (a) => a.status.health.status !== 'Healthy' },
];
/** The first count an answer states: "Page 1 of 4 (65 applications", "3 applications (", "0 applications match", "No applications match". */
const statedTotal = (answer: string): number | undefined => {
  const lead = answer.split('\n').filter((l) => !l.startsWith('(Read as')).slice(0, 2).join(' ');
  if (/^No applications match\b/.test(lead)) return 0;
  const m = /(\d[\d,]*) applications?\b/.exec(lead);
  return m?.[1] === undefined ? undefined : Number(m[1].replace(/,/g, ''));
};

describe('follow-ups are edits of the list before them (generated)', () => {
  it('narrows, replaces and counts within the last list, whatever filters it had, as the raw estate says', async () => {
    const narrow = ['only the {b} ones', 'of those, which are {b}?', 'just the {b} ones please', 'and which of them are {b}?'];
    const counted = ['and how many of those are {b}?', 'how many of them are {b}?'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...envs), fc.constantFrom(...STATUS), fc.constantFrom(...STATUS), fc.constantFrom(...narrow, ...counted), fc.constantFrom(...envs), async (env, a, b, edit, other) => {
        const ask = conversationOf();
        const inEnv = (x: App): boolean => x.metadata.labels?.env === env;
        await ask(`which apps in ${env} are ${a.words}?`);
        // A second single value of the same field replaces the first ("degraded", then "only the healthy ones": the
        // documented reading of an edit, said as "Read as"); anything else narrows ("degraded", then "only the unhealthy ones").
        const replaces = a.one && b.one && a.field === b.field;
        const kept = (x: App): boolean => inEnv(x) && b.holds(x) && (replaces || a.holds(x));
        const reply = await ask(edit.replace('{b}', b.words));
        expect(statedTotal(reply.answer), `${env} ${a.words} → ${edit.replace('{b}', b.words)}\n${reply.answer.slice(0, 300)}`).toBe(apps.filter(kept).length);
        // "what about <another environment>?" replaces the environment and keeps the rest.
        const moved = await ask(`what about ${other}?`);
        const there = (x: App): boolean => x.metadata.labels?.env === other && b.holds(x) && (replaces || a.holds(x));
        expect(statedTotal(moved.answer), `… → what about ${other}?\n${moved.answer.slice(0, 300)}`).toBe(apps.filter(there).length);
      }),
      { numRuns: 40, seed: 35 },
    );
  });
});

describe('follow-ups of a count answer', () => {
  it('"how many apps are in prod?" leads with the number, no rows; "next page" then shows rows 1-20 and goes on', async () => {
    expect(prod.length).toBeGreaterThan(2 * PRESENTATION.pageRows);
    const ask = conversationOf();
    const count = await ask('how many apps are in prod?');
    expect(firstLine(count.answer)).toBe(`${prod.length} applications (selector env=prod).`);
    expect(rowNames(count.answer)).toEqual([]);
    expect(count.options).toContain('list them');

    // The reference: the first page of the same list asked directly.
    const listed = rowNames((await conversationOf()('list apps in prod')).answer);
    expect(listed).toHaveLength(PRESENTATION.pageRows);
    for (const name of listed) expect(prod.map((a) => a.metadata.name)).toContain(name);

    const next = await ask('next page');
    expect(firstLine(next.answer)).toBe(`Page 1 of ${Math.ceil(prod.length / PRESENTATION.pageRows)} (${prod.length} applications (selector env=prod)), rows 1-${PRESENTATION.pageRows}.`);
    expect(rowNames(next.answer)).toEqual(listed);
    const after = await ask('next page');
    expect(firstLine(after.answer)).toMatch(new RegExp(`^Page 2 of \\d+ \\(${prod.length} applications \\(selector env=prod\\)\\), rows 21-40\\.`));
    expect(rowNames(after.answer).filter((n) => listed.includes(n))).toEqual([]);
  });

  it('"list them" after a count shows rows 1-20 too, and "next page" continues at row 21', async () => {
    const ask = conversationOf();
    await ask('how many apps are in prod?');
    const them = await ask('list them');
    expect(firstLine(them.answer)).toMatch(new RegExp(`^Page 1 of \\d+ \\(${prod.length} applications \\(selector env=prod\\)\\), rows 1-20\\.`));
    expect(rowNames(them.answer)).toHaveLength(PRESENTATION.pageRows);
    expect(firstLine((await ask('next page')).answer)).toMatch(/^Page 2 of \d+ .*rows 21-40\./);
  });

  it(`a count of at most PRESENTATION.countRowsMax (${PRESENTATION.countRowsMax}) shows its rows; "next page" then says that was all`, async () => {
    const small = projectOf((n) => n <= PRESENTATION.countRowsMax && n > 1);
    const ask = conversationOf();
    const count = await ask(`how many apps are in project ${small.name}?`);
    expect(firstLine(count.answer)).toBe(`${small.size} applications (project ${small.name}).`);
    expect(rowNames(count.answer).sort()).toEqual(apps.filter((a) => a.spec.project === small.name).map((a) => a.metadata.name).sort());
    expect(count.options).not.toContain('list them');
    expect((await ask('next page')).answer).toBe(`No more: that was all ${small.size}, shown whole.`);
  });

  it('a count over countRowsMax (but a list short enough to show whole) shows no rows; "list them" shows them all', async () => {
    const big = projectOf((n) => n > PRESENTATION.countRowsMax && n <= PRESENTATION.showWholeMax);
    const ask = conversationOf();
    const count = await ask(`how many apps are in project ${big.name}?`);
    expect(firstLine(count.answer)).toBe(`${big.size} applications (project ${big.name}).`);
    expect(rowNames(count.answer)).toEqual([]);
    const them = await ask('list them');
    expect(firstLine(them.answer)).toBe(`${big.size} applications (project ${big.name}):`);
    expect(rowNames(them.answer).sort()).toEqual(apps.filter((a) => a.spec.project === big.name).map((a) => a.metadata.name).sort());
  });
});

describe('presentation limits of the domain', () => {
  const classifier = createArgoCdClassifier({ now: () => NOW });
  const domain = createArgoCdDomain();
  // A list question's classification is the typed reading's, planned as the list (typed-list.ts).
  const parser = createParser(ARGOCD_DOMAIN, { applications: { env: ['prod'] } });
  const classify = (question: string) => listClassification(parser.parse(question, 0)) ?? classifier.classify(question);
  const respond = (question: string, results: readonly ToolResult[]) =>
    domain.respond({ question, classification: classify(question), results, limitations: [], handling: undefined, probes: [], memory: undefined, contextId: 'x', capabilities: undefined });
  const result = (tool: string, args: Record<string, unknown>, body: Record<string, unknown>): ToolResult => ({ call: { tool, args }, isError: false, body });
  const countOf = (n: number): ToolResult[] => {
    const items = Array.from({ length: n }, (_, i) => ({ name: `app-${String(i).padStart(3, '0')}`, project: 'p', sync: 'Synced', health: 'Healthy', cluster: 'c' }));
    return [result('list_applications', { selector: 'env=prod', limit: PRESENTATION.pageRows, offset: 0 }, { total: n, offset: 0, returned: n, items })];
  };

  it(`shows the rows of a count up to countRowsMax (${PRESENTATION.countRowsMax}), none above`, () => {
    const at = respond('how many apps are in prod?', countOf(PRESENTATION.countRowsMax));
    expect(rowNames(at.text)).toHaveLength(PRESENTATION.countRowsMax);
    expect(at.memory?.end).toBe(PRESENTATION.countRowsMax);
    const over = respond('how many apps are in prod?', countOf(PRESENTATION.countRowsMax + 1));
    expect(rowNames(over.text)).toEqual([]);
    expect(over.options).toEqual(['list them']);
    // Nothing shown: the next page is the first.
    expect(over.memory?.end).toBe(0);
    const act = readAct('next page');
    const next = domain.plan(actTurn<ArgoIntent>('next_page', { page: act === undefined ? '' : (actPage(act) ?? '') }), over.memory);
    expect(next).toEqual([{ tool: 'list_applications', args: { selector: 'env=prod', limit: PRESENTATION.pageRows, offset: 0 } }]);
  });

  it(`reads and quotes at most diagnosisRows (${PRESENTATION.diagnosisRows}) resources and events and logLines (${PRESENTATION.logLines}) log lines, the newest`, () => {
    const question = "what's wrong with payments-api-prod? show logs";
    const c = classifier.classify(question);
    expect(c.entities.diagnose).toBe('logs');
    const plan = domain.plan(c, undefined);
    expect(plan.find((p) => p.tool === 'get_resource_tree')?.args.limit).toBe(PRESENTATION.diagnosisRows);
    expect(plan.find((p) => p.tool === 'get_application_events')?.args.limit).toBe(PRESENTATION.diagnosisRows);

    const nodes = Array.from({ length: 3 * PRESENTATION.diagnosisRows }, (_, i) => ({ kind: 'Pod', name: `pod-${i}`, health: 'Degraded', namespace: 'payments' }));
    const app = result('get_application', { name: 'payments-api-prod' }, { summary: { name: 'payments-api-prod', project: 'payments-prod', sync: { status: 'Synced' }, health: { status: 'Degraded' } }, resources: { total: 0, items: [] } });
    const tree = result('get_resource_tree', { name: 'payments-api-prod', limit: PRESENTATION.diagnosisRows }, { items: nodes, total: nodes.length });
    const events = result('get_application_events', { name: 'payments-api-prod' }, { items: nodes.map((n, i) => ({ object: `Pod/${n.name}`, reason: `Reason${i}`, message: 'back-off' })) });
    const followUp = domain.followUp?.(c, [app, tree, events]) ?? [];
    const logsCall = followUp.find((f) => f.tool === 'get_logs');
    expect(logsCall?.args).toMatchObject({ pod: 'pod-0', tail_lines: PRESENTATION.logLines, limit: PRESENTATION.logLines });
    expect(followUp.find((f) => f.tool === 'get_resource_events')?.args.limit).toBe(PRESENTATION.podEvents);

    // Newest first, as the tool reads them.
    const lines = Array.from({ length: 3 * PRESENTATION.logLines }, (_, i) => ({ content: `line ${3 * PRESENTATION.logLines - i}` }));
    const logs = result('get_logs', logsCall?.args ?? {}, { items: lines, total: lines.length });
    const answer = respond(question, [app, tree, events, logs]).text;
    const section = (title: string): string[] => {
      const after = answer.split(`${title}\n`)[1] ?? '';
      return after.split('\n').filter((l, i, all) => l.startsWith('| ') && all.slice(0, i).every((p) => p.startsWith('|')));
    };
    // A header row, a separator, then the rows.
    expect(section('Not healthy in the resource tree:').length - 1).toBe(PRESENTATION.diagnosisRows);
    expect(section('Recent warning events:').length - 1).toBe(PRESENTATION.diagnosisRows);
    expect(answer).toContain(`The newest ${PRESENTATION.logLines} of ${lines.length} log lines read from pod-0:`);
    const quoted = (answer.split('```\n')[1] ?? '').split('\n```')[0]?.split('\n') ?? [];
    const newest = Array.from({ length: PRESENTATION.logLines }, (_, i) => `line ${3 * PRESENTATION.logLines - PRESENTATION.logLines + 1 + i}`);
    expect(quoted).toEqual(newest);
  });
});
