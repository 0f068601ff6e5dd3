/**
 * The generated questions of typed-questions.ts asked over A2A of the Argo CD agent (rules mode, the default),
 * against the Argo CD simulator, each in a new conversation, each answer judged by the answer suite's judge against
 * the expected answer computed from the raw estate.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ClientFactory } from '@a2a-js/sdk/client';
import { lexiconRead } from '@flotilla/agent-host/testing';
import { ARGOCD_AGENT_SETTINGS, ARGOCD_DOMAIN, startArgoCdAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { createParser, PARSE_LIMITS } from '@flotilla/query';
import { parseSettings, silentLogger } from '@flotilla/core';
import type { Estates, Expectation } from './answer-questions.js';
import { ask, judge, NETBOX_RATE, type Verdict } from './answers.js';
import { TYPED_CONSTRUCTIONS, tallyByConstruction, typedQuestions, type ConstructionTally, type TypedConstruction } from './typed-questions.js';
import { NETBOX_CONSTRUCTIONS, netboxTypedQuestions, type NetBoxConstruction } from './netbox-typed-questions.js';

export interface TypedAnswerRow<C extends string = TypedConstruction> {
  readonly construction: C;
  readonly question: string;
  readonly verdict: Verdict;
  readonly why: string;
  readonly answer: string;
}

export interface TypedAnswersRun<C extends string = TypedConstruction> {
  readonly questions: number;
  readonly seed: number;
  readonly tally: ConstructionTally<C>;
  readonly seconds: number;
  readonly rows: readonly TypedAnswerRow<C>[];
  /** When asked for (the bench; not the tests). */
  readonly parse?: ParseTiming;
}

/** How long the typed parser takes on the longest question it reads (PARSE_LIMITS.maxChars), over the estate's names. */
export interface ParseTiming {
  readonly questions: number;
  readonly chars: number;
  readonly liveValues: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Parses counted for the timing, after as many untimed (the parser's code compiled, as in a running agent). */
const PARSE_RUNS = 2_000;

/**
 * Questions of PARSE_LIMITS.maxChars characters, each generated questions joined with ", and " (so every part is
 * read, typos and all), parsed by a parser over the estate's live names (what list_values reads), one at a time.
 */
export function timeParse(d: Estates, seed: number): ParseTiming {
  const labels = (k: string): string[] => d.apps.map((a) => a.metadata.labels?.[k]).filter((v): v is string => v !== undefined);
  const distinct = (xs: readonly (string | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => x !== undefined && x !== ''))];
  const values = {
    applications: {
      name: distinct(d.apps.map((a) => a.metadata.name)),
      project: distinct(d.apps.map((a) => a.spec.project)),
      cluster: distinct([...d.clusters.map((c) => c.name), ...d.apps.map((a) => a.spec.destination.name ?? a.spec.destination.server)]),
      namespace: distinct(d.apps.map((a) => a.spec.destination.namespace)),
      repo: distinct(d.apps.flatMap((a) => [a.spec.source?.repoURL, ...(a.spec.sources ?? []).map((s) => s.repoURL)])),
      env: distinct(labels('env')),
      team: distinct(labels('team')),
      region: distinct(labels('region')),
      tier: distinct(labels('tier')),
    },
    clusters: { name: distinct(d.clusters.map((c) => c.name)), server: distinct(d.clusters.map((c) => c.server)) },
  };
  const parser = createParser(ARGOCD_DOMAIN, values);
  const pool = typedQuestions(d, 400, seed + 1).map((q) => q.ask);
  const long: string[] = [];
  for (let i = 0; long.length < 50; i += 1) {
    let text = pool[i % pool.length] ?? '';
    for (let j = 1; text.length < PARSE_LIMITS.maxChars; j += 1) text += `, and ${pool[(i * 7 + j) % pool.length] ?? ''}`;
    long.push(text.slice(0, PARSE_LIMITS.maxChars));
  }
  const times: number[] = [];
  for (let run = 0; run < PARSE_RUNS * 2; run += 1) {
    const question = long[run % long.length] ?? '';
    const began = performance.now();
    parser.parse(question, d.now);
    if (run >= PARSE_RUNS) times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
  return { questions: times.length, chars: PARSE_LIMITS.maxChars, liveValues: parser.lexicon.liveCount, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** timeParse in a process of its own (parse-timing.ts): an agent's heap, not the bench's. */
async function parseTimingInOwnProcess(seed: number): Promise<ParseTiming> {
  const script = fileURLToPath(new URL('./parse-timing.js', import.meta.url));
  const child = spawn(process.execPath, [script, String(seed)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`the parse timing exited with ${String(code)}`);
  return JSON.parse(out) as ParseTiming;
}

/** Each question in a new conversation of the agent at `url`, each answer judged against its expectation. */
async function askEach<C extends string>(url: string, questions: readonly { readonly construction: C; readonly ask: string; readonly expect: Expectation }[], constructions: readonly C[], seed: number, system: string, progress?: (line: string) => void): Promise<TypedAnswersRun<C>> {
  const client = await new ClientFactory().createFromUrl(url);
  const began = performance.now();
  const rows: TypedAnswerRow<C>[] = [];
  for (const [i, q] of questions.entries()) {
    const reply = await ask(client, q.ask, randomUUID());
    const { verdict, why } = judge(q.expect, reply.answer, reply.options);
    rows.push({ construction: q.construction, question: q.ask, verdict, why, answer: reply.answer.slice(0, 600) });
    if ((i + 1) % 500 === 0) progress?.(`answers (generated, ${system}): ${i + 1}/${questions.length} questions\n`);
  }
  return { questions: questions.length, seed, tally: tallyByConstruction(rows, constructions), seconds: (performance.now() - began) / 1000, rows };
}

/** Asks `n` generated questions (seeded) of an Argo CD agent started here against `argoUrl`. */
export async function runTypedAnswers(options: { readonly argoUrl: string; readonly token: string; readonly d: Estates; readonly n: number; readonly seed?: number; readonly progress?: (line: string) => void; readonly timeParse?: boolean }): Promise<TypedAnswersRun> {
  const seed = options.seed ?? 31;
  const questions = typedQuestions(options.d, options.n, seed);
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-typed-answers-'));
  const agent = await startArgoCdAgent(
    parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': options.argoUrl, 'argocd-token': options.token, 'data-dir': dataDir, 'log-level': 'silent' }, {}, 'typed answers'),
    silentLogger(),
    { now: () => options.d.now },
  );
  try {
    const run = await askEach(agent.url, questions, TYPED_CONSTRUCTIONS, seed, 'Argo CD', options.progress);
    return { ...run, ...(options.timeParse === true ? { parse: await parseTimingInOwnProcess(seed) } : {}) };
  } finally {
    await agent.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Asks `n` generated NetBox questions (seeded) of a NetBox agent started here against `netboxUrl`. */
export async function runNetBoxTypedAnswers(options: { readonly netboxUrl: string; readonly token: string; readonly d: Estates; readonly n: number; readonly seed?: number; readonly progress?: (line: string) => void }): Promise<TypedAnswersRun<NetBoxConstruction>> {
  const seed = options.seed ?? 31;
  const questions = netboxTypedQuestions(options.d, options.n, seed);
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-typed-answers-'));
  const agent = await startNetBoxAgent(
    parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': options.netboxUrl, 'netbox-token': options.token, 'data-dir': dataDir, 'netbox-rate-limit': NETBOX_RATE, 'netbox-rate-burst': NETBOX_RATE, 'log-level': 'silent' }, {}, 'typed answers'),
    silentLogger(),
  );
  try {
    await lexiconRead(agent.url);
    return await askEach(agent.url, questions, NETBOX_CONSTRUCTIONS, seed, 'NetBox', options.progress);
  } finally {
    await agent.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
