import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createMetrics, createSlackMetrics, LABEL, MEMORY_GUARD_STATES, METRIC } from '@flotilla/metrics';
import { ALERTS } from './alerts.js';
import { ALERT_TEST_GROUPS } from './alert-tests.js';
import {
  DATASOURCE_VARIABLE,
  NAMESPACE_VARIABLE,
  RATE_INTERVAL,
  dashboardQueries,
  dashboardVariableQueries,
  overviewDashboard,
  overviewRows,
} from './dashboards.js';
import { GENERATED_PATHS, REPO_ROOT } from './generate.js';
import { NO_PROMTOOL, PROMTOOL, checkRules, metricNamesIn, run, withTempDir } from './observability.test-util.js';
import { eq, selector } from './promql.js';
import { CIRCUIT_STATES, KUBE_METRIC, MEMORY_GUARD_RATIOS } from './queries.js';

const file = JSON.parse(readFileSync(join(REPO_ROOT, GENERATED_PATHS.overviewDashboard), 'utf8')) as unknown;
const queries = dashboardQueries(file);

/** Grafana's variables replaced by values Prometheus accepts, as Grafana would before sending a query. */
function asPrometheusSees(expr: string): string {
  return expr.replaceAll(RATE_INTERVAL, '5m').replaceAll(`$${NAMESPACE_VARIABLE}`, '.*');
}

/** Series names each Flotilla metric exposes, from the real registry (histograms: _bucket, _sum, _count). */
async function exposedFlotillaSeries(): Promise<Set<string>> {
  // The process metrics (prom-client's default collectors) too: every piece exports them.
  const registry = createMetrics({ defaultMetrics: true }).registry;
  createSlackMetrics(registry);
  const metrics = await registry.getMetricsAsJSON();
  const names = metrics.flatMap((m) => (String(m.type) === 'histogram' ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name]));
  return new Set(names);
}

describe('the overview dashboard', () => {
  it('is titled "Flotilla operations" and reads its data source from a variable', () => {
    const dashboard = overviewDashboard();
    expect(dashboard.title).toBe('Flotilla operations');
    const variables = dashboard.templating?.list ?? [];
    expect(variables.find((v) => v.name === DATASOURCE_VARIABLE)?.type).toBe('datasource');
    expect(variables.find((v) => v.name === DATASOURCE_VARIABLE)?.query).toBe('prometheus');
    for (const panel of dashboard.panels ?? []) {
      if (panel.type === 'row') continue;
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` });
    }
  });

  it('has the panels the operators asked for', () => {
    const titles = overviewRows().flatMap((r) => r.panels.map((p) => p.title.toLowerCase()));
    for (const wanted of ['memory working set and limit', 'oom kills and restarts', 'tokens, p95 and max', 'raw tool result size', 'spills and budget truncations', 'limitations detected', 'limitation strategies', 'upstream requests by outcome', '429', 'a2a turns', 'a2a failed', 'p50 and p99', 'supervisor delegations', 'memory guard state', 'share of limit (memory guard)', 'a2a requests refused', 'circuit state', 'failed fast', 'domain agents as the supervisor sees them', 'failed delegations', 'slack events', 'unanswered share', 'time to answer in slack', 'slack api failures', 'questions in flight', 'process rss', 'event-loop lag p99']) {
      expect(titles.some((t) => t.includes(wanted)), wanted).toBe(true);
    }
  });

  it('lays panels on the grid without overlaps, each with a unique id', () => {
    const panels = (overviewDashboard().panels ?? []).map((p) => ({ id: p.id, ...(p.gridPos ?? { x: 0, y: 0, w: 0, h: 0 }) }));
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const [i, a] of panels.entries()) {
      expect(a.x + a.w).toBeLessThanOrEqual(24);
      for (const b of panels.slice(i + 1)) {
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect(overlap, `panels ${a.id} and ${b.id}`).toBe(false);
      }
    }
  });

  it('on disk is the dashboard the builders make, with every query filtered by namespace', () => {
    expect(file).toEqual(JSON.parse(JSON.stringify(overviewDashboard())));
    expect(queries.length).toBeGreaterThan(15);
    for (const q of queries) {
      expect(q.expr, `${q.panel} ${q.refId}`).not.toBe('');
      expect(q.expr, `${q.panel} ${q.refId}`).toContain(`namespace=~"$${NAMESPACE_VARIABLE}"`);
    }
  });

  it.skipIf(PROMTOOL === undefined)(`has only valid PromQL (promtool check rules on them as recording rules)${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    const rules = queries.map((q, n) => ({ record: `flotilla_dashboard_check_${n}`, expr: asPrometheusSees(q.expr) }));
    for (const rule of rules) expect(rule.expr).not.toContain('$');
    const result = await checkRules({ groups: [{ name: 'flotilla_dashboard_check', rules }] });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    // The check is real: one broken query fails it.
    const broken = [...rules, { record: 'flotilla_dashboard_check_broken', expr: 'sum by (tool) (rate(x[5m])' }];
    expect((await checkRules({ groups: [{ name: 'flotilla_dashboard_check', rules: broken }] })).code).not.toBe(0);
  });
});

/** A panel of the dashboard file (parsed JSON), by title. */
function filePanel(title: string): Record<string, unknown> {
  const panels = (file as { panels?: Record<string, unknown>[] }).panels ?? [];
  const found = panels.find((p) => p['title'] === title);
  if (found === undefined) throw new Error(`no panel ${title}`);
  return found;
}

const GUARD_TIMELINE = 'Memory guard state, worst replica per agent';
const CIRCUIT_TIMELINE = 'Upstream circuit state, worst replica per system';

describe('the memory guard and circuit panels', () => {
  it('name and colour every memory guard and circuit state in their state timelines, healthy green to failing red', () => {
    for (const [title, states] of [
      [GUARD_TIMELINE, MEMORY_GUARD_STATES],
      [CIRCUIT_TIMELINE, CIRCUIT_STATES],
    ] as const) {
      const panel = filePanel(title) as { type: string; fieldConfig: { defaults: { mappings: { type: string; options: Record<string, { text: string; color: string }> }[] } } };
      expect(panel.type, title).toBe('state-timeline');
      const options = panel.fieldConfig.defaults.mappings[0]?.options ?? {};
      expect(Object.values(options).map((o) => o.text).sort(), title).toEqual([...states].sort());
      expect(options['0']?.color, title).toBe('green');
      expect(options[String(states.length - 1)]?.color, title).toBe('red');
    }
    expect(filePanel(CIRCUIT_TIMELINE)).toMatchObject({ fieldConfig: { defaults: { mappings: [{ options: { '0': { text: 'closed' }, '2': { text: 'open' } } }] } } });
  });

  it('draws the memory guard thresholds on its usage panel', () => {
    const panel = filePanel('Memory used, share of limit (memory guard), per agent') as { fieldConfig: { defaults: { thresholds: { steps: { value: number | null }[] } } } };
    expect(panel.fieldConfig.defaults.thresholds.steps.map((s) => s.value)).toEqual([null, MEMORY_GUARD_RATIOS.tight, MEMORY_GUARD_RATIOS.shed]);
    expect([MEMORY_GUARD_RATIOS.tight, MEMORY_GUARD_RATIOS.shed]).toEqual([0.75, 0.9]);
  });

  it.skipIf(PROMTOOL === undefined)(`show the worst replica's state, as its position in the state list, per agent and system (promtool)${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    const scrape = (pod: string) => [eq('job', pod.replace(/-[0-9]+$/, '')), eq('instance', `${pod}:9090`), eq('pod', pod), eq('namespace', 'flotilla')];
    /** One process' state gauge family, in `current`. */
    const family = (gauge: string, states: readonly string[], label: string, value: string, pod: string, current: string) =>
      states.map((state) => ({ series: selector(gauge, eq(label, value), eq(LABEL.state, state), ...scrape(pod)), values: state === current ? '1x5' : '0x5' }));
    const input = [
      ...family(METRIC.memoryGuardState, MEMORY_GUARD_STATES, LABEL.agent, 'netbox', 'flotilla-netbox-0', 'shed'),
      ...family(METRIC.memoryGuardState, MEMORY_GUARD_STATES, LABEL.agent, 'netbox', 'flotilla-netbox-1', 'ok'),
      ...family(METRIC.memoryGuardState, MEMORY_GUARD_STATES, LABEL.agent, 'argocd', 'flotilla-argocd-0', 'tight'),
      ...family(METRIC.memoryGuardState, MEMORY_GUARD_STATES, LABEL.agent, 'supervisor', 'flotilla-supervisor-0', 'ok'),
      ...family(METRIC.upstreamCircuitState, CIRCUIT_STATES, LABEL.system, 'argocd', 'flotilla-argocd-0', 'half_open'),
      ...family(METRIC.upstreamCircuitState, CIRCUIT_STATES, LABEL.system, 'argocd', 'flotilla-argocd-1', 'closed'),
      ...family(METRIC.upstreamCircuitState, CIRCUIT_STATES, LABEL.system, 'netbox', 'flotilla-netbox-0', 'open'),
    ];
    const exprOf = (panel: string) => asPrometheusSees(queries.find((q) => q.panel === panel)?.expr ?? '');
    const tests = [
      {
        interval: '1m',
        input_series: input,
        promql_expr_test: [
          { expr: exprOf(GUARD_TIMELINE), eval_time: '2m', exp_samples: [['netbox', 2], ['argocd', 1], ['supervisor', 0]].map(([agent, value]) => ({ labels: `{agent="${agent}"}`, value })) },
          { expr: exprOf(CIRCUIT_TIMELINE), eval_time: '2m', exp_samples: [['argocd', 1], ['netbox', 2]].map(([system, value]) => ({ labels: `{system="${system}"}`, value })) },
        ],
      },
    ];
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'rules.yaml'), stringify({ groups: [] }));
      await writeFile(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }, { lineWidth: 0 }));
      const result = await run(PROMTOOL ?? 'promtool', ['test', 'rules', join(dir, 'tests.yaml')]);
      expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
      expect(result.code).toBe(0);
    });
  });
});

describe('metric names in alerts and dashboards', () => {
  it('finds metric names in PromQL (and nothing else)', () => {
    expect(metricNamesIn('histogram_quantile(0.99, sum by (agent, le) (rate(a_bucket{le="+Inf", x=~"b|c"}[5m]))) >= 1e+06')).toEqual(['a_bucket']);
    expect(metricNamesIn('max by (pod) (x{c="d"}) / on (pod) y and on (pod) z > 0')).toEqual(['x', 'y', 'z']);
  });

  it('are series the Flotilla registry exposes, or the Kubernetes metrics the catalogue names', async () => {
    const flotilla = await exposedFlotillaSeries();
    const kube = new Set<string>(Object.values(KUBE_METRIC));
    const exprs = [
      ...ALERTS.map((a) => a.expr(a.threshold)),
      ...queries.map((q) => q.expr),
      ...dashboardVariableQueries(file).map((q) => q.replace(/^label_values\((.*), *[a-z_]+\)$/, '$1')),
      ...ALERT_TEST_GROUPS.flatMap((g) => g.inputSeries.map((s) => s.series)),
    ];
    const used = new Set(exprs.flatMap(metricNamesIn));
    expect(used.size).toBeGreaterThan(10);
    const unknown = [...used].filter((name) => !flotilla.has(name) && !kube.has(name));
    expect(unknown).toEqual([]);
    // Every Flotilla name used is a METRIC value (plus a histogram suffix).
    const metricValues = new Set<string>(Object.values(METRIC));
    for (const name of used) {
      if (!name.startsWith('flotilla_')) continue;
      expect(metricValues.has(name) || metricValues.has(name.replace(/_(bucket|sum|count)$/, '')), name).toBe(true);
    }
  });
});
