import { McpServer } from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { connectInProcess, createBoundedTools, resultStoreFor, serveMcpOverHttp, type ResultStore, type RunningMcpServer, type SnapshotCache } from '@flotilla/bounded-tools';
import type { Logger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { ArgoCdClient } from './client/argocd-client.js';
import { argoCdLimitsFrom, type ArgoCdMcpConfig } from './config.js';
import { registerApplicationTools } from './tools/applications.js';
import { registerCatalogTools } from './tools/catalog.js';
import { registerSearchTool } from './tools/search.js';
import { registerResourceTools } from './tools/resources.js';
import { clusterDirectoryFor } from './tools/clusters.js';

export const SERVER_INFO = { name: 'flotilla-argocd', version: '0.1.0' } as const;

/** The tool names this server registers, in order. */
export const ARGOCD_TOOLS = [
  'list_applications',
  'get_application',
  'list_projects',
  'list_applicationsets',
  'list_clusters',
  'search_argocd_resources',
  'get_resource_tree',
  'get_managed_resources',
  'get_application_events',
  'get_resource_events',
  'get_logs',
  'get_resource',
  'list_resource_actions',
  'read_result',
] as const;
export type ArgoCdToolName = (typeof ARGOCD_TOOLS)[number];

export interface ArgoCdToolsetDeps {
  readonly client: ArgoCdClient;
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

/**
 * A fresh MCP server with every Argo CD tool registered through the bounded-tools kit. Cheap: the heavy parts
 * (client, token counter, result store, metrics) are shared, so the HTTP handler builds one per request and an
 * in-process caller builds one per connection.
 */
export function createArgoCdMcpServer(deps: ArgoCdToolsetDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Argo CD, read-only. Search first (search_argocd_resources) when a question names something; list tools page and carry ' +
      'counts over all matches, so answer totals from counts, not by paging. Large results come back with a result_id: page them with read_result.',
  });
  const kit = createBoundedTools({ server, counter: deps.counter, store: deps.store, metrics: deps.metrics, logger: deps.logger, budgetTokens: deps.budgetTokens, ...(deps.budgetFactor === undefined ? {} : { budgetFactor: deps.budgetFactor }), snapshots: deps.snapshots });
  const clusters = clusterDirectoryFor(deps.client, deps.logger);
  registerApplicationTools(kit, deps.client, clusters);
  registerCatalogTools(kit, deps.client);
  registerSearchTool(kit, deps.client, clusters);
  registerResourceTools(kit, deps.client);
  kit.registerReadResult();
  return server;
}

/**
 * An MCP client linked in memory to a fresh Argo CD MCP server: the tools in process, seen exactly as a remote
 * MCP client sees them (validation, budgets, isError results).
 */
export function connectArgoCdToolsInProcess(deps: ArgoCdToolsetDeps): Promise<{ readonly client: Client; close(): Promise<void> }> {
  return connectInProcess(createArgoCdMcpServer(deps), SERVER_INFO.version);
}

export interface StartOptions {
  readonly logger: Logger;
  /** Shared with other components in one process; a fresh registry with process metrics otherwise. */
  readonly metrics?: FlotillaMetrics;
}

/** The Argo CD MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
export async function startArgoCdMcpServer(config: ArgoCdMcpConfig, options: StartOptions): Promise<RunningMcpServer> {
  const logger = options.logger;
  const metrics = options.metrics ?? createMetrics({ defaultMetrics: true });
  const counter = await loadTokenCounter(config.tokenEncoding);
  const store = await resultStoreFor(config, metrics, { logger, name: 'argocd-mcp' });
  const client = new ArgoCdClient({
    baseUrl: config.argocdUrl,
    token: config.argocdToken,
    limits: argoCdLimitsFrom(config),
    metrics,
    logger: logger.child({ component: 'argocd-client' }),
  });
  const deps: ArgoCdToolsetDeps = { client, counter, store, metrics, logger: logger.child({ component: 'argocd-mcp' }), budgetTokens: config.budgetTokens };
  try {
    return await serveMcpOverHttp({
      name: 'Argo CD MCP server',
      host: config.host,
      port: config.port,
      logger,
      metrics,
      createServer: () => createArgoCdMcpServer(deps),
      tools: ARGOCD_TOOLS.length,
      mcpTokens: config.mcpTokens,
      onClose: () => store.close(),
      describe: { argocd: config.argocdUrl, budgetTokens: config.budgetTokens },
    });
  } catch (error) {
    await store.close();
    throw error;
  }
}
