import { boundedInt, HttpUrlSchema, TokenListSchema, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';
import { A2A_REJECT_REASONS, type A2ARejectReason, type FlotillaMetrics } from '@flotilla/metrics';
import type { A2AAuth } from './a2a.js';
import { TURN_LIMITS } from './executor.js';
import { startMemoryGuard, type MemoryGuard } from './memory-guard.js';

/** Tokens an A2A server accepts: comma-separated (two during a rotation), core's token list (TOKEN_MIN_CHARS-TOKEN_MAX_CHARS each). */
export const A2ATokensSchema = TokenListSchema;

/**
 * The base URL an A2A server's card advertises: http(s), no credentials, query or fragment; a trailing slash is
 * dropped (the card's interfaces are `<url>/a2a/jsonrpc` and `<url>/a2a/rest`).
 */
export const PublicUrlSchema = HttpUrlSchema.refine((value) => {
  if (!URL.canParse(value)) return true; // reported by HttpUrlSchema
  const url = new URL(value);
  return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
}, 'must be a base URL such as http://flotilla-argocd.ops.svc:8092, without credentials, query or fragment').transform((value) => value.replace(/\/+$/, ''));

/**
 * Settings every A2A server process shares: where callers reach it, who may call it, the memory it may use, and how
 * long one question may take.
 */
export const A2A_SERVER_SETTINGS = {
  publicUrl: {
    flag: 'public-url',
    env: 'FLOTILLA_PUBLIC_URL',
    schema: PublicUrlSchema.optional(),
    help: 'Base URL the agent card advertises, as other hosts reach this server (in Kubernetes: http://<service>.<namespace>.svc:<port>); unset: the listen address, or on a wildcard bind (0.0.0.0) this host\'s own address, never loopback',
  },
  a2aTokens: {
    flag: 'a2a-tokens',
    env: 'FLOTILLA_A2A_TOKENS',
    schema: A2ATokensSchema.optional(),
    help: 'Tokens callers must send (Authorization: Bearer, or X-API-Key), comma-separated for rotation; unset: open (local use only)',
    secret: true,
  },
  memoryLimitMib: {
    flag: 'memory-limit-mib',
    env: 'FLOTILLA_MEMORY_LIMIT_MIB',
    schema: boundedInt(16, 1_048_576).optional(),
    help: 'Memory limit the guard works to (budgets halve above 75%, new work is refused above 90%); default: the container limit from the cgroup',
  },
  turnTimeoutMs: {
    flag: 'turn-timeout-ms',
    env: 'FLOTILLA_TURN_TIMEOUT_MS',
    schema: boundedInt(1_000, 600_000).default(TURN_LIMITS.timeoutMs),
    help: 'Time one question may take from its arrival: past it, a running question is stopped and answered so (FAILED, timed_out), one still waiting for an earlier question of its conversation is answered busy',
  },
} as const satisfies SettingsSpec;
export type A2AServerSettings = Settings<typeof A2A_SERVER_SETTINGS>;

export interface A2AGate {
  readonly auth: A2AAuth | undefined;
  readonly guard: MemoryGuard;
  readonly onReject: (reason: A2ARejectReason) => void;
  /** Sets the gauge of turns waiting for an earlier turn of their conversation. */
  readonly onQueueDepth: (waiting: number) => void;
  /** 1, or 0.5 while memory is tight: multiplies tool, answer and context budgets. */
  readonly budgetFactor: () => number;
}

/** The credentials and the memory guard of an A2A server process, from its settings; metered under `agent`. */
export async function startA2AGate(settings: A2AServerSettings, options: { readonly agent: string; readonly metrics: FlotillaMetrics; readonly logger: Logger }): Promise<A2AGate> {
  const guard = await startMemoryGuard({
    agent: options.agent,
    metrics: options.metrics,
    logger: options.logger.child({ component: 'memory-guard' }),
    limitBytes: settings.memoryLimitMib === undefined ? undefined : settings.memoryLimitMib * 1024 * 1024,
  });
  // Zero from the start, so rate() over the counter sees the first rejection.
  for (const reason of A2A_REJECT_REASONS) options.metrics.a2aRejected.inc({ agent: options.agent, reason }, 0);
  options.metrics.conversationQueue.set({ agent: options.agent }, 0);
  if (settings.a2aTokens === undefined) options.logger.warn('A2A is open: set --a2a-tokens (FLOTILLA_A2A_TOKENS) outside local use');
  return {
    auth: settings.a2aTokens === undefined ? undefined : { tokens: settings.a2aTokens },
    guard,
    onReject: (reason) => options.metrics.a2aRejected.inc({ agent: options.agent, reason }),
    onQueueDepth: (waiting) => options.metrics.conversationQueue.set({ agent: options.agent }, waiting),
    budgetFactor: () => guard.budgetFactor,
  };
}
