import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryResultStore } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { generateArgoEstate, startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient } from '../client/argocd-client.js';
import { connectArgoCdToolsInProcess } from '../server.js';
import { createArgoCdAgent } from './agent.js';

const TOKEN = 'outage-test-token';
const estate = generateArgoEstate();
const metrics = createMetrics();
let sim: RunningSimulator | undefined;
let port = 0;
let tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;
let agent: ReturnType<typeof createArgoCdAgent>;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate });
  port = Number(new URL(sim.url).port);
  const client = new ArgoCdClient({
    baseUrl: sim.url,
    token: TOKEN,
    limits: { ...UPSTREAM_DEFAULTS, retries: 1, backoffMs: 5, timeoutMs: 2_000 },
    metrics,
    logger: silentLogger(),
    circuit: { failureThreshold: 3, openMs: 400, maxOpenMs: 1_600 },
  });
  tools = await connectArgoCdToolsInProcess({ client, counter: await loadTokenCounter(), store: createMemoryResultStore(), metrics, logger: silentLogger() });
  agent = createArgoCdAgent({ mcp: tools.client, counter: await loadTokenCounter() });
});
afterAll(async () => {
  await tools.close();
  await sim?.close();
});

describe('Argo CD goes down and comes back', () => {
  it('says what failed and what to try, stops calling a dead Argo CD, and answers again once it is back', async () => {
    expect((await agent.ask('list clusters', 'outage')).answer).toContain('13 clusters');

    await sim?.close();
    sim = undefined;
    const down = await agent.ask('list clusters', 'outage');
    expect(down.answer).toMatch(/Argo CD is unreachable/);
    expect(down.answer).toMatch(/[Tt]ry again|check/);

    // Failures in a row open the circuit: answers come at once, say so, and make no request.
    const fast = await agent.ask('which apps are out of sync in prod?', 'outage');
    expect(fast.answer).toMatch(/stops calling it for \d+ s/);
    expect(await metrics.registry.metrics()).toMatch(new RegExp(`${METRIC.upstreamRequests}\\{system="argocd",operation="[a-z_]+",outcome="circuit_open"\\} [1-9]`));

    sim = await startArgoCdSimulator({ token: TOKEN, estate, port });
    // Within the circuit's pause nothing reaches the recovered Argo CD; after it, a probe does and all is well.
    const start = Date.now();
    let answer = '';
    // Polled until the breaker lets a probe through (its pause is at most 1.6 s), bounded for a loaded machine.
    while (Date.now() - start < 30_000) {
      answer = (await agent.ask('list clusters', 'outage')).answer;
      if (answer.includes('13 clusters')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answer).toContain('13 clusters');
    expect(sim.stats().requests).toBeGreaterThan(0);
  });
});
