import { defineDomainMcp, type McpStartOptions, type ToolsetDeps } from '@flotilla/agent-host/mcp';
import type { FlotillaMetrics } from '@flotilla/metrics';
import type { Logger } from '@flotilla/core';
import { NETBOX_DEFAULTS, NetBoxClient, type WalkLimits } from './client/netbox-client.js';
import { NETBOX_ACCESS, type NetBoxUpstreamConfig } from './config.js';
import { NETBOX_TOOLS, registerNetBoxTools } from './tools/tools.js';

export const SERVER_INFO = { name: 'flotilla-netbox', version: '0.1.0' } as const;

/** What the NetBox tools take besides the shared parts: how far one call may walk a relation. */
export interface NetBoxToolOptions {
  readonly walk?: WalkLimits | undefined;
}
export type NetBoxToolsetDeps = ToolsetDeps<NetBoxClient> & NetBoxToolOptions;

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

/** The MCP half of the NetBox agent: how NetBox is read and which tools serve it. */
export const NETBOX_MCP = defineDomainMcp<'netbox', typeof NETBOX_ACCESS.upstream.settings, NetBoxClient, NetBoxToolOptions>({
  access: NETBOX_ACCESS,
  version: SERVER_INFO.version,
  instructions:
    'NetBox, read-only. Search first (search_netbox) when a question names something; count_netbox_objects before listing large sets. ' +
    'Lists page through NetBox itself; list_interfaces reads many devices in few requests and stores large results: page them with read_result.',
  tools: NETBOX_TOOLS,
  createClient: netBoxClientFrom,
  toolOptions: (config) => ({ walk: { ...NETBOX_DEFAULTS.walk, maxCalls: config.walkMaxCalls } }),
  registerTools: (kit, deps) => registerNetBoxTools(kit, deps.client, { walk: deps.walk ?? NETBOX_DEFAULTS.walk }),
});

export type StartOptions = McpStartOptions;

/** A fresh MCP server with every NetBox tool registered through the bounded-tools kit (cheap: the heavy parts are shared). */
export const createNetBoxMcpServer = NETBOX_MCP.createMcpServer;
/** An MCP client linked in memory to a fresh NetBox MCP server. */
export const connectNetBoxToolsInProcess = NETBOX_MCP.connectInProcess;
/** The NetBox MCP server over Streamable HTTP at /mcp, with /metrics, /healthz and /readyz. */
export const startNetBoxMcpServer = NETBOX_MCP.startMcpServer;
