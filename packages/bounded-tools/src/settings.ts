import { resolve } from 'node:path';
import { z } from 'zod';
import { boundedInt, TokenListSchema, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import { closeRedis, REDIS_SETTINGS, redisFromUrl } from '@flotilla/state';
import { TOKEN_ENCODINGS } from '@flotilla/tokens';
import { LIMITS, STORE_DEFAULTS } from './limits.js';
import { createFileResultStore } from './store/file-store.js';
import { createRedisResultStore } from './store/redis-store.js';
import type { ResultStore } from './store/types.js';

const MiB = 1024 * 1024;

/** Settings every Flotilla MCP server shares: client auth, the token budget, and the result store. */
export const MCP_SERVER_SETTINGS = {
  mcpTokens: {
    flag: 'mcp-token',
    env: 'FLOTILLA_MCP_TOKEN',
    schema: TokenListSchema.optional(),
    help: 'Tokens MCP clients must send (Authorization: Bearer), comma-separated for rotation (each 16-512 characters, at most 8); unset means no client authentication',
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
    help: 'Disk (or Redis memory, with --redis-url) the result store may use; the oldest results go first',
  },
  ...REDIS_SETTINGS,
} as const satisfies SettingsSpec;
export type McpServerSettings = Settings<typeof MCP_SERVER_SETTINGS>;

/** The byte caps of a result store from `--result-disk-cap-mib`: the whole store, and one result (64 MiB, or the cap when smaller). */
export function resultStoreCaps(diskCapMiB: number): { readonly diskCapBytes: number; readonly maxResultBytes: number } {
  return { diskCapBytes: diskCapMiB * MiB, maxResultBytes: Math.min(64, diskCapMiB) * MiB };
}

/**
 * The result store the settings describe: files, or Redis with --redis-url (shared by the server's replicas, keys
 * under `<redis-key-prefix><name>:`; an unreachable Redis fails the start naming the setting, and the store's
 * close closes its connection). One result is at most 64 MiB, or the cap when smaller.
 */
export async function resultStoreFor(
  settings: Pick<McpServerSettings, 'dataDir' | 'resultTtlSeconds' | 'resultDiskCapMiB' | 'redisUrl' | 'redisKeyPrefix'>,
  metrics: FlotillaMetrics,
  context: { readonly logger: Logger; readonly name: string },
): Promise<ResultStore> {
  const limits = { ttlSeconds: settings.resultTtlSeconds, ...resultStoreCaps(settings.resultDiskCapMiB), metrics };
  if (settings.redisUrl === undefined) return createFileResultStore({ directory: resolve(settings.dataDir), ...limits });
  const client = await redisFromUrl(settings.redisUrl, { logger: context.logger });
  const store = createRedisResultStore({ client, keyPrefix: `${settings.redisKeyPrefix}${context.name}:`, ...limits });
  return {
    ...store,
    async close() {
      await store.close();
      await closeRedis(client);
    },
  };
}
