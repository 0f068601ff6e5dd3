import { describe, expect, it } from 'vitest';
import { createMetrics } from './registry.js';
import { METRIC } from './names.js';

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
