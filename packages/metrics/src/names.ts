/**
 * Every metric name and label value Flotilla exports. Code, alert rules and dashboards import these constants;
 * nothing else spells a metric name.
 */
export const METRIC = {
  toolCalls: 'flotilla_mcp_tool_calls_total',
  toolDuration: 'flotilla_mcp_tool_duration_seconds',
  toolResultBytes: 'flotilla_mcp_tool_result_bytes',
  toolResultTokens: 'flotilla_mcp_tool_result_tokens',
  toolRawResultBytes: 'flotilla_mcp_tool_raw_result_bytes',
  toolSpills: 'flotilla_mcp_tool_spills_total',
  toolBudgetTruncations: 'flotilla_mcp_tool_budget_truncations_total',
  searchCapHits: 'flotilla_search_cap_hits_total',
  resultStoreBytes: 'flotilla_result_store_bytes',
  resultStoreEntries: 'flotilla_result_store_entries',
  resultStoreEvictions: 'flotilla_result_store_evictions_total',
  upstreamRequests: 'flotilla_upstream_requests_total',
  upstreamDuration: 'flotilla_upstream_request_duration_seconds',
  upstreamResponseBytes: 'flotilla_upstream_response_bytes',
  upstreamThrottleWait: 'flotilla_upstream_throttle_wait_seconds',
  limitationsDetected: 'flotilla_limitations_detected_total',
  limitationStrategies: 'flotilla_limitation_strategies_total',
  limitationDetectSeconds: 'flotilla_limitation_detect_seconds',
  contextRequests: 'flotilla_context_requests_total',
  contextRequestTokens: 'flotilla_context_request_tokens',
  contextTrims: 'flotilla_context_trims_total',
  contextTokensSaved: 'flotilla_context_tokens_saved_total',
  supervisorDelegations: 'flotilla_supervisor_delegations_total',
  supervisorDelegationDuration: 'flotilla_supervisor_delegation_duration_seconds',
  supervisorReplyTokens: 'flotilla_supervisor_reply_tokens',
  supervisorReplyTruncations: 'flotilla_supervisor_reply_truncations_total',
  supervisorAgents: 'flotilla_supervisor_agents',
  supervisorAgentState: 'flotilla_supervisor_agent_state',
  supervisorCardFailures: 'flotilla_supervisor_agent_card_failures_total',
  agentTurns: 'flotilla_agent_turns_total',
  memoryGuardState: 'flotilla_memory_guard_state',
  memoryUsageRatio: 'flotilla_memory_usage_ratio',
  a2aRejected: 'flotilla_a2a_rejected_total',
  upstreamCircuitState: 'flotilla_upstream_circuit_state',
  hybridRoutes: 'flotilla_hybrid_routes_total',
  agentTurnDuration: 'flotilla_agent_turn_duration_seconds',
  agentAnswerTokens: 'flotilla_agent_answer_tokens',
  cacheRequests: 'flotilla_cache_requests_total',
  cacheEvictions: 'flotilla_cache_evictions_total',
  cacheEntries: 'flotilla_cache_entries',
  cacheBytes: 'flotilla_cache_bytes',
  storeBytes: 'flotilla_store_bytes',
  storeEntries: 'flotilla_store_entries',
  storeEvictions: 'flotilla_store_evictions_total',
  eventLoopLag: 'flotilla_event_loop_lag_seconds',
  conversationQueue: 'flotilla_conversation_queue_depth',
  slackEvents: 'flotilla_slack_events_total',
  slackAnswers: 'flotilla_slack_answers_total',
  slackAnswerDuration: 'flotilla_slack_answer_duration_seconds',
  slackApiFailures: 'flotilla_slack_api_failures_total',
  slackErrors: 'flotilla_slack_errors_total',
  slackInFlight: 'flotilla_slack_in_flight',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** Process metrics prom-client's default collectors export on every piece (`createMetrics({ defaultMetrics: true })`). */
export const PROCESS_METRIC = {
  residentMemory: 'process_resident_memory_bytes',
  heapUsed: 'nodejs_heap_size_used_bytes',
  externalMemory: 'nodejs_external_memory_bytes',
  cpuSeconds: 'process_cpu_seconds_total',
  eventLoopLag: 'nodejs_eventloop_lag_seconds',
  eventLoopLagP99: 'nodejs_eventloop_lag_p99_seconds',
} as const;

export const LABEL = {
  tool: 'tool',
  outcome: 'outcome',
  reason: 'reason',
  system: 'system',
  operation: 'operation',
  agent: 'agent',
  path: 'path',
  skill: 'skill',
  kind: 'kind',
  strategy: 'strategy',
  status: 'status',
  state: 'state',
  route: 'route',
  cache: 'cache',
  store: 'store',
  method: 'method',
} as const;

/** The memory guard's states: normal; budgets halved; new work shed. */
export const MEMORY_GUARD_STATES = ['ok', 'tight', 'shed'] as const;
export type MemoryGuardState = (typeof MEMORY_GUARD_STATES)[number];

/** The route of a question in hybrid mode: the rules' fast path, the model's discovery path, or the model after a fast path that failed. */
export const HYBRID_ROUTES = ['fast', 'discovery', 'fallback'] as const;
export type HybridRoute = (typeof HYBRID_ROUTES)[number];

/**
 * Why hybrid mode routed a question where it did (the `reason` label, and the answer's `route_reason`), by route:
 * the fast path when the rules execute it completely; the model for reasoning words, words the rules did not use,
 * low confidence, the unknown intent, an intent whose plan the rules do not execute completely, or a "next page"
 * whose last list the model produced; the model after a fast path that failed.
 */
export const HYBRID_ROUTE_REASONS = {
  fast: ['rules_execute_fully'],
  discovery: ['reasoning_words', 'unused_words', 'low_confidence', 'unknown_intent', 'intent_not_fully_executed', 'continues_model_list'],
  fallback: ['fast_path_failed'],
} as const satisfies Record<HybridRoute, readonly string[]>;
export type HybridRouteReason = (typeof HYBRID_ROUTE_REASONS)[HybridRoute][number];

/**
 * Why an A2A request was refused before any work: no or wrong credentials; memory shedding; the conversation is
 * busy with earlier turns (its queue is full); the request breaks a protocol limit (contextId, parts, body).
 */
export const A2A_REJECT_REASONS = ['unauthorized', 'busy', 'conversation_busy', 'invalid_request'] as const;
export type A2ARejectReason = (typeof A2A_REJECT_REASONS)[number];

/** How a model request was made to fit its context budget (one request may take several). */
export const TRIM_KINDS = ['tool_results_cleared', 'turns_summarised', 'user_text_capped', 'orphans_repaired', 'empty_turns_dropped'] as const;
export type TrimKind = (typeof TRIM_KINDS)[number];

/** How one delegation from the supervisor to a domain agent ended. */
export const DELEGATION_OUTCOMES = ['ok', 'failed', 'timeout', 'rejected'] as const;
export type DelegationOutcome = (typeof DELEGATION_OUTCOMES)[number];

/**
 * States of a domain agent in the supervisor's registry: `refused` when its card was read but is not trusted (it
 * names another origin than the agent was configured or discovered at, or it is a supervisor's).
 */
export const AGENT_STATES = ['ready', 'unreachable', 'pending', 'refused'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

/**
 * Why the supervisor left an agent out after reading (or trying to read) its card: it could not be fetched, it is over
 * the size cap, it is not an agent card, it names another origin than the agent's configured or discovered URL (no
 * credentials go there), or it is a supervisor's (no loops).
 */
export const CARD_FAILURE_REASONS = ['unreachable', 'too_large', 'invalid', 'foreign_origin', 'self'] as const;
export type CardFailureReason = (typeof CARD_FAILURE_REASONS)[number];

/** How an agent turn ended (`timed_out`: stopped at the turn deadline, the answer says so). */
export const TURN_OUTCOMES = ['answered', 'tool_error', 'rejected', 'failed', 'timed_out'] as const;
export type TurnOutcome = (typeof TURN_OUTCOMES)[number];

/** Workflow paths (the design note's coordination strategies; `llm`: the model's tool loop), plus turns that failed before routing. */
export const WORKFLOW_PATHS = ['direct', 'complex', 'limitation_aware', 'llm', 'none'] as const;
export type WorkflowPath = (typeof WORKFLOW_PATHS)[number];

/** Outcome of one MCP tool call. `tool_error` is an isError result the model reads (bad argument, upstream down). */
export const TOOL_OUTCOMES = ['ok', 'tool_error', 'exception'] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

/**
 * Caches that spare upstream work: `answer`, an agent's answers by intent and entities; `snapshot`, the upstream list
 * a list tool loaded, paged by later calls with the same filters (kept in the result store).
 */
export const CACHE_KINDS = ['answer', 'snapshot'] as const;
export type CacheKind = (typeof CACHE_KINDS)[number];

/** How one cache lookup ended: served from the cache; not there (or too old); skipped because fresh data was asked for. */
export const CACHE_OUTCOMES = ['hit', 'miss', 'bypass'] as const;
export type CacheOutcome = (typeof CACHE_OUTCOMES)[number];

/** Why a stored result left the result store. */
export const EVICTION_REASONS = ['ttl', 'disk_cap'] as const;
export type EvictionReason = (typeof EVICTION_REASONS)[number];

/**
 * In-process stores bounded in entries and bytes: conversation memory (the workflow's, the model's history, the
 * supervisor's), A2A tasks, progressive sessions, and the typed query's lexicon of live names (its entries: the values held).
 */
export const STORE_KINDS = ['conversation', 'model_history', 'supervisor_conversation', 'task', 'session', 'lexicon'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** Why an entry left a bounded store: its count cap, its byte cap, its age. */
export const STORE_EVICTION_REASONS = ['entries_cap', 'bytes_cap', 'ttl'] as const;
export type StoreEvictionReason = (typeof STORE_EVICTION_REASONS)[number];

/** Slack events the bot acts on: a mention, a direct message, a click on a follow-up option. */
export const SLACK_EVENT_KINDS = ['app_mention', 'message', 'block_action'] as const;
export type SlackEventKind = (typeof SLACK_EVENT_KINDS)[number];

/**
 * How one question asked in Slack ended: answered (the agent's answer posted); failed (the agent could not be reached
 * or failed, the user was told); timed_out (the agent took longer than the bot waits); busy (turned away: too many
 * questions in flight).
 */
export const SLACK_ANSWER_OUTCOMES = ['answered', 'failed', 'timed_out', 'busy'] as const;
export type SlackAnswerOutcome = (typeof SLACK_ANSWER_OUTCOMES)[number];

/** The Slack Web API methods the bot calls (`other` for any further one). */
export const SLACK_API_METHODS = ['chat.postMessage', 'chat.update', 'files.uploadV2', 'other'] as const;
export type SlackApiMethod = (typeof SLACK_API_METHODS)[number];

/**
 * The `system` label of an upstream: any lower-case name of 1-32 letters, digits and underscores starting with a
 * letter, so a new agent needs no change here, and a label value stays short and one a person can type in PromQL.
 */
export const UPSTREAM_SYSTEM_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
/** An upstream system label (UPSTREAM_SYSTEM_PATTERN; checked by `upstreamSystem` where series are created). */
export type UpstreamSystem = string;
/** The upstream systems of the agents Flotilla ships. */
export const UPSTREAM_SYSTEMS = ['argocd', 'netbox'] as const satisfies readonly UpstreamSystem[];

/** Whether `value` is a valid upstream system label. */
export function isUpstreamSystem(value: unknown): value is UpstreamSystem {
  return typeof value === 'string' && UPSTREAM_SYSTEM_PATTERN.test(value);
}

/** `name` as an upstream system label; a name outside UPSTREAM_SYSTEM_PATTERN is a bug of the caller, refused at start. */
export function upstreamSystem(name: string): UpstreamSystem {
  if (!UPSTREAM_SYSTEM_PATTERN.test(name)) {
    throw new TypeError(`upstream system ${JSON.stringify(name.slice(0, 40))} is not a label name: 1-32 lower-case letters, digits or _, starting with a letter (e.g. argocd)`);
  }
  return name;
}

/** Outcome of one upstream HTTP request. */
export const UPSTREAM_OUTCOMES = [
  'ok',
  'client_error',
  'rate_limited',
  'auth_error',
  'not_found',
  'server_error',
  'timeout',
  'too_large',
  'bad_response',
  'network_error',
  'circuit_open',
] as const;
export type UpstreamOutcome = (typeof UPSTREAM_OUTCOMES)[number];

/** Limitations the limitation handler detects before executing a plan (the design note's types). */
export const LIMITATION_KINDS = ['token_overflow', 'n_plus_one', 'rate_limit_pressure', 'large_result_set', 'call_budget'] as const;
export type LimitationKind = (typeof LIMITATION_KINDS)[number];

/** How a detected limitation was handled. */
export const LIMITATION_STRATEGIES = ['batched', 'progressive', 'sampled', 'fallback', 'throttled'] as const;
export type LimitationStrategy = (typeof LIMITATION_STRATEGIES)[number];

/** The raw tool result size (before budgeting) the size alert fires above, in bytes. */
export const RAW_RESULT_ALERT_BYTES = 204_800;

/** Histogram buckets, chosen around the default budgets (2,000 tokens inline, MiB-scale upstream bodies). */
export const BUCKETS = {
  tokens: [50, 100, 250, 500, 1000, 1500, 2000, 3000, 5000, 10000, 25000],
  resultBytes: [256, 1024, 4096, 8192, 16384, 32768, 65536, 262144, 1048576],
  /** Raw tool results before budgeting; 204800 (200 KiB) is the size alert's threshold. */
  rawResultBytes: [1024, 16384, 65536, 204800, 1048576, 4194304, 16777216, 67108864],
  upstreamBytes: [1024, 16384, 131072, 1048576, 4194304, 16777216, 67108864, 268435456],
  contextTokens: [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 200000],
  detectSeconds: [0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005],
  seconds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
} as const;
