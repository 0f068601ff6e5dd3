import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { rssOf, spawnUntilListening } from './process.js';

export interface HopRow {
  readonly route: 'direct to the NetBox agent' | 'through the supervisor';
  readonly concurrency: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

export interface HopResult {
  readonly rows: readonly HopRow[];
  readonly supervisorPeakRssMiB: number;
}

const QUESTIONS = ['list sites', 'vlans of fra1', 'which switches are offline in ams1?'] as const;
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * The supervisor hop: the NetBox agent (its own process, --local simulator) asked directly, then through the
 * supervisor (its own process), with the same questions, `requests` at each concurrency level.
 */
export async function benchSupervisorHop(options: { cli: string; levels: readonly number[]; requests: number }): Promise<HopResult> {
  const agent = await spawnUntilListening([options.cli, 'agent', 'netbox', '--local', '--port', '0', '--log-level', 'info'], 'A2A agent listening');
  const supervisor = await spawnUntilListening([options.cli, 'supervisor', '--port', '0', '--agents', `netbox=${agent.url}`, '--log-level', 'info'], 'A2A agent listening');
  try {
    const rows: HopRow[] = [];
    for (const [route, url] of [
      ['direct to the NetBox agent', agent.url],
      ['through the supervisor', supervisor.url],
    ] as const) {
      for (const concurrency of options.levels) {
        const latencies: number[] = [];
        let failures = 0;
        let issued = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            const client = await new ClientFactory().createFromUrl(url);
            while (issued < options.requests) {
              const text = QUESTIONS[issued % QUESTIONS.length] ?? 'list sites';
              issued += 1;
              const t0 = performance.now();
              try {
                const reply = await client.sendMessage(textRequest(text, randomUUID()));
                if (!/\| name \||\| vid \|/.test(JSON.stringify(reply))) failures += 1;
              } catch {
                failures += 1;
              }
              latencies.push(performance.now() - t0);
            }
          }),
        );
        latencies.sort((a, b) => a - b);
        rows.push({ route, concurrency, requests: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), failures });
      }
    }
    return { rows, supervisorPeakRssMiB: (await rssOf(supervisor.child.pid ?? 0)).peak };
  } finally {
    for (const { child } of [supervisor, agent]) {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
  }
}
