import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { ALERTS } from './alerts.js';
import { OVERVIEW_DASHBOARD_FILE, renderOverviewDashboard } from './dashboards.js';
import { GENERATED_PATHS, REPO_ROOT } from './generate.js';
import { CHART_DIR, CHART_EXISTS, HELM, NO_HELM, NO_PROMTOOL, PROMTOOL, checkRules, run } from './observability.test-util.js';
import { helmLiteral, renderDashboardsConfigMapTemplate, renderPrometheusRules, renderPrometheusRuleTemplate } from './rules.js';

interface Rendered {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { groups: { name: string; rules: { alert: string; expr: string; for: string; labels: { severity: string }; annotations: Record<string, string> }[] }[] };
  data?: Record<string, string>;
}

const plainGroups = (parse(renderPrometheusRules()) as { groups: unknown[] }).groups;

let home: string;

async function helmTemplate(chart: string, args: string[]): Promise<Rendered[]> {
  const result = await run(HELM ?? 'helm', ['template', 'ops', chart, '--namespace', 'ops', ...args], {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((d) => d.toJS() as Rendered | null)
    .filter((d): d is Rendered => d !== null);
}

/** A minimal chart around the two generated templates: the chart engineer's helpers stubbed, no values file. */
async function miniChart(): Promise<string> {
  const dir = join(home, 'mini');
  await mkdir(join(dir, 'templates'), { recursive: true });
  await mkdir(join(dir, 'dashboards'), { recursive: true });
  await writeFile(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: flotilla\nversion: 0.0.1\n');
  await writeFile(
    join(dir, 'templates', '_helpers.tpl'),
    '{{- define "flotilla.fullname" -}}{{ .Release.Name }}-flotilla{{- end }}\n{{- define "flotilla.labels" -}}app.kubernetes.io/part-of: flotilla{{- end }}\n',
  );
  await writeFile(join(dir, 'templates', 'prometheusrule.yaml'), renderPrometheusRuleTemplate());
  await writeFile(join(dir, 'templates', 'dashboards-configmap.yaml'), renderDashboardsConfigMapTemplate());
  await writeFile(join(dir, 'dashboards', OVERVIEW_DASHBOARD_FILE), renderOverviewDashboard());
  return dir;
}

async function valuesFile(name: string, values: unknown): Promise<string> {
  const file = join(home, `${name}.yaml`);
  await writeFile(file, stringify(values));
  return file;
}

function ruleOf(objects: Rendered[]): Rendered {
  const rules = objects.filter((o) => o.kind === 'PrometheusRule');
  expect(rules).toHaveLength(1);
  return rules[0] as Rendered;
}

function rulesByName(objects: Rendered[]) {
  return new Map((ruleOf(objects).spec?.groups[0]?.rules ?? []).map((r) => [r.alert, r]));
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'flotilla-observability-helm-'));
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('helmLiteral', () => {
  it('escapes Go template delimiters so Helm prints them as is', () => {
    expect(helmLiteral('a {{ $labels.pod }} b')).toBe('a {{ "{{" }} $labels.pod {{ "}}" }} b');
    expect(helmLiteral('{x}')).toBe('{x}');
  });
});

describe.skipIf(HELM === undefined)(`the PrometheusRule template (helm 3.6)${HELM === undefined ? ` (skipped: ${NO_HELM})` : ''}`, () => {
  let chart: string;
  beforeAll(async () => {
    chart = await miniChart();
  });

  it('renders nothing unless prometheusRule.enabled', async () => {
    expect((await helmTemplate(chart, [])).filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    expect((await helmTemplate(chart, ['--set', 'prometheusRule.enabled=false'])).filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
  });

  it('renders, with default values, exactly the groups of the plain rules file', async () => {
    const rule = ruleOf(await helmTemplate(chart, ['--set', 'prometheusRule.enabled=true']));
    expect(rule.metadata.name).toBe('ops-flotilla');
    expect(rule.metadata.labels).toEqual({ 'app.kubernetes.io/part-of': 'flotilla' });
    expect(rule.spec?.groups).toEqual(plainGroups);
  });

  it('applies per-alert overrides: threshold (0 included), for, severity, enabled; labels and runbook base', async () => {
    const values = await valuesFile('overrides', {
      prometheusRule: {
        enabled: true,
        labels: { release: 'kube-prometheus-stack' },
        runbookBaseUrl: 'https://wiki.example.com/runbooks',
        alerts: {
          FlotillaMemoryHigh: { threshold: 0.8, for: '1h', severity: 'critical' },
          FlotillaRestarting: { threshold: 0 },
          FlotillaSpillRateHigh: { enabled: false },
          FlotillaA2AErrors: { enabled: true },
        },
      },
    });
    const objects = await helmTemplate(chart, ['--values', values]);
    expect(ruleOf(objects).metadata.labels).toEqual({ 'app.kubernetes.io/part-of': 'flotilla', release: 'kube-prometheus-stack' });
    const rules = rulesByName(objects);
    expect([...rules.keys()]).toEqual(ALERTS.map((a) => a.name).filter((n) => n !== 'FlotillaSpillRateHigh'));
    const high = rules.get('FlotillaMemoryHigh');
    expect(high?.expr.endsWith('> 0.8')).toBe(true);
    expect(high?.for).toBe('1h');
    expect(high?.labels.severity).toBe('critical');
    expect(rules.get('FlotillaRestarting')?.expr.endsWith('> 0')).toBe(true);
    expect(rules.get('FlotillaRestarting')?.for).toBe('5m');
    expect(rules.get('FlotillaOOMKilled')?.annotations['runbook_url']).toBe('https://wiki.example.com/runbooks/FlotillaOOMKilled.md');
    const wiki = parse(renderPrometheusRules(ALERTS, { runbookBaseUrl: 'https://wiki.example.com/runbooks' })) as { groups: { rules: { alert: string }[] }[] };
    const plain = new Map(wiki.groups[0]?.rules.map((r) => [r.alert, r]));
    expect(rules.get('FlotillaA2AErrors')).toEqual(plain.get('FlotillaA2AErrors'));
    if (PROMTOOL !== undefined) {
      const check = await checkRules({ groups: ruleOf(objects).spec?.groups ?? [] });
      expect(check.code).toBe(0);
    }
  });

  it('renders every alert disabled but one', async () => {
    const alerts = Object.fromEntries(ALERTS.slice(1).map((a) => [a.name, { enabled: false }]));
    const rules = rulesByName(await helmTemplate(chart, ['--values', await valuesFile('one', { prometheusRule: { enabled: true, alerts } })]));
    expect([...rules.keys()]).toEqual([ALERTS[0]?.name]);
  });

  it('holds every chart dashboard in the sidecar ConfigMap, only when grafanaDashboards.enabled', async () => {
    expect((await helmTemplate(chart, [])).filter((o) => o.kind === 'ConfigMap')).toEqual([]);
    const values = await valuesFile('dashboards', { grafanaDashboards: { enabled: true, labels: { team: 'ops' }, annotations: { grafana_folder: 'Flotilla' } } });
    const maps = (await helmTemplate(chart, ['--values', values])).filter((o) => o.kind === 'ConfigMap');
    expect(maps).toHaveLength(1);
    expect(maps[0]?.metadata.name).toBe('ops-flotilla-dashboards');
    expect(maps[0]?.metadata.labels).toEqual({ 'app.kubernetes.io/part-of': 'flotilla', team: 'ops', grafana_dashboard: '1' });
    expect(maps[0]?.metadata.annotations).toEqual({ grafana_folder: 'Flotilla' });
    expect(Object.keys(maps[0]?.data ?? {})).toEqual([OVERVIEW_DASHBOARD_FILE]);
    expect(JSON.parse(maps[0]?.data?.[OVERVIEW_DASHBOARD_FILE] ?? '')).toEqual(JSON.parse(renderOverviewDashboard()));
    const custom = (await helmTemplate(chart, ['--set', 'grafanaDashboards.enabled=true', '--set', 'grafanaDashboards.label=my_dashboards'])).filter((o) => o.kind === 'ConfigMap');
    expect(custom[0]?.metadata.labels?.['my_dashboards']).toBe('1');
  });
});

describe.skipIf(HELM === undefined || !CHART_EXISTS)(
  `the chart (helm/flotilla)${HELM === undefined ? ` (skipped: ${NO_HELM})` : !CHART_EXISTS ? ' (skipped: helm/flotilla/Chart.yaml is not there yet)' : ''}`,
  () => {
    it('renders, with default values and prometheusRule.enabled, exactly the plain rules file', async () => {
      const rule = ruleOf(await helmTemplate(CHART_DIR, ['--set', 'prometheusRule.enabled=true', '--show-only', 'templates/prometheusrule.yaml']));
      expect(rule.spec?.groups).toEqual(plainGroups);
    });

    it('ships the generated dashboard in its sidecar ConfigMap', async () => {
      const maps = await helmTemplate(CHART_DIR, ['--set', 'grafanaDashboards.enabled=true', '--show-only', 'templates/dashboards-configmap.yaml']);
      expect(maps).toHaveLength(1);
      expect(maps[0]?.data?.[OVERVIEW_DASHBOARD_FILE]).toBe(readFileSync(join(REPO_ROOT, GENERATED_PATHS.chartOverviewDashboard), 'utf8').trimEnd());
    });
  },
);

describe.skipIf(PROMTOOL === undefined)(`rules from the Helm values${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, () => {
  it('stay valid for promtool with thresholds as Helm prints large numbers (1e+06)', async () => {
    const groups = [{ name: 'flotilla', rules: ALERTS.map((a) => ({ alert: a.name, expr: a.expr('1e+06'), for: '1m' })) }];
    expect((await checkRules({ groups })).code).toBe(0);
  });
});
