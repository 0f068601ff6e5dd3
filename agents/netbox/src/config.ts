import { z } from 'zod';
import { boundedInt, HostSchema, HttpUrlSchema, LogLevelSchema, PortSchema, secretSchema, type Settings, type SettingsSpec } from '@flotilla/core';
import { MCP_SERVER_SETTINGS } from '@flotilla/bounded-tools';
import { NETBOX_DEFAULTS } from './client/netbox-client.js';

const KiB = 1024;
const MiB = 1024 * KiB;

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
  upstreamTimeoutMs: {
    flag: 'upstream-timeout-ms',
    env: 'FLOTILLA_UPSTREAM_TIMEOUT_MS',
    schema: boundedInt(100, 300_000).default(NETBOX_DEFAULTS.upstream.timeoutMs),
    help: 'Time limit of one NetBox request',
  },
  upstreamRetries: {
    flag: 'upstream-retries',
    env: 'FLOTILLA_UPSTREAM_RETRIES',
    schema: boundedInt(0, 5).default(NETBOX_DEFAULTS.upstream.retries),
    help: 'Retries of a failed NetBox request (5xx, timeout, network); 429s are retried after their Retry-After',
  },
  upstreamMaxBodyMiB: {
    flag: 'upstream-max-body-mib',
    env: 'FLOTILLA_UPSTREAM_MAX_BODY_MIB',
    schema: boundedInt(1, 1024).default(NETBOX_DEFAULTS.upstream.maxBodyBytes / MiB),
    help: 'Largest NetBox response body read; larger ones are refused mid-stream',
  },
  upstreamMaxValueKiB: {
    flag: 'upstream-max-value-kib',
    env: 'FLOTILLA_UPSTREAM_MAX_VALUE_KIB',
    schema: boundedInt(16, 1024 * 1024).default(NETBOX_DEFAULTS.upstream.maxValueBytes / KiB),
    help: 'Largest single value of a NetBox page (one object); a larger one is refused mid-stream, naming its field',
  },
} as const satisfies SettingsSpec;

/** Settings of the NetBox MCP server (`flotilla mcp netbox`); flags win over environment variables. */
export const NETBOX_MCP_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_NETBOX_MCP_PORT', schema: PortSchema.default(8093), help: 'Port of the MCP endpoint (/mcp), /metrics and /healthz' },
  netboxUrl: { flag: 'netbox-url', env: 'FLOTILLA_NETBOX_URL', schema: HttpUrlSchema, help: 'NetBox URL (the API is under /api/)' },
  netboxToken: { flag: 'netbox-token', env: 'FLOTILLA_NETBOX_TOKEN', schema: secretSchema('the NetBox API token'), help: 'NetBox API token (sent as "Authorization: Token ...")', secret: true },
  ...MCP_SERVER_SETTINGS,
  ...NETBOX_UPSTREAM_SETTINGS,
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const satisfies SettingsSpec;

export type NetBoxMcpConfig = Settings<typeof NETBOX_MCP_SETTINGS>;
export type NetBoxUpstreamConfig = Settings<typeof NETBOX_UPSTREAM_SETTINGS>;
