import { z } from 'zod';
import { A2A_SERVER_SETTINGS, abortedOutcome, redisConversationLock, startA2AGate, startA2AServer, type AgentDescription, type RunningA2AServer } from '@flotilla/agent-kit';
import { BooleanFlagSchema, boundedInt, FlotillaError, hostSetting, logLevelSetting, portSetting, redactUrl, tokenSchema, urlHasUserinfo, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';
import { createMetrics, zeroAgentSeries, type FlotillaMetrics } from '@flotilla/metrics';
import { closeRedis, REDIS_SETTINGS, redisFromUrl, type RedisClient } from '@flotilla/state';
import { loadTokenCounter } from '@flotilla/tokens';
import { staticAgentSource, type AgentSource } from './discovery/types.js';
import { AgentRegistry, REGISTRY_LIMITS, type AgentCredentials } from './registry.js';
import { redisConversations, Supervisor, SUPERVISOR_LIMITS } from './supervisor.js';

/** `name=url` pairs, comma-separated: the agents the supervisor routes to besides discovered ones. */
export const AgentListSchema = z
  .string()
  .max(4_000, 'must be at most 4000 characters')
  .transform((text, ctx) => {
    const pairs = text
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    const out: { id: string; url: string }[] = [];
    for (const pair of pairs) {
      const match = /^([a-z0-9][a-z0-9_.-]{0,62})=(https?:\/\/\S+)$/i.exec(pair);
      if (match === null) {
        ctx.addIssue({ code: 'custom', message: `"${redactUrl(pair).slice(0, 80)}" is not name=http(s)://host:port` });
        return z.NEVER;
      }
      if (urlHasUserinfo(match[2] ?? '')) {
        ctx.addIssue({ code: 'custom', message: `"${redactUrl(pair).slice(0, 80)}" carries credentials in its URL: remove them and give the agents' token with --agent-token (FLOTILLA_AGENT_TOKEN)` });
        return z.NEVER;
      }
      out.push({ id: match[1] ?? '', url: (match[2] ?? '').replace(/\/+$/, '') });
    }
    if (out.length > REGISTRY_LIMITS.maxAgents) {
      ctx.addIssue({ code: 'custom', message: `at most ${REGISTRY_LIMITS.maxAgents} agents` });
      return z.NEVER;
    }
    return out;
  });

export const SUPERVISOR_SETTINGS = {
  host: hostSetting(),
  port: portSetting({ env: 'FLOTILLA_SUPERVISOR_PORT', default: 8090, help: 'Port of the supervisor (A2A card, JSON-RPC, REST, /metrics)' }),
  agents: {
    flag: 'agents',
    env: 'FLOTILLA_AGENTS',
    schema: AgentListSchema.default([]),
    help: 'Domain agents as name=url pairs, comma-separated (e.g. argocd=http://127.0.0.1:8092,netbox=http://127.0.0.1:8094)',
  },
  kubernetes: {
    flag: 'kubernetes',
    env: 'FLOTILLA_DISCOVER_KUBERNETES',
    schema: BooleanFlagSchema.default(false),
    // The label is discovery's DISCOVERY_LABEL, spelt out: importing it would load the Kubernetes client in every supervisor.
    help: 'Also discover agents from Kubernetes Services labelled flotilla.io/agent (in-cluster config, else ~/.kube/config)',
    isSwitch: true,
  },
  namespace: { flag: 'namespace', env: 'FLOTILLA_NAMESPACE', schema: z.string().min(1).max(63).optional(), help: 'Namespace to discover agents in (unset: all the token may list)' },
  agentToken: {
    flag: 'agent-token',
    env: 'FLOTILLA_AGENT_TOKEN',
    schema: tokenSchema('the agents\' token').optional(),
    help: 'Bearer token sent to domain agents that require one',
    secret: true,
  },
  maxDelegations: {
    flag: 'max-delegations',
    env: 'FLOTILLA_MAX_DELEGATIONS',
    schema: boundedInt(1, 10).default(SUPERVISOR_LIMITS.maxDelegations),
    help: 'Agents one question may be delegated to',
  },
  callTimeoutMs: {
    flag: 'call-timeout-ms',
    env: 'FLOTILLA_CALL_TIMEOUT_MS',
    schema: boundedInt(1_000, 600_000).default(SUPERVISOR_LIMITS.callTimeoutMs),
    help: 'Time one delegation may take',
  },
  replyMaxTokens: {
    flag: 'reply-max-tokens',
    env: 'FLOTILLA_REPLY_MAX_TOKENS',
    schema: boundedInt(200, 50_000).default(SUPERVISOR_LIMITS.replyMaxTokens),
    help: 'Tokens of one agent reply passed on (longer ones are cut with a pointer to the rest)',
  },
  redisUrl: {
    ...REDIS_SETTINGS.redisUrl,
    help: 'Redis for the routing state replicas share (which agents answered each conversation last, so "next page" reaches them at any replica); in this process when unset',
  },
  redisKeyPrefix: { ...REDIS_SETTINGS.redisKeyPrefix, help: 'Prefix of every Redis key (supervisor: follows), so several installations can share one Redis' },
  logLevel: logLevelSetting(),
  ...A2A_SERVER_SETTINGS,
  turnTimeoutMs: { ...A2A_SERVER_SETTINGS.turnTimeoutMs, schema: A2A_SERVER_SETTINGS.turnTimeoutMs.schema.removeDefault().default(SUPERVISOR_LIMITS.turnTimeoutMs) },
} as const satisfies SettingsSpec;
export type SupervisorConfig = Settings<typeof SUPERVISOR_SETTINGS>;

/** The supervisor's one skill: its card's, and the `skill` label of its turns. */
const SUPERVISOR_SKILL = 'route';

export const SUPERVISOR_CARD: AgentDescription = {
  name: 'Flotilla supervisor',
  description: 'Routes operations questions to the Flotilla domain agents (Argo CD, NetBox, …) by their skills, in parallel when a question spans domains, and merges their answers within a token budget.',
  version: '0.1.0',
  skills: [
    {
      id: SUPERVISOR_SKILL,
      name: 'Operations questions',
      description: 'Any question the domain agents answer; follow-ups ("next page") reach the agent that answered.',
      tags: ['supervisor', 'routing'],
      examples: ['which apps are out of sync in prod?', 'interfaces of every switch in ams1', 'which apps are out of sync in prod and which switches are offline in ams1?'],
    },
  ],
};

export interface RunningSupervisor {
  readonly url: string;
  readonly registry: AgentRegistry;
  readonly metrics: FlotillaMetrics;
  close(): Promise<void>;
}

/** Bearer credentials for every agent, when configured. */
function bearer(token: string | undefined): AgentCredentials | undefined {
  return token === undefined ? undefined : { headersFor: () => ({ authorization: `Bearer ${token}` }) };
}

/**
 * The supervisor over A2A: a registry of domain agents (configured and discovered) and the router in front of them.
 * With --redis-url, the routing state (which agents answered each conversation last) and the conversation lock live
 * in Redis under `<redis-key-prefix>supervisor:`, so "next page" asked of any replica reaches the agent that
 * answered; an unreachable Redis stops the start with an error naming the setting, and later failures are said in
 * the answer (the process stays up).
 */
export async function startSupervisor(config: SupervisorConfig, logger: Logger, extraSources: readonly AgentSource[] = []): Promise<RunningSupervisor> {
  const redis: RedisClient | undefined = config.redisUrl === undefined ? undefined : await redisFromUrl(config.redisUrl, { logger });
  try {
    return await startWith(config, logger, extraSources, redis, `${config.redisKeyPrefix}supervisor:`);
  } catch (error) {
    if (redis !== undefined) await closeRedis(redis);
    throw error;
  }
}

async function startWith(config: SupervisorConfig, logger: Logger, extraSources: readonly AgentSource[], redis: RedisClient | undefined, keyPrefix: string): Promise<RunningSupervisor> {
  if (!config.kubernetes && extraSources.length === 0 && config.agents.length === 0) {
    throw new FlotillaError('config_invalid', 'the supervisor has no agents: set --agents name=url,… or --kubernetes', { remedy: 'Run flotilla supervisor --help for the settings.' });
  }
  if (config.callTimeoutMs >= config.turnTimeoutMs) {
    logger.warn(
      { callTimeoutMs: config.callTimeoutMs, turnTimeoutMs: config.turnTimeoutMs },
      'the delegation timeout (--call-timeout-ms) is not below the turn deadline (--turn-timeout-ms): questions stop at the turn deadline before a slow agent is reported as timed out',
    );
  }
  const sources: AgentSource[] = [staticAgentSource(config.agents), ...extraSources];
  if (config.kubernetes) {
    // The Kubernetes client (~50 MiB of RSS once loaded) only when discovery is asked for.
    const [{ KubeConfig }, { kubernetesAgentSource }] = await Promise.all([import('@kubernetes/client-node'), import('./discovery/kubernetes.js')]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromDefault();
    sources.push(kubernetesAgentSource({ kubeConfig, namespace: config.namespace, logger: logger.child({ component: 'discovery' }) }));
  }
  const counter = await loadTokenCounter();
  const metrics = createMetrics({ defaultMetrics: true });
  // Its turn series exist at zero from the start, so increase() counts the first failed turn.
  zeroAgentSeries(metrics, 'supervisor', [SUPERVISOR_SKILL]);
  const gate = await startA2AGate(config, { agent: 'supervisor', metrics, logger });
  const registry = new AgentRegistry({ sources, logger: logger.child({ component: 'registry' }), metrics, credentials: bearer(config.agentToken), selfName: SUPERVISOR_CARD.name });
  const supervisor = new Supervisor({
    registry,
    counter,
    metrics,
    logger,
    maxDelegations: config.maxDelegations,
    callTimeoutMs: config.callTimeoutMs,
    replyMaxTokens: config.replyMaxTokens,
    conversations: redis === undefined ? undefined : redisConversations(redis, `${keyPrefix}memory:`),
  });
  const answer = async (question: string, contextId: string, progress: (note: string) => void, signal?: AbortSignal) => {
    const started = performance.now();
    // Delegations stop when the turn is aborted (deadline, shutdown): they end as results, so the turn returns.
    const turn = await supervisor.answer(question, contextId, progress, signal);
    const answerTokens = counter.count(turn.answer);
    // A turn whose answer depended on an agent that failed or is down is not `answered`: `failed` when nothing was
    // answered (the A2A error alert counts it), `tool_error` when only part was.
    const outcome = abortedOutcome(signal) ?? turn.outcome;
    metrics.agentTurns.inc({ agent: 'supervisor', skill: SUPERVISOR_SKILL, path: 'direct', outcome });
    metrics.agentTurnDuration.observe({ agent: 'supervisor', skill: SUPERVISOR_SKILL, path: 'direct' }, (performance.now() - started) / 1000);
    metrics.agentAnswerTokens.observe({ agent: 'supervisor' }, answerTokens);
    return { answer: turn.answer, options: turn.options, data: turn.data, metadata: { ...turn.metadata, answer_tokens: answerTokens } };
  };
  let a2a: RunningA2AServer;
  try {
    await registry.start();
    a2a = await startA2AServer({
      agent: SUPERVISOR_CARD,
      host: config.host,
      port: config.port,
      publicUrl: config.publicUrl,
      logger,
      metrics,
      auth: gate.auth,
      guard: gate.guard,
      onReject: gate.onReject,
      onQueueDepth: gate.onQueueDepth,
      turnTimeoutMs: config.turnTimeoutMs,
      // With replicas, a conversation's turns are ordered across them (a lease in Redis): a follow-up reads who
      // answered only after the turn before it saved that.
      conversationLock: redis === undefined ? undefined : redisConversationLock({ client: redis, keyPrefix: `${keyPrefix}turn-lock:`, logger: logger.child({ component: 'conversation-lock' }) }),
      answer,
    });
  } catch (error) {
    gate.guard.stop();
    await registry.close();
    throw error;
  }
  logger.info({ url: a2a.url, agents: registry.list().map((a) => `${a.id} (${a.state})`) }, 'supervisor ready');
  return {
    url: a2a.url,
    registry,
    metrics,
    async close() {
      await a2a.close();
      gate.guard.stop();
      await registry.close();
      if (redis !== undefined) await closeRedis(redis);
    },
  };
}
