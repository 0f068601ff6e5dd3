import { z } from 'zod';
import { domainAccess } from '@flotilla/agent-host/mcp';
import { boundedInt, upstreamSettings, type Settings, type SettingsSpec } from '@flotilla/core';
import { NETBOX_DEFAULTS } from './client/netbox-client.js';

/**
 * How NetBox is read over HTTP: the settings every upstream has (core's `upstreamSettings`), less the concurrency cap:
 * NetBox's requests are paced by its rate limiter instead.
 */
const { upstreamConcurrency: concurrencyNotSettable, ...NETBOX_HTTP_SETTINGS } = upstreamSettings({
  system: 'NetBox',
  defaults: NETBOX_DEFAULTS.upstream,
  help: {
    upstreamRetries: 'Retries of a failed NetBox request (5xx, timeout, network); 429s are retried after their Retry-After',
    upstreamMaxValueKiB: 'Largest single value of a NetBox page (one object); a larger one is refused mid-stream, naming its field',
  },
});
void concurrencyNotSettable;

/** Upstream settings shared by the NetBox MCP server and the agent's in-process tools. */
export const NETBOX_UPSTREAM_SETTINGS = {
  netboxRateLimit: {
    flag: 'netbox-rate-limit',
    env: 'FLOTILLA_NETBOX_RATE_LIMIT',
    schema: z.coerce.number({ message: 'must be a number' }).min(0.1, 'must be at least 0.1').max(10_000, 'must be at most 10000').default(NETBOX_DEFAULTS.rateLimit.ratePerSecond),
    help: 'NetBox requests per second this process sends at most (token bucket, shared by every request)',
  },
  netboxRateBurst: {
    flag: 'netbox-rate-burst',
    env: 'FLOTILLA_NETBOX_RATE_BURST',
    schema: boundedInt(1, 10_000).default(NETBOX_DEFAULTS.rateLimit.burst),
    help: 'NetBox requests that may go at once after a quiet spell (bucket size)',
  },
  walkMaxCalls: {
    flag: 'walk-max-calls',
    env: 'FLOTILLA_NETBOX_WALK_MAX_CALLS',
    schema: boundedInt(1, 1_000).default(NETBOX_DEFAULTS.walk.maxCalls),
    help: 'NetBox requests one tool call may make when it reads a whole relation (interfaces of many devices)',
  },
  ...NETBOX_HTTP_SETTINGS,
} as const satisfies SettingsSpec;

/** Where NetBox is and how it is read: the root of the MCP server's settings and the agent's. */
export const NETBOX_ACCESS = domainAccess({
  name: 'netbox',
  title: 'NetBox',
  port: 8093,
  upstream: {
    urlHelp: 'NetBox URL (the API is under /api/)',
    tokenHelp: 'NetBox API token (sent as "Authorization: Token ...")',
    tokenName: 'the NetBox API token',
    settings: NETBOX_UPSTREAM_SETTINGS,
  },
});

/** Settings of the NetBox MCP server (`flotilla mcp netbox`); flags win over environment variables. */
export const NETBOX_MCP_SETTINGS = NETBOX_ACCESS.mcpSettings;

export type NetBoxMcpConfig = Settings<typeof NETBOX_MCP_SETTINGS>;
export type NetBoxUpstreamConfig = Settings<typeof NETBOX_UPSTREAM_SETTINGS>;
