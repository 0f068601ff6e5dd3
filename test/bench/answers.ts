/**
 * The answer-quality suite (`pnpm bench -- --suites answers`): ANSWER_QUESTIONS (answer-questions.ts), questions
 * nobody tuned the rules to, asked over A2A of the Argo CD agent, the NetBox agent and the supervisor (in process,
 * against the simulators' default estates), each in a new conversation unless it is a follow-up; every expected
 * answer computed from the estates. Once in the default offline mode (rules, no model), once in hybrid mode with the
 * fake OpenAI server's default script (not a smart model: its answers are reported apart from the rules').
 *
 * The judge, strict on purpose (an answer that looks authoritative and is wrong is the failure this suite hunts):
 * - correct: the answer does what was asked.
 *   count  : the expected number is among the numbers of the answer's FIRST line ("page 2 of 3", "batch 1 of 5" and
 *            "rows 1-20" are not counts; 0 may also read "no", "none", "nothing", "zero"). Notes that open an answer
 *            are not its first line: a line wholly in parentheses ("(Read "come" as "some".)") or one saying what was
 *            not done (HONEST) and stating no number is skipped, so an answer may say what it ignored before it answers.
 *   list   : the set's size appears in the first line (as a count); when the set has at most 50 members every one of
 *            them is named; and no name of the same kind outside the set is named (at any size: a row that does not
 *            belong is wrong on page 1 too). Names are whole tokens, case-insensitive, from the estates.
 *   page   : ("next page") the set's size in the first line, at least one member named, no non-member, and none
 *            named by the answer before it in the conversation; when that answer already named every member, the
 *            correct answer names none and says the list has ended (END_OF_LIST).
 *   object : every expected fact appears (case-insensitive; an alternative list needs any one of its phrases).
 *   all    : (two questions in one) every part as above, except that its numbers may appear anywhere in the answer
 *            and a name is extra only when no part expects it (a counted part may name what it counts).
 *   cannot : (restart, costs, authors...) the answer's lead says it cannot (HONEST or CANNOT below) and nothing in it
 *            claims the thing was done (CLAIMS_DONE). That counts as correct.
 * - honest: not correct, but the answer's lead (the text before its first table row, at most LEAD_LINES lines) says
 *   plainly what it did not do or understand (HONEST), or asks the user to choose (a question mark in the lead and
 *   options offered): so it does not present its number as the answer to the whole question. A list of at most 50
 *   cut by the answer's token budget is honest too when its headline states the total and the first rows shown
 *   ("47 devices match; rows 1-33"), it names only members, and it offers the next page.
 * - confidently wrong: everything else, a missing answer included. Goal: 0.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { SUPERVISOR_SETTINGS, startSupervisor } from '@flotilla/agent-supervisor';
import { parseSettings, silentLogger } from '@flotilla/core';
import * as simulators from '@flotilla/simulators';
import { defaultScript, generateArgoEstate, generateNetBoxEstate, startArgoCdSimulator, startFakeOpenAi, startNetBoxSimulator } from '@flotilla/simulators';
import { ANSWER_QUESTIONS, estatesOf, type AnswerAgent, type Estates, type Expectation } from './answer-questions.js';
import { runNetBoxTypedAnswers, runTypedAnswers, type TypedAnswersRun } from './typed-answers.js';
import { NETBOX_CONSTRUCTIONS, type NetBoxConstruction } from './netbox-typed-questions.js';
import { TYPED_CONSTRUCTIONS } from './typed-questions.js';

/** The typed parser's bar on the longest question it reads (issue 31). */
export const TYPED_PARSE_GOAL_P99_MS = 5;

/** Generated questions the suite asks (typed-questions.ts), on top of ANSWER_QUESTIONS. */
export const GENERATED_QUESTIONS = 3_500;

/** "I did not / could not / cannot ...": the answer says what it did not do. */
export const HONEST =
  /\b(?:I did not|I didn['’]t|I can['’]t|I cannot|I could not|I couldn['’]t|I do not|I don['’]t|not applied|did not apply|not understood|did you mean|cannot be reached|isn['’]t available|is not available|not able to|unable to|not supported|ignored)\b/i;
/** Also a refusal, for what an agent cannot do: read-only agents, the supervisor's "None of my agents covers that". */
const CANNOT = /\b(?:read-only|only read|none of (?:my|the) agents|no agent (?:covers|can)|outside (?:my|what I)|beyond what)\b/i;
/** The answer claims to have done what it cannot do. */
const CLAIMS_DONE =
  /\b(?:I(?:['’]ve| have) (?:restarted|synced|rolled back|deleted|scaled|rebooted|added|triggered)|(?:restarted|synced|rolled back|deleted|scaled|rebooted|added|triggered) (?:successfully|it)|successfully (?:restarted|synced|rolled back|deleted|scaled|rebooted|added|triggered))\b|^done\b/im;
/** "There is no next page". */
const END_OF_LIST = /\b(?:last page|no more|nothing more|no further|that was (?:all|everything|the last)|end of the (?:list|results))\b/i;
/** A note opening an answer rather than answering: wholly in parentheses, or saying what was not done (and no number). */
const isNote = (line: string): boolean => /^\s*\(.*\)\s*$/.test(line) || (HONEST.test(line) && numbersIn(line).length === 0);
/** The lead of an answer: where a statement of what was not done must stand, before any data. */
export const LEAD_LINES = 6;
/** A list whose expected set is this size or smaller must name every member. */
export const WHOLE_LIST_MAX = 50;
/** The estate's epoch: "now" for the time questions, when the simulators do not export ARGO_ESTATE_EPOCH. */
export const ESTATE_EPOCH_FALLBACK = Date.parse('2025-11-20T09:30:00Z');
const REQUEST_TIMEOUT_MS = 60_000;
/** Characters of each answer printed in the report (answers.json keeps JSON_EXCERPT_CHARS). */
export const ANSWER_EXCERPT_CHARS = 160;
const JSON_EXCERPT_CHARS = 600;
/**
 * The NetBox agent's own rate limit on NetBox requests during the suite (the default is 20/s, burst 40). The suite
 * asks back to back, far faster than a person; at the default its answers would open with a rate-limit notice that
 * someone asking one question does not see, and measure the harness's pace rather than the answers.
 */
export const NETBOX_RATE = '1000';
const PROGRESS_EVERY = 50;
export const ARGO_TOKEN = 'bench-answers-argocd-token';
export const NETBOX_TOKEN = 'bench-answers-netbox-token-0123456789';
const KEY = 'sk-bench-answers';

export type Verdict = 'correct' | 'honest' | 'wrong';

export interface Judgement {
  readonly verdict: Verdict;
  /** Why it is not correct; empty when it is. */
  readonly why: string;
}

/** The answer's lines up to its first table row, at most LEAD_LINES. */
function leadOf(answer: string): string {
  const lines = answer.split('\n');
  const table = lines.findIndex((l) => l.trimStart().startsWith('|'));
  return lines.slice(0, Math.min(table === -1 ? lines.length : table, LEAD_LINES)).join('\n');
}

/** The answer's first line, after the notes that open it (see isNote). */
function headlineOf(answer: string): string {
  const lines = answer.split('\n').filter((l) => l.trim().length > 0);
  return lines.find((l) => !isNote(l)) ?? '';
}

/** The numbers a text states as quantities: page, batch and row positions left out, thousands separators joined. */
export function numbersIn(text: string): number[] {
  const cleaned = text
    .replace(/\b(?:page|batch)\s+\d+\s+of\s+\d+/gi, ' ')
    .replace(/\brows?\s+\d+\s*[-–]\s*\d+/gi, ' ')
    .replace(/(\d),(?=\d{3}\b)/g, '$1');
  return [...cleaned.matchAll(/(?<![\w.\-/:])\d+(?![\w\-/:]|\.\d)/g)].map((m) => Number(m[0]));
}

const statesCount = (text: string, n: number): boolean => numbersIn(text).includes(n) || (n === 0 && /\b(?:no|none|nothing|zero)\b/i.test(text));

/** The names of `among` the text mentions as whole tokens (case-insensitive). */
export function mentioned(text: string, among: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^a-z0-9_.:/-]+/)) {
    const token = raw.replace(/^[.:/-]+|[.:/-]+$/g, '');
    if (among.has(token)) out.add(token);
  }
  return out;
}

const sample = (names: readonly string[]): string => `${names.slice(0, 5).join(', ')}${names.length > 5 ? ` (+${names.length - 5})` : ''}`;

/** Why the answer misses a list of `names` (undefined: it does not). `allowed`: names it may mention besides. */
function listMiss(answer: string, totalText: string, names: readonly string[], among: ReadonlySet<string>, allowed: ReadonlySet<string>): string | undefined {
  if (!statesCount(totalText, names.length)) return `the total ${names.length} is not stated`;
  const named = mentioned(answer, among);
  const extra = [...named].filter((n) => !allowed.has(n));
  if (extra.length > 0) return `names ${extra.length} outside the expected set: ${sample(extra)}`;
  if (names.length <= WHOLE_LIST_MAX) {
    const missing = names.filter((n) => !named.has(n));
    if (missing.length > 0) return `misses ${missing.length} of ${names.length}: ${sample(missing)}`;
  }
  return undefined;
}

function factsMiss(answer: string, facts: readonly (string | readonly string[])[]): string | undefined {
  const text = answer.toLowerCase();
  const missing = facts.filter((f) => !(typeof f === 'string' ? [f] : f).some((alt) => text.includes(alt.toLowerCase())));
  return missing.length === 0 ? undefined : `lacks ${missing.map((f) => (typeof f === 'string' ? `"${f}"` : `one of "${f.join('" / "')}"`)).join(', ')}`;
}

/** Why the answer is not correct (undefined: it is). `previous`: the answer before it in the conversation. */
function miss(expect: Expectation, answer: string, previous: string | undefined): string | undefined {
  const first = headlineOf(answer);
  switch (expect.kind) {
    case 'count':
      return statesCount(first, expect.n) ? undefined : `the first line does not state ${expect.n}`;
    case 'list':
      return listMiss(answer, first, expect.names, expect.among, new Set(expect.names));
    case 'page': {
      const named = [...mentioned(answer, expect.among)];
      const before = mentioned(previous ?? '', expect.among);
      if (expect.names.every((n) => before.has(n))) {
        if (named.some((n) => before.has(n))) return 'repeats the list the answer before had shown whole';
        return END_OF_LIST.test(answer) ? undefined : 'the answer before showed the whole list, and this one does not say it has ended';
      }
      if (!statesCount(first, expect.names.length)) return `the total ${expect.names.length} is not stated`;
      const set = new Set(expect.names);
      const extra = named.filter((n) => !set.has(n));
      if (extra.length > 0) return `names ${extra.length} outside the expected set: ${sample(extra)}`;
      const repeated = named.filter((n) => before.has(n));
      if (repeated.length > 0) return `repeats ${repeated.length} of the page before: ${sample(repeated)}`;
      return named.length === 0 ? 'names no member of the set' : undefined;
    }
    case 'object':
      return factsMiss(answer, expect.facts);
    case 'cannot':
      if (!HONEST.test(leadOf(answer)) && !CANNOT.test(leadOf(answer))) return 'does not say it cannot';
      return CLAIMS_DONE.test(answer) ? 'claims to have done it' : undefined;
    case 'all': {
      const allowed = new Set(expect.parts.flatMap((p) => (p.kind === 'list' || p.kind === 'page' ? p.names : p.kind === 'count' ? (p.names ?? []) : [])));
      for (const part of expect.parts) {
        const why =
          part.kind === 'count'
            ? statesCount(answer, part.n)
              ? undefined
              : `does not state ${part.n}`
            : part.kind === 'list' || part.kind === 'page'
              ? listMiss(answer, answer, part.names, part.among, allowed)
              : miss(part, answer, previous);
        if (why !== undefined) return `part ${expect.parts.indexOf(part) + 1}: ${why}`;
      }
      return undefined;
    }
  }
}

/** Whether the headline states the total and a first range of rows short of it, and the answer offers the next page. */
function pagedAsSaid(answer: string, total: number): boolean {
  const range = /\brows\s+1\s*-\s*(\d+)\b/i.exec(headlineOf(answer));
  return range !== null && Number(range[1]) < total && statesCount(headlineOf(answer), total) && /next (?:page|batch)/i.test(answer);
}

/** Judges one answer (see the top of this file). `options`: the follow-ups the answer offers. */
export function judge(expect: Expectation, answer: string, options: readonly string[] = [], previous?: string): Judgement {
  if (answer.trim().length === 0) return { verdict: 'wrong', why: 'no answer' };
  const why = miss(expect, answer, previous);
  if (why === undefined) return { verdict: 'correct', why: '' };
  if (expect.kind === 'cannot') return { verdict: 'wrong', why };
  // A whole list cut by the answer's token budget, saying so ("47 devices match; rows 1-33", then "next page"): the
  // rows it shows are all of the set, and it says where the rest is. Partial, said: honest, not correct.
  if (expect.kind === 'list' && pagedAsSaid(answer, expect.names.length) && [...mentioned(answer, expect.among)].every((n) => expect.names.includes(n))) return { verdict: 'honest', why: `${why} (the answer says it shows a first page)` };
  const lead = leadOf(answer);
  if (HONEST.test(lead) || (options.length > 0 && lead.includes('?'))) return { verdict: 'honest', why };
  return { verdict: 'wrong', why };
}

/** What was expected, in a line, for the report. */
function describe(expect: Expectation): string {
  switch (expect.kind) {
    case 'count':
      return `count ${expect.n}`;
    case 'list':
    case 'page':
      return `${expect.kind} of ${expect.names.length}: ${sample(expect.names)}`;
    case 'object':
      return `facts ${expect.facts.map((f) => (typeof f === 'string' ? f : f.join(' | '))).join('; ')}`;
    case 'cannot':
      return 'says it cannot';
    case 'all':
      return expect.parts.map(describe).join(' AND ');
  }
}

/** Facts that are empty strings would match any answer: a broken question, refused before it is asked. */
function checkExpectation(expect: Expectation, question: string): void {
  const empty = expect.kind === 'object' && expect.facts.some((f) => (typeof f === 'string' ? [f] : f).some((x) => x.trim().length === 0) || (typeof f !== 'string' && f.length === 0));
  if (empty) throw new Error(`bench answers: "${question}" expects an empty fact`);
  if (expect.kind === 'all') for (const part of expect.parts) checkExpectation(part, question);
}

export type AnswerMode = 'rules' | 'hybrid';
/** Who produced a hybrid answer: the rules (no model request during the question) or the model. */
export type AnswerRoute = 'rules' | 'model';

export interface AnswerRow {
  /** 1-based position in ANSWER_QUESTIONS. */
  readonly index: number;
  readonly agent: AnswerAgent;
  readonly question: string;
  readonly followUp: boolean;
  readonly expected: string;
  readonly verdict: Verdict;
  readonly why: string;
  readonly route: AnswerRoute;
  readonly modelRequests: number;
  readonly ms: number;
  /** The answer's first JSON_EXCERPT_CHARS characters. */
  readonly answer: string;
}

export interface AnswerTally {
  readonly questions: number;
  readonly correct: number;
  readonly honest: number;
  readonly wrong: number;
}

export type AnswerTallies = Readonly<Record<AnswerAgent | 'total', AnswerTally>>;

export interface AnswerModeRun {
  readonly mode: AnswerMode;
  readonly tally: AnswerTallies;
  /** Hybrid: the answers the rules gave and those the model gave, apart. */
  readonly byRoute: Readonly<Record<AnswerRoute, AnswerTallies>>;
  /** Questions during which the model server received a request (0 in rules mode). */
  readonly handedOver: number;
  readonly seconds: number;
  readonly rows: readonly AnswerRow[];
}

export interface AnswersBenchResult {
  readonly questions: Readonly<Record<AnswerAgent | 'total', number>>;
  /** "now" of the time questions, ISO. */
  readonly now: string;
  readonly estate: { readonly applications: number; readonly devices: number };
  readonly judge: string;
  readonly runs: readonly AnswerModeRun[];
  /** The generated questions (typed-questions.ts), rules mode, Argo CD. */
  readonly generated: TypedAnswersRun;
  /** The generated NetBox questions (netbox-typed-questions.ts), rules mode. */
  readonly generatedNetBox: TypedAnswersRun<NetBoxConstruction>;
}

const AGENTS: readonly AnswerAgent[] = ['argocd', 'netbox', 'supervisor'];

function tallies(rows: readonly AnswerRow[]): AnswerTallies {
  const of = (subset: readonly AnswerRow[]): AnswerTally => ({
    questions: subset.length,
    correct: subset.filter((r) => r.verdict === 'correct').length,
    honest: subset.filter((r) => r.verdict === 'honest').length,
    wrong: subset.filter((r) => r.verdict === 'wrong').length,
  });
  return { argocd: of(rows.filter((r) => r.agent === 'argocd')), netbox: of(rows.filter((r) => r.agent === 'netbox')), supervisor: of(rows.filter((r) => r.agent === 'supervisor')), total: of(rows) };
}

export interface Reply {
  readonly answer: string;
  readonly options: readonly string[];
}

export async function ask(client: Client, text: string, contextId: string): Promise<Reply> {
  const result = await client.sendMessage(textRequest(text, contextId), { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!('artifacts' in result)) return { answer: '', options: [] };
  const artifact = result.artifacts[0];
  const answer = (artifact?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
  // A task that failed still answers in its artifact ("I could not ..."): judged like any other answer.
  const options: unknown = artifact?.metadata?.options;
  return { answer, options: Array.isArray(options) ? options.filter((o): o is string => typeof o === 'string') : [] };
}

/** The estate's epoch as the simulators export it (once they do), else the documented constant. */
export function estateEpoch(): number {
  const exported = (simulators as unknown as Readonly<Record<string, unknown>>).ARGO_ESTATE_EPOCH;
  if (typeof exported === 'number') return exported;
  if (typeof exported === 'string' && Number.isFinite(Date.parse(exported))) return Date.parse(exported);
  return ESTATE_EPOCH_FALLBACK;
}

export interface Upstreams {
  readonly argoUrl: string;
  readonly netboxUrl: string;
}

/** One mode's agents and supervisor (and, in hybrid mode, its own fake model server), asked every question in turn. */
/** One mode over ANSWER_QUESTIONS; `only`: the questions of these agents alone (a quicker look at one domain). */
export async function runMode(mode: AnswerMode, upstreams: Upstreams, d: Estates, dataDir: string, say: (line: string) => void, only?: ReadonlySet<AnswerAgent>): Promise<AnswerModeRun> {
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];
  try {
    const llm = mode === 'hybrid' ? await startFakeOpenAi({ apiKey: KEY, script: defaultScript }) : undefined;
    if (llm !== undefined) closers.push(() => llm.close());
    const env: Record<string, string> = llm === undefined ? {} : { FLOTILLA_MODE: 'hybrid', FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: KEY };
    const argoConfig = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': upstreams.argoUrl, 'argocd-token': ARGO_TOKEN, 'data-dir': join(dataDir, `${mode}-argocd`), 'log-level': 'silent' }, env, 'bench answers');
    // The agent's clock is the estate's epoch, so "in the last hour" means the hour the expected answers count.
    const argoAgent = await startArgoCdAgent(argoConfig, logger, { now: () => d.now });
    closers.push(() => argoAgent.close());
    const netboxAgent = await startNetBoxAgent(
      parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': upstreams.netboxUrl, 'netbox-token': NETBOX_TOKEN, 'data-dir': join(dataDir, `${mode}-netbox`), 'netbox-rate-limit': NETBOX_RATE, 'netbox-rate-burst': NETBOX_RATE, 'log-level': 'silent' }, env, 'bench answers'),
      logger,
    );
    closers.push(() => netboxAgent.close());
    const supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: `argocd=${argoAgent.url},netbox=${netboxAgent.url}`, 'log-level': 'silent' }, {}, 'bench answers'), logger);
    closers.push(() => supervisor.close());
    const clients: Readonly<Record<AnswerAgent, Client>> = {
      argocd: await new ClientFactory().createFromUrl(argoAgent.url),
      netbox: await new ClientFactory().createFromUrl(netboxAgent.url),
      supervisor: await new ClientFactory().createFromUrl(supervisor.url),
    };
    const began = performance.now();
    const rows: AnswerRow[] = [];
    let contextId = randomUUID();
    let previous: string | undefined;
    let transportErrors = 0;
    for (const [i, q] of ANSWER_QUESTIONS.entries()) {
      if (only !== undefined && !only.has(q.to)) continue;
      if (!q.followUp) {
        contextId = randomUUID();
        previous = undefined;
      }
      const expect = q.expect(d);
      checkExpectation(expect, q.ask);
      const requestsBefore = llm?.requests.length ?? 0;
      const t0 = performance.now();
      let reply: Reply;
      try {
        reply = await ask(clients[q.to], q.ask, contextId);
      } catch (error) {
        transportErrors += 1;
        reply = { answer: '', options: [] };
        say(`answers (${mode}): "${q.ask}" failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
      const ms = performance.now() - t0;
      const modelRequests = (llm?.requests.length ?? 0) - requestsBefore;
      const { verdict, why } = judge(expect, reply.answer, reply.options, previous);
      rows.push({
        index: i + 1,
        agent: q.to,
        question: q.ask,
        followUp: q.followUp,
        expected: describe(expect),
        verdict,
        why,
        route: modelRequests > 0 ? 'model' : 'rules',
        modelRequests,
        ms,
        answer: reply.answer.slice(0, JSON_EXCERPT_CHARS),
      });
      previous = reply.answer;
      if ((i + 1) % PROGRESS_EVERY === 0) say(`answers (${mode}): ${i + 1}/${ANSWER_QUESTIONS.length} questions\n`);
    }
    // Every question failing to arrive is the harness failing, not the agents answering badly.
    if (transportErrors === rows.length) throw new Error(`bench answers: no question reached the agents in ${mode} mode`);
    return {
      mode,
      tally: tallies(rows),
      byRoute: { rules: tallies(rows.filter((r) => r.route === 'rules')), model: tallies(rows.filter((r) => r.route === 'model')) },
      handedOver: rows.filter((r) => r.route === 'model').length,
      seconds: (performance.now() - began) / 1000,
      rows,
    };
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

/** Runs ANSWER_QUESTIONS in rules mode, then in hybrid mode, against one pair of simulators. */
export async function benchAnswers(options: { readonly progress?: (line: string) => void } = {}): Promise<AnswersBenchResult> {
  const say = options.progress ?? ((): void => undefined);
  const argoEstate = generateArgoEstate();
  const netboxEstate = generateNetBoxEstate();
  const d = estatesOf(argoEstate, netboxEstate, estateEpoch());
  // Every expectation is computed before anything starts: a question naming what the estates lack fails here.
  for (const q of ANSWER_QUESTIONS) checkExpectation(q.expect(d), q.ask);
  const argo = await startArgoCdSimulator({ token: ARGO_TOKEN, estate: argoEstate });
  const netbox = await startNetBoxSimulator({ token: NETBOX_TOKEN, estate: netboxEstate });
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-bench-answers-'));
  try {
    const runs: AnswerModeRun[] = [];
    for (const mode of ['rules', 'hybrid'] as const) {
      say(`answers: ${ANSWER_QUESTIONS.length} questions in ${mode} mode...\n`);
      runs.push(await runMode(mode, { argoUrl: argo.url, netboxUrl: netbox.url }, d, dataDir, say));
    }
    say(`answers: ${GENERATED_QUESTIONS} generated questions (Argo CD, rules mode)...\n`);
    const generated = await runTypedAnswers({ argoUrl: argo.url, token: ARGO_TOKEN, d, n: GENERATED_QUESTIONS, progress: say, timeParse: true });
    say(`answers: ${GENERATED_QUESTIONS} generated questions (NetBox, rules mode)...\n`);
    const generatedNetBox = await runNetBoxTypedAnswers({ netboxUrl: netbox.url, token: NETBOX_TOKEN, d, n: GENERATED_QUESTIONS, progress: say });
    const per = (agent: AnswerAgent): number => ANSWER_QUESTIONS.filter((q) => q.to === agent).length;
    return {
      questions: { argocd: per('argocd'), netbox: per('netbox'), supervisor: per('supervisor'), total: ANSWER_QUESTIONS.length },
      now: new Date(d.now).toISOString(),
      estate: { applications: d.apps.length, devices: d.devices.length },
      judge:
        'correct: count in the first line (opening notes skipped); list: total in the first line, every name when <= 50, no name outside the set; page: total, members only, none repeated (or "the end" after a whole list); object: every fact; all: every part, numbers anywhere; cannot: says so in its lead, claims nothing done. honest: not correct, and the lead says what was not done or asks to choose (or a list cut by the token budget states its total and rows shown, and offers the next page). wrong: the rest.',
      runs,
      generated,
      generatedNetBox,
    };
  } finally {
    await argo.close();
    await netbox.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Markdown = (header: readonly string[], body: readonly (readonly string[])[]) => string;

const pct = (t: AnswerTally): string => (t.questions === 0 ? '-' : `${((100 * t.correct) / t.questions).toFixed(1)}%`);
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The suite's report, as main.ts prints it. */
export function formatAnswers(result: AnswersBenchResult, markdown: Markdown): string {
  const out: string[] = [];
  const q = result.questions;
  const body: string[][] = [];
  const add = (label: string, t: AnswerTallies): void => {
    for (const agent of [...AGENTS, 'total'] as const) {
      const x = t[agent];
      if (x.questions > 0 || agent === 'total') body.push([label, agent, String(x.questions), String(x.correct), String(x.honest), String(x.wrong), pct(x)]);
    }
  };
  for (const run of result.runs) {
    add(run.mode, run.tally);
    if (run.mode === 'hybrid') {
      add('hybrid, by the rules', run.byRoute.rules);
      add('hybrid, by the model', run.byRoute.model);
    }
  }
  out.push(
    `\nAnswer quality: ${q.total} questions (${q.argocd} Argo CD, ${q.netbox} NetBox, ${q.supervisor} supervisor) over A2A, expected answers computed from the simulators' estates ` +
      `(${result.estate.applications} applications, ${result.estate.devices} devices), now = ${result.now}:\n` +
      markdown(['mode', 'agent', 'questions', 'correct', 'honest', 'confidently wrong', 'correct %'], body),
  );
  const hybrid = result.runs.find((r) => r.mode === 'hybrid');
  if (hybrid !== undefined) {
    out.push(
      `Hybrid mode handed ${hybrid.handedOver} of ${hybrid.rows.length} questions to the model. The model is the fake OpenAI server's default script (find_tools, load_tools, ` +
        'the best-matching tool without arguments, an answer quoting it): not smart, so its answers are counted apart from the rules\' ("by the model"), judged by the same judge.\n',
    );
  }
  const g = result.generated;
  const construction = <C extends string>(run: TypedAnswersRun<C>, constructions: readonly C[], system: string, what: string): string =>
    `\nGenerated questions: ${run.questions} (seed ${run.seed}), ${system}, rules mode, over A2A; sampled from a model of the questions (${what}; several phrasings, word orders, typos in words and names), expected answers computed from the raw estate (${run.seconds.toFixed(1)} s):\n` +
    markdown(
      ['construction', 'questions', 'correct', 'honest', 'confidently wrong', 'correct %'],
      [...constructions, 'total' as const].map((c) => {
        const t = run.tally[c];
        return [c, String(t.questions), String(t.correct), String(t.honest), String(t.wrong), t.questions === 0 ? '-' : `${((100 * t.correct) / t.questions).toFixed(1)}%`];
      }),
    );
  out.push(construction(g, TYPED_CONSTRUCTIONS, 'Argo CD', 'filters, negation, OR-lists, breakdowns, rankings, comparisons, named fields, actions'));
  out.push(construction(result.generatedNetBox, NETBOX_CONSTRUCTIONS, 'NetBox', 'device filters on site, region, role, status, manufacturer, tenant and platform, negated or OR-ed; breakdowns, rankings, comparisons of sites, named fields, a device\'s interfaces by state and type, actions'));
  const p = g.parse;
  if (p !== undefined) out.push(
    `\nTyped parse of a ${p.chars.toLocaleString('en-US')}-character question (generated questions joined, ${p.liveValues.toLocaleString('en-US')} live names in the lexicon), ${p.questions.toLocaleString('en-US')} parses after as many untimed, in a process of its own:\n` +
      markdown(['figure', 'measured', 'goal', ''], [['p50 / p99', `${p.p50Ms.toFixed(2)} / ${p.p99Ms.toFixed(2)} ms`, `p99 <= ${TYPED_PARSE_GOAL_P99_MS} ms`, p.p99Ms <= TYPED_PARSE_GOAL_P99_MS ? 'met' : 'NOT met']]),
  );
  out.push(`Judge: ${result.judge}\n`);
  const list = (title: string, rows: readonly AnswerRow[]): void => {
    if (rows.length === 0) return;
    out.push(`\n${title} (${rows.length}):\n`);
    for (const r of rows) out.push(`  #${r.index} [${r.agent}]${r.followUp ? ' (follow-up)' : ''} "${r.question}": ${r.why}\n      answer: ${oneLine(r.answer).slice(0, ANSWER_EXCERPT_CHARS)}\n`);
  };
  const generatedWrong = [...g.rows, ...result.generatedNetBox.rows].filter((r) => r.verdict === 'wrong');
  if (generatedWrong.length > 0) {
    out.push(`\nConfidently wrong, generated questions (${generatedWrong.length}):\n`);
    for (const r of generatedWrong.slice(0, 50)) out.push(`  [${r.construction}] "${r.question}": ${r.why}\n      answer: ${oneLine(r.answer).slice(0, ANSWER_EXCERPT_CHARS)}\n`);
  }
  const rules = result.runs.find((r) => r.mode === 'rules');
  if (rules !== undefined) {
    list('Confidently wrong, rules mode', rules.rows.filter((r) => r.verdict === 'wrong'));
    list('Honest (not correct, but saying so), rules mode', rules.rows.filter((r) => r.verdict === 'honest'));
  }
  if (hybrid !== undefined) {
    list('Confidently wrong, hybrid mode, answered by the rules', hybrid.rows.filter((r) => r.verdict === 'wrong' && r.route === 'rules'));
    const byModel = hybrid.rows.filter((r) => r.verdict === 'wrong' && r.route === 'model');
    if (byModel.length > 0) out.push(`\nConfidently wrong, hybrid mode, answered by the (fake) model: ${byModel.length}: ${byModel.map((r) => `#${r.index}`).join(', ')} (answers in answers.json)\n`);
  }
  return out.join('');
}
