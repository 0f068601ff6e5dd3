import { FlotillaError } from '@flotilla/core';
import type { Command, CommandListing } from '../cli.js';
import { DOMAIN_AGENTS } from './registry.js';

/** A command of the list: its words and summary, and how to load the rest. */
export interface CatalogueEntry extends CommandListing {
  /** Imports the command's own module, and with it only the packages that command runs. */
  load(): Promise<Command>;
}

/**
 * Every `flotilla` command, in the order `--help` lists them; `agent`, `sim` and `mcp` commands come from the registry
 * of domain agents (DOMAIN_AGENTS). A command's module is imported only when it runs, so `flotilla mcp argocd` loads
 * no agent (LangGraph, the model clients), simulator, Slack bot or Kubernetes client.
 */
export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    path: ['up'],
    summary: `Start the platform: the supervisor with the ${DOMAIN_AGENTS.map((e) => e.title).join(' and ')} agents (simulators unless upstreams are given)`,
    load: async () => (await import('./up.js')).upCommand,
  },
  {
    path: ['demo'],
    summary: `Run the local demo: simulators + MCP servers + ${DOMAIN_AGENTS.map((e) => e.title).join(' and ')} agents + the supervisor + scripted conversations`,
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    path: ['supervisor'],
    summary: 'Start the supervisor (A2A): routes questions to domain agents by their skills, in parallel across domains',
    load: async () => (await import('./supervisor.js')).supervisorCommand,
  },
  {
    path: ['slack'],
    summary: 'Start the Slack bot: mentions and direct messages go to the supervisor over A2A, answers come back in the thread',
    load: async () => (await import('./slack.js')).slackCommand,
  },
  ...DOMAIN_AGENTS.map((entry) => ({ path: ['agent', entry.name], summary: entry.agent.summary, load: async () => (await import('./domain.js')).agentCommand(entry) })),
  {
    path: ['ask'],
    summary: 'Ask an agent a question over A2A and stream the answer',
    load: async () => (await import('./ask.js')).askCommand,
  },
  ...DOMAIN_AGENTS.map((entry) => ({ path: ['sim', entry.name], summary: entry.sim.summary, load: () => entry.sim.load() })),
  {
    path: ['sim', 'kubernetes'],
    summary: 'Start the Kubernetes API simulator (Services: list and watch with label selectors), for supervisor discovery',
    load: async () => (await import('./sim-kubernetes.js')).simKubernetesCommand,
  },
  {
    path: ['sim', 'openai'],
    summary: 'Start a fake OpenAI API (Chat Completions, streaming, its errors): a scripted stand-in, not a model',
    load: async () => (await import('./sim-llm.js')).simOpenAiCommand,
  },
  {
    path: ['sim', 'anthropic'],
    summary: 'Start a fake Anthropic API (Messages, streaming, its errors): a scripted stand-in, not a model',
    load: async () => (await import('./sim-llm.js')).simAnthropicCommand,
  },
  ...DOMAIN_AGENTS.map((entry) => ({ path: ['mcp', entry.name], summary: entry.mcp.summary, load: async () => (await import('./domain.js')).mcpCommand(entry) })),
];

/** The words and summary of the catalogued command `words` (e.g. 'mcp argocd'): what its module's definition starts with. */
export function listing(words: string): CommandListing {
  const entry = CATALOGUE.find((e) => e.path.join(' ') === words);
  if (entry === undefined) throw new FlotillaError('internal', `the command "${words}" is not in the catalogue`);
  return { path: entry.path, summary: entry.summary };
}
