import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/client';
import {
  A2A_SERVER_SETTINGS,
  abortedOutcome,
  answerTokens,
  answerWhenConnected,
  boundedMemoryStore,
  CapabilityIndex,
  connectTools,
  MCP_CLIENT_SETTINGS,
  meteredAnswerCache,
  partialMetadata,
  redisAnswerCache,
  redisConversationLock,
  redisMemoryStore,
  startA2AGate,
  startA2AServer,
  toolsReadiness,
  type AgentDescription,
  type AgentTools,
  type AnswerTurn,
  type McpConnectLimits,
  type RunningA2AServer,
} from '@flotilla/agent-kit';
import { createFileResultStore, createRedisResultStore, MCP_SERVER_SETTINGS, resultStoreCaps, type ResultStore } from '@flotilla/bounded-tools';
import { BooleanFlagSchema, HostSchema, HttpUrlSchema, LogLevelSchema, PortSchema, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';
import { createMetrics, zeroAgentSeries, type TurnOutcome, type WorkflowPath } from '@flotilla/metrics';
import type { RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import type { LlmMemory } from '@flotilla/llm';
import { checkModelSettings, executionMode, fastPathFailed, LLM_SETTINGS, MODE_SETTINGS, modeAnswerTurn } from '@flotilla/llm/modes';
import { closeRedis, REDIS_SETTINGS, redisFromUrl, type RedisClient } from '@flotilla/state';
import { ARGOCD_PROMPT } from './prompt.js';
import { ArgoCdClient } from '../client/argocd-client.js';
import { ARGOCD_UPSTREAM_SETTINGS, argoCdLimitsFrom } from '../config.js';
import { connectArgoCdToolsInProcess } from '../server.js';
import { createArgoCdAgent } from './agent.js';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';
import type { ArgoMemory } from './domain.js';

export const ARGOCD_AGENT_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_ARGOCD_AGENT_PORT', schema: PortSchema.default(8092), help: 'Port of the A2A agent (card, JSON-RPC, REST)' },
  mcpUrl: { flag: 'mcp-url', env: 'FLOTILLA_ARGOCD_MCP_URL', schema: HttpUrlSchema.optional(), help: 'Argo CD MCP server (…/mcp); unset runs the tools in process. Reached in the background, retried with backoff while it is down (/readyz 503 meanwhile)' },
  ...MCP_CLIENT_SETTINGS,
  argocdUrl: { flag: 'argocd-url', env: 'FLOTILLA_ARGOCD_URL', schema: HttpUrlSchema.optional(), help: 'Argo CD API, for in-process tools' },
  argocdToken: { flag: 'argocd-token', env: 'FLOTILLA_ARGOCD_TOKEN', schema: z.string().min(1).max(4096).optional(), help: 'Argo CD token, for in-process tools', secret: true },
  ...ARGOCD_UPSTREAM_SETTINGS,
  local: { flag: 'local', env: 'FLOTILLA_LOCAL', schema: BooleanFlagSchema.default(false), help: 'Also start the Argo CD simulator (819 applications) and use it', isSwitch: true },
  dataDir: { flag: 'data-dir', env: 'FLOTILLA_DATA_DIR', schema: z.string().min(1).optional(), help: 'Folder of spilled results (in-process tools); a temporary one when unset' },
  resultDiskCapMiB: { ...MCP_SERVER_SETTINGS.resultDiskCapMiB, help: 'Disk (or Redis memory, with --redis-url) the spilled results of the in-process tools may use; the oldest go first' },
  ...REDIS_SETTINGS,
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
  ...LLM_SETTINGS,
  ...MODE_SETTINGS,
  ...A2A_SERVER_SETTINGS,
} as const satisfies SettingsSpec;
export type ArgoCdAgentConfig = Settings<typeof ARGOCD_AGENT_SETTINGS>;

export const ARGOCD_AGENT_CARD: AgentDescription = {
  name: 'Flotilla Argo CD agent',
  description: 'Answers questions about Argo CD applications, projects, application sets and clusters (read-only), within a token budget.',
  version: '0.1.0',
  skills: [
    {
      id: 'argocd-applications',
      name: 'Argo CD applications',
      description: 'List and filter applications by project, sync, health, cluster, namespace or label; show one application; page through long answers.',
      tags: ['argocd', 'gitops', 'kubernetes', 'applications', 'apps', 'sync', 'health'],
      examples: ['which apps are out of sync in prod?', 'status of payments-api-prod', 'next page', 'only the degraded ones'],
    },
    {
      id: 'argocd-search',
      name: 'Argo CD search',
      description: 'Search applications, projects, application sets and clusters by name, label, repository or destination.',
      tags: ['argocd', 'search'],
      examples: ['find payments', 'anything about checkout?'],
    },
    {
      id: 'argocd-inventory',
      name: 'Argo CD inventory',
      description: 'Projects, application sets and clusters; what needs attention.',
      tags: ['argocd', 'projects', 'applicationsets', 'clusters'],
      examples: ['list clusters', 'list projects', 'application sets', 'what needs attention?'],
    },
  ],
};

/** The card skill each intent belongs to (a metric label); help and unknown belong to none. */
const SKILL_OF_INTENT: Readonly<Record<ArgoIntent, string>> = {
  list_applications: 'argocd-applications',
  application_details: 'argocd-applications',
  next_page: 'argocd-applications',
  refine: 'argocd-applications',
  search: 'argocd-search',
  attention: 'argocd-inventory',
  list_projects: 'argocd-inventory',
  list_applicationsets: 'argocd-inventory',
  list_clusters: 'argocd-inventory',
  help: 'none',
  unknown: 'none',
};

export interface RunningAgent {
  readonly url: string;
  close(): Promise<void>;
}

/** What only code (tests, benchmarks) sets: not a flag. */
export interface ArgoCdAgentStartOptions {
  /** The clock time windows ("synced in the last hour") are measured from; Date.now by default. */
  readonly now?: (() => number) | undefined;
  /** Bounds of the retries to reach --mcp-url (MCP_CONNECT_LIMITS by default); tests shorten them. */
  readonly mcpConnectLimits?: Partial<McpConnectLimits> | undefined;
}

/**
 * The Argo CD agent over A2A, with its tools over MCP (remote, or in process against Argo CD or the simulator).
 * With --redis-url, conversation memory ("next page"), the answer cache and (in-process tools) spilled results and
 * the snapshot index live in Redis under `<redis-key-prefix>argocd:`, so several replicas continue each other's
 * conversations and reuse each other's answers; an unreachable Redis stops
 * the start with an error naming the setting. A remote MCP server that is not up is not: the agent serves at once,
 * not ready, and connects when it comes up (MCP_CONNECT_LIMITS).
 */
export async function startArgoCdAgent(config: ArgoCdAgentConfig, logger: Logger, options: ArgoCdAgentStartOptions = {}): Promise<RunningAgent> {
  const redis: RedisClient | undefined = config.redisUrl === undefined ? undefined : await redisFromUrl(config.redisUrl, { logger });
  const keyPrefix = `${config.redisKeyPrefix}argocd:`;
  try {
    return await startWith(config, logger, redis, keyPrefix, options);
  } catch (error) {
    if (redis !== undefined) await closeRedis(redis);
    throw error;
  }
}

async function startWith(config: ArgoCdAgentConfig, logger: Logger, redis: RedisClient | undefined, keyPrefix: string, options: ArgoCdAgentStartOptions): Promise<RunningAgent> {
  const mode = executionMode(config.mode, config.llmProvider);
  // A wrong LLM setting is a configuration error now, not something the background connect to the tools could fix.
  checkModelSettings(config);
  // LangChain and the provider's SDK are loaded only for a mode that calls a model: in rules mode, never.
  const llmStack = mode === 'rules' ? undefined : await import('@flotilla/llm');
  const counter = await loadTokenCounter();
  const metrics = createMetrics({ defaultMetrics: true });
  const gate = await startA2AGate(config, { agent: 'argocd', metrics, logger });
  const classifier = createArgoCdClassifier({ now: options.now });
  /** The answer over connected tools: their capability index, the rules workflow and the model's loop over them. */
  const prepare = async (mcp: Client): Promise<AnswerTurn> => {
    const capabilities = await CapabilityIndex.fromClient(mcp);
    const llm = llmStack?.llmAnswerTurn({
      agent: 'argocd',
      settings: config,
      mcp,
      index: capabilities,
      prompt: ARGOCD_PROMPT,
      counter,
      metrics,
      logger,
      budgetFactor: gate.budgetFactor,
      memoryStore: redis === undefined ? undefined : redisMemoryStore<LlmMemory>({ client: redis, keyPrefix: `${keyPrefix}llm-memory:` }),
    });
    const agent = createArgoCdAgent({
      mcp,
      counter,
      capabilities,
      budgetFactor: gate.budgetFactor,
      memoryStore: redis === undefined ? boundedMemoryStore<ArgoMemory>({ metrics }) : redisMemoryStore<ArgoMemory>({ client: redis, keyPrefix: `${keyPrefix}memory:` }),
      answerCache: meteredAnswerCache(metrics, { store: redis === undefined ? undefined : redisAnswerCache({ client: redis, keyPrefix: `${keyPrefix}answers:` }), logger }),
      now: options.now,
    });
    /** The rules workflow's answer (the fast path in hybrid mode), and whether it really answered. */
    const rulesTurn = async (question: string, contextId: string, _progress: (note: string) => void, signal?: AbortSignal) => {
      const started = performance.now();
      let turn: Awaited<ReturnType<typeof agent.ask>>;
      try {
        turn = await agent.ask(question, contextId, signal);
      } catch (error) {
        // Aborted (deadline, shutdown): counted here, once; the executor answers it.
        const aborted = abortedOutcome(signal);
        if (aborted !== undefined) metrics.agentTurns.inc({ agent: 'argocd', skill: 'none', path: 'none', outcome: aborted });
        throw error;
      }
      const path: WorkflowPath = turn.strategy ?? 'none';
      const outcome: TurnOutcome = abortedOutcome(signal) ?? (turn.error !== undefined ? 'failed' : 'answered');
      const skill = turn.intent === undefined ? 'none' : SKILL_OF_INTENT[turn.intent];
      metrics.agentTurns.inc({ agent: 'argocd', skill, path, outcome });
      metrics.agentTurnDuration.observe({ agent: 'argocd', skill, path }, (performance.now() - started) / 1000);
      // Counted once, when the answer was written (or cached): not again per request.
      const tokens = answerTokens(turn, counter);
      metrics.agentAnswerTokens.observe({ agent: 'argocd' }, tokens);
      const metadata = {
        intent: turn.intent ?? 'none',
        confidence: turn.confidence,
        strategy: turn.strategy ?? 'none',
        tool_calls: turn.toolCalls,
        cached: turn.cached,
        answer_tokens: tokens,
        // What the answer says it did not do (words not understood, filters not applied): a partial answer.
        ...partialMetadata(turn.data),
      };
      return { reply: { answer: turn.answer, options: turn.options, metadata }, failed: fastPathFailed(turn) };
    };
    return modeAnswerTurn(mode, { agent: 'argocd', classify: (q) => classifier.classify(q), fast: rulesTurn, discovery: llm, metrics });
  };
  let tools: AgentTools<RunningSimulator, AnswerTurn>;
  try {
    tools = await connectTools({
      agent: 'argocd',
      logger: logger.child({ component: 'mcp-client' }),
      mcpUrl: config.mcpUrl,
      mcpToken: config.mcpToken,
      local: config.local,
      connectLimits: options.mcpConnectLimits,
      upstreamUrl: config.argocdUrl,
      upstreamToken: config.argocdToken,
      upstreamFlags: '--argocd-url and --argocd-token',
      // The estate's times lead up to the agent's "now", as a live Argo CD's do ("synced in the last hour" finds some).
      // The simulator's code is loaded only with --local.
      startSimulator: async (token) => {
        const { startArgoCdSimulator } = await import('@flotilla/simulators');
        return startArgoCdSimulator({ token, estate: { epoch: (options.now ?? Date.now)() }, logger: logger.child({ component: 'argocd-sim' }) });
      },
      inProcess: async (url, token) => {
        const store: ResultStore =
          redis === undefined
            ? await createFileResultStore({ directory: resolve(config.dataDir ?? (await mkdtemp(join(tmpdir(), 'flotilla-agent-')))), ...resultStoreCaps(config.resultDiskCapMiB), metrics })
            : createRedisResultStore({ client: redis, keyPrefix, ...resultStoreCaps(config.resultDiskCapMiB), metrics });
        const client = new ArgoCdClient({ baseUrl: url, token, limits: argoCdLimitsFrom(config), metrics, logger: logger.child({ component: 'argocd-client' }) });
        const connected = await connectArgoCdToolsInProcess({ client, counter, store, metrics, logger: logger.child({ component: 'argocd-mcp' }), budgetFactor: gate.budgetFactor });
        return {
          client: connected.client,
          async close() {
            await connected.close();
            await store.close();
          },
        };
      },
      prepare,
    });
  } catch (error) {
    gate.guard.stop();
    throw error;
  }
  logger.info({ mode }, 'execution mode');
  let a2a: RunningA2AServer;
  try {
    // Up at once, also while a remote MCP server is still being reached: card, probes and metrics answer, /readyz says
    // why it is not ready, and a question is answered that the tools are not connected yet.
    a2a = await startA2AServer({
      agent: ARGOCD_AGENT_CARD,
      host: config.host,
      port: config.port,
      publicUrl: config.publicUrl,
      logger,
      metrics,
      auth: gate.auth,
      guard: gate.guard,
      readiness: toolsReadiness(tools),
      onReject: gate.onReject,
      onQueueDepth: gate.onQueueDepth,
      turnTimeoutMs: config.turnTimeoutMs,
      // With replicas, a conversation's turns are ordered across them (a lease in Redis), not only within this one.
      conversationLock: redis === undefined ? undefined : redisConversationLock({ client: redis, keyPrefix: `${keyPrefix}turn-lock:`, logger: logger.child({ component: 'conversation-lock' }) }),
      answer: answerWhenConnected(tools, () => metrics.agentTurns.inc({ agent: 'argocd', skill: 'none', path: 'none', outcome: 'rejected' })),
    });
  } catch (error) {
    await tools.close();
    gate.guard.stop();
    throw error;
  }
  // Every turn series exists from the start, at zero: the first failed turn after a start can alert.
  zeroAgentSeries(metrics, 'argocd', ARGOCD_AGENT_CARD.skills.map((s) => s.id));
  // A server that is up is connected before the start returns (the demo asks at once); one that is not stays retried.
  await tools.firstAttempt;
  return {
    url: a2a.url,
    async close() {
      await a2a.close();
      gate.guard.stop();
      await tools.close();
      if (redis !== undefined) await closeRedis(redis);
    },
  };
}
