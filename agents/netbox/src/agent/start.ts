import { resolve } from 'node:path';
import { defineDomainAgent, type DomainAgentContext, type DomainAgentStartOptions, type RunningDomainAgent } from '@flotilla/agent-host';
import type { AgentDescription } from '@flotilla/agent-kit';
import type { Logger, Settings } from '@flotilla/core';
import { createFileSessionStore, createMemorySessionStore, createRedisSessionStore, type ProgressiveSession, type SessionStore } from '@flotilla/limitations';
import { z } from 'zod';
import { domainWords } from '@flotilla/query';
import type { NetBoxClient } from '../client/netbox-client.js';
import { NETBOX_DOMAIN } from '../query/declare.js';
import { NETBOX_MCP } from '../server.js';
import { NETBOX_PROMPT } from './prompt.js';
import { createNetBoxAgent, sessionMemory } from './agent.js';
import { createNetBoxClassifier, NETBOX_INTENTS, type NetBoxIntent } from './intents.js';

export const NETBOX_AGENT_CARD: AgentDescription = {
  name: 'Flotilla NetBox agent',
  description: 'Answers questions about NetBox (sites, devices, interfaces, cables, VLANs, prefixes and IP addresses, read-only) within a token budget, reading large estates in few requests.',
  version: '0.1.0',
  skills: [
    {
      id: 'netbox-inventory',
      name: 'NetBox inventory',
      description: 'Sites, racks and devices by site, role, status, tag, tenant, manufacturer or platform; one device with its interfaces and IP addresses; search.',
      // The declared words for devices, sites and their roles (query/declare.ts): what the supervisor routes by.
      tags: [...new Set(['netbox', 'dcim', 'inventory', 'sites', 'devices', 'racks', ...domainWords(NETBOX_DOMAIN, ['devices', 'sites', 'racks'], ['role'])])],
      examples: ['list sites', 'devices in ams1', 'which switches are offline in fra1?', 'show device ams1-sw-001', 'how many routers are there?', 'firewalls at lon1', 'find core'],
    },
    {
      id: 'netbox-connectivity',
      name: 'NetBox interfaces and cables',
      description: 'Interfaces of every device at a site (batched, exact, or a quick sample), cables of a site or a device; long answers in batches.',
      tags: [...new Set(['netbox', 'dcim', 'interfaces', 'cables', ...domainWords(NETBOX_DOMAIN, ['interfaces', 'cables'])])],
      examples: ['interfaces of every switch in ams1', 'cables of ams1', 'next batch', 'only the uncabled ones'],
    },
    {
      id: 'netbox-ipam',
      name: 'NetBox IPAM',
      description: 'VLANs and prefixes by site, status, role or tenant, counted or broken down; the free or used addresses of a prefix.',
      tags: [...new Set(['netbox', 'ipam', 'vlans', 'prefixes', 'ips', 'addresses', ...domainWords(NETBOX_DOMAIN, ['vlans', 'prefixes'])])],
      examples: ['vlans of fra1', 'prefixes at nyc1', 'free ips in 10.1.0.0/24', 'used ips in 10.1.0.0/24'],
    },
  ],
};

/** The card skill each intent belongs to (a metric label). */
export const SKILL_OF_NETBOX_INTENT: Readonly<Record<NetBoxIntent, string>> = {
  list_sites: 'netbox-inventory',
  list_devices: 'netbox-inventory',
  device_details: 'netbox-inventory',
  search: 'netbox-inventory',
  site_interfaces: 'netbox-connectivity',
  next_page: 'netbox-connectivity',
  refine: 'netbox-connectivity',
  summary: 'netbox-connectivity',
  prefix_free: 'netbox-ipam',
  prefix_used: 'netbox-ipam',
  query: 'netbox-inventory',
  query_followup: 'netbox-inventory',
  help: 'none',
  unknown: 'none',
};

/** The NetBox agent over the host: its card, classifier and agent; progressive sessions and rate state as hooks. */
export const NETBOX_AGENT = defineDomainAgent({
  mcp: NETBOX_MCP,
  card: NETBOX_AGENT_CARD,
  queryDomain: NETBOX_DOMAIN,
  skillOf: SKILL_OF_NETBOX_INTENT,
  // A typed query's skill is its entity's: VLANs and prefixes are IPAM, interfaces and cables connectivity.
  skillOfTurn: (turn) => {
    const entity = (turn.data?.query as { entity?: unknown } | undefined)?.entity;
    return entity === 'vlans' || entity === 'prefixes' ? 'netbox-ipam' : entity === 'interfaces' || entity === 'cables' ? 'netbox-connectivity' : undefined;
  },
  port: 8094,
  prompt: NETBOX_PROMPT,
  help: { url: 'NetBox URL, for in-process tools', token: 'NetBox API token, for in-process tools', local: 'Also start the NetBox simulator (12 sites, 600 devices) and use it' },
  settings: {
    stateDir: {
      flag: 'state-dir',
      env: 'FLOTILLA_STATE_DIR',
      schema: z.string().min(1).optional(),
      help: 'Folder of progressive-disclosure sessions, so "next batch" survives a restart; in memory when unset (Redis with --redis-url)',
    },
  },
  // The complex, limitation-aware plans (interfaces of every switch in a site: count probes, batches, sessions) are
  // executed by the rules to the end as well: hybrid mode answers them without the model.
  fullyExecuted: NETBOX_INTENTS.filter((intent) => intent !== 'unknown'),
  // What acts on the conversation's last list: in hybrid mode, a list the model produced is the model's to go on with.
  continuations: ['next_page', 'refine', 'summary', 'query_followup'],
  classifier: () => createNetBoxClassifier(),
  createAgent: (context: DomainAgentContext<NetBoxClient, NetBoxIntent, ProgressiveSession, unknown>) => {
    // The shared rate limiter of the tools in process: limitation detection weighs its pressure.
    const limiter = context.upstreamClient?.limiter;
    const rate = limiter === undefined ? undefined : () => ({ available: limiter.available(), ratePerSecond: limiter.settings.ratePerSecond });
    return createNetBoxAgent({ ...context, rate });
  },
  hooks: {
    // The conversation's memory is its progressive session: in Redis, files (--state-dir) or memory.
    async memoryStore(config, { redis, keyPrefix, metrics }) {
      const sessions: SessionStore =
        redis !== undefined
          ? createRedisSessionStore({ client: redis, keyPrefix })
          : config.stateDir === undefined
            ? createMemorySessionStore({ metrics })
            : await createFileSessionStore(resolve(config.stateDir));
      return sessionMemory(sessions);
    },
    reply: (turn) => ({
      data: turn.data,
      metadata: {
        limitations: turn.limitations.map((l) => l.kind).join(','),
        handling: (turn.handling?.strategies ?? []).join(','),
        // The query as understood (typed answers), for clients and for whoever reads what the agent did.
        ...(turn.data?.query === undefined ? {} : { query: JSON.stringify(turn.data.query) }),
      },
    }),
  },
});

export const NETBOX_AGENT_SETTINGS = NETBOX_AGENT.settings;
export type NetBoxAgentConfig = Settings<typeof NETBOX_AGENT_SETTINGS>;
/** The host's running agent, and what only code (tests, the CLI) sets at the start: not a flag. */
export type { RunningDomainAgent as RunningNetBoxAgent, DomainAgentStartOptions as NetBoxAgentStartOptions } from '@flotilla/agent-host';

/**
 * The NetBox agent over A2A, with its tools over MCP (remote, or in process against NetBox or the simulator the
 * caller passes for --local). With --redis-url, progressive sessions, LLM conversations, the answer cache and
 * (in-process tools) spilled results and the snapshot index live in Redis under `<redis-key-prefix>netbox:`.
 */
export function startNetBoxAgent(config: NetBoxAgentConfig, logger: Logger, options?: DomainAgentStartOptions): Promise<RunningDomainAgent> {
  return NETBOX_AGENT.startAgent(config, logger, options);
}
