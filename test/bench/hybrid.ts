import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import {
  countReplyTokens,
  defaultScript,
  generateArgoEstate,
  generateNetBoxEstate,
  startArgoCdSimulator,
  startFakeOpenAi,
  startNetBoxSimulator,
  type ChatScript,
} from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { ROUTING_SET, type ExpectedRoute, type RoutingCase } from './routing-set.js';

/**
 * Issue 9's mixed workload: 100 realistic questions, about two thirds simple (a list with a filter, one
 * application's or device's status, a site's VLANs or prefixes) and one third that need a model (vague or compound),
 * asked of the Argo CD and NetBox agents over A2A once with every question sent to the model (`--mode llm`) and once
 * in `hybrid` (what the rules execute completely, no model call; reasoning and unread words by the model). A few questions come
 * back later in a new conversation, so hybrid's answer cache shows. `kind` is what a person would call the question,
 * not what the rules decide: the route each agent took is measured. One name is misspelt (checkout-api-prd), as people
 * do: the fast path finds no such application, and hybrid asks the model once more (the fallback route).
 */
export const HYBRID_QUESTIONS: readonly (readonly ['argocd' | 'netbox', 'simple' | 'model', string])[] = [
  ['argocd', 'model', 'summarise the health of the estate'],
  ['netbox', 'model', 'are our vlan assignments consistent between sites?'],
  ['argocd', 'simple', 'apps on cluster prod-eu-1'],
  ['argocd', 'model', 'prioritise the broken stuff for the on-call engineer'],
  ['netbox', 'simple', 'help'],
  ['netbox', 'simple', 'which switches are offline in fra1?'],
  ['argocd', 'simple', 'status of ledger-gateway-prod'],
  ['argocd', 'model', 'why might payments-api-prod be unhappy and what should I do about it?'],
  ['argocd', 'simple', 'where do we deploy?'],
  ['argocd', 'simple', 'degraded apps in staging'],
  ['netbox', 'simple', 'devices in fra1'],
  ['netbox', 'simple', 'show device ams1-sw-016'],
  ['netbox', 'simple', 'interfaces of sfo1-sw-019'],
  ['argocd', 'simple', 'suspended applications'],
  ['argocd', 'model', 'compare prod and staging for the ledger team and tell me what differs'],
  ['netbox', 'simple', 'servers in sin1'],
  ['argocd', 'model', 'anything weird going on with identity lately?'],
  ['netbox', 'model', 'how do the amsterdam sites compare?'],
  ['netbox', 'model', 'explain how the sites are wired together'],
  ['netbox', 'simple', 'vlans of lon1'],
  ['argocd', 'simple', 'anything about fraud'],
  ['argocd', 'model', 'are the eu clusters in better shape than the us ones?'],
  ['argocd', 'simple', 'show me checkout-api-prd'],
  ['netbox', 'simple', 'routers in lon1'],
  ['argocd', 'model', 'give me a short report on drift across regions'],
  ['netbox', 'model', 'is anything in fra1 misconfigured?'],
  ['argocd', 'model', 'tell me something interesting about my estate'],
  ['netbox', 'model', 'where should we put the next rack of servers?'],
  ['netbox', 'simple', 'prefixes in ams1'],
  ['argocd', 'model', 'which team has the most trouble right now and why?'],
  ['argocd', 'model', 'explain what our gitops setup looks like'],
  ['argocd', 'model', 'what needs my attention?'],
  ['argocd', 'simple', 'list the application sets'],
  ['argocd', 'simple', 'how many apps are out of sync?'],
  ['argocd', 'simple', 'apps owned by team payments'],
  ['argocd', 'simple', 'list clusters'],
  ['netbox', 'simple', 'pdus in ams1'],
  ['argocd', 'model', 'what should I worry about in the payments team\'s apps?'],
  ['argocd', 'simple', 'apps with label tier=frontend'],
  ['argocd', 'simple', 'status of identity-auth-prod'],
  ['netbox', 'simple', 'vlans of fra1'],
  ['netbox', 'model', 'which sites look under-used?'],
  ['argocd', 'simple', 'which clusters are connected?'],
  ['argocd', 'simple', 'status of payments-api-prod'],
  ['netbox', 'model', 'tell me about our edge gear'],
  ['netbox', 'model', 'how healthy is our network in europe?'],
  ['argocd', 'simple', 'show application analytics-backend-prod-eu'],
  ['netbox', 'simple', 'firewalls in nyc1'],
  ['netbox', 'model', 'anything I should know before maintenance in lon1 tonight?'],
  ['netbox', 'simple', 'switches in ams2'],
  ['argocd', 'model', 'summarise the health of the estate'],
  ['netbox', 'model', 'which site is closest to running out of address space?'],
  ['argocd', 'simple', 'list applications in project identity-prod'],
  ['netbox', 'simple', 'list prefixes'],
  ['argocd', 'model', 'which of our services would hurt most if they went down'],
  ['netbox', 'simple', 'prefixes in tyo1'],
  ['netbox', 'model', 'give me a capacity overview of the asia sites'],
  ['argocd', 'simple', 'find ledger'],
  ['argocd', 'simple', 'list clusters'],
  ['argocd', 'simple', 'missing apps in qa'],
  ['netbox', 'simple', 'used ips in 10.1.38.0/24'],
  ['netbox', 'simple', 'planned devices in chi1'],
  ['netbox', 'simple', 'cables of ams2'],
  ['netbox', 'model', 'draft a short network status note for the weekly ops review'],
  ['netbox', 'simple', 'prefixes in fra1'],
  ['netbox', 'simple', 'vlans'],
  ['argocd', 'simple', 'which apps are degraded?'],
  ['netbox', 'model', 'what changed in the network recently?'],
  ['argocd', 'simple', 'out of sync apps in dev'],
  ['argocd', 'simple', 'search for checkout'],
  ['argocd', 'simple', 'list all projects'],
  ['argocd', 'simple', 'which apps are unhealthy in prod?'],
  ['netbox', 'simple', 'vlans of sin1'],
  ['netbox', 'simple', 'vlans'],
  ['argocd', 'simple', 'progressing apps in prod'],
  ['netbox', 'simple', 'interfaces of ams1-rtr-01'],
  ['netbox', 'simple', 'free ips in 10.1.18.0/24'],
  ['argocd', 'simple', 'what can you do?'],
  ['netbox', 'simple', 'devices in ams1'],
  ['argocd', 'simple', 'details of search-indexer-prod'],
  ['netbox', 'simple', 'list devices in par1'],
  ['argocd', 'model', 'can you walk me through the riskiest deployments this week'],
  ['argocd', 'simple', 'list all projects'],
  ['argocd', 'simple', 'which apps in the payments-prod project are out of sync?'],
  ['netbox', 'simple', 'devices in ams1'],
  ['netbox', 'model', 'summarise the datacenter footprint for a new hire'],
  ['netbox', 'model', 'what does legacy mean in our tagging and how much of it is left'],
  ['netbox', 'simple', 'devices tagged pci'],
  ['argocd', 'simple', 'status of payments-api-prod'],
  ['argocd', 'model', 'how are things looking overall?'],
  ['argocd', 'simple', 'which apps are out of sync in prod?'],
  ['argocd', 'simple', 'healthy apps in perf'],
  ['argocd', 'simple', 'list applications in namespace payments'],
  ['argocd', 'model', 'is it safe to deploy checkout today?'],
  ['netbox', 'simple', 'list sites'],
  ['netbox', 'model', 'what would break if ams1-rtr-01 went down?'],
  ['netbox', 'simple', 'find core'],
  ['netbox', 'simple', 'prefixes in fra1'],
  ['argocd', 'simple', 'which apps are out of sync in prod?'],
  ['netbox', 'simple', 'list sites'],
];

/** Names the questions use; checked against the estates the simulators serve, so the table cannot go stale silently. */
const REFERENCED = {
  applications: ['payments-api-prod', 'identity-auth-prod', 'search-indexer-prod', 'ledger-gateway-prod', 'analytics-backend-prod-eu'],
  projects: ['payments-prod', 'identity-prod'],
  clusters: ['prod-eu-1'],
  sites: ['ams1', 'ams2', 'fra1', 'lon1', 'nyc1', 'sin1', 'tyo1', 'chi1', 'par1'],
  devices: ['ams1-sw-016', 'ams1-rtr-01', 'sfo1-sw-019'],
  prefixes: ['10.1.18.0/24', '10.1.38.0/24'],
} as const;

export type HybridMode = 'llm' | 'hybrid';
export const HYBRID_MODES: readonly HybridMode[] = ['llm', 'hybrid'];
type Kind = 'simple' | 'model';

export interface HybridQuestionRow {
  /** 1-based position in HYBRID_QUESTIONS. */
  readonly index: number;
  readonly agent: 'argocd' | 'netbox';
  readonly kind: Kind;
  readonly question: string;
  /** Asked before in this run (in another conversation). */
  readonly repeat: boolean;
  /** The artifact's `route` (fast, discovery, fallback); `model` in llm mode, where there is no router. */
  readonly route: string;
  readonly cached: boolean;
  readonly modelRequests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly upstreamCalls: number;
  readonly ms: number;
  /** Why the answer counts as failed; absent when it does not. */
  readonly failure?: string;
  /** The scripted model found no tool, or the tool it called refused its arguments (see NO_DATA). */
  readonly noData: boolean;
  /** The answer's first 160 characters. */
  readonly answer: string;
}

export interface HybridTotals {
  readonly questions: number;
  readonly modelRequests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** promptTokens + completionTokens. */
  readonly modelTokens: number;
  readonly upstreamCalls: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
}

export interface HybridModeRun extends HybridTotals {
  readonly mode: HybridMode;
  /** Model requests the fake server answered with an error (never 2xx). */
  readonly modelErrors: number;
  readonly upstream: { readonly argocd: number; readonly netbox: number };
  readonly routes: Readonly<Record<string, number>>;
  readonly cached: number;
  readonly failed: number;
  /** Answers without data: the scripted model found no tool, or its tool call was refused (it passes no arguments). */
  readonly withoutData: number;
  readonly failures: readonly { readonly index: number; readonly question: string; readonly reason: string }[];
  readonly byKind: Readonly<Record<Kind, HybridTotals>>;
  /** The sum of its questions' latencies. */
  readonly seconds: number;
  readonly rows: readonly HybridQuestionRow[];
}

/** One question of the labelled routing set, asked in hybrid mode. */
export interface RoutingRow {
  readonly agent: 'argocd' | 'netbox';
  readonly question: string;
  readonly expected: ExpectedRoute;
  /** The artifact's `route` (fast, discovery, fallback) and `route_reason`. */
  readonly route: string;
  readonly reason: string;
  /** The router's decision: `fast` for the fast and fallback routes (the rules were chosen), `model` for discovery. */
  readonly decided: ExpectedRoute | 'none';
  readonly correct: boolean;
  readonly modelRequests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface RoutingTotals {
  readonly questions: number;
  readonly correct: number;
  readonly modelRequests: number;
  /** Prompt + completion tokens. */
  readonly modelTokens: number;
}

/** Issue 21: the labelled routing set asked of the hybrid-mode agents, the route each answer took against its label. */
export interface RoutingRun extends RoutingTotals {
  /** correct / questions, in percent, from the answers' metadata. */
  readonly accuracyPercent: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Chosen for the fast path, answered by the model after all (the rules did not really answer). */
  readonly fallbacks: number;
  readonly byExpected: Readonly<Record<ExpectedRoute, RoutingTotals>>;
  readonly misrouted: readonly RoutingRow[];
  readonly rows: readonly RoutingRow[];
}

export interface HybridBenchResult {
  readonly workload: { readonly questions: number; readonly simple: number; readonly model: number; readonly repeats: number; readonly applications: number; readonly devices: number };
  /** What answered as the model, and whose token counts these are. */
  readonly model: string;
  readonly runs: readonly HybridModeRun[];
  /** The labelled routing set (`routing-set.ts`), asked in hybrid mode after the workload. */
  readonly routing: RoutingRun;
  /** (llm - hybrid) / llm, in percent, for each figure. */
  readonly reductionPercent: Readonly<Record<'modelRequests' | 'modelTokens' | 'promptTokens' | 'completionTokens' | 'upstreamCalls' | 'p50Ms' | 'p95Ms', number>>;
}

const ARGO_TOKEN = 'bench-hybrid-argocd-token';
const NETBOX_TOKEN = 'bench-hybrid-netbox-token-0123456789';
const KEY = 'sk-bench-hybrid';
const REQUEST_TIMEOUT_MS = 60_000;
const ANSWER_EXCERPT_CHARS = 160;
const PROGRESS_EVERY = 25;
/**
 * Answers of the scripted model that carry no data: defaultScript found no tool ("No tools matched the request."), or
 * called the best-matching tool with no arguments and quoted its refusal ("From get_application:\nError: ..."). They
 * cost no upstream call, which flatters llm mode's upstream figures; the table counts them.
 */
const NO_DATA = /^(?:No tools matched the request\.|No tools were loaded\.|I have no tools for that\.)|^From [\w-]+:\nError:/;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const reduction = (before: number, after: number): number => (before === 0 ? 0 : (100 * (before - after)) / before);

function totals(rows: readonly HybridQuestionRow[]): HybridTotals {
  const sum = (pick: (r: HybridQuestionRow) => number): number => rows.reduce((a, r) => a + pick(r), 0);
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const promptTokens = sum((r) => r.promptTokens);
  const completionTokens = sum((r) => r.completionTokens);
  return {
    questions: rows.length,
    modelRequests: sum((r) => r.modelRequests),
    promptTokens,
    completionTokens,
    modelTokens: promptTokens + completionTokens,
    upstreamCalls: sum((r) => r.upstreamCalls),
    p50Ms: percentile(ms, 50),
    p95Ms: percentile(ms, 95),
  };
}

interface Reply {
  readonly state: string;
  readonly answer: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

async function ask(client: Client, text: string, contextId: string = randomUUID()): Promise<Reply> {
  // Each question in its own conversation: no memory of an earlier one helps (only the answer cache may).
  const result = await client.sendMessage(textRequest(text, contextId), { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!('artifacts' in result)) return { state: 'a message, not a task', answer: '', metadata: {} };
  const artifact = result.artifacts[0];
  const answer = (artifact?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
  const state = result.status?.state;
  return { state: state === undefined ? 'none' : (TaskState[state] ?? String(state)), answer, metadata: artifact?.metadata ?? {} };
}

/** Why a reply counts as a failed answer: a task that did not complete, an error in its metadata, "I could not answer". */
function failureOf(reply: Reply): string | undefined {
  if (reply.state !== 'TASK_STATE_COMPLETED') return `task ${reply.state}: ${reply.answer.slice(0, 200)}`;
  if (reply.metadata.error !== undefined) return `error ${JSON.stringify(reply.metadata.error)}: ${reply.answer.slice(0, 200)}`;
  if (/^I could not answer/.test(reply.answer)) return reply.answer.slice(0, 300);
  return undefined;
}

interface Upstreams {
  readonly argo: Awaited<ReturnType<typeof startArgoCdSimulator>>;
  readonly netbox: Awaited<ReturnType<typeof startNetBoxSimulator>>;
}

/**
 * The default scripted model (find_tools → load_tools → the best-matching tool → an answer quoting it), with the
 * completion tokens of every reply it gives counted as the fake server counts them (`countReplyTokens`, cut to
 * max_tokens as the server cuts the reply): the server records each request's prompt tokens, not its replies'.
 */
function countingScript(counter: TokenCounter): { readonly script: ChatScript; readonly completionTokens: () => number } {
  let completionTokens = 0;
  const script: ChatScript = async (input) => {
    const reply = await defaultScript(input);
    const toolCalls = reply.toolCalls ?? [];
    let tokens = countReplyTokens(counter, reply.text, toolCalls);
    if (input.maxTokens !== undefined && tokens > input.maxTokens) tokens = counter.count(counter.truncate(reply.text, input.maxTokens));
    completionTokens += tokens;
    return reply;
  };
  return { script, completionTokens: () => completionTokens };
}

/** One mode's own fake model server and agents, and the rows of the questions it has answered. */
interface ModeSetup {
  readonly mode: HybridMode;
  ask(index: number, repeat: boolean): Promise<void>;
  /** Asks a question of the routing set (a follow-up after its question, in one conversation) and reads its route. */
  askRouting(entry: RoutingCase): Promise<RoutingRow>;
  result(): HybridModeRun;
  close(): Promise<void>;
}

async function startMode(mode: HybridMode, upstreams: Upstreams, counter: TokenCounter, dataDir: string): Promise<ModeSetup> {
  const model = countingScript(counter);
  // A fresh model server and fresh agents per mode: separate counts, an empty answer cache, no loaded tools.
  const llm = await startFakeOpenAi({ apiKey: KEY, script: model.script });
  const env = { FLOTILLA_MODE: mode, FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: KEY };
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [() => llm.close()];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  let clients: Readonly<Record<'argocd' | 'netbox', Client>>;
  try {
    const argoAgent = await startArgoCdAgent(
      parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': upstreams.argo.url, 'argocd-token': ARGO_TOKEN, 'data-dir': join(dataDir, `${mode}-argocd`), 'log-level': 'silent' }, env, 'bench hybrid'),
      logger,
    );
    closers.push(() => argoAgent.close());
    const netboxAgent = await startNetBoxAgent(
      parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': upstreams.netbox.url, 'netbox-token': NETBOX_TOKEN, 'data-dir': join(dataDir, `${mode}-netbox`), 'log-level': 'silent' }, env, 'bench hybrid'),
      logger,
    );
    closers.push(() => netboxAgent.close());
    clients = { argocd: await new ClientFactory().createFromUrl(argoAgent.url), netbox: await new ClientFactory().createFromUrl(netboxAgent.url) };
  } catch (error) {
    await close();
    throw error;
  }
  const rows: HybridQuestionRow[] = [];
  const upstream = { argocd: 0, netbox: 0 };
  const promptTokens = (): number => llm.requests.reduce((a, r) => a + r.promptTokens, 0);
  return {
    mode,
    async ask(index, repeat) {
      const entry = HYBRID_QUESTIONS[index];
      if (entry === undefined) throw new Error(`bench hybrid: no question ${index}`);
      const [agent, kind, question] = entry;
      // Questions go one at a time, so what the model server and the simulators counted meanwhile is this question's.
      const before = { requests: llm.requests.length, prompt: promptTokens(), completion: model.completionTokens(), argocd: upstreams.argo.stats().requests, netbox: upstreams.netbox.stats().requests };
      const t0 = performance.now();
      let reply: Reply;
      try {
        reply = await ask(clients[agent], question);
      } catch (error) {
        reply = { state: `transport error (${error instanceof Error ? error.message : String(error)})`, answer: '', metadata: {} };
      }
      const ms = performance.now() - t0;
      const argocdCalls = upstreams.argo.stats().requests - before.argocd;
      const netboxCalls = upstreams.netbox.stats().requests - before.netbox;
      upstream.argocd += argocdCalls;
      upstream.netbox += netboxCalls;
      const failure = failureOf(reply);
      rows.push({
        index: index + 1,
        agent,
        kind,
        question,
        repeat,
        route: typeof reply.metadata.route === 'string' ? reply.metadata.route : mode === 'llm' ? 'model' : 'none',
        cached: reply.metadata.cached === true,
        modelRequests: llm.requests.length - before.requests,
        promptTokens: promptTokens() - before.prompt,
        completionTokens: model.completionTokens() - before.completion,
        upstreamCalls: argocdCalls + netboxCalls,
        ms,
        ...(failure === undefined ? {} : { failure }),
        noData: NO_DATA.test(reply.answer),
        answer: reply.answer.slice(0, ANSWER_EXCERPT_CHARS),
      });
    },
    async askRouting(entry) {
      const contextId = randomUUID();
      if (entry.after !== undefined) await ask(clients[entry.agent], entry.after, contextId);
      const before = { requests: llm.requests.length, prompt: promptTokens(), completion: model.completionTokens() };
      let reply: Reply;
      try {
        reply = await ask(clients[entry.agent], entry.question, contextId);
      } catch (error) {
        reply = { state: `transport error (${error instanceof Error ? error.message : String(error)})`, answer: '', metadata: {} };
      }
      const route = typeof reply.metadata.route === 'string' ? reply.metadata.route : 'none';
      const decided: RoutingRow['decided'] = route === 'fast' || route === 'fallback' ? 'fast' : route === 'discovery' ? 'model' : 'none';
      return {
        agent: entry.agent,
        question: entry.question,
        expected: entry.route,
        route,
        reason: typeof reply.metadata.route_reason === 'string' ? reply.metadata.route_reason : 'none',
        decided,
        correct: decided === entry.route,
        modelRequests: llm.requests.length - before.requests,
        promptTokens: promptTokens() - before.prompt,
        completionTokens: model.completionTokens() - before.completion,
      };
    },
    result() {
      const routes: Record<string, number> = {};
      for (const row of rows) routes[row.route] = (routes[row.route] ?? 0) + 1;
      const failures = rows.flatMap((r) => (r.failure === undefined ? [] : [{ index: r.index, question: r.question, reason: r.failure }]));
      return {
        mode,
        ...totals(rows),
        modelErrors: llm.requests.filter((r) => r.status < 200 || r.status > 299).length,
        upstream: { ...upstream },
        routes,
        cached: rows.filter((r) => r.cached).length,
        failed: failures.length,
        withoutData: rows.filter((r) => r.noData).length,
        failures,
        byKind: { simple: totals(rows.filter((r) => r.kind === 'simple')), model: totals(rows.filter((r) => r.kind === 'model')) },
        seconds: rows.reduce((a, r) => a + r.ms, 0) / 1000,
        rows,
      };
    },
    close,
  };
}

function routingTotals(rows: readonly RoutingRow[]): RoutingTotals {
  return {
    questions: rows.length,
    correct: rows.filter((r) => r.correct).length,
    modelRequests: rows.reduce((a, r) => a + r.modelRequests, 0),
    modelTokens: rows.reduce((a, r) => a + r.promptTokens + r.completionTokens, 0),
  };
}

function routingRun(rows: readonly RoutingRow[]): RoutingRun {
  const all = routingTotals(rows);
  return {
    ...all,
    accuracyPercent: all.questions === 0 ? 0 : (100 * all.correct) / all.questions,
    promptTokens: rows.reduce((a, r) => a + r.promptTokens, 0),
    completionTokens: rows.reduce((a, r) => a + r.completionTokens, 0),
    fallbacks: rows.filter((r) => r.route === 'fallback').length,
    byExpected: { fast: routingTotals(rows.filter((r) => r.expected === 'fast')), model: routingTotals(rows.filter((r) => r.expected === 'model')) },
    misrouted: rows.filter((r) => !r.correct),
    rows,
  };
}

/**
 * Runs HYBRID_QUESTIONS, one at a time, against the Argo CD and NetBox agents (in process, over A2A, tools in
 * process against the simulators' default estates) in llm mode and in hybrid mode, each mode with its own agents
 * and its own fake OpenAI server running the default scripted model; each question is asked of both modes in turn.
 */
export async function benchHybrid(options: { readonly progress?: (line: string) => void } = {}): Promise<HybridBenchResult> {
  const began = performance.now();
  const say = options.progress ?? ((): void => undefined);
  const progress = (line: string): void => say(`[${((performance.now() - began) / 1000).toFixed(1)} s] ${line}`);
  const counter = await loadTokenCounter('cl100k_base');
  const argoEstate = generateArgoEstate();
  const netboxEstate = generateNetBoxEstate();
  const missing = [
    ...REFERENCED.applications.filter((n) => !argoEstate.applications.some((a) => a.metadata.name === n)),
    ...REFERENCED.projects.filter((n) => !argoEstate.projects.some((p) => p.metadata.name === n)),
    ...REFERENCED.clusters.filter((n) => !argoEstate.clusters.some((c) => c.name === n)),
    ...REFERENCED.sites.filter((n) => !netboxEstate.sites.some((s) => s.slug === n)),
    ...REFERENCED.devices.filter((n) => !netboxEstate.devices.some((d) => d.name === n)),
    ...REFERENCED.prefixes.filter((n) => !netboxEstate.prefixes.some((p) => p.prefix === n)),
  ];
  if (missing.length > 0) throw new Error(`bench hybrid: the default estates have no ${missing.join(', ')}; update HYBRID_QUESTIONS`);
  const argo = await startArgoCdSimulator({ token: ARGO_TOKEN, estate: argoEstate });
  const netbox = await startNetBoxSimulator({ token: NETBOX_TOKEN, estate: netboxEstate });
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-bench-hybrid-'));
  try {
    const setups: ModeSetup[] = [];
    let runs: HybridModeRun[];
    let routing: RoutingRun;
    try {
      for (const mode of HYBRID_MODES) setups.push(await startMode(mode, { argo, netbox }, counter, dataDir));
      progress(`hybrid suite: ${HYBRID_QUESTIONS.length} questions, one at a time, each asked in ${HYBRID_MODES.join(' and ')} mode...\n`);
      const seen = new Set<string>();
      for (const [i, [agent, , question]] of HYBRID_QUESTIONS.entries()) {
        const key = `${agent}\n${question}`;
        const repeat = seen.has(key);
        seen.add(key);
        // Each question goes to both modes in turn, the first one alternating, so the machine's load weighs on both alike.
        for (const setup of i % 2 === 0 ? setups : [...setups].reverse()) await setup.ask(i, repeat);
        if ((i + 1) % PROGRESS_EVERY === 0) progress(`hybrid suite: ${i + 1}/${HYBRID_QUESTIONS.length} questions\n`);
      }
      runs = setups.map((setup) => setup.result());
      const hybridSetup = setups.find((setup) => setup.mode === 'hybrid');
      if (hybridSetup === undefined) throw new Error('bench hybrid: no hybrid mode to route the labelled set');
      progress(`hybrid suite: the labelled routing set, ${ROUTING_SET.length} questions in hybrid mode...\n`);
      const routingRows: RoutingRow[] = [];
      for (const entry of ROUTING_SET) routingRows.push(await hybridSetup.askRouting(entry));
      routing = routingRun(routingRows);
    } finally {
      for (const setup of setups) await setup.close();
    }
    const [llm, hybrid] = runs;
    if (llm === undefined || hybrid === undefined) throw new Error('bench hybrid: a mode did not run');
    const keys = ['modelRequests', 'modelTokens', 'promptTokens', 'completionTokens', 'upstreamCalls', 'p50Ms', 'p95Ms'] as const;
    const distinct = new Set(HYBRID_QUESTIONS.map(([agent, , q]) => `${agent}\n${q}`)).size;
    return {
      workload: {
        questions: HYBRID_QUESTIONS.length,
        simple: HYBRID_QUESTIONS.filter(([, kind]) => kind === 'simple').length,
        model: HYBRID_QUESTIONS.filter(([, kind]) => kind === 'model').length,
        repeats: HYBRID_QUESTIONS.length - distinct,
        applications: argoEstate.applications.length,
        devices: netboxEstate.devices.length,
      },
      model: 'the fake OpenAI server (packages/simulators) running defaultScript: find_tools, load_tools, the best-matching tool, then an answer quoting it; tokens are its own cl100k_base counts (prompt: recorded per request; completion: countReplyTokens of each reply)',
      runs,
      routing,
      reductionPercent: Object.fromEntries(keys.map((k) => [k, reduction(llm[k], hybrid[k])])) as HybridBenchResult['reductionPercent'],
    };
  } finally {
    await argo.close();
    await netbox.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Markdown = (header: readonly string[], body: readonly (readonly string[])[]) => string;

const n = (value: number): string => Math.round(value).toLocaleString('en-US');

/** The suite's tables, as main.ts prints them. */
export function formatHybridBench(result: HybridBenchResult, markdown: Markdown): string {
  const [llm, hybrid] = result.runs;
  if (llm === undefined || hybrid === undefined) return 'hybrid: no runs\n';
  const w = result.workload;
  const r = result.reductionPercent;
  const pct = (value: number): string => `${value.toFixed(1)}%`;
  const out: string[] = [];
  out.push(
    `\nMixed workload: ${w.questions} questions (${w.simple} simple, ${w.model} that need a model; ${w.repeats} asked again in a new conversation), ` +
      `one at a time over A2A, each to both modes in turn, to the Argo CD (${n(w.applications)} applications) and NetBox (${n(w.devices)} devices) agents; ` +
      `the model: the fake OpenAI server's default script, tokens by its own count (cl100k_base):\n${markdown(
        ['', 'llm', 'hybrid', 'reduction'],
        [
          ['model requests', n(llm.modelRequests), n(hybrid.modelRequests), pct(r.modelRequests)],
          ['model tokens (prompt + completion)', n(llm.modelTokens), n(hybrid.modelTokens), pct(r.modelTokens)],
          ['  prompt tokens', n(llm.promptTokens), n(hybrid.promptTokens), pct(r.promptTokens)],
          ['  completion tokens', n(llm.completionTokens), n(hybrid.completionTokens), pct(r.completionTokens)],
          ['upstream calls (Argo CD + NetBox)', `${n(llm.upstreamCalls)} (${n(llm.upstream.argocd)} + ${n(llm.upstream.netbox)})`, `${n(hybrid.upstreamCalls)} (${n(hybrid.upstream.argocd)} + ${n(hybrid.upstream.netbox)})`, pct(r.upstreamCalls)],
          ['p50 latency ms', llm.p50Ms.toFixed(1), hybrid.p50Ms.toFixed(1), pct(r.p50Ms)],
          ['p95 latency ms', llm.p95Ms.toFixed(1), hybrid.p95Ms.toFixed(1), pct(r.p95Ms)],
          ['failed answers', String(llm.failed), String(hybrid.failed), ''],
          ['answers without data (model found no tool / tool refused)', String(llm.withoutData), String(hybrid.withoutData), ''],
          ['model errors (non-2xx)', String(llm.modelErrors), String(hybrid.modelErrors), ''],
          ['seconds (sum of latencies)', llm.seconds.toFixed(1), hybrid.seconds.toFixed(1), pct(reduction(llm.seconds, hybrid.seconds))],
        ],
      )}`,
  );
  const routes = (run: HybridModeRun): string =>
    Object.entries(run.routes)
      .sort((a, b) => b[1] - a[1])
      .map(([route, count]) => `${route} ${count}`)
      .join(', ');
  out.push(`Answers by route: llm: ${routes(llm)}; hybrid: ${routes(hybrid)} (${hybrid.cached} from the answer cache).\n`);
  out.push(
    `The fake model answers at once: the latencies leave out a real model's time per request (${(llm.modelRequests / llm.questions).toFixed(2)} requests a question in llm mode, ` +
      `${(hybrid.modelRequests / hybrid.questions).toFixed(2)} in hybrid). It passes no arguments to the tools it calls, so its answers are often without data, which costs no upstream call.\n`,
  );
  const routedAs = (kind: Kind): string => {
    const counts: Record<string, number> = {};
    for (const row of hybrid.rows.filter((x) => x.kind === kind)) counts[row.route] = (counts[row.route] ?? 0) + 1;
    return Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([route, count]) => `${route} ${count}`)
      .join(', ');
  };
  out.push(`Hybrid's routes by kind: simple questions: ${routedAs('simple')}; questions that need a model: ${routedAs('model')}.\n`);
  out.push(
    `\nBy kind (llm / hybrid):\n${markdown(
      ['kind', 'questions', 'model requests', 'model tokens', 'upstream calls', 'p50 ms', 'p95 ms'],
      (['simple', 'model'] as const).map((kind) => {
        const a = llm.byKind[kind];
        const b = hybrid.byKind[kind];
        return [kind, String(a.questions), `${n(a.modelRequests)} / ${n(b.modelRequests)}`, `${n(a.modelTokens)} / ${n(b.modelTokens)}`, `${n(a.upstreamCalls)} / ${n(b.upstreamCalls)}`, `${a.p50Ms.toFixed(1)} / ${b.p50Ms.toFixed(1)}`, `${a.p95Ms.toFixed(1)} / ${b.p95Ms.toFixed(1)}`];
      }),
    )}`,
  );
  const rt = result.routing;
  out.push(
    `\nRouting by what the rules can fully do (issue 21): the labelled set (test/bench/routing-set.ts, ${rt.questions} questions, a follow-up after its question), ` +
      `asked in hybrid mode; a route is correct when the answer's route (fast or fallback: the rules were chosen; discovery: the model) is its label:\n${markdown(
        ['labelled', 'questions', 'route accuracy', 'model requests', 'model tokens'],
        [
          ['fast (the rules execute it completely)', String(rt.byExpected.fast.questions), pct((100 * rt.byExpected.fast.correct) / Math.max(1, rt.byExpected.fast.questions)), n(rt.byExpected.fast.modelRequests), n(rt.byExpected.fast.modelTokens)],
          ['model (reasoning, unread words, no intent)', String(rt.byExpected.model.questions), pct((100 * rt.byExpected.model.correct) / Math.max(1, rt.byExpected.model.questions)), n(rt.byExpected.model.modelRequests), n(rt.byExpected.model.modelTokens)],
          ['all', String(rt.questions), pct(rt.accuracyPercent), n(rt.modelRequests), n(rt.modelTokens)],
        ],
      )}`,
  );
  out.push(`Fast-path answers that fell back to the model: ${rt.fallbacks}.\n`);
  for (const row of rt.misrouted.slice(0, 10)) out.push(`misrouted (${row.agent}): "${row.question}": labelled ${row.expected}, went ${row.route} (${row.reason})\n`);
  for (const run of [llm, hybrid]) {
    for (const f of run.failures.slice(0, 5)) out.push(`${run.mode}: question ${f.index} failed ("${f.question}"): ${f.reason.slice(0, 200)}\n`);
    if (run.failures.length > 5) out.push(`${run.mode}: ${run.failures.length - 5} more failures in hybrid.json\n`);
  }
  return out.join('');
}
