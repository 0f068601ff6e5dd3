import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { SUPERVISOR_SETTINGS, startSupervisor } from '@flotilla/agent-supervisor';
import { WORKFLOW_LIMITS } from '@flotilla/agent-kit';
import { LIMITS } from '@flotilla/bounded-tools';
import { boundedInt, BooleanFlagSchema, FlotillaError, LogLevelSchema, parseSettings } from '@flotilla/core';
import { ARGO_ESTATE_DEFAULTS, generateArgoEstate, generateNetBoxEstate, startArgoCdSimulator, startNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';
import { askAgent } from './ask.js';
import { DOMAIN_AGENTS } from './registry.js';
import type { Output } from '../cli.js';

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
  "what's wrong with {degraded}, with its logs?",
  'how many apps are in project {project}, and which are unhealthy?',
  'which apps were synced in the last 24 hours?',
  'find apps with payment in the name',
  'list clusters',
  'restart the payments pods',
];

/** The NetBox conversation: limitation handling on a 600-device estate. */
const NETBOX_SCRIPT: readonly string[] = [
  'list sites',
  'interfaces of every switch in ams1',
  'next batch',
  'only the uncabled ones',
  'summary instead',
  'just a quick look at the interfaces of every device in ams1',
  'show device ams1-sw-001',
  'free ips in {prefix}',
  'reboot ams1-sw-001',
];

/** A question that spans both domains. */
const FANOUT_QUESTION = 'which apps are out of sync in prod and which switches are offline in ams1?';

/** A metadata value as text for the transcript. */
const show = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

export const demoCommand = defineCommand({
  ...listing('demo'),
  description:
    'Starts the Argo CD and NetBox simulators, their MCP servers and agents, and the supervisor in front of them on free loopback\n' +
    'ports; holds a conversation about each domain and asks one question that needs both agents, all through the\n' +
    'supervisor with the official A2A client, and prints each answer with its size in tokens and the upstream requests it took.',
  settings: DEMO_SETTINGS,
  examples: ['flotilla demo', 'flotilla demo --applications 10000 --budget-tokens 1000', 'flotilla demo --keep-running'],
  async run({ settings, logger, out }) {
    const token = randomBytes(16).toString('hex');
    const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-demo-'));
    // Times as a live Argo CD shows them: the estate's last syncs, events and logs lead up to now.
    const estate = generateArgoEstate({ seed: settings.seed, applications: settings.applications, epoch: Date.now() });
    const sim = await startArgoCdSimulator({ token, estate, logger: logger.child({ component: 'argocd-sim' }) });
    const netbox = generateNetBoxEstate({ seed: settings.seed });
    const nbSim = await startNetBoxSimulator({ token, estate: netbox, logger: logger.child({ component: 'netbox-sim' }) });
    // Each domain agent of the registry, with its MCP server in front of its simulator, as separate pieces would run.
    const upstreams: Readonly<Record<string, string>> = { argocd: sim.url, netbox: nbSim.url };
    const settled = await Promise.allSettled(
      DOMAIN_AGENTS.map(async (entry) => {
        const [hostedMcp, hostedAgent] = await Promise.all([entry.mcp.load(), entry.agent.load()]);
        const upstream = upstreams[entry.name];
        if (upstream === undefined) throw new FlotillaError('internal', `the demo has no simulator for the ${entry.title} agent`);
        const mcpFlags = { port: '0', [`${entry.name}-url`]: upstream, [`${entry.name}-token`]: token, 'data-dir': join(dataDir, entry.name), 'budget-tokens': String(settings.budgetTokens), 'log-level': settings.logLevel };
        const mcp = await hostedMcp.startMcpServer(parseSettings(hostedMcp.settings, mcpFlags, {}, `demo ${entry.title} MCP server`), { logger });
        const agentFlags = { port: '0', 'mcp-url': mcp.mcpUrl, 'log-level': settings.logLevel };
        try {
          const agent = await hostedAgent.startAgent(parseSettings(hostedAgent.settings, agentFlags, {}, `demo ${entry.title} agent`), logger, { simulator: entry.startSimulator });
          return { name: entry.name, mcp, agent };
        } catch (error) {
          await mcp.close();
          throw error;
        }
      }),
    );
    const chains = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) {
      // One chain did not start: what did start stops, and nothing is left behind.
      await Promise.all(chains.map(async (c) => c.agent.close()));
      await Promise.all(chains.map(async (c) => c.mcp.close()));
      await Promise.all([nbSim.close(), sim.close()]);
      await rm(dataDir, { recursive: true, force: true });
      throw failed.reason;
    }
    const chain = (name: string): (typeof chains)[number] => {
      const found = chains.find((c) => c.name === name);
      if (found === undefined) throw new FlotillaError('internal', `the demo has no ${name} agent`);
      return found;
    };
    const { mcp, agent } = chain('argocd');
    const { mcp: nbMcp, agent: nbAgent } = chain('netbox');
    const supervisor = await startSupervisor(
      parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: chains.map((c) => `${c.name}=${c.agent.url}`).join(','), 'log-level': settings.logLevel }, {}, 'demo supervisor'),
      logger,
    );
    const stopAll = async (): Promise<void> => {
      // The A2A servers drain together (each up to TURN_LIMITS.drainMs), then what they called.
      await Promise.all([supervisor.close(), ...chains.map((c) => c.agent.close())]);
      await Promise.all(chains.map((c) => c.mcp.close()));
      await Promise.all([nbSim.close(), sim.close()]);
      await rm(dataDir, { recursive: true, force: true });
    };
    try {
      const counter = await loadTokenCounter();
      out.write(`Flotilla demo: every question goes to the supervisor ${supervisor.url} (A2A), which routes it by the agents' skills:\n`);
      out.write(`  Argo CD simulator ${sim.url} (${settings.applications} applications) -> MCP server ${mcp.mcpUrl} -> Argo CD agent ${agent.url}\n`);
      out.write(`  NetBox simulator ${nbSim.url} (${netbox.sites.length} sites, ${netbox.devices.length} devices, ${netbox.interfaces.length.toLocaleString('en-US')} interfaces) -> MCP server ${nbMcp.mcpUrl} -> NetBox agent ${nbAgent.url}\n`);
      out.write(`Every tool result is held to ${settings.budgetTokens} tokens; every answer to ${WORKFLOW_LIMITS.answerMaxTokens}.\n\n`);
      // An application whose last sync failed and that is degraded: the "what's wrong" question has a cause to find.
      const broken = (a: (typeof estate.applications)[number]): boolean => a.status.health?.status === 'Degraded' && a.status.operationState?.phase === 'Failed';
      const failing = estate.applications.find((a) => a.metadata.name === 'payments-api-prod' && broken(a)) ?? estate.applications.find(broken);
      const degraded = failing?.metadata.name ?? 'payments-api-prod';
      const project = failing?.spec.project ?? 'default';
      const resetUpstreams = (): void => {
        sim.resetStats();
        nbSim.resetStats();
      };
      const upstreamRequests = (): number => sim.stats().requests + nbSim.stats().requests;
      const rows = await converse(SCRIPT.map((q) => q.replace('{degraded}', degraded).replace('{project}', project)), supervisor.url, out, counter, resetUpstreams, upstreamRequests);
      const argoRequests = rows.reduce((sum, r) => sum + r.upstream, 0);
      out.write(`\nArgo CD answered ${argoRequests} requests for ${SCRIPT.length} questions; the largest answer was ${Math.max(...rows.map((r) => r.tokens))} tokens.\n\n`);

      const prefix = netbox.prefixes.find((p) => p.prefix.endsWith('/24') && p.status.value === 'active')?.prefix ?? '10.1.0.0/24';
      const nbRows = await converse(NETBOX_SCRIPT.map((q) => q.replace('{prefix}', prefix)), supervisor.url, out, counter, resetUpstreams, upstreamRequests);
      const nbRequests = nbRows.reduce((sum, r) => sum + r.upstream, 0);
      out.write(
        `\nNetBox answered ${nbRequests} requests for ${NETBOX_SCRIPT.length} questions (one request per device would have taken ${1 + netbox.devices.filter((d) => d.site.slug === 'ams1' && d.role.slug === 'switch').length} for the second one alone); ` +
          `the largest answer was ${Math.max(...nbRows.map((r) => r.tokens))} tokens.\n`,
      );
      out.write('\nA question for both agents: the supervisor asks them in parallel and keeps both answers.\n\n');
      await converse([FANOUT_QUESTION], supervisor.url, out, counter, resetUpstreams, upstreamRequests);
      if (!settings.keepRunning) {
        await stopAll();
        return undefined;
      }
      out.write(`\nStill running (Ctrl-C stops). Try: pnpm flotilla ask --agent ${supervisor.url} "interfaces of every switch in ams1"\n`);
      return { close: stopAll };
    } catch (error) {
      await stopAll();
      throw error;
    }
  },
});

interface TurnRow {
  readonly question: string;
  readonly agent: string;
  readonly intent: string;
  readonly path: string;
  readonly tokens: number;
  /** Requests the upstream (simulator) answered for this turn. */
  readonly upstream: number;
}

/** One conversation (one contextId) with an agent; prints every answer and a summary table. */
async function converse(
  questions: readonly string[],
  agentUrl: string,
  out: Output,
  counter: TokenCounter,
  resetUpstream: () => void,
  upstreamRequests: () => number,
): Promise<TurnRow[]> {
  const contextId = randomUUID();
  const rows: TurnRow[] = [];
  for (const question of questions) {
    out.write(`> ${question}\n`);
    resetUpstream();
    const { answer, metadata } = await askAgent(agentUrl, question, contextId, out);
    const tokens = counter.count(answer);
    const upstream = upstreamRequests();
    out.write(`${answer.split('\n').map((line) => `  ${line}`).join('\n')}\n`);
    // Through the supervisor, the domain agent's own metadata comes prefixed with agent_.
    const agentName = show(metadata.routed ?? '');
    const intent = show(metadata.agent_intent ?? metadata.intent ?? (metadata.path === 'fanout' ? 'several' : ''));
    const path = show(metadata.agent_strategy ?? metadata.strategy ?? metadata.path ?? '');
    out.write(`  [${tokens} tokens; agent ${agentName || 'none'}, intent ${intent}, path ${path}; ${upstream} upstream requests]\n\n`);
    rows.push({ question, agent: agentName, intent, path, tokens, upstream });
  }
  out.write('question                                   agent           intent                path               tokens  upstream\n');
  for (const r of rows) {
    out.write(`${r.question.slice(0, 40).padEnd(43)}${r.agent.slice(0, 14).padEnd(16)}${r.intent.padEnd(22)}${r.path.padEnd(19)}${String(r.tokens).padStart(6)}${String(r.upstream).padStart(10)}\n`);
  }
  return rows;
}
