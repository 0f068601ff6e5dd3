import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { ARGOCD_AGENT_SETTINGS, ARGOCD_MCP_SETTINGS, startArgoCdAgent, startArgoCdMcpServer } from '@flotilla/agent-argocd';
import { WORKFLOW_LIMITS } from '@flotilla/agent-kit';
import { LIMITS } from '@flotilla/bounded-tools';
import { boundedInt, BooleanFlagSchema, LogLevelSchema, parseSettings } from '@flotilla/core';
import { ARGO_ESTATE_DEFAULTS, generateArgoEstate, startArgoCdSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { defineCommand } from '../cli.js';
import { askAgent } from './ask.js';

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
    help: 'Leave the simulator, MCP server and agent up after the script (Ctrl-C stops them)',
    isSwitch: true,
  },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('warn'), help: 'Log level of the servers' },
} as const;

/** The scripted conversation: one A2A conversation (contextId), as a person would type it. */
const SCRIPT: readonly string[] = [
  'list all applications',
  'next page',
  'only the out-of-sync ones',
  'which apps are out of sync in prod?',
  'find ledger',
  'what needs attention?',
  'status of {degraded}',
  'list clusters',
  'restart the payments pods',
];

/** A metadata value as text for the transcript. */
const show = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

export const demoCommand = defineCommand({
  path: ['demo'],
  summary: 'Run the local demo: simulator + MCP server + Argo CD agent + a scripted conversation over A2A',
  description:
    'Starts the Argo CD simulator, the Argo CD MCP server and the Argo CD agent on free loopback ports, holds a 9-turn conversation\n' +
    'with the agent through the official A2A client, and prints each answer with its size in tokens. No network, no key.',
  settings: DEMO_SETTINGS,
  examples: ['flotilla demo', 'flotilla demo --applications 10000 --budget-tokens 1000', 'flotilla demo --keep-running'],
  async run({ settings, logger, out }) {
    const token = randomBytes(16).toString('hex');
    const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-demo-'));
    const estate = generateArgoEstate({ seed: settings.seed, applications: settings.applications });
    const sim = await startArgoCdSimulator({ token, estate, logger: logger.child({ component: 'argocd-sim' }) });
    const mcpConfig = parseSettings(
      ARGOCD_MCP_SETTINGS,
      { port: '0', 'argocd-url': sim.url, 'argocd-token': token, 'data-dir': dataDir, 'budget-tokens': String(settings.budgetTokens), 'log-level': settings.logLevel },
      {},
      'demo MCP server',
    );
    const mcp = await startArgoCdMcpServer(mcpConfig, { logger });
    const agentConfig = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'mcp-url': mcp.mcpUrl, 'log-level': settings.logLevel }, {}, 'demo agent');
    const agent = await startArgoCdAgent(agentConfig, logger);
    const stopAll = async (): Promise<void> => {
      await agent.close();
      await mcp.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    };
    try {
      const counter = await loadTokenCounter(mcpConfig.tokenEncoding);
      out.write(`Flotilla demo: Argo CD simulator ${sim.url} (${settings.applications} applications) -> MCP server ${mcp.mcpUrl} -> Argo CD agent ${agent.url} (A2A)\n`);
      out.write(`Every tool result is held to ${settings.budgetTokens} tokens; every answer to ${WORKFLOW_LIMITS.answerMaxTokens}.\n\n`);
      const degraded = estate.applications.find((a) => a.status.health?.status === 'Degraded')?.metadata.name ?? 'payments-api-prod';
      const contextId = randomUUID();
      const rows: string[][] = [];
      for (const template of SCRIPT) {
        const question = template.replace('{degraded}', degraded);
        out.write(`> ${question}\n`);
        const { answer, metadata } = await askAgent(agent.url, question, contextId, out);
        const tokens = counter.count(answer);
        out.write(`${answer.split('\n').map((line) => `  ${line}`).join('\n')}\n`);
        out.write(`  [${tokens} tokens, intent ${show(metadata.intent)}, path ${show(metadata.strategy)}, ${show(metadata.tool_calls)} tool calls]\n\n`);
        rows.push([question, show(metadata.intent), show(metadata.strategy), String(tokens)]);
      }
      out.write('question                                   intent                path               tokens\n');
      for (const [question, intent, path, tokens] of rows) {
        out.write(`${(question ?? '').slice(0, 40).padEnd(43)}${(intent ?? '').padEnd(22)}${(path ?? '').padEnd(19)}${(tokens ?? '').padStart(6)}\n`);
      }
      const conversation = sim.stats();
      out.write(
        `\nArgo CD answered ${conversation.requests} requests (${(conversation.bytesSent / 1024).toFixed(0)} KiB, projected and parsed item by item) for ${SCRIPT.length} questions; ` +
          `the largest answer was ${Math.max(...rows.map((r) => Number(r[3])))} tokens.\n`,
      );
      if (!settings.keepRunning) {
        await stopAll();
        return undefined;
      }
      out.write(`\nStill running (Ctrl-C stops). Try: pnpm flotilla ask --agent ${agent.url} --question "what needs attention?"\n`);
      return { close: stopAll };
    } catch (error) {
      await stopAll();
      throw error;
    }
  },
});
