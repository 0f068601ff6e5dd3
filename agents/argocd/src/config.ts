import { boundedInt, HostSchema, HttpUrlSchema, LogLevelSchema, PortSchema, secretSchema, type Settings, type SettingsSpec } from '@flotilla/core';
import { MCP_SERVER_SETTINGS } from '@flotilla/bounded-tools';
import { UPSTREAM_DEFAULTS, type UpstreamLimits } from '@flotilla/upstream';

const KiB = 1024;
const MiB = 1024 * KiB;

/** How Flotilla reads Argo CD: the MCP server's settings, and the agent's when it runs the tools in process. */
export const ARGOCD_UPSTREAM_SETTINGS = {
  upstreamMaxBodyMiB: {
    flag: 'upstream-max-body-mib',
    env: 'FLOTILLA_UPSTREAM_MAX_BODY_MIB',
    schema: boundedInt(1, 1024).default(UPSTREAM_DEFAULTS.maxBodyBytes / MiB),
    help: 'Largest Argo CD response body read; larger ones are refused mid-stream',
  },
  upstreamMaxValueKiB: {
    flag: 'upstream-max-value-kib',
    env: 'FLOTILLA_UPSTREAM_MAX_VALUE_KIB',
    schema: boundedInt(16, 1024 * 1024).default(UPSTREAM_DEFAULTS.maxValueBytes / KiB),
    help: 'Largest single value of an Argo CD list (one application, Helm values included); a larger one is refused mid-stream, naming its field',
  },
  upstreamTimeoutMs: {
    flag: 'upstream-timeout-ms',
    env: 'FLOTILLA_UPSTREAM_TIMEOUT_MS',
    schema: boundedInt(100, 300_000).default(UPSTREAM_DEFAULTS.timeoutMs),
    help: 'Time limit of one Argo CD request',
  },
  upstreamRetries: {
    flag: 'upstream-retries',
    env: 'FLOTILLA_UPSTREAM_RETRIES',
    schema: boundedInt(0, 5).default(UPSTREAM_DEFAULTS.retries),
    help: 'Retries of a failed Argo CD request (5xx, 429, timeout, network)',
  },
  upstreamConcurrency: {
    flag: 'upstream-concurrency',
    env: 'FLOTILLA_UPSTREAM_CONCURRENCY',
    schema: boundedInt(1, 64).default(UPSTREAM_DEFAULTS.maxConcurrent),
    help: 'Argo CD requests in flight at once (identical ones share one)',
  },
} as const satisfies SettingsSpec;
export type ArgoCdUpstreamConfig = Settings<typeof ARGOCD_UPSTREAM_SETTINGS>;

/** The upstream limits those settings give. */
export function argoCdLimitsFrom(config: ArgoCdUpstreamConfig): UpstreamLimits {
  return {
    ...UPSTREAM_DEFAULTS,
    maxBodyBytes: config.upstreamMaxBodyMiB * MiB,
    maxValueBytes: config.upstreamMaxValueKiB * KiB,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxConcurrent: config.upstreamConcurrency,
  };
}

/** Settings of the Argo CD MCP server (`flotilla mcp argocd`); flags win over environment variables. */
export const ARGOCD_MCP_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_ARGOCD_MCP_PORT', schema: PortSchema.default(8091), help: 'Port of the MCP endpoint (/mcp), /metrics and /healthz' },
  argocdUrl: { flag: 'argocd-url', env: 'FLOTILLA_ARGOCD_URL', schema: HttpUrlSchema, help: 'Argo CD API server URL' },
  argocdToken: { flag: 'argocd-token', env: 'FLOTILLA_ARGOCD_TOKEN', schema: secretSchema('the Argo CD token'), help: 'Argo CD API token (bearer)', secret: true },
  ...MCP_SERVER_SETTINGS,
  ...ARGOCD_UPSTREAM_SETTINGS,
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const satisfies SettingsSpec;

export type ArgoCdMcpConfig = Settings<typeof ARGOCD_MCP_SETTINGS>;
