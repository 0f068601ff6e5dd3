import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { APPLICATION_LIST_FIELDS, ARGOCD_MCP_SETTINGS, startArgoCdMcpServer } from '@flotilla/agent-argocd';
import { LIMITS, measureToolResult, type BoundedToolResult } from '@flotilla/bounded-tools';
import { boundedInt, BooleanFlagSchema, LogLevelSchema, parseSettings } from '@flotilla/core';
import { ARGO_ESTATE_DEFAULTS, startArgoCdSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { defineCommand, type Output } from '../cli.js';

export const DEMO_SETTINGS = {
  applications: {
    flag: 'applications',
    env: 'FLOTILLA_DEMO_APPLICATIONS',
    schema: boundedInt(1, 100_000).default(ARGO_ESTATE_DEFAULTS.applications),
    help: 'Applications in the simulated Argo CD estate',
  },
  seed: { flag: 'seed', env: 'FLOTILLA_SIM_SEED', schema: boundedInt(0, 2 ** 31 - 1).default(ARGO_ESTATE_DEFAULTS.seed), help: 'Seed of the estate' },
  budgetTokens: {
    flag: 'budget-tokens',
    env: 'FLOTILLA_TOOL_BUDGET_TOKENS',
    schema: boundedInt(LIMITS.budgetMin, LIMITS.budgetMax).default(LIMITS.budgetDefault),
    help: 'Token budget of every tool result',
  },
  keepRunning: {
    flag: 'keep-running',
    env: 'FLOTILLA_DEMO_KEEP_RUNNING',
    schema: BooleanFlagSchema.default(false),
    help: 'Leave the simulator and MCP server up after the script (Ctrl-C stops them)',
  },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('warn'), help: 'Log level of the servers' },
} as const;

interface Step {
  readonly question: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** Follow-up arguments computed from the previous answer (e.g. a result_id). */
  readonly from?: (previous: Record<string, unknown>) => Record<string, unknown>;
}

const SCRIPT: readonly Step[] = [
  { question: 'How many applications are out of sync, and in which projects?', tool: 'list_applications', args: { sync_status: 'OutOfSync', limit: 5 } },
  { question: 'Anything about payments?', tool: 'search_argocd_resources', args: { query: 'payments', limit: 5 } },
  { question: 'List all applications.', tool: 'list_applications', args: { limit: 100 } },
  {
    question: 'Next page, only the degraded ones.',
    tool: 'read_result',
    args: {},
    from: (previous) => ({ result_id: previous.result_id, filter: 'health=Degraded', limit: 10 }),
  },
  { question: 'Show me the first degraded application.', tool: 'get_application', args: {}, from: (previous) => ({ name: (previous.items as { name: string }[] | undefined)?.[0]?.name ?? 'unknown' }) },
  { question: 'Which clusters do we deploy to?', tool: 'list_clusters', args: { limit: 5 } },
  { question: 'Give me 10,000 at once.', tool: 'list_applications', args: { limit: 10_000 } },
];

function textOf(result: BoundedToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** A JSON field as text for the transcript. */
const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');

function render(out: Output, body: Record<string, unknown>, isError: boolean): void {
  if (isError) {
    out.write(`  error: ${show(body.message)}\n  next:  ${show(body.remedy ?? '')}\n`);
    return;
  }
  if (typeof body.total === 'number') {
    out.write(`  total ${body.total}, returned ${String(body.returned)}${body.has_more === true ? `, next_offset ${String(body.next_offset)}` : ''}\n`);
    const counts = body.counts as Record<string, Record<string, number>> | undefined;
    for (const [dimension, values] of Object.entries(counts ?? {}).slice(0, 3)) {
      out.write(`  ${dimension}: ${Object.entries(values).slice(0, 5).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
    }
    for (const item of ((body.items as Record<string, unknown>[] | undefined) ?? []).slice(0, 5)) {
      out.write(`   - ${show(item.name)}${item.sync === undefined ? '' : ` (${show(item.sync)}, ${show(item.health)})`}${item.type === undefined ? '' : ` [${show(item.type)}]`}\n`);
    }
    if (typeof body.result_id === 'string') out.write(`  stored as ${body.result_id} (read_result pages it without asking Argo CD again)\n`);
    return;
  }
  const summary = body.summary as Record<string, unknown> | undefined;
  if (summary !== undefined) {
    out.write(`  ${String(summary.name)}: project ${String(summary.project)}, ${JSON.stringify(summary.sync)}, ${JSON.stringify(summary.health)}\n`);
  }
}

export const demoCommand = defineCommand({
  path: ['demo'],
  summary: 'Run the local demo: simulator + MCP server + a scripted conversation, with token figures',
  description:
    'Starts the Argo CD simulator and the Argo CD MCP server on free loopback ports, asks the scripted questions through a real\n' +
    'MCP client over HTTP, and prints each answer with its size in tokens and bytes against the budget. Needs no network and no key.',
  settings: DEMO_SETTINGS,
  examples: ['flotilla demo', 'flotilla demo --applications 10000 --budget-tokens 1000', 'flotilla demo --keep-running'],
  async run({ settings, logger, out }) {
    const token = randomBytes(16).toString('hex');
    const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-demo-'));
    const sim = await startArgoCdSimulator({ token, estate: { seed: settings.seed, applications: settings.applications }, logger: logger.child({ component: 'argocd-sim' }) });
    const mcpConfig = parseSettings(
      ARGOCD_MCP_SETTINGS,
      { port: '0', 'argocd-url': sim.url, 'argocd-token': token, 'data-dir': dataDir, 'budget-tokens': String(settings.budgetTokens), 'log-level': settings.logLevel },
      {},
      'demo MCP server',
    );
    const mcp = await startArgoCdMcpServer(mcpConfig, { logger });
    const client = new Client({ name: 'flotilla-demo', version: '0.1.0' });
    const stopAll = async (): Promise<void> => {
      await client.close();
      await mcp.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    };
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp.mcpUrl)));
      const counter = await loadTokenCounter(mcpConfig.tokenEncoding);
      out.write(`Flotilla demo: Argo CD simulator at ${sim.url} (${settings.applications} applications), MCP server at ${mcp.mcpUrl}\n`);
      out.write(`Every tool result is held to ${settings.budgetTokens} tokens.\n\n`);
      const rows: string[][] = [];
      let previous: Record<string, unknown> = {};
      for (const step of SCRIPT) {
        const args = { ...step.args, ...(step.from?.(previous) ?? {}) };
        out.write(`> ${step.question}\n  ${step.tool} ${JSON.stringify(args)}\n`);
        const result = (await client.callTool({ name: step.tool, arguments: args })) as BoundedToolResult;
        const size = measureToolResult(result, counter);
        const body = JSON.parse(textOf(result) || '{}') as Record<string, unknown>;
        render(out, body, result.isError === true);
        out.write(`  [${size.tokens} tokens, ${size.bytes} bytes${result.isError === true ? ', isError' : ''}]\n\n`);
        rows.push([step.tool, String(size.tokens), String(size.bytes), result.isError === true ? 'error' : 'ok']);
        if (result.isError !== true) previous = body;
      }
      const conversation = sim.stats();
      const listBytes = async (query: string): Promise<number> => {
        sim.resetStats();
        const raw = await fetch(`${sim.url}/api/v1/applications${query}`, { headers: { authorization: `Bearer ${token}` } });
        await raw.arrayBuffer();
        return sim.stats().bytesSent;
      };
      const unprojected = await listBytes('');
      const projected = await listBytes(`?fields=${APPLICATION_LIST_FIELDS.join(',')}`);
      out.write('tool                      tokens   bytes  outcome\n');
      for (const [tool, tokens, bytes, outcome] of rows) {
        out.write(`${(tool ?? '').padEnd(24)}${(tokens ?? '').padStart(8)}${(bytes ?? '').padStart(8)}  ${outcome ?? ''}\n`);
      }
      out.write(`\nLargest result: ${Math.max(...rows.map((r) => Number(r[1])))} tokens (budget ${settings.budgetTokens}).\n`);
      const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
      out.write(
        `Argo CD answered ${conversation.requests} requests (${kib(conversation.bytesSent)}) for the whole conversation. ` +
          `An application list costs ${kib(projected)} with the projection Flotilla asks for, ${kib(unprojected)} without it; ` +
          'either way it is parsed item by item and never reaches the model whole.\n',
      );
      if (!settings.keepRunning) {
        await stopAll();
        return undefined;
      }
      out.write(`\nStill running (Ctrl-C stops): Argo CD simulator ${sim.url} (token ${token}), MCP ${mcp.mcpUrl}\n`);
      return { close: stopAll };
    } catch (error) {
      await stopAll();
      throw error;
    }
  },
});
