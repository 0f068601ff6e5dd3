import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import { startArgoCdSimulator } from '@flotilla/simulators';
import { textRequest } from '@flotilla/agent-kit';
import { rssOf, spawnUntilListening } from './process.js';

export interface A2ABenchRow {
  readonly concurrency: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly perSecond: number;
  readonly failures: number;
}

export interface A2ABenchResult {
  readonly rows: readonly A2ABenchRow[];
  readonly peakRssMiB: number;
}

const TOKEN = 'bench-a2a-token-0123456789';

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * The Argo CD agent in its own process (tools in process, against the simulator in this one): for each
 * concurrency level, that many clients each ask for a paged list ("list all applications", then "next page" in
 * the same conversation) until `requests` answers came back. Latency is per A2A SendMessage, end to end.
 */
export async function benchA2A(options: { cli: string; nodeArgs: readonly string[]; levels: readonly number[]; requests: number }): Promise<A2ABenchResult> {
  const sim = await startArgoCdSimulator({ token: TOKEN });
  const { child, url } = await spawnUntilListening(
    [...options.nodeArgs, options.cli, 'agent', 'argocd', '--port', '0', '--argocd-url', sim.url, '--argocd-token', TOKEN, '--log-level', 'info'],
    'A2A agent listening',
  );
  try {
    const rows: A2ABenchRow[] = [];
    for (const concurrency of options.levels) {
      const latencies: number[] = [];
      let failures = 0;
      let issued = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          const client = await new ClientFactory().createFromUrl(url);
          const contextId = randomUUID();
          for (let turn = 0; issued < options.requests; turn += 1) {
            issued += 1;
            const text = turn % 2 === 0 ? 'list all applications' : 'next page';
            const t0 = performance.now();
            try {
              const reply = await client.sendMessage(textRequest(text, contextId));
              if (!JSON.stringify(reply).includes('Page ')) failures += 1;
            } catch {
              failures += 1;
            }
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      rows.push({ concurrency, requests: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), perSecond: latencies.length / seconds, failures });
    }
    return { rows, peakRssMiB: (await rssOf(child.pid ?? 0)).peak };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    await sim.close();
  }
}
