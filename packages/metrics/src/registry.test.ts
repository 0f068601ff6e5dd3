import { describe, expect, it } from 'vitest';
import type { Registry } from 'prom-client';
import { createMetrics, createSlackMetrics } from './registry.js';
import { DELEGATION_OUTCOMES, METRIC, RAW_RESULT_ALERT_BYTES, SLACK_ANSWER_OUTCOMES, SLACK_API_METHODS, TOOL_OUTCOMES, TURN_OUTCOMES, WORKFLOW_PATHS } from './names.js';
import { zeroAgentSeries, zeroDelegationSeries, zeroSlackSeries, zeroToolSeries } from './zero.js';

const lag = async (metrics: ReturnType<typeof createMetrics>): Promise<number> => {
  const text = await metrics.registry.getSingleMetricAsString(METRIC.eventLoopLag);
  return Number(new RegExp(`^${METRIC.eventLoopLag} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
};

describe('event-loop lag', () => {
  it('reports the longest recent block, in seconds, the same to every reader', async () => {
    const metrics = createMetrics();
    // Let the monitor's timer run once, then block the loop for 300 ms: the next timer fires at least that late.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // a request that computes instead of awaiting
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await lag(metrics)).toBeGreaterThanOrEqual(0.2);
    // A read does not reset it: another scraper (or another registry of the process) sees the block too.
    expect(await lag(metrics)).toBeGreaterThanOrEqual(0.2);
    expect(await lag(createMetrics())).toBeGreaterThanOrEqual(0.2);
  });
});

describe('series at zero from the start', () => {
  const read = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)?.get())?.values ?? [];

  it('creates every labelled series alerts read at 0 (tools, agents, delegations, Slack) and none before', async () => {
    const metrics = createMetrics();
    expect(await read(metrics.registry, METRIC.toolCalls)).toHaveLength(0);
    zeroToolSeries(metrics, 'list_interfaces');
    zeroAgentSeries(metrics, 'netbox', ['inventory', 'inventory']);
    zeroDelegationSeries(metrics, 'argocd');
    const slack = createSlackMetrics(metrics.registry);
    zeroSlackSeries(slack);

    const calls = await read(metrics.registry, METRIC.toolCalls);
    expect(calls.map((v) => v.labels.outcome).sort()).toEqual([...TOOL_OUTCOMES].sort());
    // The size alert's buckets: the +Inf and the 200 KiB bucket both exist, at 0.
    const raw = await read(metrics.registry, METRIC.toolRawResultBytes);
    const bucketOf = (v: (typeof raw)[number]): unknown => ('metricName' in v && v.metricName === `${METRIC.toolRawResultBytes}_bucket` ? v.labels.le : undefined);
    expect(raw.filter((v) => [RAW_RESULT_ALERT_BYTES, '+Inf'].includes(bucketOf(v) as number | string)).map((v) => v.value)).toEqual([0, 0]);
    // Skills (deduplicated) plus `none`, by every path and outcome.
    const turns = await read(metrics.registry, METRIC.agentTurns);
    expect(turns).toHaveLength(2 * WORKFLOW_PATHS.length * TURN_OUTCOMES.length);
    expect(turns).toContainEqual(expect.objectContaining({ labels: { agent: 'netbox', skill: 'inventory', path: 'direct', outcome: 'failed' }, value: 0 }));
    expect((await read(metrics.registry, METRIC.supervisorDelegations)).map((v) => v.labels.outcome).sort()).toEqual([...DELEGATION_OUTCOMES].sort());
    expect((await read(metrics.registry, METRIC.slackAnswers)).map((v) => v.labels.outcome).sort()).toEqual([...SLACK_ANSWER_OUTCOMES].sort());
    expect((await read(metrics.registry, METRIC.slackApiFailures)).map((v) => v.labels.method).sort()).toEqual([...SLACK_API_METHODS].sort());
    const all = [...(await read(metrics.registry, METRIC.toolCalls)), ...turns, ...(await read(metrics.registry, METRIC.slackEvents))];
    expect(all.every((v) => v.value === 0)).toBe(true);
  });
});

describe('tool series zeroed again', () => {
  it('keep their counts: a server that registers its tools per request does not reset them', async () => {
    const metrics = createMetrics();
    zeroToolSeries(metrics, 'list_devices');
    metrics.toolRawResultBytes.observe({ tool: 'list_devices' }, 300_000);
    metrics.toolCalls.inc({ tool: 'list_devices', outcome: 'ok' });
    zeroToolSeries(metrics, 'list_devices');
    const count = (await metrics.toolRawResultBytes.get()).values.find((v) => 'metricName' in v && v.metricName === `${METRIC.toolRawResultBytes}_count`);
    expect(count?.value).toBe(1);
    expect((await metrics.toolCalls.get()).values.find((v) => v.labels.outcome === 'ok')?.value).toBe(1);
    // Another registry (another server in the same process) gets its own zeros.
    const other = createMetrics();
    zeroToolSeries(other, 'list_devices');
    expect((await other.toolCalls.get()).values).toHaveLength(TOOL_OUTCOMES.length);
  });
});
