import { checkWire, WIRE, type WireFindings } from './conversation-wire.js';
import { LIST_ALL_QUESTIONS, listAllScript } from './list-all-script.js';
import { performance } from 'node:perf_hooks';
import { CapabilityIndex } from '@flotilla/agent-kit';
import { ARGOCD_PROMPT, ArgoCdClient, connectArgoCdToolsInProcess } from '@flotilla/agent-argocd';
import { NETBOX_PROMPT, NetBoxClient, connectNetBoxToolsInProcess } from '@flotilla/agent-netbox';
import { createMemoryResultStore, LIMITS, resultUri, type ResultStore, type StoredResultMeta } from '@flotilla/bounded-tools';
import { CONTEXT_DEFAULTS, countRequest, fitRequest, type ContextBudget, type ContextRequest, type JsonValue, type Message, type ToolDefinition } from '@flotilla/context';
import { silentLogger } from '@flotilla/core';
import { contextBudgetFor, createChatModel, createLlmAgent, META_TOOLS, systemPrompt } from '@flotilla/llm';
import { createMetrics, TRIM_KINDS, type TrimKind } from '@flotilla/metrics';
import { createRng, generateArgoEstate, generateNetBoxEstate, startArgoCdSimulator, startFakeAnthropic, startFakeOpenAi, startNetBoxSimulator } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';

/** Tokens of the request a model sees before the first question, for one agent. */
export interface SessionStartRow {
  readonly agent: 'Argo CD' | 'NetBox';
  readonly tools: number;
  /** System prompt without the index + every tool's full definition. */
  readonly fullTokens: number;
  /** System prompt with the index lines + the two meta-tools. */
  readonly indexTokens: number;
  readonly reductionPercent: number;
  /** Index mode with one / three tools loaded (which ones are named). */
  readonly loaded1: { readonly tools: readonly string[]; readonly tokens: number };
  readonly loaded3: { readonly tools: readonly string[]; readonly tokens: number };
  /** Mean tokens of one tool's full definition (with its framing) and of one index line. */
  readonly perToolDefinitionTokens: number;
  readonly perToolIndexLineTokens: number;
}

export interface TurnRow {
  readonly turn: number;
  readonly requests: number;
  /** Sum and largest of the prompt tokens the fake server counted for this turn's requests. */
  readonly sumPromptTokens: number;
  readonly maxPromptTokens: number;
  /** Our own largest request of the turn (countRequest with the budget's margin), as LlmTurn reports it. */
  readonly agentMaxRequestTokens: number;
}

export interface ConversationRun {
  readonly provider: ConversationProvider;
  readonly maxContextTokens: number;
  readonly turns: readonly TurnRow[];
  readonly requests: number;
  readonly failedTurns: number;
  readonly promptTokens: { readonly min: number; readonly median: number; readonly max: number; readonly total: number };
  /** Requests that needed each kind of trimming (flotilla_context_trims_total) and the tokens it saved. */
  readonly trims: Readonly<Record<TrimKind, number>>;
  readonly tokensSaved: Readonly<Record<TrimKind, number>>;
  /** The acceptance properties, read from what the fake server received (each count of what must not happen: 0). */
  readonly wire: WireFindings;
  readonly seconds: number;
}

export interface TrimTimingRow {
  readonly maxContextTokens: number;
  readonly availableTokens: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly trims: readonly { readonly kind: TrimKind; readonly tokensSaved: number }[];
  readonly runs: number;
  readonly meanMs: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface LlmBenchResult {
  readonly encoding: 'cl100k_base';
  readonly sessionStart: readonly SessionStartRow[];
  readonly conversation: {
    readonly turns: number;
    readonly questions: readonly string[];
    readonly budget: Omit<ContextBudget, 'maxContextTokens'>;
    readonly runs: readonly ConversationRun[];
  };
  readonly trimming: {
    readonly toolResultTokens: { readonly min: number; readonly mean: number; readonly max: number };
    readonly rows: readonly TrimTimingRow[];
  };
}

const ARGO_TOKEN = 'bench-llm-argocd-token';
const NETBOX_TOKEN = 'bench-llm-netbox-token-0123456789';
const KEY = 'sk-bench-llm';
const TURNS = 50;
type ConversationProvider = 'openai' | 'anthropic';
/**
 * The 50-turn conversations (issue 7's acceptance runs; test/llm/conversation.test.ts checks the same properties on
 * a 10-turn one): a small window through both providers' wire formats, and a large one for comparison.
 */
const CONVERSATIONS: readonly { readonly provider: ConversationProvider; readonly maxContextTokens: number }[] = [
  { provider: 'openai', maxContextTokens: 16_000 },
  { provider: 'openai', maxContextTokens: 128_000 },
  { provider: 'anthropic', maxContextTokens: 16_000 },
];
const FAKE_LLM = { openai: startFakeOpenAi, anthropic: startFakeAnthropic } as const;
const CONVERSATION_BUDGET: Omit<ContextBudget, 'maxContextTokens'> = {
  reservedOutputTokens: 1_000,
  minMessagesToKeep: 4,
  safetyMargin: CONTEXT_DEFAULTS.openai.safetyMargin,
  userTextMaxTokens: CONTEXT_DEFAULTS.openai.userTextMaxTokens,
  toolResultKeepRecent: CONTEXT_DEFAULTS.openai.toolResultKeepRecent,
};
const TRIM_BUDGETS = [8_000, 32_000, 128_000] as const;
/** Warm-ups, then up to TRIM_RUNS timed runs per window, stopping after TRIM_SECONDS once TRIM_MIN_RUNS are done (keeps the suite near a minute). */
const TRIM_WARMUPS = 3;
const TRIM_RUNS = 50;
const TRIM_MIN_RUNS = 10;
const TRIM_SECONDS = 3;
const HISTORY_UNITS = 50; // x 4 messages = 200
const HISTORY_RESULT_TOKENS = 1_500;
const LOADED: Readonly<Record<SessionStartRow['agent'], { one: readonly string[]; three: readonly string[] }>> = {
  'Argo CD': { one: ['list_applications'], three: ['list_applications', 'get_application', 'search_argocd_resources'] },
  NetBox: { one: ['list_devices'], three: ['count_netbox_objects', 'list_devices', 'list_interfaces'] },
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const median = (sorted: readonly number[]): number =>
  sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? (sorted[(sorted.length - 1) / 2] ?? Number.NaN) : ((sorted[sorted.length / 2 - 1] ?? 0) + (sorted[sorted.length / 2] ?? 0)) / 2;
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** The index's full definitions as the agent binds them. */
const definitionsOf = (index: CapabilityIndex): ToolDefinition[] => index.definitions.map((d) => ({ name: d.name, description: d.description, inputSchema: d.inputSchema as JsonValue }));

function sessionStart(counter: TokenCounter, agent: SessionStartRow['agent'], prompt: string, index: CapabilityIndex): SessionStartRow {
  const catalog = definitionsOf(index);
  // Raw cl100k tokens (margin 0): what the request holds; the agent's budget accounting adds its safety margin on top.
  const tokens = (system: string, tools: readonly ToolDefinition[]): number => countRequest(counter, { system, tools, messages: [] }, 0);
  const withLoaded = (names: readonly string[]): { tools: readonly string[]; tokens: number } => {
    const missing = names.filter((n) => !index.has(n));
    if (missing.length > 0) throw new Error(`bench llm: ${agent} has no tool ${missing.join(', ')}`);
    return { tools: names, tokens: tokens(systemPrompt(prompt, index), [...META_TOOLS, ...catalog.filter((d) => names.includes(d.name))]) };
  };
  const fullTokens = tokens(systemPrompt(prompt, undefined), catalog);
  const indexTokens = tokens(systemPrompt(prompt, index), META_TOOLS);
  const bare = tokens(systemPrompt(prompt, undefined), []);
  return {
    agent,
    tools: index.size,
    fullTokens,
    indexTokens,
    reductionPercent: (100 * (fullTokens - indexTokens)) / fullTokens,
    loaded1: withLoaded(LOADED[agent].one),
    loaded3: withLoaded(LOADED[agent].three),
    perToolDefinitionTokens: (fullTokens - bare) / index.size,
    perToolIndexLineTokens: counter.count(index.lines()) / index.size,
  };
}

async function conversation(
  counter: TokenCounter,
  mcp: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>['client'],
  index: CapabilityIndex,
  { provider, maxContextTokens }: (typeof CONVERSATIONS)[number],
): Promise<ConversationRun> {
  const budget: ContextBudget = { ...CONVERSATION_BUDGET, maxContextTokens };
  // The server refuses any prompt over the window, as the real APIs do.
  const llm = await FAKE_LLM[provider]({ apiKey: KEY, script: listAllScript, contextWindow: maxContextTokens });
  const metrics = createMetrics();
  const started = performance.now();
  try {
    const chat = createChatModel({ llmProvider: provider, llmModel: undefined, llmBaseUrl: llm.baseUrl, llmApiKey: KEY }, { maxOutputTokens: budget.reservedOutputTokens, maxRetries: 0 });
    if (chat === undefined) throw new Error('bench llm: no chat model');
    const agent = createLlmAgent({ agent: 'argocd', chat, mcp, index, prompt: ARGOCD_PROMPT, discovery: 'index', budget, counter, metrics });
    const turns: TurnRow[] = [];
    let failedTurns = 0;
    for (let turn = 0; turn < TURNS; turn += 1) {
      const before = llm.requests.length;
      const answer = await agent.ask(LIST_ALL_QUESTIONS[turn % LIST_ALL_QUESTIONS.length] ?? '', `bench-${provider}-${maxContextTokens}`);
      if (answer.error !== undefined) failedTurns += 1;
      const mine = llm.requests.slice(before).map((r) => r.promptTokens);
      turns.push({ turn: turn + 1, requests: mine.length, sumPromptTokens: mine.reduce((a, b) => a + b, 0), maxPromptTokens: Math.max(0, ...mine), agentMaxRequestTokens: answer.maxRequestTokens });
    }
    const seconds = (performance.now() - started) / 1000;
    const all = llm.requests.map((r) => r.promptTokens).sort((a, b) => a - b);
    const byKind = async (metric: typeof metrics.contextTrims): Promise<Record<TrimKind, number>> => {
      const out = Object.fromEntries(TRIM_KINDS.map((k) => [k, 0])) as Record<TrimKind, number>;
      for (const v of (await metric.get()).values) {
        const kind = v.labels.kind as TrimKind | undefined;
        if (kind !== undefined && kind in out) out[kind] += v.value;
      }
      return out;
    };
    return {
      provider,
      maxContextTokens,
      turns,
      requests: all.length,
      failedTurns,
      promptTokens: { min: all[0] ?? 0, median: median(all), max: all[all.length - 1] ?? 0, total: all.reduce((a, b) => a + b, 0) },
      trims: await byKind(metrics.contextTrims),
      tokensSaved: await byKind(metrics.contextTokensSaved),
      wire: checkWire(llm.requests, WIRE[provider], { counter, budget, toolBudgetTokens: LIMITS.budgetDefault }),
      seconds,
    };
  } finally {
    await llm.close();
  }
}

/**
 * A memory result store with seeded result ids and a fixed clock: the tools' output (whose token budget counts the
 * id and the expiry it quotes) is then the same on every run.
 */
function seededResultStore(seed: number): ResultStore {
  const inner = createMemoryResultStore({ now: () => Date.UTC(2026, 0, 1, 9) });
  const rng = createRng(seed);
  const innerId = new Map<string, string>();
  const seeded = (meta: StoredResultMeta, id: string): StoredResultMeta => ({ ...meta, result_id: id, uri: resultUri(id) });
  return {
    async put(input) {
      const meta = await inner.put(input);
      const id = `r_${rng.hex(24)}`;
      innerId.set(id, meta.result_id);
      return seeded(meta, id);
    },
    meta: async (id) => seeded(await inner.meta(innerId.get(id) ?? id), id),
    async read(id, request) {
      const response = await inner.read(innerId.get(id) ?? id, request);
      return { ...response, meta: seeded(response.meta, id) };
    },
    sweep: () => inner.sweep(),
    close: () => inner.close(),
  };
}

/**
 * A deterministic 200-message history, 50 exchanges of: a question, an assistant tool call, the tool's real result
 * (list_applications against the simulator, a tool budget of HISTORY_RESULT_TOKENS so each is about that size), and
 * an assistant answer quoting the total and a 10-row table.
 */
async function history(mcp: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>['client'], projects: readonly string[]): Promise<Message[]> {
  const messages: Message[] = [];
  for (let i = 0; i < HISTORY_UNITS; i += 1) {
    let args: Record<string, JsonValue>;
    let question: string;
    switch (i % 5) {
      case 1: {
        const project = projects[Math.floor(i / 5) % projects.length] ?? 'default';
        args = { project, limit: LIMITS.pageMax };
        question = `which applications are in the ${project} project?`;
        break;
      }
      case 3:
        args = { sync_status: 'OutOfSync', limit: LIMITS.pageMax, offset: (i * 7) % 40 };
        question = 'what is out of sync?';
        break;
      case 4:
        args = { health_status: 'Healthy', limit: LIMITS.pageMax, offset: (i * 11) % 200 };
        question = 'healthy applications, next page please';
        break;
      default: {
        const offset = (i * 37) % 700;
        args = { limit: LIMITS.pageMax, offset };
        question = `list the applications from ${offset}`;
      }
    }
    const id = `call_${String(i).padStart(3, '0')}_${(i * 7919).toString(36)}`;
    const raw = (await mcp.callTool({ name: 'list_applications', arguments: args })) as { content: { type: string; text?: string }[] };
    const text = raw.content.map((c) => c.text ?? '').join('\n');
    const body = JSON.parse(text) as { total?: number; items?: Record<string, unknown>[] };
    const rows = (body.items ?? []).slice(0, 10).map((item) => `| ${Object.values(item).slice(0, 4).map((v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v))).join(' | ')} |`);
    messages.push(
      { role: 'user', text: question },
      { role: 'assistant', text: '', toolCalls: [{ id, name: 'list_applications', args }] },
      { role: 'tool', toolCallId: id, name: 'list_applications', text },
      { role: 'assistant', text: `There are ${body.total ?? 'an unknown number of'} matching applications; the first ${rows.length}:\n${rows.join('\n')}\nAsk for the next page or a narrower filter to see more.` },
    );
  }
  return messages;
}

function timeFit(counter: TokenCounter, request: ContextRequest, maxContextTokens: number): TrimTimingRow {
  // The budget the agent would use with MAX_CONTEXT_TOKENS set to this window.
  const budget = contextBudgetFor('openai', { maxContextTokens, minMessagesToKeep: undefined });
  for (let i = 0; i < TRIM_WARMUPS; i += 1) fitRequest(counter, request, budget);
  const samples: number[] = [];
  let last = fitRequest(counter, request, budget);
  const deadline = performance.now() + TRIM_SECONDS * 1000;
  while (samples.length < TRIM_RUNS && (samples.length < TRIM_MIN_RUNS || performance.now() < deadline)) {
    const started = performance.now();
    last = fitRequest(counter, request, budget);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return {
    maxContextTokens,
    availableTokens: budget.maxContextTokens - budget.reservedOutputTokens,
    messagesBefore: request.messages.length,
    messagesAfter: last.request.messages.length,
    tokensBefore: countRequest(counter, request, budget.safetyMargin),
    tokensAfter: last.tokens,
    trims: last.trims,
    runs: samples.length,
    meanMs: mean(samples),
    p99Ms: percentile(samples, 99),
    maxMs: samples[samples.length - 1] ?? Number.NaN,
  };
}

const PROVIDER_NAME: Readonly<Record<ConversationProvider, string>> = { openai: 'OpenAI', anthropic: 'Anthropic' };

/**
 * Issue 7's context economy: tokens at session start with the full catalog bound versus the capability index, the
 * prompt tokens per turn of 50-turn list-everything conversations through fake OpenAI and Anthropic servers (their
 * own counts) with the acceptance properties checked on what they received, and the CPU time of fitting a
 * 200-message history to 8k, 32k and 128k windows.
 */
export async function benchLlm(options: { readonly counter: TokenCounter; readonly progress?: (line: string) => void }): Promise<LlmBenchResult> {
  const { counter } = options;
  const began = performance.now();
  const say = options.progress ?? ((): void => undefined);
  const progress = (line: string): void => say(`[${((performance.now() - began) / 1000).toFixed(1)} s] ${line}`);
  const argoEstate = generateArgoEstate();
  const argoSim = await startArgoCdSimulator({ token: ARGO_TOKEN, estate: argoEstate });
  const netboxSim = await startNetBoxSimulator({ token: NETBOX_TOKEN, estate: generateNetBoxEstate() });
  const metrics = createMetrics();
  const logger = silentLogger();
  const argoClient = new ArgoCdClient({ baseUrl: argoSim.url, token: ARGO_TOKEN, limits: UPSTREAM_DEFAULTS, metrics, logger });
  const argo = await connectArgoCdToolsInProcess({ client: argoClient, counter, store: createMemoryResultStore(), metrics, logger });
  const argoSmall = await connectArgoCdToolsInProcess({ client: argoClient, counter, store: seededResultStore(20_251_105), metrics, logger, budgetTokens: HISTORY_RESULT_TOKENS });
  const netboxClient = new NetBoxClient({ baseUrl: netboxSim.url, token: NETBOX_TOKEN, rateLimit: false, metrics, logger });
  const netbox = await connectNetBoxToolsInProcess({ client: netboxClient, counter, store: createMemoryResultStore(), metrics, logger });
  try {
    const argoIndex = await CapabilityIndex.fromClient(argo.client);
    const netboxIndex = await CapabilityIndex.fromClient(netbox.client);
    progress('llm: tokens at session start, full catalog vs capability index...\n');
    const start = [sessionStart(counter, 'Argo CD', ARGOCD_PROMPT, argoIndex), sessionStart(counter, 'NetBox', NETBOX_PROMPT, netboxIndex)];

    const runs: ConversationRun[] = [];
    for (const run of CONVERSATIONS) {
      progress(`llm: ${TURNS}-turn conversation through the fake ${PROVIDER_NAME[run.provider]} server, MAX_CONTEXT_TOKENS ${run.maxContextTokens.toLocaleString('en-US')}...\n`);
      runs.push(await conversation(counter, argo.client, argoIndex, run));
    }

    progress(`llm: fitting a ${HISTORY_UNITS * 4}-message history, ${TRIM_MIN_RUNS}-${TRIM_RUNS} runs per window (${TRIM_SECONDS} s) after ${TRIM_WARMUPS} warm-ups...\n`);
    // The projects with the most applications, so that project filters give full pages too.
    const perProject = new Map<string, number>();
    for (const app of argoEstate.applications) perProject.set(app.spec.project, (perProject.get(app.spec.project) ?? 0) + 1);
    const projects = [...perProject].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
    const messages = await history(argoSmall.client, projects);
    const resultTokens = messages.flatMap((m) => (m.role === 'tool' ? [counter.count(m.text)] : []));
    const request: ContextRequest = {
      system: systemPrompt(ARGOCD_PROMPT, argoIndex),
      tools: [...META_TOOLS, ...definitionsOf(argoIndex).filter((d) => LOADED['Argo CD'].three.includes(d.name))],
      messages,
    };
    const rows = TRIM_BUDGETS.map((window) => timeFit(counter, request, window));
    return {
      encoding: 'cl100k_base',
      sessionStart: start,
      conversation: { turns: TURNS, questions: LIST_ALL_QUESTIONS, budget: CONVERSATION_BUDGET, runs },
      trimming: { toolResultTokens: { min: Math.min(...resultTokens), mean: mean(resultTokens), max: Math.max(...resultTokens) }, rows },
    };
  } finally {
    await argo.close();
    await argoSmall.close();
    await netbox.close();
    await argoSim.close();
    await netboxSim.close();
  }
}

type Markdown = (header: readonly string[], body: readonly (readonly string[])[]) => string;

const n = (value: number): string => Math.round(value).toLocaleString('en-US');

/** The suite's tables, as main.ts prints them. */
export function formatLlmBench(result: LlmBenchResult, markdown: Markdown): string {
  const out: string[] = [];
  out.push(
    `\nTokens at session start (system prompt + tool definitions, no question yet; raw ${result.encoding}, no safety margin):\n${markdown(
      ['agent', 'tools', 'full catalog', 'index', 'reduction', 'index + 1 loaded', 'index + 3 loaded'],
      result.sessionStart.map((r) => [r.agent, String(r.tools), n(r.fullTokens), n(r.indexTokens), `${r.reductionPercent.toFixed(1)}%`, n(r.loaded1.tokens), n(r.loaded3.tokens)]),
    )}`,
  );
  for (const r of result.sessionStart) {
    out.push(
      `${r.agent}: a full definition costs ${r.perToolDefinitionTokens.toFixed(0)} tokens per tool, an index line ${r.perToolIndexLineTokens.toFixed(0)}; ` +
        `loaded: ${r.loaded1.tools.join(', ')} / ${r.loaded3.tools.join(', ')}.\n`,
    );
  }
  const runs = result.conversation.runs;
  if (runs.length > 0) {
    const label = (run: ConversationRun): string => `${PROVIDER_NAME[run.provider]} ${Math.round(run.maxContextTokens / 1000)}k`;
    const picks = [1, 2, 5, 10, 20, 30, 40, 50];
    const cell = (run: ConversationRun, turn: number): TurnRow | undefined => run.turns.find((t) => t.turn === turn);
    out.push(
      `\nPrompt tokens per turn, ${result.conversation.turns}-turn list-everything conversations (Argo CD tools, index discovery, each fake server's own counts; requests per turn, sum, max):\n${markdown(
        ['turn', ...runs.map(label)],
        [
          ...picks.map((turn) => [String(turn), ...runs.map((run) => `${cell(run, turn)?.requests ?? '-'}: ${n(cell(run, turn)?.sumPromptTokens ?? 0)}, ${n(cell(run, turn)?.maxPromptTokens ?? 0)}`)]),
          ['all', ...runs.map((run) => `${run.requests}: total ${n(run.promptTokens.total)}`)],
        ],
      )}`,
    );
    out.push(
      `\n${markdown(
        ['conversation', 'requests', 'min', 'median', 'max', 'total', 'failed turns', 'seconds'],
        runs.map((run) => [label(run), String(run.requests), n(run.promptTokens.min), n(run.promptTokens.median), n(run.promptTokens.max), n(run.promptTokens.total), String(run.failedTurns), run.seconds.toFixed(1)]),
      )}`,
    );
    out.push(
      `\nTrimming (requests trimmed, tokens saved; flotilla_context_trims_total / flotilla_context_tokens_saved_total):\n${markdown(
        ['conversation', ...TRIM_KINDS],
        runs.map((run) => [label(run), ...TRIM_KINDS.map((k) => `${run.trims[k]} / ${n(run.tokensSaved[k])}`)]),
      )}`,
    );
    out.push(
      `\nOn the wire (what each fake server received; the columns marked 0 must be 0):\n${markdown(
        ['conversation', 'requests', 'failed (0)', 'over the window (0)', 'largest prompt', 'tool messages', 'over the tool budget (0)', 'largest tool message', 'calls without results (0)', 'LLM summaries', 'summaries with tool results (0)'],
        runs.map((run) => [
          label(run),
          String(run.wire.requests),
          String(run.wire.failedRequests),
          String(run.wire.requestsOverBudget),
          n(run.wire.largestPromptTokens),
          n(run.wire.toolMessages),
          String(run.wire.toolMessagesOverBudget),
          n(run.wire.largestToolMessageTokens),
          String(run.wire.requestsWithBrokenPairs),
          String(run.wire.summaryRequests),
          String(run.wire.summaryRequestsWithToolResults),
        ]),
      )}`,
    );
    const broken = runs.filter(({ wire: w }) => w.failedRequests + w.requestsOverBudget + w.toolMessagesOverBudget + w.requestsWithBrokenPairs + w.summaryRequestsWithToolResults > 0 || w.toolMessages <= result.conversation.turns);
    out.push(broken.length === 0 ? 'Every conversation held every property.\n' : `PROPERTIES BROKEN in ${broken.map(label).join(', ')}: see the zero columns above.\n`);
    const small = runs.find((r) => r.provider === 'openai' && r.maxContextTokens === 16_000);
    const large = runs.find((r) => r.provider === 'openai' && r.maxContextTokens === 128_000);
    if (small !== undefined && large !== undefined) {
      const saved = 1 - small.promptTokens.total / large.promptTokens.total;
      out.push(`The ${label(small)} window sent ${(100 * saved).toFixed(1)}% fewer prompt tokens over the conversation than the ${label(large)} one (${n(small.promptTokens.total)} vs ${n(large.promptTokens.total)}).\n`);
    }
  }
  const t = result.trimming;
  out.push(
    `\nfitRequest on a ${t.rows[0]?.messagesBefore ?? 0}-message history (tool results ${n(t.toolResultTokens.min)}-${n(t.toolResultTokens.max)} tokens, mean ${n(t.toolResultTokens.mean)}; the agent's budget for each window, tokens with its 10% safety margin):\n${markdown(
      ['window', 'available', 'tokens before', 'tokens after', 'messages after', 'trims (tokens saved)', 'runs', 'mean ms', 'p99 ms'],
      t.rows.map((r) => [
        n(r.maxContextTokens),
        n(r.availableTokens),
        n(r.tokensBefore),
        n(r.tokensAfter),
        String(r.messagesAfter),
        r.trims.length === 0 ? 'none' : r.trims.map((x) => `${x.kind} (${n(x.tokensSaved)})`).join(', '),
        String(r.runs),
        r.meanMs.toFixed(1),
        r.p99Ms.toFixed(1),
      ]),
    )}`,
  );
  if (t.rows.some((r) => r.runs < 100)) out.push('With fewer than 100 runs, p99 is the slowest run.\n');
  return out.join('');
}
