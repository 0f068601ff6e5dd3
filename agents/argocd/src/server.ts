import { defineDomainMcp, type McpStartOptions, type ToolsetDeps } from '@flotilla/agent-host/mcp';
import { ArgoCdClient } from './client/argocd-client.js';
import { ARGOCD_ACCESS, argoCdLimitsFrom } from './config.js';
import { registerApplicationTools } from './tools/applications.js';
import { registerCatalogTools } from './tools/catalog.js';
import { registerQueryTool, registerValuesTool } from './tools/query.js';
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
  'query',
  'list_values',
  'read_result',
] as const;
export type ArgoCdToolName = (typeof ARGOCD_TOOLS)[number];

export type ArgoCdToolsetDeps = ToolsetDeps<ArgoCdClient>;

/** The MCP half of the Argo CD agent: how Argo CD is read and which tools serve it. */
export const ARGOCD_MCP = defineDomainMcp({
  access: ARGOCD_ACCESS,
  version: SERVER_INFO.version,
  instructions:
    'Argo CD, read-only. One `query` answers counts, breakdowns, rankings, comparisons and named fields of an application exactly. Search first (search_argocd_resources) when a question names something; list tools page and carry ' +
    'counts over all matches, so answer totals from counts, not by paging. Large results come back with a result_id: page them with read_result.',
  tools: ARGOCD_TOOLS,
  createClient: (baseUrl, token, config, metrics, logger) => new ArgoCdClient({ baseUrl, token, limits: argoCdLimitsFrom(config), metrics, logger }),
  registerTools(kit, deps) {
    const clusters = clusterDirectoryFor(deps.client, deps.logger);
    registerApplicationTools(kit, deps.client, clusters);
    registerCatalogTools(kit, deps.client);
    registerSearchTool(kit, deps.client, clusters);
    registerResourceTools(kit, deps.client);
    registerQueryTool(kit, deps.client, clusters);
    registerValuesTool(kit, deps.client, clusters);
    kit.registerReadResult();
  },
});

export type StartOptions = McpStartOptions;

/**
 * A fresh MCP server with every Argo CD tool registered through the bounded-tools kit. Cheap: the heavy parts
 * (client, token counter, result store, metrics) are shared, so the HTTP handler builds one per request and an
 * in-process caller builds one per connection.
 */
export const createArgoCdMcpServer = ARGOCD_MCP.createMcpServer;
/** An MCP client linked in memory to a fresh Argo CD MCP server: the tools in process, seen exactly as a remote client sees them. */
export const connectArgoCdToolsInProcess = ARGOCD_MCP.connectInProcess;
/** The Argo CD MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz beside it. */
export const startArgoCdMcpServer = ARGOCD_MCP.startMcpServer;
