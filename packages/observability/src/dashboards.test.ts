import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetrics, METRIC } from '@flotilla/metrics';
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
import { NO_PROMTOOL, PROMTOOL, checkRules, metricNamesIn } from './observability.test-util.js';
import { KUBE_METRIC } from './queries.js';

const file = JSON.parse(readFileSync(join(REPO_ROOT, GENERATED_PATHS.overviewDashboard), 'utf8')) as unknown;
const queries = dashboardQueries(file);

/** Grafana's variables replaced by values Prometheus accepts, as Grafana would before sending a query. */
function asPrometheusSees(expr: string): string {
  return expr.replaceAll(RATE_INTERVAL, '5m').replaceAll(`$${NAMESPACE_VARIABLE}`, '.*');
}

/** Series names each Flotilla metric exposes, from the real registry (histograms: _bucket, _sum, _count). */
async function exposedFlotillaSeries(): Promise<Set<string>> {
  const metrics = await createMetrics().registry.getMetricsAsJSON();
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
    for (const wanted of ['memory working set and limit', 'oom kills and restarts', 'tokens, p95 and max', 'raw tool result size', 'spills and budget truncations', 'limitations detected', 'limitation strategies', 'upstream requests by outcome', '429', 'a2a turns', 'a2a failed', 'p50 and p99', 'supervisor delegations']) {
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
