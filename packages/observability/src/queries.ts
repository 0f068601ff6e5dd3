/**
 * The quantities alerts and dashboards share, as PromQL builders: an alert and the panel that explains it
 * compute the same thing (the panel with Grafana's interval and namespace filter, the alert with its window).
 */
import { LABEL, METRIC, RAW_RESULT_ALERT_BYTES, TURN_OUTCOMES, UPSTREAM_OUTCOMES } from '@flotilla/metrics';
import { eq, increase, le, maxBy, oneOf, pick, quantile, rate, re, selector, sumBy, type Matcher } from './promql.js';

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

/** The chart names every container `flotilla-<component>`; this regex selects Flotilla's containers. */
export const FLOTILLA_CONTAINER_REGEX = 'flotilla-.*';

/** Upstream outcomes that count as failures of the upstream system (not of the request). */
export const UPSTREAM_ERROR_OUTCOMES = [
  pick(UPSTREAM_OUTCOMES, 'server_error'),
  pick(UPSTREAM_OUTCOMES, 'timeout'),
  pick(UPSTREAM_OUTCOMES, 'network_error'),
  pick(UPSTREAM_OUTCOMES, 'bad_response'),
] as const;
export const UPSTREAM_RATE_LIMITED = pick(UPSTREAM_OUTCOMES, 'rate_limited');
export const TURN_FAILED = pick(TURN_OUTCOMES, 'failed');

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

/** Tool calls, by tool, over a window, whose raw result was larger than RAW_RESULT_ALERT_BYTES. */
export function largeRawResults(window: string, ...extra: Matcher[]): string {
  const bucket = `${METRIC.toolRawResultBytes}_bucket`;
  const all = sumBy([LABEL.tool], increase(selector(bucket, eq('le', le(Infinity)), ...extra), window));
  const small = sumBy([LABEL.tool], increase(selector(bucket, eq('le', le(RAW_RESULT_ALERT_BYTES)), ...extra), window));
  return `${all} - ${small}`;
}

/** Per-second rate of a counter, summed by some labels. */
export function rateBy(labels: readonly string[], counter: string, window: string, ...matchers: Matcher[]): string {
  return sumBy(labels, rate(selector(counter, ...matchers), window));
}

/** Share of tool calls, by tool, that a per-tool counter (spills, truncations) also counted. */
export function shareOfToolCalls(counter: string, window: string, ...extra: Matcher[]): string {
  return `${rateBy([LABEL.tool], counter, window, ...extra)} / ${rateBy([LABEL.tool], METRIC.toolCalls, window, ...extra)}`;
}

/** Share of upstream requests, by system, that failed on the upstream's side. */
export function upstreamErrorShare(window: string, ...extra: Matcher[]): string {
  const errors = rateBy([LABEL.system], METRIC.upstreamRequests, window, re(LABEL.outcome, oneOf(UPSTREAM_ERROR_OUTCOMES)), ...extra);
  return `${errors} / ${rateBy([LABEL.system], METRIC.upstreamRequests, window, ...extra)}`;
}

/** Upstream requests per second, by system, answered 429. */
export function upstreamRateLimited(window: string, ...extra: Matcher[]): string {
  return rateBy([LABEL.system], METRIC.upstreamRequests, window, eq(LABEL.outcome, UPSTREAM_RATE_LIMITED), ...extra);
}

/** Share of agent turns, by agent, that failed. */
export function turnFailureShare(window: string, ...extra: Matcher[]): string {
  const failed = rateBy([LABEL.agent], METRIC.agentTurns, window, eq(LABEL.outcome, TURN_FAILED), ...extra);
  return `${failed} / ${rateBy([LABEL.agent], METRIC.agentTurns, window, ...extra)}`;
}

/** A quantile of agent turn duration, by agent. */
export function turnDurationQuantile(q: number, window: string, ...extra: Matcher[]): string {
  return quantile(q, METRIC.agentTurnDuration, [LABEL.agent], window, ...extra);
}

/**
 * Context trims per model request, by agent: trims of any kind over requests checked against the context budget.
 * One request can take several kinds of trim, so this is trims per request (it can exceed 1), not a share.
 */
export function contextTrimsPerRequest(window: string, ...extra: Matcher[]): string {
  return `${rateBy([LABEL.agent], METRIC.contextTrims, window, ...extra)} / ${rateBy([LABEL.agent], METRIC.contextRequests, window, ...extra)}`;
}

/** A quantile of model request size in tokens (as sent, after trimming), by agent. */
export function contextRequestTokensQuantile(q: number, window: string, ...extra: Matcher[]): string {
  return quantile(q, METRIC.contextRequestTokens, [LABEL.agent], window, ...extra);
}
