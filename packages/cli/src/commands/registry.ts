import type { Logger, SettingsSpec, Settings } from '@flotilla/core';
import type { Command, Running } from '../cli.js';

/** What `flotilla agent <name>` runs: a domain agent of `@flotilla/agent-host`, as its package exports it. */
export interface HostedAgent {
  readonly settings: SettingsSpec;
  startAgent(config: Settings<SettingsSpec>, logger: Logger, options: { readonly simulator: SimulatorStarter }): Promise<Running & { readonly url: string }>;
}

/** What `flotilla mcp <name>` runs: the MCP half of a domain agent (its light entry point). */
export interface HostedMcp {
  readonly settings: SettingsSpec;
  startMcpServer(config: Settings<SettingsSpec>, options: { readonly logger: Logger }): Promise<Running & { readonly mcpUrl: string }>;
}

/** Starts a domain's simulator for `--local` (and `up` without an upstream): the CLI owns the simulators, not the agents. */
export type SimulatorStarter = (options: { readonly token: string; readonly now: () => number; readonly logger: Logger }) => Promise<{ readonly url: string; close(): Promise<void> }>;

/** A command's words for people: what `--help` shows besides the settings. */
export interface CommandText {
  readonly summary: string;
  readonly description: string;
  readonly examples: readonly string[];
}

/**
 * One domain agent, as the CLI knows it: its commands (`agent <name>`, `mcp <name>`, `sim <name>`), their texts,
 * the modules each loads (only when it runs), its default ports and its simulator.
 */
export interface DomainAgentEntry {
  /** The agent's name: the commands' second word, the supervisor's name for it. */
  readonly name: string;
  /** How people name the upstream ("Argo CD"). */
  readonly title: string;
  /** Default ports: `agent` is also where `up` puts it (as far from the supervisor's port as the defaults are). */
  readonly ports: { readonly agent: number; readonly mcp: number };
  readonly agent: CommandText & { load(): Promise<HostedAgent> };
  readonly mcp: CommandText & { load(): Promise<HostedMcp> };
  readonly sim: { readonly summary: string; load(): Promise<Command> };
  readonly startSimulator: SimulatorStarter;
}

/** The supervisor's default port (`flotilla supervisor`, `flotilla up`): the agents' offsets in `up` are measured from it. */
export const SUPERVISOR_DEFAULT_PORT = 8090;

/**
 * Every domain agent of the platform, in the order commands and `up` list them. A new agent is one entry here (and
 * its package): the commands, `up` and the demo take it from this list. Modules are imported only in `load` and
 * `startSimulator`, so the catalogue stays light.
 */
export const DOMAIN_AGENTS: readonly DomainAgentEntry[] = [
  {
    name: 'argocd',
    title: 'Argo CD',
    ports: { agent: 8092, mcp: 8091 },
    agent: {
      summary: 'Start the Argo CD agent (A2A: agent card, JSON-RPC and REST); --local brings its own simulator',
      description:
        'The agent answers questions through its MCP tools: a remote Argo CD MCP server (--mcp-url), or the tools in process against\n' +
        'Argo CD (--argocd-url, --argocd-token), or against a local simulator (--local). Conversations continue by A2A contextId;\n' +
        'with --redis-url they live in Redis, shared by every replica of the agent.',
      examples: [
        'flotilla agent argocd --local',
        'flotilla agent argocd --mcp-url http://127.0.0.1:8091/mcp',
        'flotilla agent argocd --argocd-url https://argocd.example.com --argocd-token "$ARGOCD_TOKEN" --host 0.0.0.0',
      ],
      load: async () => (await import('@flotilla/agent-argocd')).ARGOCD_AGENT,
    },
    mcp: {
      summary: 'Start the Argo CD MCP server (bounded tools over Streamable HTTP at /mcp)',
      description:
        'Tools: list_applications, get_application, list_projects, list_applicationsets, list_clusters, search_argocd_resources,\n' +
        'read_result. Every result is measured in tokens and fits the budget; large ones are stored and paged with read_result.',
      examples: [
        'flotilla mcp argocd --argocd-url http://127.0.0.1:8080 --argocd-token dev-token',
        'FLOTILLA_ARGOCD_URL=https://argocd.example.com FLOTILLA_ARGOCD_TOKEN=... flotilla mcp argocd --host 0.0.0.0 --budget-tokens 4000',
      ],
      load: async () => (await import('@flotilla/agent-argocd/mcp')).ARGOCD_MCP,
    },
    sim: {
      summary: 'Start the Argo CD simulator (real REST API, seeded estate, fault injection)',
      load: async () => (await import('./sim-argocd.js')).simArgoCdCommand,
    },
    // The estate's times lead up to the agent's "now", as a live Argo CD's do ("synced in the last hour" finds some).
    startSimulator: async ({ token, now, logger }) => {
      const { startArgoCdSimulator } = await import('@flotilla/simulators');
      return startArgoCdSimulator({ token, estate: { epoch: now() }, logger });
    },
  },
  {
    name: 'netbox',
    title: 'NetBox',
    ports: { agent: 8094, mcp: 8093 },
    agent: {
      summary: 'Start the NetBox agent (A2A); --local brings its own simulator',
      description:
        'The agent answers questions through its MCP tools: a remote NetBox MCP server (--mcp-url), or the tools in process against\n' +
        'NetBox (--netbox-url, --netbox-token), or against a local simulator (--local). Limitations are detected before any list is\n' +
        'read: N+1 queries are batched, large answers come in batches ("next batch"), --state-dir keeps those sessions across restarts,\n' +
        'and --redis-url shares them (with conversations and stored results) between replicas.',
      examples: [
        'flotilla agent netbox --local',
        'flotilla agent netbox --mcp-url http://127.0.0.1:8093/mcp',
        'flotilla agent netbox --netbox-url https://netbox.example.com --netbox-token "$NETBOX_TOKEN" --state-dir /var/lib/flotilla/sessions',
        'FLOTILLA_REDIS_URL=redis://redis:6379 flotilla agent netbox --netbox-url https://netbox.example.com --netbox-token "$NETBOX_TOKEN"',
      ],
      load: async () => (await import('@flotilla/agent-netbox')).NETBOX_AGENT,
    },
    mcp: {
      summary: 'Start the NetBox MCP server (bounded tools over Streamable HTTP at /mcp)',
      description:
        'Tools: list_sites, list_devices, list_vlans, list_prefixes, list_ip_addresses, list_modules, list_cables, list_interfaces,\n' +
        'count_netbox_objects, get_netbox_object, get_prefix_usage, search_netbox, read_result. Lists page through NetBox itself;\n' +
        'interfaces of many devices are read in few requests; every NetBox request shares one rate limiter.',
      examples: [
        'flotilla mcp netbox --netbox-url http://127.0.0.1:8000 --netbox-token dev-token',
        'FLOTILLA_NETBOX_URL=https://netbox.example.com FLOTILLA_NETBOX_TOKEN=... flotilla mcp netbox --host 0.0.0.0 --netbox-rate-limit 10',
      ],
      load: async () => (await import('@flotilla/agent-netbox/mcp')).NETBOX_MCP,
    },
    sim: {
      summary: 'Start the NetBox simulator (real REST API v4, seeded estate, rate limit, fault injection)',
      load: async () => (await import('./sim-netbox.js')).simNetBoxCommand,
    },
    startSimulator: async ({ token, logger }) => {
      const { startNetBoxSimulator } = await import('@flotilla/simulators');
      return startNetBoxSimulator({ token, logger });
    },
  },
];
