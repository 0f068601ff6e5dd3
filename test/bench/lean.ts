import { randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { startArgoCdSimulator, startNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { benchArgoCd } from './argocd.js';
import { rssOf, spawnUntilListening } from './process.js';

/** Issue 19's goals, each measured by this suite in one run. */
export const LEAN_GOALS = {
  idleRssMiB: 100,
  pagingPeakRssMiB: 200,
  cachedP99Ms: 100,
  cachedPerSecond: 500,
  cpuMsPerPage: 3,
} as const;

const TOKEN = 'bench-lean-token-0123456789';
/** The question of the cached-answer figure: simple, and the same for every client. */
export const CACHED_QUESTION = 'which apps are out of sync in prod';

export interface IdleRow {
  readonly piece: string;
  /** Once start-up has settled (three readings 500 ms apart within 1 MiB). */
  readonly settledRssMiB: number;
  /** After IDLE_SECONDS without a request: what an idle pod holds (V8 gives back start-up garbage by then). */
  readonly rssMiB: number;
}

/** How long a piece sits without a request before its idle RSS is read. */
export const IDLE_SECONDS = 30;

export interface LeanResult {
  readonly cli: string;
  readonly idle: readonly IdleRow[];
  readonly paging: { readonly applications: number; readonly clients: number; readonly toolCalls: number; readonly peakRssMiB: number; readonly cpuMsPerCall: number; readonly largestResultTokens: number };
  readonly cached: { readonly clients: number; readonly answers: number; readonly p50Ms: number; readonly p99Ms: number; readonly perSecond: number; readonly failures: number };
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** Resident memory once start-up has settled: read every 500 ms until three readings lie within 1 MiB (15 s at most). */
async function settledRss(pid: number): Promise<number> {
  const readings: number[] = [];
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    readings.push((await rssOf(pid)).now);
    const last = readings.slice(-3);
    if (last.length === 3 && Math.max(...last) - Math.min(...last) < 1) break;
  }
  return readings[readings.length - 1] ?? Number.NaN;
}

async function idleOf(cli: string, piece: string, args: readonly string[], msg: string): Promise<IdleRow> {
  const started = Date.now();
  const { child } = await spawnUntilListening([cli, ...args, '--port', '0', '--log-level', 'info'], msg);
  try {
    const settledRssMiB = await settledRss(child.pid ?? 0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + IDLE_SECONDS * 1000 - Date.now())));
    return { piece, settledRssMiB, rssMiB: (await rssOf(child.pid ?? 0)).now };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  }
}

/**
 * Lean and fast, in one run: the idle RSS of each piece (its own process, Node's default flags, no --local, against
 * simulators in this process, IDLE_SECONDS after its start without a request; also once start-up settled); the peak RSS and the CPU per tool call (a read_result page of at most the 2,000-token
 * budget) of an Argo CD MCP server while 10 clients page all of 10,000 applications; and a cached rules answer at 50
 * concurrent A2A clients (the Argo CD agent, tools in process; each request a new conversation, the answer cached
 * after the first; each client's first request, which sets up its connection, untimed). `cli` may be another build's
 * CLI, for a before/after in one run.
 */
export async function benchLean(options: { readonly cli: string; readonly progress: (line: string) => void; readonly cachedClients?: number; readonly cachedRequests?: number }): Promise<LeanResult> {
  const argo = await startArgoCdSimulator({ token: TOKEN });
  const netbox = await startNetBoxSimulator({ token: TOKEN });
  try {
    options.progress('lean: idle RSS of each piece...\n');
    const argoArgs = ['--argocd-url', argo.url, '--argocd-token', TOKEN];
    const netboxArgs = ['--netbox-url', netbox.url, '--netbox-token', TOKEN];
    // Side by side (each its own process): every one sits IDLE_SECONDS after its start without a request.
    const idle = await Promise.all([
      idleOf(options.cli, 'Argo CD agent', ['agent', 'argocd', ...argoArgs], 'A2A agent listening'),
      idleOf(options.cli, 'NetBox agent', ['agent', 'netbox', ...netboxArgs], 'A2A agent listening'),
      idleOf(options.cli, 'Argo CD MCP server', ['mcp', 'argocd', ...argoArgs], 'Argo CD MCP server listening'),
      idleOf(options.cli, 'NetBox MCP server', ['mcp', 'netbox', ...netboxArgs], 'NetBox MCP server listening'),
    ]);

    options.progress('lean: 10 clients paging all of 10,000 applications from an Argo CD MCP server (Node defaults)...\n');
    const row = await benchArgoCd({ applications: 10_000, clients: 10, budgetTokens: 2000, counter: await loadTokenCounter(), cli: options.cli, serverNodeArgs: [] });
    const paging = { applications: row.applications, clients: 10, toolCalls: row.toolCalls, peakRssMiB: row.peakRssMiB, cpuMsPerCall: row.cpuMsPerCall, largestResultTokens: row.largestResultTokens };

    const clients = options.cachedClients ?? 50;
    const requests = options.cachedRequests ?? 1_000;
    options.progress(`lean: a cached rules answer, ${clients} concurrent A2A clients, ${requests} requests...\n`);
    const { child, url } = await spawnUntilListening([options.cli, 'agent', 'argocd', ...argoArgs, '--port', '0', '--log-level', 'info'], 'A2A agent listening');
    try {
      const factory = new ClientFactory();
      const warm = await factory.createFromUrl(url);
      await warm.sendMessage(textRequest(CACHED_QUESTION, randomUUID()));
      const latencies: number[] = [];
      let failures = 0;
      let issued = 0;
      let started = 0;
      let warmed = 0;
      let go: () => void = () => undefined;
      // Timing starts once every client has its connection: then all of them ask at once.
      const ready = new Promise<void>((resolve) => (go = resolve)).then(() => {
        if (started === 0) started = performance.now();
      });
      const warmedOne = (): void => {
        warmed += 1;
        if (warmed === clients) go();
      };
      await Promise.all(
        Array.from({ length: clients }, async () => {
          const client = await factory.createFromUrl(url);
          // One untimed request per client first: its connection set up, as a long-lived caller's is.
          await client.sendMessage(textRequest(CACHED_QUESTION, randomUUID())).catch(() => undefined);
          warmedOne();
          await ready;
          while (issued < requests) {
            issued += 1;
            const t0 = performance.now();
            try {
              const reply = JSON.stringify(await client.sendMessage(textRequest(CACHED_QUESTION, randomUUID())));
              if (!/OutOfSync/.test(reply)) failures += 1;
            } catch {
              failures += 1;
            }
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const cached = { clients, answers: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), perSecond: latencies.length / seconds, failures };
      return { cli: options.cli, idle, paging, cached };
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
  } finally {
    await argo.close();
    await netbox.close();
  }
}

/** The suite's table, with each goal beside its figure. */
export function formatLean(r: LeanResult, markdown: (header: readonly string[], body: readonly (readonly string[])[]) => string): string {
  const mark = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  const rows: string[][] = [
    ...r.idle.map((i) => [`idle RSS after ${IDLE_SECONDS} s, ${i.piece} (settled after start: ${i.settledRssMiB.toFixed(1)} MiB)`, `${i.rssMiB.toFixed(1)} MiB`, `<= ${LEAN_GOALS.idleRssMiB} MiB`, mark(i.rssMiB <= LEAN_GOALS.idleRssMiB)]),
    [`peak RSS, ${r.paging.clients} clients paging ${r.paging.applications.toLocaleString('en-US')} applications (MCP server)`, `${r.paging.peakRssMiB.toFixed(1)} MiB`, `<= ${LEAN_GOALS.pagingPeakRssMiB} MiB`, mark(r.paging.peakRssMiB <= LEAN_GOALS.pagingPeakRssMiB)],
    [`CPU per tool call while paging (${r.paging.toolCalls} calls, largest ${r.paging.largestResultTokens} tokens)`, `${r.paging.cpuMsPerCall.toFixed(2)} ms`, `<= ${LEAN_GOALS.cpuMsPerPage} ms`, mark(r.paging.cpuMsPerCall <= LEAN_GOALS.cpuMsPerPage)],
    [`cached rules answer, ${r.cached.clients} clients: p50 / p99`, `${r.cached.p50Ms.toFixed(1)} / ${r.cached.p99Ms.toFixed(1)} ms`, `p99 <= ${LEAN_GOALS.cachedP99Ms} ms`, mark(r.cached.p99Ms <= LEAN_GOALS.cachedP99Ms)],
    [`cached rules answer, ${r.cached.clients} clients: throughput (${r.cached.failures} failed of ${r.cached.answers})`, `${r.cached.perSecond.toFixed(0)} answers/s`, `>= ${LEAN_GOALS.cachedPerSecond}/s`, mark(r.cached.perSecond >= LEAN_GOALS.cachedPerSecond && r.cached.failures === 0)],
  ];
  return `\nLean and fast (${r.cli}):\n${markdown(['figure', 'measured', 'goal', ''], rows)}`;
}
