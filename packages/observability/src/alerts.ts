/**
 * The Flotilla alert catalogue, as typed data. Every Flotilla metric name and label value comes from
 * `@flotilla/metrics`; the Kubernetes metrics (cAdvisor, kube-state-metrics) are named once, in KUBE_METRIC.
 *
 * Renderers (src/rules.ts) turn the catalogue into a plain Prometheus rules file and a Helm PrometheusRule
 * template; the runbook of each alert is docs/runbooks/<AlertName>.md.
 */
import { METRIC, RAW_RESULT_ALERT_BYTES } from '@flotilla/metrics';
import {
  A2A_UNAUTHORIZED,
  CONTAINER_LABELS,
  GUARD_BUDGETS_HALVED,
  GUARD_SHED,
  MEMORY_GUARD_RATIOS,
  a2aRejections,
  agentNotReadyShare,
  circuitNotClosedShare,
  delegationFailureShare,
  slackApiFailureRate,
  slackUnansweredShare,
  contextTrimsPerRequest,
  eventLoopLagMax,
  largeRawResults,
  lastTerminatedOomKilled,
  memoryGuardShare,
  memoryShareOfLimit,
  restarts,
  shareOfToolCalls,
  turnDurationQuantile,
  turnFailureShare,
  upstreamErrorShare,
  upstreamRateLimited,
} from './queries.js';

/** Where the runbooks are served from; docs/runbooks/<AlertName>.md is appended. */
export const DEFAULT_RUNBOOK_BASE_URL = 'https://github.com/flotilla/flotilla/blob/main/docs/runbooks/';

export const ALERT_NAMES = [
  'FlotillaMemoryHigh',
  'FlotillaMemoryCritical',
  'FlotillaOOMKilled',
  'FlotillaRestarting',
  'FlotillaToolResultLarge',
  'FlotillaSpillRateHigh',
  'FlotillaTruncationRateHigh',
  'FlotillaUpstreamErrors',
  'FlotillaUpstreamRateLimited',
  'FlotillaA2AErrors',
  'FlotillaA2ALatency',
  'FlotillaContextTrimmingHigh',
  'FlotillaAgentShedding',
  'FlotillaMemoryGuardTight',
  'FlotillaUpstreamCircuitOpen',
  'FlotillaA2AUnauthorized',
  'FlotillaEventLoopBlocked',
  'FlotillaAgentUnreachable',
  'FlotillaDelegationFailures',
  'FlotillaSlackUnanswered',
  'FlotillaSlackApiFailures',
] as const;
export type AlertName = (typeof ALERT_NAMES)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface AlertDefinition {
  readonly name: AlertName;
  readonly severity: Severity;
  /** How long the condition must hold before the alert fires (a Prometheus duration). */
  readonly for: string;
  /** The default threshold the expression compares against. */
  readonly threshold: number;
  /** What the threshold is, in words (for docs and the Helm values). */
  readonly thresholdMeaning: string;
  /** Annotations; they may use `{{ $labels.<name> }}` (Prometheus alert templating), never `$value`. */
  readonly summary: string;
  readonly description: string;
  /**
   * The alert expression for a threshold. A string threshold is spliced in as is: renderers use it to put a
   * placeholder (the Helm template's value lookup) where the number goes.
   */
  readonly expr: (threshold: number | string) => string;
}

/** The A2A latency quantile the FlotillaA2ALatency alert watches. */
export const A2A_LATENCY_QUANTILE = 0.99;

/** Windows of the alerts' rates and increases. */
export const ALERT_WINDOW = {
  oomRestarts: '10m',
  restarts: '15m',
  rawResults: '5m',
  toolShare: '15m',
  upstream: '10m',
  a2a: '10m',
  context: '15m',
  a2aRejected: '10m',
  eventLoop: '2m',
  delegations: '10m',
  slack: '10m',
} as const;

const percent = (share: number): string => `${Math.round(share * 100)} %`;

export const ALERTS: readonly AlertDefinition[] = [
  {
    name: 'FlotillaMemoryHigh',
    severity: 'warning',
    for: '15m',
    threshold: 0.75,
    thresholdMeaning: 'working set as a share of the memory limit',
    summary: 'Flotilla container {{ $labels.container }} in {{ $labels.namespace }}/{{ $labels.pod }} uses most of its memory limit',
    description:
      'The working set of {{ $labels.container }} in pod {{ $labels.pod }} has stayed above the warning share of its memory limit; at the limit the kernel OOM-kills it.',
    expr: (threshold) => `${memoryShareOfLimit()} > ${threshold}`,
  },
  {
    name: 'FlotillaMemoryCritical',
    severity: 'critical',
    for: '5m',
    threshold: 0.9,
    thresholdMeaning: 'working set as a share of the memory limit',
    summary: 'Flotilla container {{ $labels.container }} in {{ $labels.namespace }}/{{ $labels.pod }} is about to hit its memory limit',
    description:
      'The working set of {{ $labels.container }} in pod {{ $labels.pod }} is close to its memory limit; an OOM kill is imminent and in-flight questions will be lost.',
    expr: (threshold) => `${memoryShareOfLimit()} > ${threshold}`,
  },
  {
    name: 'FlotillaOOMKilled',
    severity: 'critical',
    for: '0m',
    threshold: 0,
    thresholdMeaning: 'restarts in the last 10 minutes (the alert fires above it, when the last termination was an OOM kill)',
    summary: 'Flotilla container {{ $labels.container }} in {{ $labels.namespace }}/{{ $labels.pod }} was OOM-killed',
    description:
      'Container {{ $labels.container }} of pod {{ $labels.pod }} restarted in the last 10 minutes and its last termination reason is OOMKilled.',
    expr: (threshold) =>
      `${lastTerminatedOomKilled()} == 1 and on (${CONTAINER_LABELS.join(', ')}) ${restarts(ALERT_WINDOW.oomRestarts)} > ${threshold}`,
  },
  {
    name: 'FlotillaRestarting',
    severity: 'warning',
    for: '5m',
    threshold: 2,
    thresholdMeaning: 'restarts in the last 15 minutes',
    summary: 'Flotilla container {{ $labels.container }} in {{ $labels.namespace }}/{{ $labels.pod }} keeps restarting',
    description:
      'Container {{ $labels.container }} of pod {{ $labels.pod }} restarted more often in the last 15 minutes than the alert allows (crash loop, failing liveness probe or OOM kills).',
    expr: (threshold) => `${restarts(ALERT_WINDOW.restarts)} > ${threshold}`,
  },
  {
    name: 'FlotillaToolResultLarge',
    severity: 'warning',
    for: '0m',
    threshold: 0,
    thresholdMeaning: `tool calls in 5 minutes that read more than ${RAW_RESULT_ALERT_BYTES} bytes before the budget (the size is the histogram bucket bound RAW_RESULT_ALERT_BYTES)`,
    summary: `Flotilla tool {{ $labels.tool }} read more than ${RAW_RESULT_ALERT_BYTES / 1024} KiB before budgeting`,
    description:
      `Tool {{ $labels.tool }} read a raw upstream result larger than ${RAW_RESULT_ALERT_BYTES / 1024} KiB in the last 5 minutes. The budget kept the answer small, but the pod held the whole result in memory; a filter or a server-side projection is missing.`,
    expr: (threshold) => `${largeRawResults(ALERT_WINDOW.rawResults)} > ${threshold}`,
  },
  {
    name: 'FlotillaSpillRateHigh',
    severity: 'info',
    for: '30m',
    threshold: 0.5,
    thresholdMeaning: 'share of a tool\'s calls whose result was spilled to the result store',
    summary: 'Most results of Flotilla tool {{ $labels.tool }} are spilled to the result store',
    description:
      'More than the allowed share of calls to {{ $labels.tool }} returned a handle to a stored result instead of an inline answer; the model needs extra read_result calls. The token budget may be too small for this tool.',
    expr: (threshold) => `${shareOfToolCalls(METRIC.toolSpills, ALERT_WINDOW.toolShare)} > ${threshold}`,
  },
  {
    name: 'FlotillaTruncationRateHigh',
    severity: 'warning',
    for: '30m',
    threshold: 0.5,
    thresholdMeaning: 'share of a tool\'s calls whose result was shortened to the token budget',
    summary: 'Most results of Flotilla tool {{ $labels.tool }} are cut to the token budget',
    description:
      'More than the allowed share of calls to {{ $labels.tool }} returned fewer items than asked because of the token budget; the model sees partial pages and pages more.',
    expr: (threshold) => `${shareOfToolCalls(METRIC.toolBudgetTruncations, ALERT_WINDOW.toolShare)} > ${threshold}`,
  },
  {
    name: 'FlotillaUpstreamErrors',
    severity: 'warning',
    for: '5m',
    threshold: 0.1,
    thresholdMeaning:
      'share of upstream requests failing with a server error, timeout, network error or bad response, or failed fast on an open circuit (10 minute window)',
    summary: 'Upstream {{ $labels.system }} is failing Flotilla requests',
    description:
      'Over the last 10 minutes too many requests to {{ $labels.system }} ended in a server error, timeout, network error or unreadable response, or failed fast while its circuit breaker was open; agents answer with errors.',
    expr: (threshold) => `${upstreamErrorShare(ALERT_WINDOW.upstream)} > ${threshold}`,
  },
  {
    name: 'FlotillaUpstreamRateLimited',
    severity: 'warning',
    for: '5m',
    threshold: 0,
    thresholdMeaning: 'upstream requests answered 429 per second (10 minute window)',
    summary: 'Upstream {{ $labels.system }} is rate limiting Flotilla (429)',
    description:
      '{{ $labels.system }} answered requests with 429 Too Many Requests in the last 10 minutes: Flotilla\'s own rate limit is above what the server allows, or another client shares the token.',
    expr: (threshold) => `${upstreamRateLimited(ALERT_WINDOW.upstream)} > ${threshold}`,
  },
  {
    name: 'FlotillaA2AErrors',
    severity: 'warning',
    for: '10m',
    threshold: 0.05,
    thresholdMeaning: 'share of agent turns that failed (10 minute window)',
    summary: 'Flotilla agent {{ $labels.agent }} fails questions',
    description: 'Over the last 10 minutes too many A2A turns of agent {{ $labels.agent }} ended as failed (no answer).',
    expr: (threshold) => `${turnFailureShare(ALERT_WINDOW.a2a)} > ${threshold}`,
  },
  {
    name: 'FlotillaA2ALatency',
    severity: 'warning',
    for: '10m',
    threshold: 30,
    thresholdMeaning:
      'p99 turn duration in seconds; 30 s is the largest finite bucket, and a p99 beyond it reads as exactly 30, so the comparison is >= and a threshold above 30 never fires',
    summary: 'Flotilla agent {{ $labels.agent }} is slow to answer',
    description:
      'The 99th percentile of A2A turn duration of agent {{ $labels.agent }} over the last 10 minutes is at or above the alert threshold; users wait and callers time out.',
    expr: (threshold) => `${turnDurationQuantile(A2A_LATENCY_QUANTILE, ALERT_WINDOW.a2a)} >= ${threshold}`,
  },
  {
    name: 'FlotillaContextTrimmingHigh',
    severity: 'warning',
    for: '30m',
    threshold: 0.5,
    thresholdMeaning:
      'context trims per model request of an agent (15 minute window); a request can take several kinds of trim, so the value can exceed 1',
    summary: 'Model requests of Flotilla agent {{ $labels.agent }} are often trimmed to fit the context budget',
    description:
      'Over the last 15 minutes agent {{ $labels.agent }} trimmed its model requests (cleared tool results, summarised turns, capped user text) more often per request than the alert allows; conversations run into the model\'s context budget and the model answers from less of the conversation.',
    expr: (threshold) => `${contextTrimsPerRequest(ALERT_WINDOW.context)} > ${threshold}`,
  },
  {
    name: 'FlotillaAgentShedding',
    severity: 'critical',
    for: '2m',
    threshold: 0,
    thresholdMeaning:
      'share of an agent\'s replicas whose memory guard is in state shed (0: any replica; 0.5: more than half of them)',
    summary: `Flotilla agent {{ $labels.agent }} refuses new work: memory above ${percent(MEMORY_GUARD_RATIOS.shed)} of its limit`,
    description:
      `The memory guard of agent {{ $labels.agent }} is shedding: memory is above ${percent(MEMORY_GUARD_RATIOS.shed)} of the container limit, new A2A requests are refused with 503 and Retry-After, and /readyz fails so the Service sends questions to the other replicas; with no replica left, questions to the agent fail.`,
    expr: (threshold) => `${memoryGuardShare([GUARD_SHED])} > ${threshold}`,
  },
  {
    name: 'FlotillaMemoryGuardTight',
    severity: 'warning',
    for: '10m',
    threshold: 0,
    thresholdMeaning:
      'share of an agent\'s replicas whose memory guard has halved the budgets, state tight or shed (0: any replica)',
    summary: `Flotilla agent {{ $labels.agent }} works with halved budgets: memory above ${percent(MEMORY_GUARD_RATIOS.tight)} of its limit`,
    description:
      `The memory guard of agent {{ $labels.agent }} is in state tight (or shed): memory is above ${percent(MEMORY_GUARD_RATIOS.tight)} of the container limit, so tool, answer and context budgets are halved and answers are shorter, spill or page sooner. Above ${percent(MEMORY_GUARD_RATIOS.shed)} the agent refuses new work.`,
    expr: (threshold) => `${memoryGuardShare(GUARD_BUDGETS_HALVED)} > ${threshold}`,
  },
  {
    name: 'FlotillaUpstreamCircuitOpen',
    severity: 'warning',
    for: '2m',
    threshold: 0,
    thresholdMeaning:
      'share of the replicas calling an upstream whose circuit breaker for it is open or half open (0: any replica)',
    summary: 'Flotilla stopped calling upstream {{ $labels.system }}: its circuit breaker is open',
    description:
      'Requests to {{ $labels.system }} failed several times in a row (server errors, timeouts, unreachable, unreadable answers), so Flotilla\'s circuit breaker for it opened: requests fail fast (outcome circuit_open) and one probe goes through after each pause (10 s, doubling per failed probe up to 2 min). Agents answer that {{ $labels.system }} is unavailable.',
    expr: (threshold) => `${circuitNotClosedShare()} > ${threshold}`,
  },
  {
    name: 'FlotillaA2AUnauthorized',
    severity: 'warning',
    for: '10m',
    threshold: 0.005,
    thresholdMeaning: 'A2A requests refused 401 (no or a wrong token) per second, by agent (10 minute window); 0.005 is 3 in 10 minutes',
    summary: 'Flotilla agent {{ $labels.agent }} keeps refusing A2A requests without a valid token (401)',
    description:
      'Over the last 10 minutes agent {{ $labels.agent }} refused A2A requests with 401 because they carried no token or one it does not accept: a caller with a wrong or old token (a rotation gone wrong), or an unauthenticated client or probe.',
    expr: (threshold) => `${a2aRejections(A2A_UNAUTHORIZED, ALERT_WINDOW.a2aRejected)} > ${threshold}`,
  },
  {
    name: 'FlotillaEventLoopBlocked',
    severity: 'warning',
    for: '10m',
    threshold: 1,
    thresholdMeaning: 'longest event-loop delay in seconds, within every 2 minute window for 10 minutes',
    summary: 'Flotilla process {{ $labels.namespace }}/{{ $labels.pod }} keeps blocking its event loop',
    description:
      'For 10 minutes, pod {{ $labels.pod }} in {{ $labels.namespace }} has blocked its event loop for more than the threshold at least once every 2 minutes: while blocked it answers nothing (probes, metrics and other questions wait), so its liveness probe may restart it and questions in flight are lost.',
    expr: (threshold) => `${eventLoopLagMax(ALERT_WINDOW.eventLoop)} > ${threshold}`,
  },
  {
    name: 'FlotillaAgentUnreachable',
    severity: 'warning',
    for: '5m',
    threshold: 0,
    thresholdMeaning:
      'share of the supervisor\'s replicas that cannot delegate to a domain agent: its card not read yet, unreachable, or refused (0: any replica)',
    summary: 'The Flotilla supervisor in {{ $labels.namespace }} cannot reach domain agent {{ $labels.agent }}',
    description:
      'For 5 minutes the supervisor has not been able to use agent {{ $labels.agent }}: its card could not be read (down, not ready, a NetworkPolicy, a wrong URL or token), or it was read and refused (another origin, or a supervisor). Questions for it are answered with "I could not ask {{ $labels.agent }}" and count as failed turns.',
    expr: (threshold) => `${agentNotReadyShare()} > ${threshold}`,
  },
  {
    name: 'FlotillaDelegationFailures',
    severity: 'warning',
    for: '10m',
    threshold: 0.1,
    thresholdMeaning: 'share of the supervisor\'s delegations to an agent that brought no answer back: failed, timed out or refused (10 minute window)',
    summary: 'Flotilla supervisor delegations to {{ $labels.agent }} in {{ $labels.namespace }} are failing',
    description:
      'Over the last 10 minutes too many questions the supervisor delegated to agent {{ $labels.agent }} brought no answer back: the call failed (the agent could not be reached, or answered the request with an HTTP error such as 401 for a wrong token or 503 while it sheds), timed out, or the agent rejected the task (its conversation busy with earlier turns, or the message over its limits). Users get "I could not get an answer" or "no answer" for that agent\'s part.',
    expr: (threshold) => `${delegationFailureShare(ALERT_WINDOW.delegations)} > ${threshold}`,
  },
  {
    name: 'FlotillaSlackUnanswered',
    severity: 'warning',
    for: '10m',
    threshold: 0.1,
    thresholdMeaning: 'share of the questions asked in Slack that got no answer: the supervisor failed or timed out, or the bot was too busy (10 minute window)',
    summary: 'Questions asked in Slack go unanswered (Flotilla Slack bot in {{ $labels.namespace }})',
    description:
      'Over the last 10 minutes too many questions asked in Slack ended without an answer: the supervisor could not be reached or failed, took longer than the bot waits, or the bot turned them away because too many were in flight. Users see an error or a "busy, try again" reply.',
    expr: (threshold) => `${slackUnansweredShare(ALERT_WINDOW.slack)} > ${threshold}`,
  },
  {
    name: 'FlotillaSlackApiFailures',
    severity: 'warning',
    for: '10m',
    threshold: 0.005,
    thresholdMeaning: 'failed Slack Web API calls per second, by method (10 minute window); 0.005 is 3 in 10 minutes',
    summary: 'The Flotilla Slack bot in {{ $labels.namespace }} cannot post to Slack ({{ $labels.method }} failing)',
    description:
      'Over the last 10 minutes Slack Web API calls of method {{ $labels.method }} failed (an error answer such as invalid_auth or not_in_channel, a rate limit past the retries, or the network): answers may never reach their thread even though the agents answered.',
    expr: (threshold) => `${slackApiFailureRate(ALERT_WINDOW.slack)} > ${threshold}`,
  },
];

/** The alert of a name (throws for an unknown one). */
export function alertNamed(name: AlertName): AlertDefinition {
  const alert = ALERTS.find((a) => a.name === name);
  if (alert === undefined) throw new Error(`unknown alert ${name}`);
  return alert;
}

/** The runbook of an alert: `<base>/<AlertName>.md` (one trailing slash of the base dropped, as the Helm template does). */
export function runbookUrl(name: AlertName, base: string = DEFAULT_RUNBOOK_BASE_URL): string {
  return `${base.endsWith('/') ? base.slice(0, -1) : base}/${name}.md`;
}

/** The runbook's path in the repository. */
export function runbookPath(name: AlertName): string {
  return `docs/runbooks/${name}.md`;
}
