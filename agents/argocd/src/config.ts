import { z } from 'zod';
import { boundedInt, HostSchema, HttpUrlSchema, LogLevelSchema, PortSchema, secretSchema, type Settings, type SettingsSpec } from '@flotilla/core';
import { LIMITS, STORE_DEFAULTS } from '@flotilla/bounded-tools';
import { TOKEN_ENCODINGS } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';

const MiB = 1024 * 1024;

/** Settings of the Argo CD MCP server (`flotilla mcp argocd`); flags win over environment variables. */
export const ARGOCD_MCP_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_ARGOCD_MCP_PORT', schema: PortSchema.default(8091), help: 'Port of the MCP endpoint (/mcp), /metrics and /healthz' },
  argocdUrl: { flag: 'argocd-url', env: 'FLOTILLA_ARGOCD_URL', schema: HttpUrlSchema, help: 'Argo CD API server URL' },
  argocdToken: { flag: 'argocd-token', env: 'FLOTILLA_ARGOCD_TOKEN', schema: secretSchema('the Argo CD token'), help: 'Argo CD API token (bearer)', secret: true },
  mcpToken: {
    flag: 'mcp-token',
    env: 'FLOTILLA_MCP_TOKEN',
    schema: z.string().min(16, 'must be at least 16 characters').max(4096).optional(),
    help: 'Bearer token MCP clients must send; unset means no client authentication',
    secret: true,
  },
  budgetTokens: {
    flag: 'budget-tokens',
    env: 'FLOTILLA_TOOL_BUDGET_TOKENS',
    schema: boundedInt(LIMITS.budgetMin, LIMITS.budgetMax).default(LIMITS.budgetDefault),
    help: 'Largest tool result returned inline, in tokens',
  },
  tokenEncoding: {
    flag: 'token-encoding',
    env: 'FLOTILLA_TOKEN_ENCODING',
    schema: z.enum(TOKEN_ENCODINGS, { message: `must be one of ${TOKEN_ENCODINGS.join(', ')}` }).default('cl100k_base'),
    help: 'Tokenizer the budget is counted with',
  },
  dataDir: { flag: 'data-dir', env: 'FLOTILLA_DATA_DIR', schema: z.string().min(1).default('.flotilla/results'), help: 'Folder of spilled results' },
  resultTtlSeconds: {
    flag: 'result-ttl-seconds',
    env: 'FLOTILLA_RESULT_TTL_SECONDS',
    schema: boundedInt(10, 7 * 24 * 3600).default(STORE_DEFAULTS.ttlSeconds),
    help: 'How long spilled results stay readable',
  },
  resultDiskCapMiB: {
    flag: 'result-disk-cap-mib',
    env: 'FLOTILLA_RESULT_DISK_CAP_MIB',
    schema: boundedInt(1, 1024 * 1024).default(STORE_DEFAULTS.diskCapBytes / MiB),
    help: 'Disk the result store may use; the oldest results go first',
  },
  upstreamMaxBodyMiB: {
    flag: 'upstream-max-body-mib',
    env: 'FLOTILLA_UPSTREAM_MAX_BODY_MIB',
    schema: boundedInt(1, 1024).default(UPSTREAM_DEFAULTS.maxBodyBytes / MiB),
    help: 'Largest Argo CD response body read; larger ones are refused mid-stream',
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
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const satisfies SettingsSpec;

export type ArgoCdMcpConfig = Settings<typeof ARGOCD_MCP_SETTINGS>;
