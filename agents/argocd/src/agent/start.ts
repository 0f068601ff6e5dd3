import { defineDomainAgent, type DomainAgentContext, type DomainAgentStartOptions, type RunningDomainAgent } from '@flotilla/agent-host';
import type { AgentDescription } from '@flotilla/agent-kit';
import type { Logger, Settings } from '@flotilla/core';
import { domainWords } from '@flotilla/query';
import type { ArgoCdClient } from '../client/argocd-client.js';
import { ARGOCD_DOMAIN } from '../query/declare.js';
import { ARGOCD_MCP } from '../server.js';
import { ARGOCD_PROMPT } from './prompt.js';
import { createArgoCdAgent } from './agent.js';
import { ARGOCD_INTENTS, createArgoCdClassifier, type ArgoIntent } from './intents.js';
import type { ArgoMemory } from './domain.js';

export const ARGOCD_AGENT_CARD: AgentDescription = {
  name: 'Flotilla Argo CD agent',
  description: 'Answers questions about Argo CD applications, projects, application sets and clusters (read-only), within a token budget.',
  version: '0.1.0',
  skills: [
    {
      id: 'argocd-applications',
      name: 'Argo CD applications',
      description: 'List and filter applications by project, sync, health, cluster, namespace or label; show one application; page through long answers.',
      // The declared words for applications and their states (query/declare.ts): what the supervisor routes by.
      tags: [...new Set(['argocd', 'gitops', 'kubernetes', 'applications', 'apps', 'sync', 'health', ...domainWords(ARGOCD_DOMAIN, ['applications'], ['health', 'sync'])])],
      examples: ['which apps are out of sync in prod?', 'status of payments-api-prod', 'next page', 'only the degraded ones'],
    },
    {
      id: 'argocd-search',
      name: 'Argo CD search',
      description: 'Search applications, projects, application sets and clusters by name, label, repository or destination.',
      tags: ['argocd', 'search'],
      examples: ['find payments', 'anything about checkout?'],
    },
    {
      id: 'argocd-inventory',
      name: 'Argo CD inventory',
      description: 'Projects, application sets and clusters: filtered, counted, broken down, or one of them in detail; what needs attention.',
      tags: [...new Set(['argocd', 'projects', 'applicationsets', 'clusters', ...domainWords(ARGOCD_DOMAIN, ['clusters', 'projects', 'applicationsets'])])],
      examples: ['list clusters', 'list projects', 'application sets', 'what needs attention?'],
    },
  ],
};

/** The card skill each intent belongs to (a metric label); help and unknown belong to none. */
const SKILL_OF_INTENT: Readonly<Record<ArgoIntent, string>> = {
  list_applications: 'argocd-applications',
  application_details: 'argocd-applications',
  next_page: 'argocd-applications',
  search: 'argocd-search',
  attention: 'argocd-inventory',
  query: 'argocd-applications',
  query_followup: 'argocd-applications',
  help: 'none',
  unknown: 'none',
};

/** The Argo CD agent over the host: its card, classifier and agent; the host does the rest. */
export const ARGOCD_AGENT = defineDomainAgent({
  mcp: ARGOCD_MCP,
  card: ARGOCD_AGENT_CARD,
  queryDomain: ARGOCD_DOMAIN,
  skillOf: SKILL_OF_INTENT,
  // A typed query is an inventory question when it is about clusters, projects or application sets.
  skillOfTurn: (turn) => {
    const entity = (turn.data?.query as { entity?: unknown } | undefined)?.entity;
    return typeof entity === 'string' && entity !== ARGOCD_DOMAIN.defaultEntity ? 'argocd-inventory' : undefined;
  },
  port: 8092,
  prompt: ARGOCD_PROMPT,
  help: { url: 'Argo CD API, for in-process tools', token: 'Argo CD token, for in-process tools', local: 'Also start the Argo CD simulator (819 applications) and use it' },
  // Every intent's plan is executed by the rules to the end ("what needs attention" too, a complex plan): hybrid mode
  // sends a question to the model for its reasoning words or unread words, not for its intent.
  fullyExecuted: ARGOCD_INTENTS.filter((intent) => intent !== 'unknown'),
  // What acts on the conversation's last list: in hybrid mode, a list the model produced is the model's to go on with.
  continuations: ['next_page', 'query_followup'],
  classifier: ({ now }) => createArgoCdClassifier({ now }),
  createAgent: (context: DomainAgentContext<ArgoCdClient, ArgoIntent, ArgoMemory, unknown>) => createArgoCdAgent(context),
  hooks: {
    // The query as understood (typed answers), for clients and for whoever reads what the agent did.
    reply: (turn) => (turn.data?.query === undefined ? {} : { metadata: { query: JSON.stringify(turn.data.query) } }),
  },
});

export const ARGOCD_AGENT_SETTINGS = ARGOCD_AGENT.settings;
export type ArgoCdAgentConfig = Settings<typeof ARGOCD_AGENT_SETTINGS>;
/** The host's running agent, and what only code (tests, benchmarks, the CLI) sets at the start: not a flag. */
export type { RunningDomainAgent as RunningAgent, DomainAgentStartOptions as ArgoCdAgentStartOptions } from '@flotilla/agent-host';

/**
 * The Argo CD agent over A2A, with its tools over MCP (remote, or in process against Argo CD or the simulator the
 * caller passes for --local). With --redis-url, conversation memory ("next page"), the answer cache and (in-process
 * tools) spilled results and the snapshot index live in Redis under `<redis-key-prefix>argocd:`.
 */
export function startArgoCdAgent(config: ArgoCdAgentConfig, logger: Logger, options?: DomainAgentStartOptions): Promise<RunningDomainAgent> {
  return ARGOCD_AGENT.startAgent(config, logger, options);
}
