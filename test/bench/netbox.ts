import { performance } from 'node:perf_hooks';
import { createMemoryResultStore } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { DETECTION_DEFAULTS, chooseHandling, detectLimitations, type PlanStep } from '@flotilla/limitations';
import { createMetrics } from '@flotilla/metrics';
import { NetBoxClient, connectNetBoxToolsInProcess } from '@flotilla/agent-netbox';
import { generateNetBoxEstate, startNetBoxSimulator } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';

export interface NPlusOneRow {
  readonly strategy: 'naive' | 'batched (site filter)' | 'batched (repeated ids)' | 'sampled';
  readonly upstreamCalls: number;
  readonly interfaces: number;
  readonly exact: boolean;
  readonly seconds: number;
}

export interface DetectionRow {
  readonly plan: string;
  readonly limitations: string;
  readonly meanMicros: number;
  readonly p99Micros: number;
}

export interface NetBoxBenchResult {
  readonly devices: number;
  readonly expectedInterfaces: number;
  readonly latencyMs: number;
  readonly nPlusOne: NPlusOneRow[];
  readonly detection: DetectionRow[];
}

const TOKEN = 'bench-netbox-token-0123456789';

/**
 * The N+1 scenario of ADR-0019: interfaces of every device at a 200-device site, read naively (one request per
 * device, as peers do), batched (the site filter, or repeated-id batches) and sampled, against the simulator
 * with `latencyMs` of latency per request; requests counted at the simulator. Then the CPU time of limitation
 * detection per plan.
 */
export async function benchNetBox(options: { readonly counter: TokenCounter; readonly latencyMs: number }): Promise<NetBoxBenchResult> {
  const estate = generateNetBoxEstate();
  const sim = await startNetBoxSimulator({ token: TOKEN, estate, faults: { latencyMs: options.latencyMs } });
  const metrics = createMetrics();
  const client = new NetBoxClient({ baseUrl: sim.url, token: TOKEN, rateLimit: false, metrics, logger: silentLogger() });
  const tools = await connectNetBoxToolsInProcess({ client, counter: options.counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
  const devices = estate.devices.filter((d) => d.site.slug === 'ams1');
  const ids = new Set(devices.map((d) => d.id));
  const expected = estate.interfaces.filter((i) => ids.has(i.device.id)).length;
  const body = (result: unknown): Record<string, unknown> => {
    const content = (result as { content: { type: string; text?: string }[] }).content[0];
    return JSON.parse(content?.text ?? '{}') as Record<string, unknown>;
  };
  const run = async (strategy: NPlusOneRow['strategy'], work: () => Promise<{ interfaces: number; exact: boolean }>): Promise<NPlusOneRow> => {
    sim.resetStats();
    const started = performance.now();
    const outcome = await work();
    return { strategy, upstreamCalls: sim.stats().requests, ...outcome, seconds: (performance.now() - started) / 1000 };
  };
  const nPlusOne: NPlusOneRow[] = [];
  try {
    nPlusOne.push(
      await run('naive', async () => {
        // One list of devices (paged), then one request per device, one after another.
        const found: number[] = [];
        for (let offset: unknown = 0; typeof offset === 'number'; ) {
          const page = body(await tools.client.callTool({ name: 'list_devices', arguments: { site: 'ams1', limit: 100, offset } }));
          found.push(...(page.items as { id: number }[]).map((d) => d.id));
          offset = page.next_offset;
        }
        let interfaces = 0;
        for (const id of found) interfaces += Number(body(await tools.client.callTool({ name: 'list_interfaces', arguments: { device_id: id, limit: 1 } })).total);
        return { interfaces, exact: interfaces === expected };
      }),
    );
    nPlusOne.push(
      await run('batched (site filter)', async () => {
        const total = Number(body(await tools.client.callTool({ name: 'list_interfaces', arguments: { site: 'ams1' } })).total);
        return { interfaces: total, exact: total === expected };
      }),
    );
    nPlusOne.push(
      await run('batched (repeated ids)', async () => {
        const total = Number(body(await tools.client.callTool({ name: 'list_interfaces', arguments: { device_id: [...ids] } })).total);
        return { interfaces: total, exact: total === expected };
      }),
    );
    nPlusOne.push(
      await run('sampled', async () => {
        const total = Number(body(await tools.client.callTool({ name: 'list_interfaces', arguments: { site: 'ams1', sample: true } })).total);
        return { interfaces: total, exact: total === expected };
      }),
    );
  } finally {
    await tools.close();
    await sim.close();
  }
  return { devices: devices.length, expectedInterfaces: expected, latencyMs: options.latencyMs, nPlusOne, detection: benchDetection() };
}

/** CPU time of detection + handling per plan, over many runs (the count queries are not part of it). */
function benchDetection(): DetectionRow[] {
  const plans: readonly (readonly [string, readonly PlanStep[]])[] = [
    ['12 sites (list)', [{ kind: 'list', step: 'list_sites', total: 12, itemTokens: 45 }]],
    ['600 devices (list)', [{ kind: 'list', step: 'list_devices', total: 600, itemTokens: 60 }]],
    ['interfaces of 200 devices', [{ kind: 'relation', step: 'list_interfaces', parents: 200, total: 5_760, itemTokens: 40, pushdown: true }]],
    ['interfaces of 6,000 devices by id', [{ kind: 'relation', step: 'list_interfaces', parents: 6_000, total: 240_000, itemTokens: 40, pushdown: false }]],
  ];
  const rows: DetectionRow[] = [];
  for (const [plan, steps] of plans) {
    const samples: number[] = [];
    let kinds = '';
    for (let round = 0; round < 200; round += 1) {
      const started = performance.now();
      for (let i = 0; i < 100; i += 1) {
        const found = detectLimitations(steps, DETECTION_DEFAULTS, { available: 10, ratePerSecond: 20 });
        chooseHandling(found, { quickLook: false, wantsAll: false, summaryOnly: false }, 30_000);
        if (round === 0 && i === 0) kinds = found.map((l) => l.kind).join(', ') || 'none';
      }
      samples.push(((performance.now() - started) * 1000) / 100);
    }
    samples.sort((a, b) => a - b);
    rows.push({ plan, limitations: kinds, meanMicros: samples.reduce((a, b) => a + b, 0) / samples.length, p99Micros: samples[Math.floor(samples.length * 0.99)] ?? 0 });
  }
  return rows;
}
