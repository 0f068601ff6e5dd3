/**
 * Unit tests of the alert rules for `promtool test rules`, as data: input series built from the metric-name
 * constants (so they are the series Flotilla and Kubernetes really export), the evaluation times, and the
 * alerts expected to fire (an empty list: the alert stays quiet). Rendered to
 * packages/observability/generated/prometheus-rules.test.yaml next to the rules file it tests.
 */
import { stringify } from 'yaml';
import {
  A2A_REJECT_REASONS,
  AGENT_STATES,
  DELEGATION_OUTCOMES,
  LABEL,
  MEMORY_GUARD_STATES,
  METRIC,
  SLACK_ANSWER_OUTCOMES,
  SLACK_API_METHODS,
  TOOL_OUTCOMES,
  TRIM_KINDS,
  TURN_OUTCOMES,
  UPSTREAM_OUTCOMES,
  WORKFLOW_PATHS,
} from '@flotilla/metrics';
import { ALERTS, alertNamed, runbookUrl, type AlertName } from './alerts.js';
import { eq, le, pick, selector, type Matcher } from './promql.js';
import { CIRCUIT_STATES, KUBE_LABEL, KUBE_METRIC, KUBE_VALUE } from './queries.js';

export interface InputSeries {
  readonly series: string;
  /** promtool's expanding notation: '0+1x30', '800x30', '_x4 1x30'. */
  readonly values: string;
}

export interface AlertExpectation {
  readonly evalTime: string;
  readonly alert: AlertName;
  /** Labels of each firing alert, severity and alertname left out (added from the catalogue). */
  readonly firing: readonly Record<string, string>[];
}

export interface AlertTestGroup {
  readonly name: string;
  readonly interval: string;
  readonly inputSeries: readonly InputSeries[];
  readonly expectations: readonly AlertExpectation[];
}

const NAMESPACE = 'flotilla';
/** The labels a ServiceMonitor scrape gives a pod's series (its job, instance, namespace and pod). */
const scrape = (pod: string, namespace: string = NAMESPACE): Matcher[] => [eq('job', pod.replace(/-\d+$/, '')), eq('instance', `${pod}:9090`), eq(KUBE_LABEL.namespace, namespace), eq(KUBE_LABEL.pod, pod)];
/** The namespace every alert on Flotilla metrics keeps (INSTALLATION_LABELS). */
const INSTALLATION = { [KUBE_LABEL.namespace]: NAMESPACE } as const;
const container = (pod: string, name: string) => ({ [KUBE_LABEL.namespace]: NAMESPACE, [KUBE_LABEL.pod]: pod, [KUBE_LABEL.container]: name });
const containerMatchers = (pod: string, name: string): Matcher[] => Object.entries(container(pod, name)).map(([k, v]) => eq(k, v));

function workingSet(pod: string, name: string, values: string): InputSeries {
  const series = selector(KUBE_METRIC.memoryWorkingSet, ...containerMatchers(pod, name), eq('id', `/kubepods/${pod}/${name}`), eq('image', 'ghcr.io/flotilla/flotilla:0.1.0'));
  return { series, values };
}

function limit(pod: string, name: string, resource: string, values: string): InputSeries {
  return { series: selector(KUBE_METRIC.containerLimits, ...containerMatchers(pod, name), eq(KUBE_LABEL.resource, resource), eq('node', 'node-1')), values };
}

function restartsSeries(pod: string, name: string, values: string): InputSeries {
  return { series: selector(KUBE_METRIC.containerRestarts, ...containerMatchers(pod, name), eq('uid', `${pod}-uid`)), values };
}

function lastTerminated(pod: string, name: string, reason: string, values: string): InputSeries {
  return { series: selector(KUBE_METRIC.lastTerminatedReason, ...containerMatchers(pod, name), eq(KUBE_LABEL.reason, reason)), values };
}

function bucket(histogram: string, bound: number, labels: Matcher[], values: string): InputSeries {
  return { series: selector(`${histogram}_bucket`, ...labels, eq('le', le(bound))), values };
}

/**
 * A state gauge family of one process (one series per state, 1 for the current state) from the state it is in at
 * each evaluation step: one series per state of `states`, 1 where the sequence names it, 0 elsewhere.
 */
function stateSeries(gauge: string, states: readonly string[], labels: Matcher[], sequence: readonly string[]): InputSeries[] {
  for (const state of sequence) if (!states.includes(state)) throw new Error(`${state} is not one of ${states.join(', ')}`);
  return states.map((state) => ({ series: selector(gauge, ...labels, eq(LABEL.state, state)), values: sequence.map((s) => (s === state ? '1' : '0')).join(' ') }));
}

/** A sequence of states, one per step: runs of [state, steps]. */
function steps(...runs: readonly (readonly [state: string, count: number])[]): string[] {
  return runs.flatMap(([state, count]) => Array.from({ length: count }, () => state));
}

const NETBOX = container('flotilla-netbox-0', 'flotilla-netbox');
const ARGOCD = container('flotilla-argocd-0', 'flotilla-argocd');
const OK = pick(TOOL_OUTCOMES, 'ok');
const TOOL_ERROR = pick(TOOL_OUTCOMES, 'tool_error');

export const ALERT_TEST_GROUPS: readonly AlertTestGroup[] = [
  {
    name: 'memory: working set over the memory limit of Flotilla containers only',
    interval: '1m',
    inputSeries: [
      workingSet('flotilla-netbox-0', 'flotilla-netbox', '800x30'),
      limit('flotilla-netbox-0', 'flotilla-netbox', KUBE_VALUE.memory, '1000x30'),
      // A larger CPU limit series: the memory share must use the memory limit only.
      limit('flotilla-netbox-0', 'flotilla-netbox', 'cpu', '4000x30'),
      workingSet('flotilla-argocd-0', 'flotilla-argocd', '950x30'),
      limit('flotilla-argocd-0', 'flotilla-argocd', KUBE_VALUE.memory, '1000x30'),
      workingSet('flotilla-supervisor-0', 'flotilla-supervisor', '500x30'),
      limit('flotilla-supervisor-0', 'flotilla-supervisor', KUBE_VALUE.memory, '1000x30'),
      // Not a Flotilla container, although in a Flotilla pod.
      workingSet('flotilla-netbox-0', 'istio-proxy', '990x30'),
      limit('flotilla-netbox-0', 'istio-proxy', KUBE_VALUE.memory, '1000x30'),
    ],
    expectations: [
      { evalTime: '10m', alert: 'FlotillaMemoryHigh', firing: [] },
      { evalTime: '20m', alert: 'FlotillaMemoryHigh', firing: [NETBOX, ARGOCD] },
      { evalTime: '3m', alert: 'FlotillaMemoryCritical', firing: [] },
      { evalTime: '20m', alert: 'FlotillaMemoryCritical', firing: [ARGOCD] },
    ],
  },
  {
    name: 'OOM kills: a recent restart whose last termination was OOMKilled',
    interval: '1m',
    inputSeries: [
      lastTerminated('flotilla-netbox-0', 'flotilla-netbox', KUBE_VALUE.oomKilled, '_x4 1x30'),
      restartsSeries('flotilla-netbox-0', 'flotilla-netbox', '0x4 1x30'),
      // Restarted, but not OOM-killed.
      lastTerminated('flotilla-argocd-0', 'flotilla-argocd', 'Error', '_x4 1x30'),
      restartsSeries('flotilla-argocd-0', 'flotilla-argocd', '0x4 1x30'),
      // OOM-killed, but not a Flotilla container.
      lastTerminated('flotilla-netbox-0', 'istio-proxy', KUBE_VALUE.oomKilled, '_x4 1x30'),
      restartsSeries('flotilla-netbox-0', 'istio-proxy', '0x4 1x30'),
    ],
    expectations: [
      { evalTime: '3m', alert: 'FlotillaOOMKilled', firing: [] },
      { evalTime: '8m', alert: 'FlotillaOOMKilled', firing: [NETBOX] },
      // The OOM kill is more than 10 minutes old.
      { evalTime: '30m', alert: 'FlotillaOOMKilled', firing: [] },
    ],
  },
  {
    name: 'restarts: more than the allowed restarts in 15 minutes',
    interval: '1m',
    inputSeries: [
      restartsSeries('flotilla-netbox-0', 'flotilla-netbox', '0+1x15 15x30'),
      restartsSeries('flotilla-argocd-0', 'flotilla-argocd', '0x10 1x30'),
      restartsSeries('flotilla-netbox-0', 'istio-proxy', '0+1x45'),
    ],
    expectations: [
      { evalTime: '3m', alert: 'FlotillaRestarting', firing: [] },
      { evalTime: '12m', alert: 'FlotillaRestarting', firing: [NETBOX] },
      // The crash loop stopped 20 minutes ago.
      { evalTime: '40m', alert: 'FlotillaRestarting', firing: [] },
    ],
  },
  {
    name: 'large raw tool results: reads above RAW_RESULT_ALERT_BYTES before the budget',
    interval: '1m',
    inputSeries: [
      // Two netbox pods; 2 of 3 reads per minute of each are larger than the alert size, for 10 minutes.
      ...['flotilla-netbox-0', 'flotilla-netbox-1'].flatMap((pod) => {
        const labels = [eq(LABEL.tool, 'list_interfaces'), ...scrape(pod)];
        return [
          bucket(METRIC.toolRawResultBytes, 65536, labels, '0+1x10 10+1x20'),
          bucket(METRIC.toolRawResultBytes, 204800, labels, '0+1x10 10+1x20'),
          bucket(METRIC.toolRawResultBytes, 1048576, labels, '0+3x10 30+1x20'),
          bucket(METRIC.toolRawResultBytes, Infinity, labels, '0+3x10 30+1x20'),
        ];
      }),
      // Argo CD reads stay below the size.
      ...(() => {
        const labels = [eq(LABEL.tool, 'list_applications'), ...scrape('flotilla-argocd-0')];
        return [
          bucket(METRIC.toolRawResultBytes, 65536, labels, '0+4x30'),
          bucket(METRIC.toolRawResultBytes, 204800, labels, '0+5x30'),
          bucket(METRIC.toolRawResultBytes, Infinity, labels, '0+5x30'),
        ];
      })(),
    ],
    expectations: [
      // One alert per pod that read them.
      {
        evalTime: '6m',
        alert: 'FlotillaToolResultLarge',
        firing: ['flotilla-netbox-0', 'flotilla-netbox-1'].map((pod) => ({ ...INSTALLATION, [KUBE_LABEL.pod]: pod, [LABEL.tool]: 'list_interfaces' })),
      },
      // Only small reads in the last 5 minutes.
      { evalTime: '25m', alert: 'FlotillaToolResultLarge', firing: [] },
    ],
  },
  {
    name: 'spills and truncations: share of a tool\'s calls',
    interval: '1m',
    inputSeries: [
      { series: selector(METRIC.toolCalls, eq(LABEL.tool, 'list_devices'), eq(LABEL.outcome, OK), ...scrape('flotilla-netbox-0')), values: '0+10x60' },
      { series: selector(METRIC.toolSpills, eq(LABEL.tool, 'list_devices'), ...scrape('flotilla-netbox-0')), values: '0+8x60' },
      { series: selector(METRIC.toolBudgetTruncations, eq(LABEL.tool, 'list_devices'), ...scrape('flotilla-netbox-0')), values: '0+1x60' },
      { series: selector(METRIC.toolCalls, eq(LABEL.tool, 'list_applications'), eq(LABEL.outcome, OK), ...scrape('flotilla-argocd-0')), values: '0+9x60' },
      { series: selector(METRIC.toolCalls, eq(LABEL.tool, 'list_applications'), eq(LABEL.outcome, TOOL_ERROR), ...scrape('flotilla-argocd-0')), values: '0+1x60' },
      { series: selector(METRIC.toolSpills, eq(LABEL.tool, 'list_applications'), ...scrape('flotilla-argocd-0')), values: '0+1x60' },
      { series: selector(METRIC.toolBudgetTruncations, eq(LABEL.tool, 'list_applications'), ...scrape('flotilla-argocd-0')), values: '0+7x60' },
    ],
    expectations: [
      { evalTime: '20m', alert: 'FlotillaSpillRateHigh', firing: [] },
      { evalTime: '50m', alert: 'FlotillaSpillRateHigh', firing: [{ ...INSTALLATION, [LABEL.tool]: 'list_devices' }] },
      { evalTime: '20m', alert: 'FlotillaTruncationRateHigh', firing: [] },
      { evalTime: '50m', alert: 'FlotillaTruncationRateHigh', firing: [{ ...INSTALLATION, [LABEL.tool]: 'list_applications' }] },
    ],
  },
  {
    name: 'upstream: error share and 429s by system',
    interval: '1m',
    inputSeries: [
      ...(
        [
          ['netbox', 'ok', '0+8x30'],
          ['netbox', 'server_error', '0+1x30'],
          ['netbox', 'timeout', '0+1x30'],
          ['netbox', 'rate_limited', '0+1x30'],
          ['argocd', 'ok', '0+50x30'],
          // Answers about the request (not found), not failures of Argo CD.
          ['argocd', 'not_found', '0+50x30'],
          ['argocd', 'server_error', '0+1x30'],
          ['argocd', 'rate_limited', '0x30'],
        ] as const
      ).map(([system, outcome, values]) => ({
        series: selector(METRIC.upstreamRequests, eq(LABEL.system, system), eq(LABEL.operation, 'list'), eq(LABEL.outcome, pick(UPSTREAM_OUTCOMES, outcome)), ...scrape(`flotilla-${system}-0`)),
        values,
      })),
    ],
    expectations: [
      { evalTime: '3m', alert: 'FlotillaUpstreamErrors', firing: [] },
      { evalTime: '20m', alert: 'FlotillaUpstreamErrors', firing: [{ ...INSTALLATION, [LABEL.system]: 'netbox' }] },
      { evalTime: '3m', alert: 'FlotillaUpstreamRateLimited', firing: [] },
      { evalTime: '20m', alert: 'FlotillaUpstreamRateLimited', firing: [{ ...INSTALLATION, [LABEL.system]: 'netbox' }] },
    ],
  },
  {
    name: 'A2A: failed turns and p99 latency by agent',
    interval: '1m',
    inputSeries: [
      ...(
        [
          ['netbox', 'answered', '0+9x40'],
          ['netbox', 'failed', '0+1x40'],
          ['argocd', 'answered', '0+99x40'],
          ['argocd', 'failed', '0+1x40'],
          // Tool errors the model answered around are not failed turns.
          ['argocd', 'tool_error', '0+10x40'],
        ] as const
      ).map(([agent, outcome, values]) => ({
        series: selector(
          METRIC.agentTurns,
          eq(LABEL.agent, agent),
          eq(LABEL.skill, 'inventory'),
          eq(LABEL.path, pick(WORKFLOW_PATHS, 'direct')),
          eq(LABEL.outcome, pick(TURN_OUTCOMES, outcome)),
          ...scrape(`flotilla-${agent}-0`),
        ),
        values,
      })),
      // netbox: every turn slower than the largest finite bucket (30 s).
      ...(
        [
          ['netbox', 10, '0x40'],
          ['netbox', 30, '0x40'],
          ['netbox', Infinity, '0+1x40'],
          // argocd: fast.
          ['argocd', 1, '0+10x40'],
          ['argocd', 10, '0+10x40'],
          ['argocd', 30, '0+10x40'],
          ['argocd', Infinity, '0+10x40'],
          // supervisor: p99 interpolates to 20 s, under the threshold.
          ['supervisor', 10, '0+98x40'],
          ['supervisor', 30, '0+100x40'],
          ['supervisor', Infinity, '0+100x40'],
        ] as const
      ).map(([agent, bound, values]) =>
        bucket(METRIC.agentTurnDuration, bound, [eq(LABEL.agent, agent), eq(LABEL.skill, 'inventory'), eq(LABEL.path, pick(WORKFLOW_PATHS, 'complex')), ...scrape(`flotilla-${agent}-0`)], values),
      ),
    ],
    expectations: [
      { evalTime: '5m', alert: 'FlotillaA2AErrors', firing: [] },
      { evalTime: '30m', alert: 'FlotillaA2AErrors', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }] },
      { evalTime: '5m', alert: 'FlotillaA2ALatency', firing: [] },
      { evalTime: '30m', alert: 'FlotillaA2ALatency', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }] },
    ],
  },
  {
    name: 'context: trims per model request by agent',
    interval: '1m',
    inputSeries: [
      ...(
        [
          ['netbox', '0+10x60'],
          ['argocd', '0+10x60'],
        ] as const
      ).map(([agent, values]) => ({ series: selector(METRIC.contextRequests, eq(LABEL.agent, agent), ...scrape(`flotilla-${agent}-0`)), values })),
      ...(
        [
          // netbox: 0.7 trims per request, two kinds summed (a request can take both).
          ['netbox', 'turns_summarised', '0+4x60'],
          ['netbox', 'tool_results_cleared', '0+3x60'],
          // argocd: 0.2 trims per request, under the threshold.
          ['argocd', 'user_text_capped', '0+2x60'],
        ] as const
      ).map(([agent, kind, values]) => ({
        series: selector(METRIC.contextTrims, eq(LABEL.agent, agent), eq(LABEL.kind, pick(TRIM_KINDS, kind)), ...scrape(`flotilla-${agent}-0`)),
        values,
      })),
    ],
    expectations: [
      // Above the threshold, but not yet for 30 minutes.
      { evalTime: '20m', alert: 'FlotillaContextTrimmingHigh', firing: [] },
      { evalTime: '50m', alert: 'FlotillaContextTrimmingHigh', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }] },
    ],
  },
  {
    name: 'memory guard: replicas shedding, and budgets halved (tight or shed), by agent',
    interval: '1m',
    inputSeries: [
      // netbox: one of two replicas sheds from minute 5 to 24, then recovers; the other stays ok.
      ...stateSeries(METRIC.memoryGuardState, MEMORY_GUARD_STATES, [eq(LABEL.agent, 'netbox'), ...scrape('flotilla-netbox-0')], steps(['ok', 5], ['shed', 20], ['ok', 16])),
      ...stateSeries(METRIC.memoryGuardState, MEMORY_GUARD_STATES, [eq(LABEL.agent, 'netbox'), ...scrape('flotilla-netbox-1')], steps(['ok', 41])),
      // argocd: tight all along, never sheds.
      ...stateSeries(METRIC.memoryGuardState, MEMORY_GUARD_STATES, [eq(LABEL.agent, 'argocd'), ...scrape('flotilla-argocd-0')], steps(['tight', 41])),
      // supervisor: between tight and shed every minute: budgets stay halved, but it never sheds for 2 minutes.
      ...stateSeries(
        METRIC.memoryGuardState,
        MEMORY_GUARD_STATES,
        [eq(LABEL.agent, 'supervisor'), ...scrape('flotilla-supervisor-0')],
        Array.from({ length: 41 }, (_, i) => (i % 2 === 0 ? 'tight' : 'shed')),
      ),
    ],
    expectations: [
      // netbox sheds since minute 5, not yet for 2 minutes.
      { evalTime: '6m', alert: 'FlotillaAgentShedding', firing: [] },
      { evalTime: '10m', alert: 'FlotillaAgentShedding', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }] },
      // Recovered.
      { evalTime: '30m', alert: 'FlotillaAgentShedding', firing: [] },
      { evalTime: '5m', alert: 'FlotillaMemoryGuardTight', firing: [] },
      { evalTime: '20m', alert: 'FlotillaMemoryGuardTight', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }, { ...INSTALLATION, [LABEL.agent]: 'argocd' }, { ...INSTALLATION, [LABEL.agent]: 'supervisor' }] },
      // netbox is back to ok (only the replicas still halving budgets count).
      { evalTime: '40m', alert: 'FlotillaMemoryGuardTight', firing: [{ ...INSTALLATION, [LABEL.agent]: 'argocd' }, { ...INSTALLATION, [LABEL.agent]: 'supervisor' }] },
    ],
  },
  {
    name: 'upstream circuit: open or half open, by system',
    interval: '1m',
    inputSeries: [
      // argocd, one of two replicas: the circuit opens at minute 5; each probe fails and it opens again (flapping
      // between open and half open, never closed) until it closes at minute 20.
      ...stateSeries(
        METRIC.upstreamCircuitState,
        CIRCUIT_STATES,
        [eq(LABEL.system, 'argocd'), ...scrape('flotilla-argocd-0')],
        steps(['closed', 5], ['open', 2], ['half_open', 1], ['open', 3], ['half_open', 1], ['open', 8], ['closed', 11]),
      ),
      ...stateSeries(METRIC.upstreamCircuitState, CIRCUIT_STATES, [eq(LABEL.system, 'argocd'), ...scrape('flotilla-argocd-1')], steps(['closed', 31])),
      // netbox: open for one minute, the probe succeeds.
      ...stateSeries(
        METRIC.upstreamCircuitState,
        CIRCUIT_STATES,
        [eq(LABEL.system, 'netbox'), ...scrape('flotilla-netbox-0')],
        steps(['closed', 10], ['open', 1], ['half_open', 1], ['closed', 19]),
      ),
    ],
    expectations: [
      { evalTime: '6m', alert: 'FlotillaUpstreamCircuitOpen', firing: [] },
      { evalTime: '12m', alert: 'FlotillaUpstreamCircuitOpen', firing: [{ ...INSTALLATION, [LABEL.system]: 'argocd' }] },
      { evalTime: '18m', alert: 'FlotillaUpstreamCircuitOpen', firing: [{ ...INSTALLATION, [LABEL.system]: 'argocd' }] },
      // Closed again.
      { evalTime: '25m', alert: 'FlotillaUpstreamCircuitOpen', firing: [] },
    ],
  },
  {
    name: 'A2A: requests refused without a valid token, by agent',
    interval: '1m',
    inputSeries: [
      ...(
        [
          // supervisor: a caller with a wrong token, one request a minute.
          ['supervisor', 'unauthorized', '0+1x40'],
          // netbox: two 401s at once (a typo), then none.
          ['netbox', 'unauthorized', '0x5 2x35'],
          // argocd: many refusals, but for memory (busy), not credentials.
          ['argocd', 'busy', '0+10x40'],
          ['argocd', 'unauthorized', '0x40'],
        ] as const
      ).map(([agent, reason, values]) => ({
        series: selector(METRIC.a2aRejected, eq(LABEL.agent, agent), eq(LABEL.reason, pick(A2A_REJECT_REASONS, reason)), ...scrape(`flotilla-${agent}-0`)),
        values,
      })),
    ],
    expectations: [
      { evalTime: '8m', alert: 'FlotillaA2AUnauthorized', firing: [] },
      { evalTime: '25m', alert: 'FlotillaA2AUnauthorized', firing: [{ ...INSTALLATION, [LABEL.agent]: 'supervisor' }] },
    ],
  },
  {
    name: 'Event loop: blocked repeatedly, by process',
    interval: '1m',
    inputSeries: [
      // argocd: a long word in upstream data blocks 3 s on every scrape from minute 5 on.
      { series: selector(METRIC.eventLoopLag, ...scrape('flotilla-argocd-0')), values: '0.01x4 3x30' },
      // netbox: one 5 s block, then smooth: one spike is not an alert.
      { series: selector(METRIC.eventLoopLag, ...scrape('flotilla-netbox-0')), values: '0.01x4 5 0.01x30' },
      // supervisor: busy but responsive (0.2 s at worst).
      { series: selector(METRIC.eventLoopLag, ...scrape('flotilla-supervisor-0')), values: '0.2x35' },
    ],
    expectations: [
      { evalTime: '10m', alert: 'FlotillaEventLoopBlocked', firing: [] },
      { evalTime: '20m', alert: 'FlotillaEventLoopBlocked', firing: [{ [KUBE_LABEL.namespace]: NAMESPACE, [KUBE_LABEL.pod]: 'flotilla-argocd-0' }] },
    ],
  },
  {
    name: 'supervisor: domain agents it cannot reach, by agent',
    interval: '1m',
    inputSeries: [
      // Two supervisor replicas. argocd: ready from the first card read on. netbox: its pods go down at minute 3 and
      // come back at minute 20; both replicas see it.
      ...['flotilla-supervisor-0', 'flotilla-supervisor-1'].flatMap((pod) => [
        ...stateSeries(METRIC.supervisorAgentState, AGENT_STATES, [eq(LABEL.agent, 'argocd'), ...scrape(pod)], steps(['pending', 1], ['ready', 34])),
        ...stateSeries(METRIC.supervisorAgentState, AGENT_STATES, [eq(LABEL.agent, 'netbox'), ...scrape(pod)], steps(['pending', 1], ['ready', 2], ['unreachable', 17], ['ready', 15])),
      ]),
    ],
    expectations: [
      // Down, not yet for 5 minutes (and pending for a minute at the start is not an alert).
      { evalTime: '5m', alert: 'FlotillaAgentUnreachable', firing: [] },
      { evalTime: '12m', alert: 'FlotillaAgentUnreachable', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }] },
      { evalTime: '30m', alert: 'FlotillaAgentUnreachable', firing: [] },
    ],
  },
  {
    name: 'supervisor: failed delegations, by installation and agent (two installations never merge)',
    interval: '1m',
    inputSeries: [
      ...(
        [
          // This installation: 3 of 10 delegations to netbox fail (failed, timeout, rejected); argocd answers.
          [NAMESPACE, 'netbox', 'ok', '0+7x40'],
          [NAMESPACE, 'netbox', 'failed', '0+1x40'],
          [NAMESPACE, 'netbox', 'timeout', '0+1x40'],
          [NAMESPACE, 'netbox', 'rejected', '0+1x40'],
          [NAMESPACE, 'argocd', 'ok', '0+10x40'],
          [NAMESPACE, 'argocd', 'failed', '0x40'],
          // Another installation in the same Prometheus, busy and healthy: merged, the share would be 3 in 110.
          ['flotilla-staging', 'netbox', 'ok', '0+100x40'],
          ['flotilla-staging', 'netbox', 'failed', '0x40'],
        ] as const
      ).map(([namespace, agent, outcome, values]) => ({
        series: selector(METRIC.supervisorDelegations, eq(LABEL.agent, agent), eq(LABEL.outcome, pick(DELEGATION_OUTCOMES, outcome)), ...scrape('flotilla-supervisor-0', namespace)),
        values,
      })),
    ],
    expectations: [
      { evalTime: '5m', alert: 'FlotillaDelegationFailures', firing: [] },
      { evalTime: '25m', alert: 'FlotillaDelegationFailures', firing: [{ ...INSTALLATION, [LABEL.agent]: 'netbox' }] },
    ],
  },
  {
    name: 'Slack bot: questions unanswered and Slack API failures',
    interval: '1m',
    inputSeries: [
      ...(
        [
          // 2 of 10 questions a minute go unanswered: one failed, one turned away busy.
          [NAMESPACE, 'answered', '0+8x40'],
          [NAMESPACE, 'failed', '0+1x40'],
          [NAMESPACE, 'busy', '0+1x40'],
          [NAMESPACE, 'timed_out', '0x40'],
          // Another installation whose questions are all answered.
          ['flotilla-staging', 'answered', '0+5x40'],
          ['flotilla-staging', 'failed', '0x40'],
        ] as const
      ).map(([namespace, outcome, values]) => ({
        series: selector(METRIC.slackAnswers, eq(LABEL.outcome, pick(SLACK_ANSWER_OUTCOMES, outcome)), ...scrape('flotilla-slack-bot-0', namespace)),
        values,
      })),
      // chat.update fails once a minute; chat.postMessage failed once, at minute 5.
      { series: selector(METRIC.slackApiFailures, eq(LABEL.method, pick(SLACK_API_METHODS, 'chat.update')), ...scrape('flotilla-slack-bot-0')), values: '0+1x40' },
      { series: selector(METRIC.slackApiFailures, eq(LABEL.method, pick(SLACK_API_METHODS, 'chat.postMessage')), ...scrape('flotilla-slack-bot-0')), values: '0x5 1x35' },
    ],
    expectations: [
      { evalTime: '5m', alert: 'FlotillaSlackUnanswered', firing: [] },
      { evalTime: '25m', alert: 'FlotillaSlackUnanswered', firing: [INSTALLATION] },
      { evalTime: '5m', alert: 'FlotillaSlackApiFailures', firing: [] },
      { evalTime: '25m', alert: 'FlotillaSlackApiFailures', firing: [{ ...INSTALLATION, [LABEL.method]: 'chat.update' }] },
    ],
  },
];

/** An annotation as Prometheus renders it for an alert's labels (the catalogue only uses `{{ $labels.x }}`). */
export function renderAnnotation(template: string, labels: Readonly<Record<string, string>>): string {
  const rendered = template.replace(/\{\{\s*\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g, (_match, name: string) => labels[name] ?? '');
  if (rendered.includes('{{')) throw new Error(`unsupported template in annotation: ${template}`);
  return rendered;
}

export interface AlertTestsOptions {
  /** The rules file, relative to the test file. */
  readonly ruleFile?: string;
  readonly runbookBaseUrl?: string;
  readonly groups?: readonly AlertTestGroup[];
}

/** The promtool unit test file (`promtool test rules <file>`). */
export function renderAlertTests(options: AlertTestsOptions = {}): string {
  const tests = (options.groups ?? ALERT_TEST_GROUPS).map((group) => ({
    name: group.name,
    interval: group.interval,
    input_series: group.inputSeries.map((s) => ({ series: s.series, values: s.values })),
    alert_rule_test: group.expectations.map((e) => {
      const alert = alertNamed(e.alert);
      return {
        eval_time: e.evalTime,
        alertname: e.alert,
        exp_alerts: e.firing.map((labels) => ({
          exp_labels: { ...labels, severity: alert.severity },
          exp_annotations: {
            summary: renderAnnotation(alert.summary, labels),
            description: renderAnnotation(alert.description, labels),
            runbook_url: options.runbookBaseUrl === undefined ? runbookUrl(alert.name) : runbookUrl(alert.name, options.runbookBaseUrl),
          },
        })),
      };
    }),
  }));
  const header = '# Generated by packages/observability (src/alert-tests.ts); do not edit. Run: promtool test rules <this file>\n';
  return header + stringify({ rule_files: [options.ruleFile ?? 'prometheus-rules.yaml'], evaluation_interval: '1m', tests }, { lineWidth: 0 });
}

/** Alerts of the catalogue without a firing case or without a quiet case (should be none). */
export function alertsMissingTests(groups: readonly AlertTestGroup[] = ALERT_TEST_GROUPS): string[] {
  const expectations = groups.flatMap((g) => g.expectations);
  return ALERTS.flatMap((a) => {
    const mine = expectations.filter((e) => e.alert === a.name);
    const missing: string[] = [];
    if (!mine.some((e) => e.firing.length > 0)) missing.push(`${a.name}: no case where it fires`);
    if (!mine.some((e) => e.firing.length === 0)) missing.push(`${a.name}: no case where it stays quiet`);
    return missing;
  });
}
