import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUCKETS, createMetrics, createSlackMetrics, RAW_RESULT_ALERT_BYTES, UPSTREAM_OUTCOMES } from '@flotilla/metrics';
import { alertsMissingTests, ALERT_TEST_GROUPS, renderAlertTests, renderAnnotation, type AlertTestGroup } from './alert-tests.js';
import { ALERTS, ALERT_NAMES, DEFAULT_RUNBOOK_BASE_URL, alertNamed, runbookPath, runbookUrl } from './alerts.js';
import { GENERATED_PATHS, REPO_ROOT } from './generate.js';
import { NO_PROMTOOL, PROMTOOL, checkRules, run, withTempDir } from './observability.test-util.js';
import { pick } from './promql.js';
import { CIRCUIT_STATES, KUBE_METRIC, MEMORY_GUARD_RATIOS, UPSTREAM_ERROR_OUTCOMES } from './queries.js';
import { renderPrometheusRules, ruleGroups } from './rules.js';

describe('the alert catalogue', () => {
  it('holds every alert name once, in the order of ALERT_NAMES', () => {
    expect(ALERTS.map((a) => a.name)).toEqual([...ALERT_NAMES]);
  });

  it('gives every alert a severity, a duration, a threshold and annotations', () => {
    for (const alert of ALERTS) {
      expect(['info', 'warning', 'critical'], alert.name).toContain(alert.severity);
      expect(alert.for, alert.name).toMatch(/^([0-9]+(ms|s|m|h|d|w|y))+$/);
      expect(Number.isFinite(alert.threshold), alert.name).toBe(true);
      expect(alert.summary.length, alert.name).toBeGreaterThan(10);
      expect(alert.description.length, alert.name).toBeGreaterThan(alert.summary.length / 2);
      expect(alert.thresholdMeaning.length, alert.name).toBeGreaterThan(5);
    }
  });

  it('puts the threshold into the expression, exactly once, at the comparison', () => {
    for (const alert of ALERTS) {
      const expr = alert.expr('THRESHOLD');
      expect(expr.split('THRESHOLD'), alert.name).toHaveLength(2);
      expect(expr, alert.name).toMatch(/(>|>=) THRESHOLD$/);
      expect(alert.expr(0.123), alert.name).toMatch(/ 0\.123$/);
    }
  });

  it('builds runbook links from a base, default the repository docs', () => {
    expect(runbookUrl('FlotillaOOMKilled')).toBe(`${DEFAULT_RUNBOOK_BASE_URL}FlotillaOOMKilled.md`);
    expect(runbookUrl('FlotillaOOMKilled', 'https://wiki.example.com/runbooks')).toBe('https://wiki.example.com/runbooks/FlotillaOOMKilled.md');
    expect(runbookUrl('FlotillaOOMKilled', 'https://wiki.example.com/runbooks/')).toBe('https://wiki.example.com/runbooks/FlotillaOOMKilled.md');
    expect(DEFAULT_RUNBOOK_BASE_URL.endsWith('docs/runbooks/')).toBe(true);
  });

  it('has a runbook for every alert, and no runbook without an alert', () => {
    for (const alert of ALERTS) {
      const path = join(REPO_ROOT, runbookPath(alert.name));
      expect(existsSync(path), path).toBe(true);
      const text = readFileSync(path, 'utf8');
      expect(text.startsWith(`# ${alert.name}`), alert.name).toBe(true);
      for (const section of ['## What it means', '## How to confirm', '## What to do', '## When to escalate']) {
        expect(text, `${alert.name}: ${section}`).toContain(section);
      }
    }
    const pages = readdirSync(join(REPO_ROOT, 'docs/runbooks')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.sort()).toEqual(ALERTS.map((a) => `${a.name}.md`).sort());
  });

  /** The PromQL blocks of every runbook page, with the page they come from. */
  const runbookQueries = (): { page: string; expr: string }[] =>
    ALERTS.flatMap((alert) => {
      const text = readFileSync(join(REPO_ROOT, runbookPath(alert.name)), 'utf8');
      return [...text.matchAll(/```promql\n([\s\S]*?)```/g)].flatMap((block) => {
        // One query per line; an indented line continues the one above, and a lone operator line joins the next too (`a\n  / on (x)\nb`).
        const exprs: string[] = [];
        let joinNext = false;
        for (const line of (block[1] ?? '').split('\n')) {
          if (line.trim() === '' || line.trim().startsWith('#')) continue;
          const indented = /^\s/.test(line);
          if ((indented || joinNext) && exprs.length > 0) exprs[exprs.length - 1] += ` ${line.trim()}`;
          else exprs.push(line);
          joinNext = /^\s+(?:[-+*/]|and|or|unless)\s*(?:(?:on|ignoring)\s*\([^)]*\))?\s*$/.test(line);
        }
        return exprs.map((expr) => ({ page: alert.name, expr }));
      });
    });

  it('names, in every runbook query, only metrics the pieces export or the Kubernetes metrics the catalogue names', async () => {
    const registry = createMetrics().registry;
    createSlackMetrics(registry);
    const exported = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const known = (name: string) => exported.has(name.replace(/_(bucket|sum|count)$/, '')) || (Object.values(KUBE_METRIC) as string[]).includes(name);
    const queries = runbookQueries();
    expect(queries.length).toBeGreaterThan(ALERTS.length);
    for (const { page, expr } of queries) {
      for (const name of expr.match(/\b(?:flotilla|kube|container)_[a-z0-9_]+(?=[{[\s)]|$)/g) ?? []) expect(known(name), `${page}: ${name} in ${expr}`).toBe(true);
    }
  });

  it.skipIf(PROMTOOL === undefined)(`has only valid PromQL in its runbooks${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    const rules = runbookQueries().map((q, n) => ({ record: `flotilla_runbook_check_${n}`, expr: q.expr.replace(/<[a-z]+>/g, 'x') }));
    const result = await checkRules({ groups: [{ name: 'flotilla_runbook_check', rules }] });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('watches the raw result size at a bucket bound of the histogram', () => {
    // The alert subtracts the bucket at RAW_RESULT_ALERT_BYTES from +Inf: the bound must be a real bucket.
    expect(BUCKETS.rawResultBytes).toContain(RAW_RESULT_ALERT_BYTES);
    const expr = ALERTS.find((a) => a.name === 'FlotillaToolResultLarge')?.expr(0) ?? '';
    expect(expr).toContain(`le="${RAW_RESULT_ALERT_BYTES}"`);
    expect(expr).toContain('le="+Inf"');
  });

  it('keeps the A2A latency threshold within the finite buckets (a p99 beyond the top one reads as its bound)', () => {
    const latency = ALERTS.find((a) => a.name === 'FlotillaA2ALatency');
    expect(latency?.threshold).toBeLessThanOrEqual(Math.max(...BUCKETS.seconds));
    expect(latency?.expr(30)).toMatch(/>= 30$/);
  });

  it('counts only upstream-side failures as upstream errors, from the outcome list', () => {
    for (const outcome of UPSTREAM_ERROR_OUTCOMES) expect(UPSTREAM_OUTCOMES).toContain(outcome);
    expect(UPSTREAM_ERROR_OUTCOMES).not.toContain('not_found');
    expect(UPSTREAM_ERROR_OUTCOMES).not.toContain('rate_limited');
    expect(UPSTREAM_ERROR_OUTCOMES).not.toContain('auth_error');
    // Failed fast while the circuit is open: the upstream is still failing, the share must not drop.
    expect(UPSTREAM_ERROR_OUTCOMES).toContain('circuit_open');
    expect(() => pick(UPSTREAM_OUTCOMES, 'teapot' as never)).toThrow(/not one of/);
  });

  it('watches the memory guard, circuit and A2A rejection series by their state and reason values', () => {
    expect(alertNamed('FlotillaAgentShedding').expr(0)).toContain('flotilla_memory_guard_state{state="shed"}');
    // Budgets are halved in shed too: an agent between tight and shed keeps the tight alert firing.
    expect(alertNamed('FlotillaMemoryGuardTight').expr(0)).toContain('flotilla_memory_guard_state{state=~"tight|shed"}');
    expect(alertNamed('FlotillaUpstreamCircuitOpen').expr(0)).toContain('flotilla_upstream_circuit_state{state=~"open|half_open"}');
    expect(alertNamed('FlotillaA2AUnauthorized').expr(0)).toContain('flotilla_a2a_rejected_total{reason="unauthorized"}');
    for (const name of ['FlotillaAgentShedding', 'FlotillaMemoryGuardTight', 'FlotillaUpstreamCircuitOpen'] as const) {
      // A share of replicas: summed per process without the state label, averaged by agent or system.
      expect(alertNamed(name).expr(0), name).toMatch(/^avg by \(namespace, (agent|system)\) \(sum without \(state\) \(/);
    }
  });

  it('keeps the namespace in every aggregation of an alert on Flotilla metrics, and the pod where one process is meant', () => {
    for (const alert of ALERTS) {
      const expr = alert.expr(alert.threshold);
      if (!expr.includes('flotilla_')) continue;
      const groupings = [...expr.matchAll(/\b(?:sum|avg|max|min) by \(([^)]*)\)/g)].map((m) => (m[1] ?? '').split(', '));
      expect(groupings.length, alert.name).toBeGreaterThan(0);
      for (const labels of groupings) expect(labels, `${alert.name}: ${expr}`).toContain('namespace');
    }
    for (const name of ['FlotillaToolResultLarge', 'FlotillaEventLoopBlocked'] as const) expect(alertNamed(name).expr(0), name).toMatch(/by \(namespace, pod\b/);
  });

  it('keeps the circuit states and the memory guard ratios equal to those of the packages that publish them', () => {
    // Observability depends on @flotilla/metrics only: read the two constants from their sources.
    const circuit = readFileSync(join(REPO_ROOT, 'packages/upstream/src/circuit.ts'), 'utf8');
    const list = /export const CIRCUIT_STATES = \[([^\]]*)\] as const/.exec(circuit)?.[1];
    expect(list, 'CIRCUIT_STATES in packages/upstream/src/circuit.ts').toBeDefined();
    expect([...(list ?? '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1]).sort()).toEqual([...CIRCUIT_STATES].sort());
    const guard = readFileSync(join(REPO_ROOT, 'packages/agent-kit/src/memory-guard.ts'), 'utf8');
    const ratio = (name: string) => Number(new RegExp(`\\b${name}: ([0-9.]+),`).exec(guard)?.[1]);
    expect(ratio('tightRatio')).toBe(MEMORY_GUARD_RATIOS.tight);
    expect(ratio('shedRatio')).toBe(MEMORY_GUARD_RATIOS.shed);
  });
});

describe('the plain rules file', () => {
  it('is one group, flotilla, with every alert at its defaults', () => {
    const groups = ruleGroups();
    expect(groups.map((g) => g.name)).toEqual(['flotilla']);
    const rules = groups[0]?.rules ?? [];
    expect(rules.map((r) => r.alert)).toEqual([...ALERT_NAMES]);
    for (const [i, alert] of ALERTS.entries()) {
      expect(rules[i]?.for).toBe(alert.for);
      expect(rules[i]?.labels.severity).toBe(alert.severity);
      expect(rules[i]?.expr).toBe(alert.expr(alert.threshold));
      expect(rules[i]?.annotations.runbook_url).toBe(runbookUrl(alert.name));
    }
  });

  it.skipIf(PROMTOOL === undefined)(`passes promtool check rules${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    const result = await checkRules(renderPrometheusRules());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`SUCCESS: ${ALERTS.length} rules found`);
  });

  it.skipIf(PROMTOOL === undefined)(`fails promtool check rules when an expression is broken${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    const broken = renderPrometheusRules().replace('sum by (namespace, tool) (rate(', 'sum by (namespace, tool) (rate((');
    expect(broken).not.toBe(renderPrometheusRules());
    const result = await checkRules(broken);
    expect(result.code).not.toBe(0);
  });
});

describe('the alert unit tests (promtool test rules)', () => {
  it('cover every alert, firing and quiet', () => {
    expect(alertsMissingTests()).toEqual([]);
  });

  it('render annotations as Prometheus does for $labels', () => {
    expect(renderAnnotation('pod {{ $labels.pod }}/{{$labels.container}}', { pod: 'p', container: 'c' })).toBe('pod p/c');
    expect(() => renderAnnotation('{{ $value }}', {})).toThrow(/unsupported/);
  });

  it('name their series after real metrics only', () => {
    const names = ALERT_TEST_GROUPS.flatMap((g) => g.inputSeries.map((s) => s.series.split('{')[0] ?? ''));
    expect(names.filter((n) => !/^(flotilla_|container_|kube_)/.test(n))).toEqual([]);
  });

  it.skipIf(PROMTOOL === undefined)(`pass on the generated rules file${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    const result = await run(PROMTOOL ?? 'promtool', ['test', 'rules', join(REPO_ROOT, GENERATED_PATHS.prometheusRulesTest)]);
    expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it.skipIf(PROMTOOL === undefined)(`fail for each alert whose threshold is pushed out of reach${PROMTOOL === undefined ? ` (skipped: ${NO_PROMTOOL})` : ''}`, async () => {
    // The firing cases must depend on the thresholds: with one alert's threshold at 1e9, its cases fail. Each variant
    // runs that alert's own cases (promtool evaluates every group of a file: all of them per alert took most of a
    // minute on two cores); 'unchanged' runs them all against rules rendered afresh.
    const casesOf = (name: string): AlertTestGroup[] =>
      ALERT_TEST_GROUPS.flatMap((group) => {
        const expectations = group.expectations.filter((e) => e.alert === name);
        return expectations.length === 0 ? [] : [{ ...group, expectations }];
      });
    await withTempDir(async (dir) => {
      const variants = [...ALERTS.map((alert) => alert.name), 'unchanged'];
      const results = await Promise.all(
        variants.map(async (name) => {
          await mkdir(join(dir, name));
          const alerts = ALERTS.map((a) => (a.name === name ? { ...a, threshold: 1e9 } : a));
          await writeFile(join(dir, name, 'rules.yaml'), renderPrometheusRules(alerts));
          await writeFile(join(dir, name, 'tests.yaml'), renderAlertTests({ ruleFile: 'rules.yaml', ...(name === 'unchanged' ? {} : { groups: casesOf(name) }) }));
          return [name, await run(PROMTOOL ?? 'promtool', ['test', 'rules', join(dir, name, 'tests.yaml')])] as const;
        }),
      );
      for (const [name, result] of results) {
        if (name === 'unchanged') {
          expect(result.code).toBe(0);
        } else {
          expect(result.code, name).not.toBe(0);
          expect(`${result.stdout}${result.stderr}`, name).toContain(name);
        }
      }
    });
    // One promtool run per alert, all the rule tests each: more than the default 30 s on a busy two-core machine.
  }, 120_000);
});
