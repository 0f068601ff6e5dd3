import { FlotillaError } from '@flotilla/core';
import type { Command, CommandListing } from '../cli.js';

/** A command of the list: its words and summary, and how to load the rest. */
export interface CatalogueEntry extends CommandListing {
  /** Imports the command's own module, and with it only the packages that command runs. */
  load(): Promise<Command>;
}

/**
 * Every `flotilla` command, in the order `--help` lists them. A command's module is imported only when it runs, so
 * `flotilla mcp argocd` loads no agent (LangGraph, the model clients), simulator, Slack bot or Kubernetes client.
 */
export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    path: ['up'],
    summary: 'Start the platform: the supervisor with the Argo CD and NetBox agents (simulators unless upstreams are given)',
    load: async () => (await import('./up.js')).upCommand,
  },
  {
    path: ['demo'],
    summary: 'Run the local demo: simulators + MCP servers + Argo CD and NetBox agents + the supervisor + scripted conversations',
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
  {
    path: ['agent', 'argocd'],
    summary: 'Start the Argo CD agent (A2A: agent card, JSON-RPC and REST); --local brings its own simulator',
    load: async () => (await import('./agent-argocd.js')).agentArgoCdCommand,
  },
  {
    path: ['agent', 'netbox'],
    summary: 'Start the NetBox agent (A2A); --local brings its own simulator',
    load: async () => (await import('./agent-netbox.js')).agentNetBoxCommand,
  },
  {
    path: ['ask'],
    summary: 'Ask an agent a question over A2A and stream the answer',
    load: async () => (await import('./ask.js')).askCommand,
  },
  {
    path: ['sim', 'argocd'],
    summary: 'Start the Argo CD simulator (real REST API, seeded estate, fault injection)',
    load: async () => (await import('./sim-argocd.js')).simArgoCdCommand,
  },
  {
    path: ['sim', 'netbox'],
    summary: 'Start the NetBox simulator (real REST API v4, seeded estate, rate limit, fault injection)',
    load: async () => (await import('./sim-netbox.js')).simNetBoxCommand,
  },
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
  {
    path: ['mcp', 'argocd'],
    summary: 'Start the Argo CD MCP server (bounded tools over Streamable HTTP at /mcp)',
    load: async () => (await import('./mcp-argocd.js')).mcpArgoCdCommand,
  },
  {
    path: ['mcp', 'netbox'],
    summary: 'Start the NetBox MCP server (bounded tools over Streamable HTTP at /mcp)',
    load: async () => (await import('./mcp-netbox.js')).mcpNetBoxCommand,
  },
];

/** The words and summary of the catalogued command `words` (e.g. 'mcp argocd'): what its module's definition starts with. */
export function listing(words: string): CommandListing {
  const entry = CATALOGUE.find((e) => e.path.join(' ') === words);
  if (entry === undefined) throw new FlotillaError('internal', `the command "${words}" is not in the catalogue`);
  return { path: entry.path, summary: entry.summary };
}
