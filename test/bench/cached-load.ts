import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { a2aClientFactory, textRequest } from '@flotilla/agent-kit';
import { cpuMsOf, rssOf } from './process.js';

/**
 * The load generator of the lean suite's cached figure, run as its own process (`node cached-load.js <job JSON>`,
 * the row as JSON on stdout): the bench process holds the estates of the other figures, and its collections
 * (150 ms at ~175 MiB) would pause the clients and show as the agent's latency.
 */

/** The question of the cached figure: simple, and the same for every client. */
export const CACHED_QUESTION = 'which apps are out of sync in prod';

/**
 * Who asks in the cached figure. The agent and the load generator share the machine's two cores, so a heavier client
 * takes CPU from the agent: the official SDK client as the supervisor and `flotilla ask` make it (over keepAliveFetch;
 * over Node 20's built-in fetch it spent as much CPU per request as the agent) spends about half of the agent's; a
 * plain HTTP/1.1 keep-alive client sending the same JSON-RPC `SendMessage` (what a load tool would send) less still.
 * Both check every answer.
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
  /** The agent's peak RSS so far (VmHWM: this row and the rows before it against the same process). */
  readonly agentPeakRssMiB: number;
}

/**
 * Untimed questions each client asks before the timed ones: its connection set up, the agent's code compiled to its
 * optimised tiers (V8 optimises a function after it has run hot for a while) and its young generation grown to its
 * working size, as in a long-running agent. 10 rounds (500 questions) were not enough on two busy cores: the first
 * 5,000 timed answers of a fresh agent then had a p99 of 63-101 ms, and the next 5,000 of the same agent 52-62 ms.
 */
export const CACHED_WARMUP_ROUNDS = 40;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** Asks the cached question once, resolving to whether the answer came back (and lists OutOfSync applications). */
type Ask = () => Promise<boolean>;

interface Askers {
  readonly askers: readonly Ask[];
  /** Lets go of the connections. */
  readonly close: () => void;
}

/** Askers over the official SDK client as the supervisor and `flotilla ask` make it (over keepAliveFetch), one per simulated client. */
async function sdkAskers(url: string, clients: number): Promise<Askers> {
  const factory = a2aClientFactory(undefined);
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
async function cachedRow(client: CachedClient, url: string, pid: number, clients: number, requests: number, warmupRounds: number): Promise<CachedRow> {
  const { askers, close } = client === 'a2a-js SDK client' ? await sdkAskers(url, clients) : plainAskers(url, clients);
  try {
    for (let round = 0; round < warmupRounds; round += 1) await Promise.all(askers.map((ask) => ask().catch(() => false)));
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
      agentPeakRssMiB: (await rssOf(pid)).peak,
    };
  } finally {
    close();
  }
}

/** What the lean suite asks of this process. */
export interface CachedJob {
  readonly client: CachedClient;
  readonly url: string;
  /** The agent's process, for its CPU time. */
  readonly pid: number;
  readonly clients: number;
  readonly requests: number;
  /** Untimed rounds first (CACHED_WARMUP_ROUNDS by default). */
  readonly warmupRounds?: number;
}

// Run as a script (not when the lean suite imports this module for its types and constants).
const job = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href ? process.argv[2] : undefined;
if (job !== undefined) {
  const { client, url, pid, clients, requests, warmupRounds } = JSON.parse(job) as CachedJob;
  process.stdout.write(`${JSON.stringify(await cachedRow(client, url, pid, clients, requests, warmupRounds ?? CACHED_WARMUP_ROUNDS))}\n`);
}
