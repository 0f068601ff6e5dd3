import { describe, expect, it } from 'vitest';
import { createMetrics, isUpstreamSystem, METRIC, upstreamSystem, UPSTREAM_SYSTEMS, zeroUpstreamSeries } from './index.js';

describe('upstream system labels', () => {
  it('any lower-case label name of 1-32 characters is a system, not only the ones we ship', () => {
    for (const name of [...UPSTREAM_SYSTEMS, 'grafana', 'x', 'pager_duty2', `a${'b'.repeat(31)}`]) expect(isUpstreamSystem(name)).toBe(true);
    for (const name of ['', 'Grafana', '2fa', '_x', 'pager-duty', 'a b', `a${'b'.repeat(32)}`, 'argocd\n', 7, undefined]) expect(isUpstreamSystem(name)).toBe(false);
    expect(upstreamSystem('grafana')).toBe('grafana');
    expect(() => upstreamSystem('Pager-Duty')).toThrow(/"Pager-Duty" is not a label name: 1-32 lower-case letters/);
  });

  it('a new system gets its series at zero; a bad name is refused where the series are created', async () => {
    const metrics = createMetrics();
    zeroUpstreamSeries(metrics, 'grafana', ['list_dashboards']);
    expect(await metrics.registry.getSingleMetricAsString(METRIC.upstreamRequests)).toMatch(/system="grafana",operation="list_dashboards",outcome="ok"\} 0/);
    expect(() => zeroUpstreamSeries(metrics, 'Grafana Cloud', ['x'])).toThrow(TypeError);
  });
});
