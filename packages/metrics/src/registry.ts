import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BUCKETS, LABEL, METRIC } from './names.js';

export interface FlotillaMetrics {
  readonly registry: Registry;
  readonly toolCalls: Counter<'tool' | 'outcome'>;
  readonly toolDuration: Histogram<'tool'>;
  readonly toolResultBytes: Histogram<'tool'>;
  readonly toolResultTokens: Histogram<'tool'>;
  readonly toolRawResultBytes: Histogram<'tool'>;
  readonly toolSpills: Counter<'tool'>;
  readonly toolBudgetTruncations: Counter<'tool'>;
  readonly searchCapHits: Counter<'tool'>;
  readonly resultStoreBytes: Gauge;
  readonly resultStoreEntries: Gauge;
  readonly resultStoreEvictions: Counter<'reason'>;
  readonly upstreamRequests: Counter<'system' | 'operation' | 'outcome'>;
  readonly upstreamDuration: Histogram<'system' | 'operation'>;
  readonly upstreamResponseBytes: Histogram<'system' | 'operation'>;
  readonly agentTurns: Counter<'agent' | 'skill' | 'path' | 'outcome'>;
  readonly agentTurnDuration: Histogram<'agent' | 'skill' | 'path'>;
  readonly agentAnswerTokens: Histogram<'agent'>;
  readonly upstreamThrottleWait: Histogram<'system'>;
  readonly limitationsDetected: Counter<'agent' | 'kind'>;
  readonly limitationStrategies: Counter<'agent' | 'strategy'>;
  readonly limitationDetectSeconds: Histogram<'agent'>;
  readonly contextRequests: Counter<'agent'>;
  readonly contextRequestTokens: Histogram<'agent'>;
  readonly contextTrims: Counter<'agent' | 'kind'>;
  readonly contextTokensSaved: Counter<'agent' | 'kind'>;
  readonly supervisorDelegations: Counter<'agent' | 'outcome'>;
  readonly supervisorDelegationDuration: Histogram<'agent'>;
  readonly supervisorReplyTokens: Histogram<'agent'>;
  readonly supervisorReplyTruncations: Counter<'agent'>;
  readonly supervisorAgents: Gauge<'status'>;
  readonly supervisorAgentState: Gauge<'agent' | 'state'>;
  readonly supervisorCardFailures: Counter<'reason'>;
  readonly memoryGuardState: Gauge<'agent' | 'state'>;
  readonly memoryUsageRatio: Gauge<'agent'>;
  readonly a2aRejected: Counter<'agent' | 'reason'>;
  readonly upstreamCircuitState: Gauge<'system' | 'state'>;
  readonly hybridRoutes: Counter<'agent' | 'route' | 'reason'>;
  readonly cacheRequests: Counter<'cache' | 'outcome'>;
  readonly cacheEvictions: Counter<'cache'>;
  readonly cacheEntries: Gauge<'cache'>;
  readonly cacheBytes: Gauge<'cache'>;
  readonly storeBytes: Gauge<'store'>;
  readonly storeEntries: Gauge<'store'>;
  readonly storeEvictions: Counter<'store' | 'reason'>;
  readonly eventLoopLag: Gauge;
  readonly conversationQueue: Gauge<'agent'>;
}

/**
 * Windows of the event-loop delay monitor: the gauge reports the longest delay in the current and the previous
 * window, so any number of scrapers (an HA pair, a curl, several servers' registries in one process) read the same
 * value and none of them resets it.
 */
export const EVENT_LOOP_WINDOW_MS = 15_000;

/** One event-loop delay monitor per process, shared by every registry (tests build many). */
let loopMonitor: { readonly histogram: IntervalHistogram; lastWindowMaxSeconds: number } | undefined;
function eventLoopMonitor(): NonNullable<typeof loopMonitor> {
  if (loopMonitor === undefined) {
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const monitor = { histogram, lastWindowMaxSeconds: 0 };
    setInterval(() => {
      monitor.lastWindowMaxSeconds = maxSeconds(histogram);
      histogram.reset();
    }, EVENT_LOOP_WINDOW_MS).unref();
    loopMonitor = monitor;
  }
  return loopMonitor;
}
const maxSeconds = (histogram: IntervalHistogram): number => (Number.isFinite(histogram.max) ? histogram.max / 1e9 : 0);

export interface MetricsOptions {
  /** Defaults to a fresh registry, so two servers in one test process never collide. */
  readonly registry?: Registry;
  /** Process metrics (RSS, heap, event loop lag); on for servers, off for tests. */
  readonly defaultMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): FlotillaMetrics {
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics === true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const monitor = eventLoopMonitor();
  return {
    registry,
    storeBytes: new Gauge({
      name: METRIC.storeBytes,
      help: 'Bytes held by a bounded in-process store (conversation memory, tasks, sessions), by store.',
      labelNames: [LABEL.store],
      registers,
    }),
    storeEntries: new Gauge({
      name: METRIC.storeEntries,
      help: 'Entries held by a bounded in-process store, by store.',
      labelNames: [LABEL.store],
      registers,
    }),
    storeEvictions: new Counter({
      name: METRIC.storeEvictions,
      help: 'Entries evicted from a bounded in-process store, by store and reason (entries_cap, bytes_cap, ttl).',
      labelNames: [LABEL.store, LABEL.reason],
      registers,
    }),
    eventLoopLag: new Gauge({
      name: METRIC.eventLoopLag,
      help: 'Longest event-loop delay in the last 15 to 30 seconds: how long the process could not answer anything (probes included).',
      registers,
      collect() {
        this.set(Math.max(monitor.lastWindowMaxSeconds, maxSeconds(monitor.histogram)));
      },
    }),
    conversationQueue: new Gauge({
      name: METRIC.conversationQueue,
      help: 'Turns waiting for an earlier turn of the same conversation to finish.',
      labelNames: [LABEL.agent],
      registers,
    }),
    toolCalls: new Counter({
      name: METRIC.toolCalls,
      help: 'MCP tool calls by tool and outcome.',
      labelNames: [LABEL.tool, LABEL.outcome],
      registers,
    }),
    toolDuration: new Histogram({
      name: METRIC.toolDuration,
      help: 'Wall time of MCP tool calls.',
      labelNames: [LABEL.tool],
      buckets: [...BUCKETS.seconds],
      registers,
    }),
    toolResultBytes: new Histogram({
      name: METRIC.toolResultBytes,
      help: 'Size in bytes (UTF-8) of the text an MCP tool returns.',
      labelNames: [LABEL.tool],
      buckets: [...BUCKETS.resultBytes],
      registers,
    }),
    toolResultTokens: new Histogram({
      name: METRIC.toolResultTokens,
      help: 'Size in tokens of the text an MCP tool returns.',
      labelNames: [LABEL.tool],
      buckets: [...BUCKETS.tokens],
      registers,
    }),
    toolRawResultBytes: new Histogram({
      name: METRIC.toolRawResultBytes,
      help: 'Size in bytes (UTF-8 JSON) of what a tool read before the token budget: every item of a list, or the whole object.',
      labelNames: [LABEL.tool],
      buckets: [...BUCKETS.rawResultBytes],
      registers,
    }),
    toolSpills: new Counter({
      name: METRIC.toolSpills,
      help: 'Tool results written to the result store instead of returned inline.',
      labelNames: [LABEL.tool],
      registers,
    }),
    toolBudgetTruncations: new Counter({
      name: METRIC.toolBudgetTruncations,
      help: 'Tool results shortened to fit the token budget.',
      labelNames: [LABEL.tool],
      registers,
    }),
    searchCapHits: new Counter({
      name: METRIC.searchCapHits,
      help: 'Searches that stopped at the match cap.',
      labelNames: [LABEL.tool],
      registers,
    }),
    resultStoreBytes: new Gauge({
      name: METRIC.resultStoreBytes,
      help: 'Bytes held by the result store.',
      registers,
    }),
    resultStoreEntries: new Gauge({
      name: METRIC.resultStoreEntries,
      help: 'Results held by the result store.',
      registers,
    }),
    resultStoreEvictions: new Counter({
      name: METRIC.resultStoreEvictions,
      help: 'Stored results removed, by reason.',
      labelNames: [LABEL.reason],
      registers,
    }),
    upstreamRequests: new Counter({
      name: METRIC.upstreamRequests,
      help: 'HTTP requests to upstream systems by operation and outcome.',
      labelNames: [LABEL.system, LABEL.operation, LABEL.outcome],
      registers,
    }),
    upstreamDuration: new Histogram({
      name: METRIC.upstreamDuration,
      help: 'Wall time of upstream HTTP requests, body included.',
      labelNames: [LABEL.system, LABEL.operation],
      buckets: [...BUCKETS.seconds],
      registers,
    }),
    memoryGuardState: new Gauge({
      name: METRIC.memoryGuardState,
      help: 'The memory guard state of an agent: 1 for the current state (ok, tight: budgets halved, shed: new work refused).',
      labelNames: [LABEL.agent, LABEL.state],
      registers,
    }),
    memoryUsageRatio: new Gauge({
      name: METRIC.memoryUsageRatio,
      help: 'Memory used over the container memory limit, as the memory guard last sampled it.',
      labelNames: [LABEL.agent],
      registers,
    }),
    a2aRejected: new Counter({
      name: METRIC.a2aRejected,
      help: 'A2A requests refused before any work, by reason (unauthorized, busy, conversation_busy, invalid_request).',
      labelNames: [LABEL.agent, LABEL.reason],
      registers,
    }),
    upstreamCircuitState: new Gauge({
      name: METRIC.upstreamCircuitState,
      help: 'The circuit breaker of an upstream: 1 for the current state (closed, open: requests fail fast, half_open: one probe).',
      labelNames: [LABEL.system, LABEL.state],
      registers,
    }),
    hybridRoutes: new Counter({
      name: METRIC.hybridRoutes,
      help: 'Questions in hybrid mode by route (fast: rules, no model call; discovery: the model; fallback: the model after a fast path that failed) and why (reason).',
      labelNames: [LABEL.agent, LABEL.route, LABEL.reason],
      registers,
    }),
    cacheRequests: new Counter({
      name: METRIC.cacheRequests,
      help: 'Cache lookups by cache (answer, snapshot) and outcome (hit, miss, bypass: fresh data asked for).',
      labelNames: [LABEL.cache, LABEL.outcome],
      registers,
    }),
    cacheEvictions: new Counter({
      name: METRIC.cacheEvictions,
      help: 'Entries a cache dropped before use (expired, over its entry or byte cap, or gone from the result store), by cache.',
      labelNames: [LABEL.cache],
      registers,
    }),
    cacheEntries: new Gauge({
      name: METRIC.cacheEntries,
      help: 'Entries held by a cache, by cache.',
      labelNames: [LABEL.cache],
      registers,
    }),
    cacheBytes: new Gauge({
      name: METRIC.cacheBytes,
      help: 'Bytes held by a cache, by cache (snapshots: their size in the result store).',
      labelNames: [LABEL.cache],
      registers,
    }),
    agentTurns: new Counter({
      name: METRIC.agentTurns,
      help: 'Agent turns (one A2A question each) by skill, workflow path and outcome.',
      labelNames: [LABEL.agent, LABEL.skill, LABEL.path, LABEL.outcome],
      registers,
    }),
    agentTurnDuration: new Histogram({
      name: METRIC.agentTurnDuration,
      help: 'Wall time of agent turns, A2A request to answer, by skill and workflow path.',
      labelNames: [LABEL.agent, LABEL.skill, LABEL.path],
      buckets: [...BUCKETS.seconds],
      registers,
    }),
    agentAnswerTokens: new Histogram({
      name: METRIC.agentAnswerTokens,
      help: 'Size in tokens of agent answers.',
      labelNames: [LABEL.agent],
      buckets: [...BUCKETS.tokens],
      registers,
    }),
    upstreamResponseBytes: new Histogram({
      name: METRIC.upstreamResponseBytes,
      help: 'Bytes read from upstream response bodies.',
      labelNames: [LABEL.system, LABEL.operation],
      buckets: [...BUCKETS.upstreamBytes],
      registers,
    }),
    upstreamThrottleWait: new Histogram({
      name: METRIC.upstreamThrottleWait,
      help: 'Time a request waited for the shared upstream rate limiter (token bucket, Retry-After pauses).',
      labelNames: [LABEL.system],
      buckets: [...BUCKETS.seconds],
      registers,
    }),
    limitationsDetected: new Counter({
      name: METRIC.limitationsDetected,
      help: 'Limitations detected before executing a plan, by kind.',
      labelNames: [LABEL.agent, LABEL.kind],
      registers,
    }),
    limitationStrategies: new Counter({
      name: METRIC.limitationStrategies,
      help: 'How detected limitations were handled (batched, progressive disclosure, sampled, fallback, throttled).',
      labelNames: [LABEL.agent, LABEL.strategy],
      registers,
    }),
    limitationDetectSeconds: new Histogram({
      name: METRIC.limitationDetectSeconds,
      help: 'CPU time of limitation detection per plan (count queries excluded).',
      labelNames: [LABEL.agent],
      buckets: [...BUCKETS.detectSeconds],
      registers,
    }),
    contextRequests: new Counter({
      name: METRIC.contextRequests,
      help: 'Model requests checked against the context budget, by agent.',
      labelNames: [LABEL.agent],
      registers,
    }),
    contextRequestTokens: new Histogram({
      name: METRIC.contextRequestTokens,
      help: 'Tokens of model requests as sent (after trimming), by agent.',
      labelNames: [LABEL.agent],
      buckets: [...BUCKETS.contextTokens],
      registers,
    }),
    contextTrims: new Counter({
      name: METRIC.contextTrims,
      help: 'Model requests trimmed to fit the context budget, by agent and kind of trimming.',
      labelNames: [LABEL.agent, LABEL.kind],
      registers,
    }),
    contextTokensSaved: new Counter({
      name: METRIC.contextTokensSaved,
      help: 'Tokens removed from model requests by trimming, by agent and kind.',
      labelNames: [LABEL.agent, LABEL.kind],
      registers,
    }),
    supervisorDelegations: new Counter({
      name: METRIC.supervisorDelegations,
      help: 'Questions the supervisor delegated to a domain agent, by agent and outcome.',
      labelNames: [LABEL.agent, LABEL.outcome],
      registers,
    }),
    supervisorDelegationDuration: new Histogram({
      name: METRIC.supervisorDelegationDuration,
      help: 'Wall time of one delegation, request to final answer.',
      labelNames: [LABEL.agent],
      buckets: [...BUCKETS.seconds],
      registers,
    }),
    supervisorReplyTokens: new Histogram({
      name: METRIC.supervisorReplyTokens,
      help: 'Size in tokens of domain agent replies as received, before the supervisor budget.',
      labelNames: [LABEL.agent],
      buckets: [...BUCKETS.tokens],
      registers,
    }),
    supervisorReplyTruncations: new Counter({
      name: METRIC.supervisorReplyTruncations,
      help: 'Domain agent replies cut to the supervisor reply budget.',
      labelNames: [LABEL.agent],
      registers,
    }),
    supervisorAgents: new Gauge({
      name: METRIC.supervisorAgents,
      help: 'Domain agents in the supervisor registry, by state.',
      labelNames: [LABEL.status],
      registers,
    }),
    supervisorAgentState: new Gauge({
      name: METRIC.supervisorAgentState,
      help: 'Each domain agent in the supervisor registry: 1 for its current state (ready, unreachable, pending, refused), 0 for the others.',
      labelNames: [LABEL.agent, LABEL.state],
      registers,
    }),
    supervisorCardFailures: new Counter({
      name: METRIC.supervisorCardFailures,
      help: 'Agent cards the supervisor could not use (the agent is left out until a later read succeeds), by reason.',
      labelNames: [LABEL.reason],
      registers,
    }),
  };
}

/** The Slack bot's own metrics (the front door); it also has the process metrics of `createMetrics()`. */
export interface SlackMetrics {
  readonly events: Counter<'kind'>;
  readonly answers: Counter<'outcome'>;
  readonly answerDuration: Histogram;
  readonly apiFailures: Counter<'method'>;
  readonly errors: Counter;
  readonly inFlight: Gauge;
}

/** Registers the Slack bot's metrics in `registry` (the one `createMetrics()` made, so one /metrics serves both). */
export function createSlackMetrics(registry: Registry): SlackMetrics {
  const registers = [registry];
  return {
    events: new Counter({
      name: METRIC.slackEvents,
      help: 'Slack events the bot acted on, by kind (app_mention, message, block_action).',
      labelNames: [LABEL.kind],
      registers,
    }),
    answers: new Counter({
      name: METRIC.slackAnswers,
      help: 'Questions asked in Slack by how they ended (answered, failed, timed_out, busy: turned away).',
      labelNames: [LABEL.outcome],
      registers,
    }),
    answerDuration: new Histogram({
      name: METRIC.slackAnswerDuration,
      help: 'Wall time from a question in Slack to its answer (or failure) posted.',
      buckets: [...BUCKETS.seconds, 60, 120],
      registers,
    }),
    apiFailures: new Counter({
      name: METRIC.slackApiFailures,
      help: 'Slack Web API calls that failed (an error answer, a rate limit past retries, the network), by method.',
      labelNames: [LABEL.method],
      registers,
    }),
    errors: new Counter({
      name: METRIC.slackErrors,
      help: 'Unexpected errors while handling a Slack event (a bug or an unforeseen answer): the user may have got nothing.',
      registers,
    }),
    inFlight: new Gauge({
      name: METRIC.slackInFlight,
      help: 'Questions the Slack bot is answering now (at most its --max-in-flight).',
      registers,
    }),
  };
}
