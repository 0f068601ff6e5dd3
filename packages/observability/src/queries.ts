/**
 * The quantities alerts and dashboards share, as PromQL builders: an alert and the panel that explains it
 * compute the same thing (the panel with Grafana's interval and namespace filter, the alert with its window).
 */
import { A2A_REJECT_REASONS, AGENT_STATES, DELEGATION_OUTCOMES, LABEL, MEMORY_GUARD_STATES, METRIC, RAW_RESULT_ALERT_BYTES, SLACK_ANSWER_OUTCOMES, TURN_OUTCOMES, UPSTREAM_OUTCOMES } from '@flotilla/metrics';
import { avgBy, eq, increase, le, maxBy, oneOf, pick, quantile, rate, re, selector, sumBy, sumWithout, type Matcher } from './promql.js';

/** Metrics of the Kubernetes stack Flotilla alerts on: cAdvisor (kubelet) and kube-state-metrics. */
export const KUBE_METRIC = {
  /** cAdvisor: memory the kernel counts against the container's limit. */
  memoryWorkingSet: 'container_memory_working_set_bytes',
  /** kube-state-metrics: a container's limits, one series per resource. */
  containerLimits: 'kube_pod_container_resource_limits',
  /** kube-state-metrics: 1 for the reason the container last terminated. */
  lastTerminatedReason: 'kube_pod_container_status_last_terminated_reason',
  /** kube-state-metrics: container restarts. */
  containerRestarts: 'kube_pod_container_status_restarts_total',
  /** cAdvisor: CFS periods of a container, and those it was throttled in (the runbooks' CPU check). */
  cpuPeriods: 'container_cpu_cfs_periods_total',
  cpuThrottledPeriods: 'container_cpu_cfs_throttled_periods_total',
} as const;

/** Labels the cAdvisor and kube-state-metrics series carry (and label values Flotilla selects on). */
export const KUBE_LABEL = {
  namespace: 'namespace',
  pod: 'pod',
  container: 'container',
  resource: 'resource',
  reason: 'reason',
} as const;
export const KUBE_VALUE = { memory: 'memory', oomKilled: 'OOMKilled' } as const;

/**
 * Every alert on Flotilla metrics keeps the namespace in its grouping: two installations in one Prometheus are two
 * alerts, never one merged share. Alerts about one process's event also keep its pod (PROCESS_LABELS).
 */
export const INSTALLATION_LABELS = [KUBE_LABEL.namespace] as const;
const scoped = (...labels: string[]): string[] => [...INSTALLATION_LABELS, ...labels];

/** The chart names every container `flotilla-<component>`; this regex selects Flotilla's containers. */
export const FLOTILLA_CONTAINER_REGEX = 'flotilla-.*';

/** Requests refused at once, without calling the upstream, because its circuit breaker is open. */
export const UPSTREAM_CIRCUIT_OPEN = pick(UPSTREAM_OUTCOMES, 'circuit_open');

/**
 * Upstream outcomes that count as failures of the upstream system (not of the request). Requests failed fast on an
 * open circuit count too: once the breaker opens, almost every request of a dead upstream ends as circuit_open
 * (one probe per pause is a real attempt), and without them the error share would fall below any threshold
 * while the upstream is still down.
 */
export const UPSTREAM_ERROR_OUTCOMES = [
  pick(UPSTREAM_OUTCOMES, 'server_error'),
  pick(UPSTREAM_OUTCOMES, 'timeout'),
  pick(UPSTREAM_OUTCOMES, 'network_error'),
  pick(UPSTREAM_OUTCOMES, 'bad_response'),
  UPSTREAM_CIRCUIT_OPEN,
] as const;
export const UPSTREAM_RATE_LIMITED = pick(UPSTREAM_OUTCOMES, 'rate_limited');
export const TURN_FAILED = pick(TURN_OUTCOMES, 'failed');
/** Turn outcomes that are failures: failed, and stopped at the turn deadline. */
export const TURN_FAILURES = [TURN_FAILED, pick(TURN_OUTCOMES, 'timed_out')] as const;

/**
 * The memory guard's states, from healthy to failing (MEMORY_GUARD_STATES): ok; tight (budgets halved, above
 * MEMORY_GUARD_RATIOS.tight of the memory limit); shed (new A2A work refused with 503 + Retry-After, above
 * MEMORY_GUARD_RATIOS.shed).
 */
export const GUARD_OK = pick(MEMORY_GUARD_STATES, 'ok');
export const GUARD_TIGHT = pick(MEMORY_GUARD_STATES, 'tight');
export const GUARD_SHED = pick(MEMORY_GUARD_STATES, 'shed');
export const GUARD_STATE_ORDER = [GUARD_OK, GUARD_TIGHT, GUARD_SHED] as const;
/** States in which the guard has halved the budgets: tight, and shed (which keeps them halved). */
export const GUARD_BUDGETS_HALVED = [GUARD_TIGHT, GUARD_SHED] as const;

/**
 * The memory guard's thresholds, shares of the container memory limit (MEMORY_GUARD_DEFAULTS of @flotilla/agent-kit,
 * which observability does not depend on; a test reads them from its source to keep the two equal).
 */
export const MEMORY_GUARD_RATIOS = { tight: 0.75, shed: 0.9 } as const;

/**
 * The states of an upstream's circuit breaker as @flotilla/upstream publishes them on METRIC.upstreamCircuitState
 * (its CIRCUIT_STATES: observability depends on @flotilla/metrics only, and a test reads the list from the
 * upstream's source to keep the two equal). Ordered from healthy to failing: closed; half_open (the pause is over,
 * one probe goes through); open (requests fail fast).
 */
export const CIRCUIT_STATES = ['closed', 'half_open', 'open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];
export const CIRCUIT_CLOSED = pick(CIRCUIT_STATES, 'closed');
export const CIRCUIT_HALF_OPEN = pick(CIRCUIT_STATES, 'half_open');
export const CIRCUIT_OPEN = pick(CIRCUIT_STATES, 'open');
/** States of a circuit that is not letting requests through normally: open, and half open between two pauses. */
export const CIRCUIT_NOT_CLOSED = [CIRCUIT_OPEN, CIRCUIT_HALF_OPEN] as const;

export const A2A_UNAUTHORIZED = pick(A2A_REJECT_REASONS, 'unauthorized');

/**
 * A domain agent's states in the supervisor registry, from usable to failing: ready; pending (its card not read yet
 * since the supervisor started); unreachable (its card could not be read); refused (read but not trusted).
 */
export const AGENT_STATE_ORDER = [pick(AGENT_STATES, 'ready'), pick(AGENT_STATES, 'pending'), pick(AGENT_STATES, 'unreachable'), pick(AGENT_STATES, 'refused')] as const;
/** States in which the supervisor cannot delegate to an agent. */
export const AGENT_NOT_READY = AGENT_STATE_ORDER.slice(1);
/** Delegations that brought no answer back: the agent failed, timed out, or refused the request. */
export const DELEGATION_FAILURES = [pick(DELEGATION_OUTCOMES, 'failed'), pick(DELEGATION_OUTCOMES, 'timeout'), pick(DELEGATION_OUTCOMES, 'rejected')] as const;
/** Questions asked in Slack that got no answer: the agent failed or timed out, or the bot was too busy to ask. */
export const SLACK_UNANSWERED = [pick(SLACK_ANSWER_OUTCOMES, 'failed'), pick(SLACK_ANSWER_OUTCOMES, 'timed_out'), pick(SLACK_ANSWER_OUTCOMES, 'busy')] as const;
export const A2A_BUSY = pick(A2A_REJECT_REASONS, 'busy');

export const CONTAINER_LABELS = [KUBE_LABEL.namespace, KUBE_LABEL.pod, KUBE_LABEL.container] as const;
const onContainer = `on (${CONTAINER_LABELS.join(', ')})`;
const flotillaContainer = re(KUBE_LABEL.container, FLOTILLA_CONTAINER_REGEX);

/** Working set per Flotilla container (max by drops cAdvisor's extra labels: id, image, name). */
export function memoryWorkingSet(...extra: Matcher[]): string {
  return maxBy(CONTAINER_LABELS, selector(KUBE_METRIC.memoryWorkingSet, flotillaContainer, ...extra));
}

/** Memory limit per Flotilla container (max by drops kube-state-metrics' node and unit labels). */
export function memoryLimit(...extra: Matcher[]): string {
  return maxBy(CONTAINER_LABELS, selector(KUBE_METRIC.containerLimits, eq(KUBE_LABEL.resource, KUBE_VALUE.memory), flotillaContainer, ...extra));
}

/** Working set over memory limit, per Flotilla container. */
export function memoryShareOfLimit(...extra: Matcher[]): string {
  return `${memoryWorkingSet(...extra)} / ${onContainer} ${memoryLimit(...extra)}`;
}

/** Restarts per Flotilla container over a window. */
export function restarts(window: string, ...extra: Matcher[]): string {
  return maxBy(CONTAINER_LABELS, increase(selector(KUBE_METRIC.containerRestarts, flotillaContainer, ...extra), window));
}

/** 1 per Flotilla container whose last termination was an OOM kill. */
export function lastTerminatedOomKilled(...extra: Matcher[]): string {
  return maxBy(CONTAINER_LABELS, selector(KUBE_METRIC.lastTerminatedReason, eq(KUBE_LABEL.reason, KUBE_VALUE.oomKilled), flotillaContainer, ...extra));
}

/** Restarts over a window of containers whose last termination was an OOM kill (OOM kills, near enough). */
export function oomKills(window: string, ...extra: Matcher[]): string {
  return `${lastTerminatedOomKilled(...extra)} * ${onContainer} ${restarts(window, ...extra)}`;
}

/** Tool calls, by process and tool, over a window, whose raw result was larger than RAW_RESULT_ALERT_BYTES. */
export function largeRawResults(window: string, ...extra: Matcher[]): string {
  const bucket = `${METRIC.toolRawResultBytes}_bucket`;
  const by = [...PROCESS_LABELS, LABEL.tool];
  const all = sumBy(by, increase(selector(bucket, eq('le', le(Infinity)), ...extra), window));
  const small = sumBy(by, increase(selector(bucket, eq('le', le(RAW_RESULT_ALERT_BYTES)), ...extra), window));
  return `${all} - ${small}`;
}

/** Per-second rate of a counter, summed by some labels. */
export function rateBy(labels: readonly string[], counter: string, window: string, ...matchers: Matcher[]): string {
  return sumBy(labels, rate(selector(counter, ...matchers), window));
}

/** Share of tool calls, by tool, that a per-tool counter (spills, truncations) also counted. */
export function shareOfToolCalls(counter: string, window: string, ...extra: Matcher[]): string {
  return `${rateBy(scoped(LABEL.tool), counter, window, ...extra)} / ${rateBy(scoped(LABEL.tool), METRIC.toolCalls, window, ...extra)}`;
}

/** Share of upstream requests, by system, that failed on the upstream's side. */
export function upstreamErrorShare(window: string, ...extra: Matcher[]): string {
  const errors = rateBy(scoped(LABEL.system), METRIC.upstreamRequests, window, re(LABEL.outcome, oneOf(UPSTREAM_ERROR_OUTCOMES)), ...extra);
  return `${errors} / ${rateBy(scoped(LABEL.system), METRIC.upstreamRequests, window, ...extra)}`;
}

/** Upstream requests per second, by system, answered 429. */
export function upstreamRateLimited(window: string, ...extra: Matcher[]): string {
  return rateBy(scoped(LABEL.system), METRIC.upstreamRequests, window, eq(LABEL.outcome, UPSTREAM_RATE_LIMITED), ...extra);
}

/** Share of agent turns, by agent, that failed. */
export function turnFailureShare(window: string, ...extra: Matcher[]): string {
  const failed = rateBy(scoped(LABEL.agent), METRIC.agentTurns, window, re(LABEL.outcome, oneOf(TURN_FAILURES)), ...extra);
  return `${failed} / ${rateBy(scoped(LABEL.agent), METRIC.agentTurns, window, ...extra)}`;
}

/** The scrape labels that tell Flotilla processes apart (the ServiceMonitor's pod and namespace). */
export const PROCESS_LABELS = [KUBE_LABEL.namespace, KUBE_LABEL.pod] as const;

/**
 * The longest event-loop delay of each Flotilla process (any component, MCP servers included) within `window`: the
 * gauge holds the longest delay of its last 15 to 30 seconds, so its max over the window is the longest block in it.
 */
export function eventLoopLagMax(window: string, ...extra: Matcher[]): string {
  return maxBy(PROCESS_LABELS, `max_over_time(${selector(METRIC.eventLoopLag, ...extra)}[${window}])`);
}

/** A quantile of agent turn duration, by agent. */
export function turnDurationQuantile(q: number, window: string, ...extra: Matcher[]): string {
  return quantile(q, METRIC.agentTurnDuration, scoped(LABEL.agent), window, ...extra);
}

/**
 * Context trims per model request, by agent: trims of any kind over requests checked against the context budget.
 * One request can take several kinds of trim, so this is trims per request (it can exceed 1), not a share.
 */
export function contextTrimsPerRequest(window: string, ...extra: Matcher[]): string {
  return `${rateBy(scoped(LABEL.agent), METRIC.contextTrims, window, ...extra)} / ${rateBy(scoped(LABEL.agent), METRIC.contextRequests, window, ...extra)}`;
}

/** A quantile of model request size in tokens (as sent, after trimming), by agent. */
export function contextRequestTokensQuantile(q: number, window: string, ...extra: Matcher[]): string {
  return quantile(q, METRIC.contextRequestTokens, [LABEL.agent], window, ...extra);
}

/** A matcher of the `state` label for one or several states. */
function stateMatcher(states: readonly string[]): Matcher {
  const [only] = states;
  return states.length === 1 && only !== undefined ? eq(LABEL.state, only) : re(LABEL.state, oneOf(states));
}

/**
 * For a state gauge family (one series per state and process, 1 for the process' current state, 0 for the others):
 * the share of each group's processes (replicas) that are in one of `states`. The chosen states' series are summed
 * per process (`without (state)` keeps the scrape's pod and instance labels), giving 1 or 0, and averaged by group.
 */
export function shareInStates(gauge: string, by: readonly string[], states: readonly string[], ...extra: Matcher[]): string {
  return avgBy(by, sumWithout([LABEL.state], selector(gauge, stateMatcher(states), ...extra)));
}

/**
 * For a state gauge family: per group, the position in `order` (healthy first) of the worst state any of the
 * group's processes is in, for a state timeline (0 = order[0], 1 = order[1], ...).
 */
export function worstStateCode(gauge: string, by: readonly string[], order: readonly string[], ...extra: Matcher[]): string {
  return maxBy(by, order.map((state, code) => `${selector(gauge, eq(LABEL.state, state), ...extra)} * ${code}`).join(' or '));
}

/** Share of each agent's processes whose memory guard is in one of `states`. */
export function memoryGuardShare(states: readonly string[], ...extra: Matcher[]): string {
  return shareInStates(METRIC.memoryGuardState, scoped(LABEL.agent), states, ...extra);
}

/** Per agent, the worst memory guard state of its processes as its position in GUARD_STATE_ORDER (0 ok, 1 tight, 2 shed). */
export function memoryGuardWorstState(...extra: Matcher[]): string {
  return worstStateCode(METRIC.memoryGuardState, [LABEL.agent], GUARD_STATE_ORDER, ...extra);
}

/** Memory used over the container limit as the memory guard samples it, per agent (its highest process). */
export function memoryGuardUsage(...extra: Matcher[]): string {
  return maxBy([LABEL.agent], selector(METRIC.memoryUsageRatio, ...extra));
}

/** Share of the processes calling each upstream system whose circuit breaker for it is open or half open. */
export function circuitNotClosedShare(...extra: Matcher[]): string {
  return shareInStates(METRIC.upstreamCircuitState, scoped(LABEL.system), CIRCUIT_NOT_CLOSED, ...extra);
}

/** Per upstream system, the worst circuit state of the processes calling it as its position in CIRCUIT_STATES (0 closed, 1 half open, 2 open). */
export function circuitWorstState(...extra: Matcher[]): string {
  return worstStateCode(METRIC.upstreamCircuitState, [LABEL.system], CIRCUIT_STATES, ...extra);
}

/** Upstream requests per second, by system, refused at once because the circuit was open. */
export function upstreamFailedFast(window: string, ...extra: Matcher[]): string {
  return rateBy([LABEL.system], METRIC.upstreamRequests, window, eq(LABEL.outcome, UPSTREAM_CIRCUIT_OPEN), ...extra);
}

/** A2A requests per second, by agent, refused before any work for a reason (unauthorized: no or a wrong token). */
export function a2aRejections(reason: string, window: string, ...extra: Matcher[]): string {
  return rateBy(scoped(LABEL.agent), METRIC.a2aRejected, window, eq(LABEL.reason, reason), ...extra);
}

/** Share of the supervisor's replicas, per domain agent, that cannot delegate to it (pending, unreachable, refused). */
export function agentNotReadyShare(...extra: Matcher[]): string {
  return shareInStates(METRIC.supervisorAgentState, scoped(LABEL.agent), AGENT_NOT_READY, ...extra);
}

/** Per domain agent, the worst state any supervisor replica sees it in, as its position in AGENT_STATE_ORDER. */
export function agentWorstState(...extra: Matcher[]): string {
  return worstStateCode(METRIC.supervisorAgentState, [LABEL.agent], AGENT_STATE_ORDER, ...extra);
}

/** Share of the supervisor's delegations, per domain agent, that brought no answer back. */
export function delegationFailureShare(window: string, ...extra: Matcher[]): string {
  const failed = rateBy(scoped(LABEL.agent), METRIC.supervisorDelegations, window, re(LABEL.outcome, oneOf(DELEGATION_FAILURES)), ...extra);
  return `${failed} / ${rateBy(scoped(LABEL.agent), METRIC.supervisorDelegations, window, ...extra)}`;
}

/** Share of the questions asked in Slack that got no answer (failed, timed out, turned away busy). */
export function slackUnansweredShare(window: string, ...extra: Matcher[]): string {
  const unanswered = rateBy(scoped(), METRIC.slackAnswers, window, re(LABEL.outcome, oneOf(SLACK_UNANSWERED)), ...extra);
  return `${unanswered} / ${rateBy(scoped(), METRIC.slackAnswers, window, ...extra)}`;
}

/** Slack Web API calls per second that failed, by method. */
export function slackApiFailureRate(window: string, ...extra: Matcher[]): string {
  return rateBy(scoped(LABEL.method), METRIC.slackApiFailures, window, ...extra);
}
