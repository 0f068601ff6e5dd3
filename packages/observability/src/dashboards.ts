/**
 * The "Flotilla operations" Grafana dashboard, built with the Grafana Foundation SDK from small builders.
 * Every query is assembled from `@flotilla/metrics` constants and the shared builders of src/queries.ts, so a
 * panel shows the quantity its alert watches.
 */
import {
  VizLegendOptionsBuilder,
  VizTooltipOptionsBuilder,
  GraphThresholdsStyleConfigBuilder,
  LegendDisplayMode,
  LegendPlacement,
  TooltipDisplayMode,
  SortOrder,
  GraphThresholdsStyleMode,
  VisibilityMode,
} from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  FieldColorBuilder,
  FieldColorModeId,
  MappingType,
  QueryVariableBuilder,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  type Dashboard,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StateTimelinePanelBuilder } from '@grafana/grafana-foundation-sdk/statetimeline';
import { PanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';
import { LABEL, METRIC, PROCESS_METRIC, RAW_RESULT_ALERT_BYTES } from '@flotilla/metrics';
import { A2A_LATENCY_QUANTILE, alertNamed, type AlertName } from './alerts.js';
import { maxBy, quantile, re, selector, sumBy, type Matcher } from './promql.js';
import {
  A2A_UNAUTHORIZED,
  AGENT_STATE_ORDER,
  agentWorstState,
  delegationFailureShare,
  slackApiFailureRate,
  slackUnansweredShare,
  CIRCUIT_CLOSED,
  CIRCUIT_HALF_OPEN,
  CIRCUIT_OPEN,
  CIRCUIT_STATES,
  GUARD_OK,
  GUARD_SHED,
  GUARD_STATE_ORDER,
  GUARD_TIGHT,
  MEMORY_GUARD_RATIOS,
  circuitWorstState,
  contextRequestTokensQuantile,
  contextTrimsPerRequest,
  eventLoopLagMax,
  FLOTILLA_CONTAINER_REGEX,
  KUBE_LABEL,
  KUBE_METRIC,
  memoryGuardUsage,
  memoryGuardWorstState,
  memoryLimit,
  memoryShareOfLimit,
  memoryWorkingSet,
  oomKills,
  rateBy,
  restarts,
  shareOfToolCalls,
  turnDurationQuantile,
  turnFailureShare,
  upstreamErrorShare,
  upstreamFailedFast,
  upstreamRateLimited,
} from './queries.js';

export const OVERVIEW_DASHBOARD_UID = 'flotilla-overview';
export const OVERVIEW_DASHBOARD_FILE = 'flotilla-overview.json';

/** Dashboard variables: the Prometheus data source, and the namespace(s) Flotilla runs in. */
export const DATASOURCE_VARIABLE = 'datasource';
export const NAMESPACE_VARIABLE = 'namespace';
/** Grafana's rate window: at least four scrape intervals. */
export const RATE_INTERVAL = '$__rate_interval';

const DATASOURCE = { type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` };
const inNamespace: Matcher = re(KUBE_LABEL.namespace, `$${NAMESPACE_VARIABLE}`);

/** One query of a panel: an expression and its legend. */
export interface PanelQuery {
  readonly expr: string;
  readonly legend: string;
}

export interface TimeseriesPanel {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly queries: readonly PanelQuery[];
  /** Dashed threshold lines, for instance an alert's default threshold. */
  readonly thresholds?: readonly { readonly value: number; readonly color: string }[];
}

/** One state of a state timeline: the number its query returns for it, its name and its colour. */
export interface TimelineState {
  readonly value: number;
  readonly text: string;
  readonly color: string;
}

/** A state timeline: each query returns, per series, a number that value mappings turn into a named, coloured state. */
export interface StateTimelinePanel {
  readonly kind: 'state-timeline';
  readonly title: string;
  readonly description: string;
  readonly queries: readonly PanelQuery[];
  readonly states: readonly TimelineState[];
}

export type DashboardPanel = TimeseriesPanel | StateTimelinePanel;

export interface DashboardRow {
  readonly title: string;
  readonly panels: readonly DashboardPanel[];
}

function query(q: PanelQuery, index: number): DataqueryBuilder {
  return new DataqueryBuilder()
    .datasource(DATASOURCE)
    .expr(q.expr)
    .legendFormat(q.legend)
    .range()
    .refId(String.fromCharCode('A'.charCodeAt(0) + index));
}

/** A time series panel of the dashboard's data source, legend below, tooltip over all series. */
export function timeseries(panel: TimeseriesPanel, id: number): PanelBuilder {
  const builder = new PanelBuilder()
    .id(id)
    .title(panel.title)
    .description(panel.description)
    .datasource(DATASOURCE)
    .unit(panel.unit)
    .span(12)
    .height(8)
    .lineWidth(1)
    .fillOpacity(10)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom).calcs([]))
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.Descending));
  panel.queries.forEach((q, i) => builder.withTarget(query(q, i)));
  if (panel.thresholds !== undefined && panel.thresholds.length > 0) {
    builder
      .thresholds(
        new ThresholdsConfigBuilder()
          .mode(ThresholdsMode.Absolute)
          .steps([{ value: null, color: 'green' }, ...panel.thresholds.map((t) => ({ value: t.value, color: t.color }))]),
      )
      .thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Dashed));
  }
  return builder;
}

/**
 * A state timeline of the dashboard's data source: each state's number mapped to its name and colour (the
 * thresholds colour the same numbers, so a value without a mapping still gets the colour of its state).
 */
export function stateTimeline(panel: StateTimelinePanel, id: number): StateTimelinePanelBuilder {
  const sorted = [...panel.states].sort((a, b) => a.value - b.value);
  const [first, ...rest] = sorted;
  if (first === undefined) throw new Error(`${panel.title}: a state timeline needs states`);
  const builder = new StateTimelinePanelBuilder()
    .id(id)
    .title(panel.title)
    .description(panel.description)
    .datasource(DATASOURCE)
    .span(12)
    .height(8)
    .min(first.value)
    .max(sorted[sorted.length - 1]?.value ?? first.value)
    .colorScheme(new FieldColorBuilder().mode(FieldColorModeId.Thresholds))
    .thresholds(
      new ThresholdsConfigBuilder()
        .mode(ThresholdsMode.Absolute)
        .steps([{ value: null, color: first.color }, ...rest.map((s) => ({ value: s.value, color: s.color }))]),
    )
    .mappings([
      {
        type: MappingType.ValueToText,
        options: Object.fromEntries(sorted.map((s, index) => [String(s.value), { text: s.text, color: s.color, index }])),
      },
    ])
    .showValue(VisibilityMode.Never)
    .mergeValues(true)
    .rowHeight(0.8)
    .fillOpacity(80)
    .lineWidth(0)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom).calcs([]))
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.None));
  panel.queries.forEach((q, i) => builder.withTarget(query(q, i)));
  return builder;
}

/** The colours of states, from healthy to failing. */
const STATE_COLORS = ['green', 'orange', 'red', 'dark-red'] as const;

/** Timeline states of an ordered state list (healthy first): its position is the number the query returns. */
function orderedStates(order: readonly string[]): TimelineState[] {
  return order.map((text, value) => ({ value, text, color: STATE_COLORS[Math.min(value, STATE_COLORS.length - 1)] ?? 'red' }));
}

/** The default threshold of an alert as a dashed line. */
function alertLine(name: AlertName, color: string): { value: number; color: string } {
  return { value: alertNamed(name).threshold, color };
}

const w = RATE_INTERVAL;
const ns = inNamespace;
const container = `{{${KUBE_LABEL.pod}}} {{${KUBE_LABEL.container}}}`;
const byTool = `{{${LABEL.tool}}}`;

/** The rows and panels of the overview dashboard. */
export function overviewRows(): DashboardRow[] {
  return [
    {
      title: 'Memory and restarts',
      panels: [
        {
          title: 'Memory working set and limit, per container',
          description: 'cAdvisor working set (what the OOM killer counts) against the kube-state-metrics memory limit of each Flotilla container.',
          unit: 'bytes',
          queries: [
            { expr: memoryWorkingSet(ns), legend: `working set ${container}` },
            { expr: memoryLimit(ns), legend: `limit ${container}` },
          ],
        },
        {
          title: 'Memory working set, share of limit',
          description: 'Working set over limit; the dashed lines are the FlotillaMemoryHigh and FlotillaMemoryCritical defaults.',
          unit: 'percentunit',
          queries: [{ expr: memoryShareOfLimit(ns), legend: container }],
          thresholds: [alertLine('FlotillaMemoryHigh', 'orange'), alertLine('FlotillaMemoryCritical', 'red')],
        },
        {
          title: 'Process RSS, heap and external memory, per pod',
          description: 'What each Flotilla process holds, as it reports it (prom-client): resident set, V8 heap used, and memory outside the heap (buffers). An idle agent or MCP server holds under 100 MiB; a heap far below the RSS points at buffers or native memory.',
          unit: 'bytes',
          queries: [
            { expr: maxBy([KUBE_LABEL.pod], selector(PROCESS_METRIC.residentMemory, ns)), legend: `RSS {{${KUBE_LABEL.pod}}}` },
            { expr: maxBy([KUBE_LABEL.pod], selector(PROCESS_METRIC.heapUsed, ns)), legend: `heap used {{${KUBE_LABEL.pod}}}` },
            { expr: maxBy([KUBE_LABEL.pod], selector(PROCESS_METRIC.externalMemory, ns)), legend: `external {{${KUBE_LABEL.pod}}}` },
          ],
        },
        {
          title: 'OOM kills and restarts',
          description: 'Container restarts per interval, and those of containers whose last termination was an OOM kill.',
          unit: 'short',
          queries: [
            { expr: restarts(w, ns), legend: `restarts ${container}` },
            { expr: oomKills(w, ns), legend: `OOM kills ${container}` },
          ],
        },
      ],
    },
    {
      title: 'Tool results',
      panels: [
        {
          title: 'Tool result size in tokens, p95 and max',
          description: 'What tools returned to the model, after the token budget. "max" is the upper bound of the largest bucket seen.',
          unit: 'none',
          queries: [
            { expr: quantile(0.95, METRIC.toolResultTokens, [LABEL.tool], w, ns), legend: `p95 ${byTool}` },
            { expr: quantile(1, METRIC.toolResultTokens, [LABEL.tool], w, ns), legend: `max ${byTool}` },
          ],
        },
        {
          title: 'Raw tool result size before budget, p95 and max',
          description: `What tools read from upstreams before the token budget; the dashed line is the FlotillaToolResultLarge size (${RAW_RESULT_ALERT_BYTES} bytes). "max" is the upper bound of the largest bucket seen.`,
          unit: 'bytes',
          queries: [
            { expr: quantile(0.95, METRIC.toolRawResultBytes, [LABEL.tool], w, ns), legend: `p95 ${byTool}` },
            { expr: quantile(1, METRIC.toolRawResultBytes, [LABEL.tool], w, ns), legend: `max ${byTool}` },
          ],
          thresholds: [{ value: RAW_RESULT_ALERT_BYTES, color: 'orange' }],
        },
        {
          title: 'Spills and budget truncations',
          description: 'Results written to the result store instead of returned inline, and results shortened to the token budget, per second.',
          unit: 'ops',
          queries: [
            { expr: rateBy([LABEL.tool], METRIC.toolSpills, w, ns), legend: `spills ${byTool}` },
            { expr: rateBy([LABEL.tool], METRIC.toolBudgetTruncations, w, ns), legend: `truncations ${byTool}` },
          ],
        },
        {
          title: 'Spill and truncation share of tool calls',
          description: 'Share of each tool\'s calls that spilled or were truncated; the dashed line is the FlotillaSpillRateHigh / FlotillaTruncationRateHigh default.',
          unit: 'percentunit',
          queries: [
            { expr: shareOfToolCalls(METRIC.toolSpills, w, ns), legend: `spilled ${byTool}` },
            { expr: shareOfToolCalls(METRIC.toolBudgetTruncations, w, ns), legend: `truncated ${byTool}` },
          ],
          thresholds: [alertLine('FlotillaSpillRateHigh', 'orange')],
        },
      ],
    },
    {
      title: 'Limitations',
      panels: [
        {
          title: 'Limitations detected, by kind',
          description: 'Limitations the limitation handler found before executing a plan (token overflow, N+1, rate-limit pressure, ...), per second.',
          unit: 'ops',
          queries: [{ expr: rateBy([LABEL.agent, LABEL.kind], METRIC.limitationsDetected, w, ns), legend: `{{${LABEL.agent}}} {{${LABEL.kind}}}` }],
        },
        {
          title: 'Limitation strategies',
          description: 'How detected limitations were handled (batched, progressive, sampled, fallback, throttled), per second.',
          unit: 'ops',
          queries: [{ expr: rateBy([LABEL.agent, LABEL.strategy], METRIC.limitationStrategies, w, ns), legend: `{{${LABEL.agent}}} {{${LABEL.strategy}}}` }],
        },
      ],
    },
    {
      title: 'Upstream systems',
      panels: [
        {
          title: 'Upstream requests by outcome',
          description: 'Requests to Argo CD and NetBox per second, by system and outcome.',
          unit: 'reqps',
          queries: [{ expr: rateBy([LABEL.system, LABEL.outcome], METRIC.upstreamRequests, w, ns), legend: `{{${LABEL.system}}} {{${LABEL.outcome}}}` }],
        },
        {
          title: 'Upstream 429s (rate limited)',
          description: 'Requests answered 429 Too Many Requests per second (FlotillaUpstreamRateLimited).',
          unit: 'reqps',
          queries: [{ expr: upstreamRateLimited(w, ns), legend: `429 {{${LABEL.system}}}` }],
        },
        {
          title: 'Upstream error share',
          description: 'Share of requests failing on the upstream side (server error, timeout, network error, bad response, or failed fast while the circuit was open); the dashed line is the FlotillaUpstreamErrors default.',
          unit: 'percentunit',
          queries: [{ expr: upstreamErrorShare(w, ns), legend: `{{${LABEL.system}}}` }],
          thresholds: [alertLine('FlotillaUpstreamErrors', 'orange')],
        },
      ],
    },
    {
      title: 'Agents (A2A)',
      panels: [
        {
          title: 'A2A turns by agent and outcome',
          description: 'Questions answered per second, by agent and outcome.',
          unit: 'reqps',
          queries: [{ expr: rateBy([LABEL.agent, LABEL.outcome], METRIC.agentTurns, w, ns), legend: `{{${LABEL.agent}}} {{${LABEL.outcome}}}` }],
        },
        {
          title: 'A2A failed turns, share by agent',
          description: 'Share of turns that failed; the dashed line is the FlotillaA2AErrors default.',
          unit: 'percentunit',
          queries: [{ expr: turnFailureShare(w, ns), legend: `{{${LABEL.agent}}}` }],
          thresholds: [alertLine('FlotillaA2AErrors', 'orange')],
        },
        {
          title: 'A2A turn latency p50 and p99, by agent',
          description: 'Turn duration, A2A request to answer; the dashed line is the FlotillaA2ALatency default (also the largest bucket: a p99 beyond it reads as this value).',
          unit: 's',
          queries: [
            { expr: turnDurationQuantile(0.5, w, ns), legend: `p50 {{${LABEL.agent}}}` },
            { expr: turnDurationQuantile(A2A_LATENCY_QUANTILE, w, ns), legend: `p99 {{${LABEL.agent}}}` },
          ],
          thresholds: [alertLine('FlotillaA2ALatency', 'orange')],
        },
      ],
    },
    {
      title: 'Model context',
      panels: [
        {
          title: 'Model request tokens (p50/p95 by agent)',
          description: 'Size of the model requests agents send, in tokens, after trimming to the context budget.',
          unit: 'none',
          queries: [
            { expr: contextRequestTokensQuantile(0.5, w, ns), legend: `p50 {{${LABEL.agent}}}` },
            { expr: contextRequestTokensQuantile(0.95, w, ns), legend: `p95 {{${LABEL.agent}}}` },
          ],
        },
        {
          title: 'Context trims by kind and tokens saved',
          description: 'Model requests trimmed to fit the context budget per second, and tokens removed by trimming per second, by agent and kind of trim.',
          unit: 'short',
          queries: [
            { expr: rateBy([LABEL.agent, LABEL.kind], METRIC.contextTrims, w, ns), legend: `trims {{${LABEL.agent}}} {{${LABEL.kind}}}` },
            { expr: rateBy([LABEL.agent, LABEL.kind], METRIC.contextTokensSaved, w, ns), legend: `tokens saved {{${LABEL.agent}}} {{${LABEL.kind}}}` },
          ],
        },
        {
          title: 'Context trims per model request, by agent',
          description: 'Trims of any kind per model request (a request can take several kinds, so this can exceed 1); the dashed line is the FlotillaContextTrimmingHigh default.',
          unit: 'none',
          queries: [{ expr: contextTrimsPerRequest(w, ns), legend: `{{${LABEL.agent}}}` }],
          thresholds: [alertLine('FlotillaContextTrimmingHigh', 'orange')],
        },
        {
          title: 'Hybrid routes by reason',
          description:
            'Questions per second in hybrid mode by route (fast: the rules, no model call; discovery: the model; fallback: the model after a fast path that failed) and why: reasoning words, words the rules did not use, low confidence, a "next page" of a list the model produced, and so on.',
          unit: 'reqps',
          queries: [{ expr: rateBy([LABEL.agent, LABEL.route, LABEL.reason], METRIC.hybridRoutes, w, ns), legend: `{{${LABEL.agent}}} {{${LABEL.route}}} {{${LABEL.reason}}}` }],
        },
      ],
    },
    {
      title: 'Supervisor',
      panels: [
        {
          title: 'Supervisor delegations by outcome',
          description: 'Questions the supervisor delegated to domain agents per second, by agent and outcome.',
          unit: 'reqps',
          queries: [{ expr: rateBy([LABEL.agent, LABEL.outcome], METRIC.supervisorDelegations, w, ns), legend: `{{${LABEL.agent}}} {{${LABEL.outcome}}}` }],
        },
        {
          kind: 'state-timeline',
          title: 'Domain agents as the supervisor sees them, worst replica',
          description: `Each domain agent in the supervisor's registry: ${AGENT_STATE_ORDER.join(', ')} (card not read yet since the start; card unreadable: down, not ready, blocked; card refused: another origin or a supervisor). Not ready for 5 minutes fires FlotillaAgentUnreachable.`,
          queries: [{ expr: agentWorstState(ns), legend: `{{${LABEL.agent}}}` }],
          states: orderedStates(AGENT_STATE_ORDER),
        },
        {
          title: 'Failed delegations, share by agent',
          description: 'Share of the delegations to each agent that brought no answer back (failed, timed out, refused); the dashed line is the FlotillaDelegationFailures default.',
          unit: 'percentunit',
          queries: [{ expr: delegationFailureShare(w, ns), legend: `{{${LABEL.agent}}}` }],
          thresholds: [alertLine('FlotillaDelegationFailures', 'orange')],
        },
      ],
    },
    {
      title: 'Slack bot',
      panels: [
        {
          title: 'Slack events and questions by outcome',
          description: 'Events the bot acted on per second (mentions, direct messages, option clicks), and questions by how they ended (answered, failed, timed_out, busy: turned away).',
          unit: 'reqps',
          queries: [
            { expr: rateBy([LABEL.kind], METRIC.slackEvents, w, ns), legend: `event {{${LABEL.kind}}}` },
            { expr: rateBy([LABEL.outcome], METRIC.slackAnswers, w, ns), legend: `question {{${LABEL.outcome}}}` },
          ],
        },
        {
          title: 'Unanswered share of questions in Slack',
          description: 'Share of questions that ended failed, timed out or turned away busy; the dashed line is the FlotillaSlackUnanswered default.',
          unit: 'percentunit',
          queries: [{ expr: slackUnansweredShare(w, ns), legend: `{{${KUBE_LABEL.namespace}}}` }],
          thresholds: [alertLine('FlotillaSlackUnanswered', 'orange')],
        },
        {
          title: 'Time to answer in Slack, p50 and p95',
          description: 'From a question in Slack to its answer (or failure) posted.',
          unit: 's',
          queries: [
            { expr: quantile(0.5, METRIC.slackAnswerDuration, [], w, ns), legend: 'p50' },
            { expr: quantile(0.95, METRIC.slackAnswerDuration, [], w, ns), legend: 'p95' },
          ],
        },
        {
          title: 'Slack API failures, by method',
          description: 'Slack Web API calls that failed per second (answers that may never reach their thread); the dashed line is the FlotillaSlackApiFailures default.',
          unit: 'reqps',
          queries: [{ expr: slackApiFailureRate(w, ns), legend: `{{${LABEL.method}}}` }],
          thresholds: [alertLine('FlotillaSlackApiFailures', 'orange')],
        },
        {
          title: 'Questions in flight, per bot replica',
          description: 'Questions the bot is answering now; at its --max-in-flight (default 20) further questions get a "busy" reply.',
          unit: 'short',
          queries: [{ expr: sumBy([KUBE_LABEL.pod], selector(METRIC.slackInFlight, ns)), legend: `{{${KUBE_LABEL.pod}}}` }],
        },
      ],
    },
    {
      title: 'Memory guard & upstream circuits',
      panels: [
        {
          kind: 'state-timeline',
          title: 'Memory guard state, worst replica per agent',
          description: `The memory guard of each agent: ${GUARD_OK}; ${GUARD_TIGHT} (above ${MEMORY_GUARD_RATIOS.tight * 100} % of the memory limit: budgets halved, FlotillaMemoryGuardTight); ${GUARD_SHED} (above ${MEMORY_GUARD_RATIOS.shed * 100} %: new work refused with 503 and Retry-After, /readyz fails, FlotillaAgentShedding). With several replicas, the worst one.`,
          queries: [{ expr: memoryGuardWorstState(ns), legend: `{{${LABEL.agent}}}` }],
          states: orderedStates(GUARD_STATE_ORDER),
        },
        {
          title: 'Memory used, share of limit (memory guard), per agent',
          description: `Memory used over the container limit as the memory guard samples it (cgroup memory.current, page cache included, so it can read above the working-set share), the highest replica of each agent; the dashed lines are the guard's ${GUARD_TIGHT} and ${GUARD_SHED} thresholds.`,
          unit: 'percentunit',
          queries: [{ expr: memoryGuardUsage(ns), legend: `{{${LABEL.agent}}}` }],
          thresholds: [
            { value: MEMORY_GUARD_RATIOS.tight, color: 'orange' },
            { value: MEMORY_GUARD_RATIOS.shed, color: 'red' },
          ],
        },
        {
          title: 'A2A requests refused, by agent and reason',
          description: `A2A requests refused before any work per second: unauthorized (401, no or a wrong token) and busy (503, the memory guard sheds). The dashed line is the FlotillaA2AUnauthorized default (${A2A_UNAUTHORIZED} only).`,
          unit: 'reqps',
          queries: [{ expr: rateBy([LABEL.agent, LABEL.reason], METRIC.a2aRejected, w, ns), legend: `{{${LABEL.agent}}} {{${LABEL.reason}}}` }],
          thresholds: [alertLine('FlotillaA2AUnauthorized', 'orange')],
        },
        {
          title: 'Event-loop lag, longest per process',
          description: 'The longest time each process could not run anything (probes, metrics, other questions included), over its last 15 to 30 seconds. Long blocks come from CPU-heavy work on one request; the dashed line is the FlotillaEventLoopBlocked default.',
          unit: 's',
          queries: [{ expr: eventLoopLagMax(w, ns), legend: `{{${KUBE_LABEL.pod}}}` }],
          thresholds: [alertLine('FlotillaEventLoopBlocked', 'orange')],
        },
        {
          title: 'Event-loop lag p99 and CPU, per process',
          description: 'prom-client\'s event-loop delay (p99 since the last scrape) and the CPU each process uses (cores); a cached answer should cost well under a millisecond of CPU, a page of a tool result a few.',
          unit: 's',
          queries: [
            { expr: maxBy([KUBE_LABEL.pod], selector(PROCESS_METRIC.eventLoopLagP99, ns)), legend: `lag p99 {{${KUBE_LABEL.pod}}}` },
            { expr: sumBy([KUBE_LABEL.pod], `rate(${selector(PROCESS_METRIC.cpuSeconds, ns)}[${w}])`), legend: `CPU cores {{${KUBE_LABEL.pod}}}` },
          ],
        },
        {
          kind: 'state-timeline',
          title: 'Upstream circuit state, worst replica per system',
          description: `The circuit breaker of each upstream: ${CIRCUIT_CLOSED}; ${CIRCUIT_OPEN} (requests fail fast for 10 s, doubling per failed probe up to 2 min, FlotillaUpstreamCircuitOpen); ${CIRCUIT_HALF_OPEN} (one probe goes through). With several replicas, the worst one.`,
          queries: [{ expr: circuitWorstState(ns), legend: `{{${LABEL.system}}}` }],
          states: orderedStates(CIRCUIT_STATES),
        },
        {
          title: 'Upstream requests failed fast (circuit open)',
          description: 'Requests refused at once, without calling the upstream, because its circuit breaker was open, per second (outcome circuit_open).',
          unit: 'reqps',
          queries: [{ expr: upstreamFailedFast(w, ns), legend: `failed fast {{${LABEL.system}}}` }],
        },
      ],
    },
  ];
}

/** The namespace variable's query: namespaces with a Flotilla container. */
export function namespaceVariableQuery(): string {
  return `label_values(${KUBE_METRIC.containerLimits}{${KUBE_LABEL.container}=~"${FLOTILLA_CONTAINER_REGEX}"}, ${KUBE_LABEL.namespace})`;
}

/** The "Flotilla operations" dashboard. */
export function overviewDashboard(rows: readonly DashboardRow[] = overviewRows()): Dashboard {
  const dashboard = new DashboardBuilder('Flotilla operations')
    .uid(OVERVIEW_DASHBOARD_UID)
    .description('Memory, tool result sizes, limitations, upstream calls, A2A turns, model context trimming, the supervisor and its agents, the Slack bot, memory guards and upstream circuits of Flotilla. Generated by packages/observability.')
    .tags(['flotilla'])
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .time({ from: 'now-6h', to: 'now' })
    .refresh('30s')
    .timezone('browser')
    .withVariable(new DatasourceVariableBuilder(DATASOURCE_VARIABLE).label('Data source').type('prometheus'))
    .withVariable(
      new QueryVariableBuilder(NAMESPACE_VARIABLE)
        .label('Namespace')
        .datasource(DATASOURCE)
        .query(namespaceVariableQuery())
        .definition(namespaceVariableQuery())
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue('.*'),
    );
  let id = 1;
  for (const row of rows) {
    dashboard.withRow(new RowBuilder(row.title).id(id++));
    for (const panel of row.panels) dashboard.withPanel('kind' in panel ? stateTimeline(panel, id++) : timeseries(panel, id++));
  }
  return dashboard.build();
}

/** The dashboard as the JSON file Grafana imports (two-space indent, final newline). */
export function renderOverviewDashboard(): string {
  return `${JSON.stringify(overviewDashboard(), null, 2)}\n`;
}

/** One query of a dashboard file: its panel's title, refId and expression. */
export interface DashboardQuery {
  readonly panel: string;
  readonly refId: string;
  readonly expr: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Every panel query of a dashboard (parsed JSON), the panels nested in collapsed rows included. */
export function dashboardQueries(dashboard: unknown): DashboardQuery[] {
  const top = isRecord(dashboard) ? records(dashboard['panels']) : [];
  const panels = top.flatMap((p) => (p['type'] === 'row' ? records(p['panels']) : [p]));
  return panels.flatMap((panel) =>
    records(panel['targets']).map((target) => ({
      panel: typeof panel['title'] === 'string' ? panel['title'] : '',
      refId: typeof target['refId'] === 'string' ? target['refId'] : '',
      expr: typeof target['expr'] === 'string' ? target['expr'] : '',
    })),
  );
}

/** The queries of a dashboard's query variables (parsed JSON). */
export function dashboardVariableQueries(dashboard: unknown): string[] {
  const templating = isRecord(dashboard) && isRecord(dashboard['templating']) ? dashboard['templating'] : {};
  return records(templating['list'])
    .filter((v) => v['type'] === 'query')
    .map((v) => v['query'])
    .filter((q): q is string => typeof q === 'string');
}
