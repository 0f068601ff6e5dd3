import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { startArgoCdSimulator, startNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { benchArgoCd } from './argocd.js';
import { cpuMsOf, rssOf, spawnUntilListening } from './process.js';

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
  /** One row per load generator, in the order run, against the same agent process. */
  readonly cached: readonly CachedRow[];
}

/**
 * Who asks in the cached figure. The agent and the load generator share the machine's two cores, so a heavier client
 * takes CPU from the agent: the official SDK client (what the supervisor and `flotilla ask` use) spends about as much
 * CPU per request as the agent; a plain HTTP/1.1 keep-alive client sending the same JSON-RPC `SendMessage` (what a load
 * tool would send) spends a quarter of it. Both check every answer.
 */
export type CachedClient = 'a2a-js SDK client' | 'plain HTTP client';

export interface CachedRow {
  readonly client: CachedClient;
  readonly clients: number;
  readonly answers: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly perSecond: number;
  readonly failures: number;
  /** CPU time (user + system) per answer: the agent's, and the load generator's own. */
  readonly agentCpuMs: number;
  readonly clientCpuMs: number;
}

/**
 * Untimed questions each client asks before the timed ones: its connection set up and the agent's code compiled to its
 * optimised tiers (V8 optimises a function after it has run hot for a while), as in a long-running agent.
 */
export const CACHED_WARMUP_ROUNDS = 10;

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

/** Asks the cached question once, resolving to whether the answer came back (and lists OutOfSync applications). */
type Ask = () => Promise<boolean>;

interface Askers {
  readonly askers: readonly Ask[];
  /** Lets go of the connections. */
  readonly close: () => void;
}

/** Askers over the official SDK client, one per simulated client, each with its own connection. */
async function sdkAskers(url: string, clients: number): Promise<Askers> {
  const factory = new ClientFactory();
  const askers = await Promise.all(
    Array.from({ length: clients }, async (): Promise<Ask> => {
      const client = await factory.createFromUrl(url);
      return async () => /OutOfSync/.test(JSON.stringify(await client.sendMessage(textRequest(CACHED_QUESTION, randomUUID()))));
    }),
  );
  return { askers, close: () => undefined };
}

/** Most bytes of a reply the plain client reads (a cached answer is a few KiB). */
const PLAIN_REPLY_MAX_BYTES = 1024 * 1024;

/**
 * Askers over plain HTTP/1.1 with keep-alive: the JSON-RPC `SendMessage` the SDK client sends (A2A 1.0), the reply
 * read whole (bounded) and checked to be a JSON-RPC result that lists OutOfSync applications.
 */
function plainAskers(url: string, clients: number): Askers {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const target = new URL('/a2a/jsonrpc', url);
  const ask: Ask = () =>
    new Promise<boolean>((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), contextId: randomUUID(), role: 'ROLE_USER', parts: [{ text: CACHED_QUESTION, mediaType: 'text/plain' }] }, configuration: {} },
      });
      const req = request(target, { method: 'POST', agent, headers: { 'a2a-version': '1.0', 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > PLAIN_REPLY_MAX_BYTES) res.destroy(new Error(`a reply over ${PLAIN_REPLY_MAX_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          try {
            const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown };
            resolve(res.statusCode === 200 && reply.result !== undefined && /OutOfSync/.test(JSON.stringify(reply.result)));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  return { askers: Array.from({ length: clients }, () => ask), close: () => agent.destroy() };
}

/**
 * One cached-answer figure: `clients` askers each ask CACHED_WARMUP_ROUNDS times untimed (together, round by round),
 * then all of them at once until `requests` answers are timed. Each request is a new conversation; the answer is cached
 * after the first. CPU per answer is read for the agent (/proc) and for this process (the load generator).
 */
async function cachedRow(client: CachedClient, url: string, pid: number, clients: number, requests: number): Promise<CachedRow> {
  const { askers, close } = client === 'a2a-js SDK client' ? await sdkAskers(url, clients) : plainAskers(url, clients);
  try {
    for (let round = 0; round < CACHED_WARMUP_ROUNDS; round += 1) await Promise.all(askers.map((ask) => ask().catch(() => false)));
    const latencies: number[] = [];
    let failures = 0;
    let issued = 0;
    const agentCpu = await cpuMsOf(pid);
    const ownCpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      askers.map(async (ask) => {
        while (issued < requests) {
          issued += 1;
          const t0 = performance.now();
          const ok = await ask().catch(() => false);
          if (!ok) failures += 1;
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const own = process.cpuUsage(ownCpu);
    const agentCpuMs = ((await cpuMsOf(pid)) - agentCpu) / latencies.length;
    latencies.sort((a, b) => a - b);
    return {
      client,
      clients,
      answers: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      perSecond: latencies.length / seconds,
      failures,
      agentCpuMs,
      clientCpuMs: (own.user + own.system) / 1000 / latencies.length,
    };
  } finally {
    close();
  }
}

/**
 * Lean and fast, in one run: the idle RSS of each piece (its own process, Node's default flags, no --local, against
 * simulators in this process, IDLE_SECONDS after its start without a request; also once start-up settled); the peak
 * RSS and the CPU per tool call (a read_result page of at most the 2,000-token budget) of an Argo CD MCP server while
 * 10 clients page all of 10,000 applications; and a cached rules answer at 50 concurrent A2A clients (the Argo CD
 * agent, tools in process; each request a new conversation, the answer cached after the first; CACHED_WARMUP_ROUNDS
 * untimed first), asked by the official SDK client and by a plain HTTP client (see CachedClient). `cli` may be another
 * build's CLI, for a before/after.
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
    const requests = options.cachedRequests ?? 5_000;
    const { child, url } = await spawnUntilListening([options.cli, 'agent', 'argocd', ...argoArgs, '--port', '0', '--log-level', 'info'], 'A2A agent listening');
    try {
      const cached: CachedRow[] = [];
      for (const client of ['a2a-js SDK client', 'plain HTTP client'] as const) {
        options.progress(`lean: a cached rules answer, ${clients} concurrent clients (${client}), ${CACHED_WARMUP_ROUNDS} untimed rounds, then ${requests} requests...\n`);
        cached.push(await cachedRow(client, url, child.pid ?? 0, clients, requests));
      }
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
    ...r.cached.flatMap((c) => [
      [`cached rules answer, ${c.clients} clients, ${c.client}: p50 / p99`, `${c.p50Ms.toFixed(1)} / ${c.p99Ms.toFixed(1)} ms`, `p99 <= ${LEAN_GOALS.cachedP99Ms} ms`, mark(c.p99Ms <= LEAN_GOALS.cachedP99Ms)],
      [
        `cached rules answer, ${c.clients} clients, ${c.client}: throughput (${c.failures} failed of ${c.answers}; CPU per answer: agent ${c.agentCpuMs.toFixed(2)} ms, load generator ${c.clientCpuMs.toFixed(2)} ms)`,
        `${c.perSecond.toFixed(0)} answers/s`,
        `>= ${LEAN_GOALS.cachedPerSecond}/s`,
        mark(c.perSecond >= LEAN_GOALS.cachedPerSecond && c.failures === 0),
      ],
    ]),
  ];
  return `\nLean and fast (${r.cli}):\n${markdown(['figure', 'measured', 'goal', ''], rows)}`;
}
