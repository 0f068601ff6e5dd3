import { McpServer } from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { connectInProcess, createBoundedTools, resultStoreFor, serveMcpOverHttp, type ResultStore, type RunningMcpServer, type SnapshotCache } from '@flotilla/bounded-tools';
import type { Logger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { NETBOX_DEFAULTS, NetBoxClient, type WalkLimits } from './client/netbox-client.js';
import type { NetBoxMcpConfig, NetBoxUpstreamConfig } from './config.js';
import { NETBOX_TOOLS, registerNetBoxTools } from './tools/tools.js';

export const SERVER_INFO = { name: 'flotilla-netbox', version: '0.1.0' } as const;

export interface NetBoxToolsetDeps {
  readonly client: NetBoxClient;
  readonly counter: TokenCounter;
  readonly store: ResultStore;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  readonly budgetTokens?: number | undefined;
  /** The memory guard's budget factor (0.5 when memory is tight), read per call. */
  readonly budgetFactor?: (() => number) | undefined;
  /** Snapshots of upstream lists for paging (built on `store`); default: one per store, SNAPSHOT_DEFAULTS. */
  readonly snapshots?: SnapshotCache | undefined;
  readonly walk?: WalkLimits | undefined;
}

/** A fresh MCP server with every NetBox tool registered through the bounded-tools kit (cheap: the heavy parts are shared). */
export function createNetBoxMcpServer(deps: NetBoxToolsetDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'NetBox, read-only. Search first (search_netbox) when a question names something; count_netbox_objects before listing large sets. ' +
      'Lists page through NetBox itself; list_interfaces reads many devices in few requests and stores large results: page them with read_result.',
  });
  const kit = createBoundedTools({ server, counter: deps.counter, store: deps.store, metrics: deps.metrics, logger: deps.logger, budgetTokens: deps.budgetTokens, ...(deps.budgetFactor === undefined ? {} : { budgetFactor: deps.budgetFactor }), snapshots: deps.snapshots });
  registerNetBoxTools(kit, deps.client, { walk: deps.walk ?? NETBOX_DEFAULTS.walk });
  return server;
}

/** An MCP client linked in memory to a fresh NetBox MCP server. */
export function connectNetBoxToolsInProcess(deps: NetBoxToolsetDeps): Promise<{ readonly client: Client; close(): Promise<void> }> {
  return connectInProcess(createNetBoxMcpServer(deps), SERVER_INFO.version);
}

/** The NetBox client with the limits of the settings (the MCP server's and the agent's in-process tools'). */
export function netBoxClientFrom(url: string, token: string, config: NetBoxUpstreamConfig, metrics: FlotillaMetrics, logger: Logger): NetBoxClient {
  return new NetBoxClient({
    baseUrl: url,
    token,
    limits: {
      ...NETBOX_DEFAULTS.upstream,
      maxBodyBytes: config.upstreamMaxBodyMiB * 1024 * 1024,
      maxValueBytes: config.upstreamMaxValueKiB * 1024,
      timeoutMs: config.upstreamTimeoutMs,
      retries: config.upstreamRetries,
    },
    rateLimit: { ...NETBOX_DEFAULTS.rateLimit, ratePerSecond: config.netboxRateLimit, burst: config.netboxRateBurst },
    metrics,
    logger,
  });
}

export interface StartOptions {
  readonly logger: Logger;
  readonly metrics?: FlotillaMetrics;
}

/** The NetBox MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz. */
export async function startNetBoxMcpServer(config: NetBoxMcpConfig, options: StartOptions): Promise<RunningMcpServer> {
  const logger = options.logger;
  const metrics = options.metrics ?? createMetrics({ defaultMetrics: true });
  const counter = await loadTokenCounter(config.tokenEncoding);
  const store = await resultStoreFor(config, metrics, { logger, name: 'netbox-mcp' });
  const client = netBoxClientFrom(config.netboxUrl, config.netboxToken, config, metrics, logger.child({ component: 'netbox-client' }));
  const deps: NetBoxToolsetDeps = {
    client,
    counter,
    store,
    metrics,
    logger: logger.child({ component: 'netbox-mcp' }),
    budgetTokens: config.budgetTokens,
    walk: { ...NETBOX_DEFAULTS.walk, maxCalls: config.walkMaxCalls },
  };
  try {
    return await serveMcpOverHttp({
      name: 'NetBox MCP server',
      host: config.host,
      port: config.port,
      logger,
      metrics,
      createServer: () => createNetBoxMcpServer(deps),
      tools: NETBOX_TOOLS.length,
      mcpTokens: config.mcpTokens,
      onClose: () => store.close(),
      describe: { netbox: config.netboxUrl, budgetTokens: config.budgetTokens },
    });
  } catch (error) {
    await store.close();
    throw error;
  }
}
