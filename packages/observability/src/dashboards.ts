/**
 * The "Flotilla operations" Grafana dashboard, built with the Grafana Foundation SDK from small builders.
 * Every query is assembled from `@flotilla/metrics` constants and the shared builders of src/queries.ts, so a
 * panel shows the quantity its alert watches.
 */
import { VizLegendOptionsBuilder, VizTooltipOptionsBuilder, GraphThresholdsStyleConfigBuilder, LegendDisplayMode, LegendPlacement, TooltipDisplayMode, SortOrder, GraphThresholdsStyleMode } from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  type Dashboard,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';
import { LABEL, METRIC, RAW_RESULT_ALERT_BYTES } from '@flotilla/metrics';
import { A2A_LATENCY_QUANTILE, alertNamed, type AlertName } from './alerts.js';
import { quantile, re, type Matcher } from './promql.js';
import {
  contextRequestTokensQuantile,
  contextTrimsPerRequest,
  FLOTILLA_CONTAINER_REGEX,
  KUBE_LABEL,
  KUBE_METRIC,
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

export interface DashboardRow {
  readonly title: string;
  readonly panels: readonly TimeseriesPanel[];
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
          description: 'Share of requests failing on the upstream side (server error, timeout, network error, bad response); the dashed line is the FlotillaUpstreamErrors default.',
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
    .description('Memory, tool result sizes, limitations, upstream calls, A2A turns and model context trimming of Flotilla. Generated by packages/observability.')
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
    for (const panel of row.panels) dashboard.withPanel(timeseries(panel, id++));
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
