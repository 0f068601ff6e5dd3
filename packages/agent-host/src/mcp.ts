import { McpServer } from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { connectInProcess, createBoundedTools, MCP_SERVER_SETTINGS, resultStoreFor, serveMcpOverHttp, type BoundedTools, type ResultStore, type RunningMcpServer, type SnapshotCache } from '@flotilla/bounded-tools';
import { hostSetting, HttpUrlSchema, logLevelSetting, type PortSchema, portSetting, secretSchema, type Logger, type Settings, type SettingSpec, type SettingsSpec } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';

/**
 * `@flotilla/agent-host/mcp`: the MCP half of a domain agent (its settings, its MCP server over HTTP, its tools in
 * process). Light on purpose: `flotilla mcp <name>` loads this and the domain's client and tools, never agent-kit,
 * A2A, LangGraph or a simulator.
 */

/** What every tool of a domain is registered with: shared by every MCP server the pool builds. */
export interface ToolsetDeps<C> {
  /** The domain's upstream client (Argo CD's, NetBox's). */
  readonly client: C;
  readonly counter: TokenCounter;
  readonly store: ResultStore;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  readonly budgetTokens?: number | undefined;
  /** The memory guard's budget factor (0.5 when memory is tight), read per call. */
  readonly budgetFactor?: (() => number) | undefined;
  /** Snapshots of upstream lists for paging (built on `store`); default: one per store, SNAPSHOT_DEFAULTS. */
  readonly snapshots?: SnapshotCache | undefined;
}

/** Where a domain's upstream is and how it is read: the part of a domain its settings are made of. */
export interface DomainAccessDefinition<N extends string, U extends SettingsSpec> {
  /**
   * The domain's name, lower case ("argocd"): the metric label, and the root of its settings' names: `--argocd-url`
   * (FLOTILLA_ARGOCD_URL, `argocdUrl`), `--argocd-token`, FLOTILLA_ARGOCD_MCP_PORT, FLOTILLA_ARGOCD_AGENT_PORT.
   */
  readonly name: N;
  /** How people name the upstream ("Argo CD"): in help, log lines and errors. */
  readonly title: string;
  /** Default port of `flotilla mcp <name>`. */
  readonly port: number;
  readonly upstream: {
    /** Help of `--<name>-url`. */
    readonly urlHelp: string;
    /** Help of `--<name>-token`. */
    readonly tokenHelp: string;
    /** The token in an error ("the Argo CD token is required"). */
    readonly tokenName: string;
    /** How the upstream is read (body cap, timeout, retries…): the MCP server's settings and the agent's in-process ones. */
    readonly settings: U;
  };
}

/** A domain's access and the settings of its MCP server made from it. */
export interface DomainAccess<N extends string, U extends SettingsSpec> extends DomainAccessDefinition<N, U> {
  /** Settings of `flotilla mcp <name>`; flags win over environment variables. */
  readonly mcpSettings: DomainMcpSettings<N, U>;
}

/** How a domain's upstream is reached and its tools registered: everything the MCP half needs to know of it. */
export interface DomainMcpDefinition<N extends string, U extends SettingsSpec, C, E extends object> {
  readonly access: DomainAccess<N, U>;
  /** The MCP server's version (its name is `flotilla-<name>`). */
  readonly version: string;
  /** The MCP server's instructions to its clients. */
  readonly instructions: string;
  /** The tool names the server registers, in order. */
  readonly tools: readonly string[];
  /** The upstream client from the upstream settings. */
  createClient(url: string, token: string, config: Settings<U>, metrics: FlotillaMetrics, logger: Logger): C;
  /** Options of the tools that come from the settings (NetBox's walk limits); none by default. */
  toolOptions?(config: Settings<U>): E;
  /** Registers every tool of the domain, `read_result` included. */
  registerTools(kit: BoundedTools, deps: ToolsetDeps<C> & Partial<E>): void;
}

/** `--<name>-url` and `--<name>-token` of a domain, typed by its name. */
export type UpstreamAccessSettings<N extends string, Required extends boolean> = {
  readonly [K in `${N}Url`]: SettingSpec<Required extends true ? typeof HttpUrlSchema : ReturnType<typeof HttpUrlSchema.optional>>;
} & {
  readonly [K in `${N}Token`]: SettingSpec<Required extends true ? ReturnType<typeof secretSchema> : ReturnType<ReturnType<typeof secretSchema>['optional']>>;
};

/** Every piece listens on `--host`. */
export const BASE_SETTINGS = {
  host: hostSetting(),
} as const satisfies SettingsSpec;
/** `--log-level` of every piece. */
export const LOG_LEVEL_SETTING = {
  logLevel: logLevelSetting(),
} as const satisfies SettingsSpec;
type PortSettings = { readonly port: SettingSpec<ReturnType<typeof PortSchema.default>> };

/** Settings of `flotilla mcp <name>`, in the order `--help` lists them. */
export type DomainMcpSettings<N extends string, U extends SettingsSpec> = typeof BASE_SETTINGS &
  PortSettings &
  UpstreamAccessSettings<N, true> &
  typeof MCP_SERVER_SETTINGS &
  U &
  typeof LOG_LEVEL_SETTING;

/** The MCP half of a domain agent, from its definition. */
export interface DomainMcp<N extends string, U extends SettingsSpec, C, E extends object> {
  readonly definition: DomainMcpDefinition<N, U, C, E>;
  /** Settings of `flotilla mcp <name>`; flags win over environment variables. */
  readonly settings: DomainMcpSettings<N, U>;
  /** A fresh MCP server with every tool registered through bounded-tools (cheap: the heavy parts are shared). */
  readonly createMcpServer: (deps: ToolsetDeps<C> & Partial<E>) => McpServer;
  /** An MCP client linked in memory to a fresh MCP server: the tools in process, seen exactly as a remote client sees them. */
  readonly connectInProcess: (deps: ToolsetDeps<C> & Partial<E>) => Promise<{ readonly client: Client; close(): Promise<void> }>;
  /** The upstream client with the limits of the settings (the MCP server's and the agent's in-process tools'). */
  readonly clientFrom: (url: string, token: string, config: Settings<U>, metrics: FlotillaMetrics, logger: Logger) => C;
  /** The tools' options from the settings (`toolOptions`), or none. */
  readonly toolOptionsFrom: (config: Settings<U>) => Partial<E>;
  /** The MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
  readonly startMcpServer: (config: Settings<DomainMcpSettings<N, U>>, options: McpStartOptions) => Promise<RunningMcpServer>;
}

export interface McpStartOptions {
  readonly logger: Logger;
  /** Shared with other components in one process; a fresh registry with process metrics otherwise. */
  readonly metrics?: FlotillaMetrics | undefined;
}

/** `FLOTILLA_<NAME>_<suffix>`. */
export function envName(name: string, suffix: string): string {
  return `FLOTILLA_${name.toUpperCase()}_${suffix}`;
}

/** The URL and token a domain's settings hold under `<name>Url` and `<name>Token`. */
export function upstreamAccess(name: string, config: object): { readonly url: string | undefined; readonly token: string | undefined } {
  const values = config as Readonly<Record<string, unknown>>;
  const url = values[`${name}Url`];
  const token = values[`${name}Token`];
  return { url: typeof url === 'string' ? url : undefined, token: typeof token === 'string' ? token : undefined };
}

/** A domain's access (name, upstream settings) with the settings of its MCP server, in the order `--help` lists them. */
export function domainAccess<N extends string, U extends SettingsSpec>(definition: DomainAccessDefinition<N, U>): DomainAccess<N, U> {
  const { name } = definition;
  const access = {
    [`${name}Url`]: { flag: `${name}-url`, env: envName(name, 'URL'), schema: HttpUrlSchema, help: definition.upstream.urlHelp },
    [`${name}Token`]: { flag: `${name}-token`, env: envName(name, 'TOKEN'), schema: secretSchema(definition.upstream.tokenName), help: definition.upstream.tokenHelp, secret: true },
  } as unknown as UpstreamAccessSettings<N, true>;
  const mcpSettings: DomainMcpSettings<N, U> = {
    ...BASE_SETTINGS,
    port: portSetting({ env: envName(name, 'MCP_PORT'), default: definition.port, help: 'Port of the MCP endpoint (/mcp), /metrics and /healthz' }),
    ...access,
    ...MCP_SERVER_SETTINGS,
    ...definition.upstream.settings,
    ...LOG_LEVEL_SETTING,
  };
  return { ...definition, mcpSettings };
}

/**
 * Defines the MCP half of a domain agent: `flotilla mcp <name>` and the agent's tools in process are both built from
 * it, so the two read the upstream with the same settings and serve the same tools.
 */
export function defineDomainMcp<N extends string, U extends SettingsSpec, C, E extends object = Record<never, never>>(definition: DomainMcpDefinition<N, U, C, E>): DomainMcp<N, U, C, E> {
  const { name, title } = definition.access;
  const serverInfo = { name: `flotilla-${name}`, version: definition.version };
  const settings = definition.access.mcpSettings;
  const toolOptionsFrom = (config: Settings<U>): Partial<E> => definition.toolOptions?.(config) ?? {};
  const createMcpServer = (deps: ToolsetDeps<C> & Partial<E>): McpServer => {
    const server = new McpServer(serverInfo, { instructions: definition.instructions });
    const kit = createBoundedTools({
      server,
      counter: deps.counter,
      store: deps.store,
      metrics: deps.metrics,
      logger: deps.logger,
      budgetTokens: deps.budgetTokens,
      ...(deps.budgetFactor === undefined ? {} : { budgetFactor: deps.budgetFactor }),
      snapshots: deps.snapshots,
    });
    definition.registerTools(kit, deps);
    return server;
  };
  return {
    definition,
    settings,
    createMcpServer,
    connectInProcess: (deps) => connectInProcess(createMcpServer(deps), serverInfo.version),
    clientFrom: (url, token, config, metrics, logger) => definition.createClient(url, token, config, metrics, logger),
    toolOptionsFrom,
    async startMcpServer(config, options) {
      // The settings every MCP server has, whatever its domain: what the host itself reads.
      const common = config as unknown as Settings<typeof BASE_SETTINGS & PortSettings & typeof MCP_SERVER_SETTINGS & typeof LOG_LEVEL_SETTING>;
      const logger = options.logger;
      const metrics = options.metrics ?? createMetrics({ defaultMetrics: true });
      const counter = await loadTokenCounter(common.tokenEncoding);
      const store = await resultStoreFor(common, metrics, { logger, name: `${name}-mcp` });
      const { url = '', token = '' } = upstreamAccess(name, config);
      const client = definition.createClient(url, token, config, metrics, logger.child({ component: `${name}-client` }));
      const deps = { client, counter, store, metrics, logger: logger.child({ component: `${name}-mcp` }), budgetTokens: common.budgetTokens, ...toolOptionsFrom(config) } as ToolsetDeps<C> & Partial<E>;
      try {
        return await serveMcpOverHttp({
          name: `${title} MCP server`,
          host: common.host,
          port: common.port,
          logger,
          metrics,
          createServer: () => createMcpServer(deps),
          tools: definition.tools.length,
          mcpTokens: common.mcpTokens,
          onClose: () => store.close(),
          describe: { [name]: url, budgetTokens: common.budgetTokens },
        });
      } catch (error) {
        await store.close();
        throw error;
      }
    },
  };
}
