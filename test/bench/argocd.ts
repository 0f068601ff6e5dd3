import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { APPLICATION_LIST_FIELDS } from '@flotilla/agent-argocd';
import { measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { startArgoCdSimulator, type RunningSimulator } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';
import { cpuMsOf, rssOf, spawnUntilListening } from './process.js';

export interface ArgoBenchRow {
  readonly applications: number;
  readonly unprojectedBytes: number;
  readonly projectedBytes: number;
  readonly fetchedBytes: number;
  readonly upstreamRequests: number;
  readonly toolCalls: number;
  readonly largestResultTokens: number;
  readonly budgetTokens: number;
  readonly itemsPaged: number;
  readonly peakRssMiB: number;
  readonly baselineRssMiB: number;
  /** RSS `idleAfterMs` after the paging ended (when asked for). */
  readonly idleRssMiB?: number;
  /** CPU (user + system) of the MCP server per tool call while the clients list and page. */
  readonly cpuMsPerCall: number;
  readonly seconds: number;
}

export interface ArgoBenchOptions {
  readonly cli: string;
  readonly applications: number;
  readonly clients: number;
  readonly budgetTokens: number;
  readonly counter: TokenCounter;
  /** Extra node flags for the MCP server process (e.g. a heap limit, or --cpu-prof to profile it). */
  readonly serverNodeArgs: readonly string[];
  /** When given, the server's RSS is read again after this long without a request, its clients gone (`idleRssMiB`). */
  readonly idleAfterMs?: number;
}

const TOKEN = 'bench-token-0123456789';

async function bytesOf(sim: RunningSimulator, path: string): Promise<number> {
  sim.resetStats();
  const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  await response.arrayBuffer();
  return sim.stats().bytesSent;
}

function bodyOf(result: BoundedToolResult): Record<string, unknown> {
  const first = result.content[0];
  return JSON.parse(first?.type === 'text' ? first.text : '{}') as Record<string, unknown>;
}

/**
 * One estate: unprojected vs projected bytes, then `clients` concurrent MCP clients that each ask
 * list_applications for everything and page through the whole stored result with read_result (as the tool's
 * next_step tells a model to), while a second wave asks list_applications with `clients` different filters at
 * once. The MCP server runs in its own process; its peak RSS (VmHWM) is the figure.
 */
export async function benchArgoCd(options: ArgoBenchOptions): Promise<ArgoBenchRow> {
  const sim = await startArgoCdSimulator({ token: TOKEN, estate: { applications: options.applications } });
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-bench-'));
  const unprojectedBytes = await bytesOf(sim, '/api/v1/applications');
  const projectedBytes = await bytesOf(sim, `/api/v1/applications?fields=${APPLICATION_LIST_FIELDS.join(',')}`);
  // The MCP server in its own process, so its memory is measured alone.
  const { child, url: mcpUrl } = await spawnUntilListening(
    [...options.serverNodeArgs, options.cli, 'mcp', 'argocd', '--port', '0', '--argocd-url', sim.url, '--argocd-token', TOKEN, '--data-dir', dataDir, '--budget-tokens', String(options.budgetTokens), '--log-level', 'info'],
    'Argo CD MCP server listening',
  );
  const pid = child.pid ?? 0;
  const clients: Client[] = [];
  try {
    const baseline = await rssOf(pid);
    for (let i = 0; i < options.clients; i += 1) {
      const client = new Client({ name: `bench-${i}`, version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', mcpUrl)));
      clients.push(client);
    }
    sim.resetStats();
    const cpuBefore = await cpuMsOf(pid);
    const started = performance.now();
    let toolCalls = 0;
    let largest = 0;
    let itemsPaged = 0;
    const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = (await client.callTool({ name, arguments: args })) as BoundedToolResult;
      toolCalls += 1;
      largest = Math.max(largest, measureToolResult(result, options.counter).tokens);
      const body = bodyOf(result);
      if (result.isError === true) throw new Error(`${name} failed: ${String(body.message)}`);
      return body;
    };
    const filters = [{}, { sync_status: 'OutOfSync' }, { health_status: 'Degraded' }, { sync_status: 'Synced' }, { health_status: 'Healthy' }, { name_contains: 'api' }, { name_contains: 'prod' }, { health_status: 'Progressing' }, { sync_status: 'Unknown' }, { name_contains: 'web' }];
    await Promise.all(clients.map((client, i) => call(client, 'list_applications', { ...filters[i % filters.length], limit: 100 })));
    await Promise.all(
      clients.map(async (client) => {
        const first = await call(client, 'list_applications', { limit: 100 });
        const total = Number(first.total);
        let seen = Number(first.returned);
        let offset = first.next_offset as number | null;
        const resultId = String(first.result_id);
        for (let guard = 0; offset !== null && guard < total + 1; guard += 1) {
          const page = await call(client, 'read_result', { result_id: resultId, offset, limit: 500 });
          seen += Number(page.returned);
          offset = page.next_offset as number | null;
        }
        if (seen !== total) throw new Error(`paged ${seen} of ${total} applications`);
        itemsPaged += seen;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuMsPerCall = ((await cpuMsOf(pid)) - cpuBefore) / Math.max(1, toolCalls);
    const stats = sim.stats();
    const rss = await rssOf(pid);
    let idleRssMiB: number | undefined;
    if (options.idleAfterMs !== undefined) {
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, options.idleAfterMs));
      idleRssMiB = (await rssOf(pid)).now;
    }
    return {
      applications: options.applications,
      unprojectedBytes,
      projectedBytes,
      fetchedBytes: stats.bytesSent,
      upstreamRequests: stats.requests,
      toolCalls,
      largestResultTokens: largest,
      budgetTokens: options.budgetTokens,
      itemsPaged,
      peakRssMiB: rss.peak,
      baselineRssMiB: baseline.now,
      ...(idleRssMiB === undefined ? {} : { idleRssMiB }),
      cpuMsPerCall,
      seconds,
    };
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
